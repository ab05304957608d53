// Symbol table access with lazy reads; see execution_context.h.
#include "instructions/execution_context.h"

#include <algorithm>

#include "gpu_context/error.h"
#include "instructions/instruction.h"

namespace dmlrt::inst {

void Services::run_workers(int k, const std::function<void(int, Services&)>& body) {
  (void)body;
  DMLRT_FAIL(NotSupported, "running " << k << " workers (paramserv) needs the interpreter's "
                                     "services; these services run no worker threads");
}

Value with_own_objects(const Value& v) {
  if (const auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(&v)) {
    const std::shared_ptr<const kernels::MatrixBlock>& b = (*mo)->block();
    DMLRT_REQUIRE(b != nullptr, RuntimeError,
                  "a matrix handed to a worker thread has no data (file '" << (*mo)->file_name()
                                                                           << "' not read)");
    auto c = std::make_shared<MatrixObject>();
    c->set_block(b);
    return c;
  }
  if (const auto* l = std::get_if<ListPtr>(&v)) {
    auto out = std::make_shared<ListValue>(**l);
    for (Value& item : out->items) item = with_own_objects(item);
    return ListPtr(std::move(out));
  }
  return v;
}

const char* kind_of(const Value& v) {
  if (std::holds_alternative<ScalarValue>(v)) return "scalar";
  if (std::holds_alternative<ListPtr>(v)) return "list";
  return "matrix";
}

const Value* ExecutionContext::find(const std::string& name) const {
  auto it = vars_.find(name);
  const Value* v = it == vars_.end() ? nullptr : &it->second;
  if (t_graph_watch != nullptr) t_graph_watch->read(name, v);
  return v;
}

Value& ExecutionContext::at(const std::string& name) {
  auto it = vars_.find(name);
  if (t_graph_watch != nullptr)
    t_graph_watch->read(name, it == vars_.end() ? nullptr : &it->second);
  DMLRT_REQUIRE(it != vars_.end(), RuntimeError, "variable '" << name << "' is not defined");
  return it->second;
}

std::vector<std::string> ExecutionContext::names() const {
  std::vector<std::string> out;
  out.reserve(vars_.size());
  for (const auto& kv : vars_) out.push_back(kv.first);
  std::sort(out.begin(), out.end());
  return out;
}

ScalarValue ExecutionContext::scalar(const Operand& op) {
  if (op.literal) return ScalarValue::from_literal(op.name, op.value_type);
  return scalar(op.name);
}

ScalarValue ExecutionContext::scalar(const std::string& name) {
  Value& v = at(name);
  if (auto* s = std::get_if<ScalarValue>(&v)) return *s;
  DMLRT_FAIL(RuntimeError,
             "variable '" << name << "' is a " << kind_of(v) << " where a scalar is expected");
}

std::shared_ptr<MatrixObject> ExecutionContext::matrix_object(const std::string& name) {
  return matrix_object_ref(name);
}

const std::shared_ptr<MatrixObject>& ExecutionContext::matrix_object_ref(const std::string& name) {
  Value& v = at(name);
  if (auto* m = std::get_if<std::shared_ptr<MatrixObject>>(&v)) return *m;
  DMLRT_FAIL(RuntimeError,
             "variable '" << name << "' is a " << kind_of(v) << " where a matrix is expected");
}

ListPtr ExecutionContext::list(const std::string& name) {
  Value& v = at(name);
  if (auto* l = std::get_if<ListPtr>(&v)) return *l;
  DMLRT_FAIL(RuntimeError,
             "variable '" << name << "' is a " << kind_of(v) << " where a list is expected");
}

std::shared_ptr<const kernels::MatrixBlock> ExecutionContext::matrix(const Operand& op) {
  DMLRT_REQUIRE(!op.literal, RuntimeError,
                "literal '" << op.name << "' used where a matrix is expected");
  return matrix(op.name);
}

std::shared_ptr<const kernels::MatrixBlock> ExecutionContext::matrix(const std::string& name) {
  return matrix_data(*matrix_object_ref(name), name);
}

std::shared_ptr<const kernels::MatrixBlock> ExecutionContext::matrix_data(MatrixObject& mo,
                                                                          const std::string& name) {
  if (!mo.has_block()) {
    DMLRT_REQUIRE(!mo.file_name().empty(), RuntimeError,
                  "matrix '" << name << "' has no data and no file to read it from");
    mo.set_block(services_->read_matrix(mo));
  }
  return mo.block();
}

void ExecutionContext::set_matrix(const std::string& name, kernels::MatrixBlock block) {
  set_matrix(name, std::make_shared<const kernels::MatrixBlock>(std::move(block)));
}

void ExecutionContext::set_matrix(const std::string& name,
                                  std::shared_ptr<const kernels::MatrixBlock> block) {
  if (t_graph_watch != nullptr) t_graph_watch->wrote(name);
  auto it = vars_.find(name);
  if (it != vars_.end()) {
    if (auto* m = std::get_if<std::shared_ptr<MatrixObject>>(&it->second)) {
      (*m)->set_block(std::move(block));
      return;
    }
  }
  auto mo = std::make_shared<MatrixObject>();
  mo->set_block(std::move(block));
  vars_[name] = std::move(mo);
}

void ExecutionContext::set_scalar(const Operand& out, const ScalarValue& v) {
  set(out.name, out.value_type == ValueType::kUnknown ? v : v.cast_to(out.value_type));
}

Dims ExecutionContext::dims(const Operand& op) {
  DMLRT_REQUIRE(!op.literal, RuntimeError,
                "literal '" << op.name << "' used where a matrix is expected");
  const std::shared_ptr<MatrixObject>& mo = matrix_object_ref(op.name);
  const MatrixMeta& m = mo->meta();
  if (m.rows >= 0 && m.cols >= 0) return Dims{m.rows, m.cols};
  const auto block = matrix(op.name);  // reads the file
  return Dims{block->rows(), block->cols()};
}

}  // namespace dmlrt::inst
