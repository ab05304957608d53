// The embedded API (include/dmlrt/api.h): Connection, PreparedScript and ResultVariables over the
// plan parser and interpreter. Internal errors already derive from dmlrt::Error (see Note [One
// Error type]); anything else that escapes the runtime is wrapped into one with its message.
#include "dmlrt/api.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <variant>

#include "gpu_context/device.h"
#include "gpu_context/error.h"
#include "gpu_context/log.h"
#include "instructions/execution_context.h"
#include "memory/gpu_session.h"
#include "runtime/config.h"
#include "runtime/explain.h"
#include "runtime/gpu_setup.h"
#include "runtime/interpreter.h"
#include "runtime/plan_parser.h"
#include "runtime/plan_rewrites.h"
#include "runtime/stats.h"

namespace dmlrt {
namespace {

using BlockPtr = std::shared_ptr<const kernels::MatrixBlock>;
// A bound input or a collected output: a scalar, or a matrix's data (shared, never modified).
using Binding = std::variant<inst::ScalarValue, BlockPtr>;

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

// Runs `f`, turning anything that is not yet a dmlrt::Error into one with the same message.
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("out of host memory");
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
}

kernels::MatrixBlock to_block(const Matrix& m) {
  kernels::MatrixBlock b =
      m.is_sparse()
          ? kernels::MatrixBlock::csr(m.rows(), m.cols(), m.row_ptr(), m.col_idx(), m.values())
          : kernels::MatrixBlock::dense(m.rows(), m.cols(), m.data());
  // Inputs take the format SystemDS would give them (JMLC's conversion does the same).
  b.examine_format();
  return b;
}

Matrix to_matrix(const kernels::MatrixBlock& b) {
  if (b.is_sparse())
    return Matrix::csr(b.rows(), b.cols(), b.row_ptr(), b.col_idx(), b.csr_values());
  return Matrix(b.rows(), b.cols(), b.dense_values());
}

runtime::PlanArgs to_plan_args(const std::map<std::string, std::string>& args) {
  runtime::PlanArgs out;
  for (const auto& [raw_key, value] : args) {
    const std::string key = (!raw_key.empty() && raw_key[0] == '$') ? raw_key.substr(1) : raw_key;
    if (key.empty()) throw Error("prepare_script: empty argument name");
    const bool positional = key.find_first_not_of("0123456789") == std::string::npos;
    if (!positional) {
      out.named[key] = value;
      continue;
    }
    const unsigned long idx = std::stoul(key);
    if (idx == 0 || idx > 100000) throw Error("prepare_script: bad positional argument $" + key);
    if (out.positional.size() < idx) out.positional.resize(idx);
    out.positional[idx - 1] = value;
  }
  return out;
}

void check_names(const std::vector<std::string>& names, const char* what) {
  std::set<std::string> seen;
  for (const std::string& n : names) {
    if (n.empty()) throw Error(std::string("prepare_script: empty ") + what + " name");
    if (!seen.insert(n).second) {
      throw Error(std::string("prepare_script: ") + what + " '" + n + "' is declared twice");
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- Connection

struct Connection::Impl {
  Options options;
  runtime::RuntimeConfig config;
};

Connection::Connection() : Connection(Options{}) {}

Connection::Connection(Options options) {
  auto impl = std::make_shared<Impl>();
  impl->options = std::move(options);
  guarded([&] {
    if (!impl->options.config_file.empty()) {
      runtime::ConfigMessages messages;
      runtime::read_config_file(impl->options.config_file, impl->config, &messages);
      for (const std::string& w : messages.warnings) DMLRT_WARN(w);
      for (const std::string& n : messages.notes) DMLRT_INFO(n);
      // sysds.floating.point.precision=single selects single precision like Options::precision.
      if (impl->config.precision == runtime::FloatPrecision::kSingle) {
        impl->options.precision = Precision::kSingle;
      }
    }
  });
  if (impl->options.statistics_top_n < 0) {
    throw Error("Connection: statistics_top_n must be >= 0, got " +
                std::to_string(impl->options.statistics_top_n));
  }
  // The GPU session is opened by the first execute() of a script that needs it (gpu_setup.h); a
  // machine without a usable device runs everything on the CPU after one warning then.
  impl_ = std::move(impl);
}

Connection::~Connection() = default;
Connection::Connection(const Connection&) = default;
Connection& Connection::operator=(const Connection&) = default;
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

const Options& Connection::options() const { return impl_->options; }

std::string Connection::read_script(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) throw IoError(path + ": cannot read the script");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---------------------------------------------------------------- PreparedScript

struct PreparedScript::Impl {
  std::shared_ptr<const Connection::Impl> conn;
  runtime::Program program;
  double parse_seconds = 0.0;
  std::vector<std::string> inputs, outputs;
  std::set<std::string> input_set, output_set;
  std::map<std::string, Binding> bindings;
  std::string last_statistics;
  // Opened by the first execute() that needs it and kept for later runs (creating a context costs
  // far more than a typical run); shared by copies of the script.
  std::shared_ptr<mem::GpuSession> gpu;
  bool gpu_opened = false;

  void require_input(const std::string& name, const char* what) const {
    if (!input_set.count(name)) {
      throw Error(std::string(what) + ": '" + name +
                  "' is not a declared input of this script (inputs: " + join(inputs) + ")");
    }
  }
};

namespace {

PreparedScript::Impl* make_script_impl(std::shared_ptr<const Connection::Impl> conn,
                                       const std::vector<std::string>& inputs,
                                       const std::vector<std::string>& outputs) {
  check_names(inputs, "input");
  check_names(outputs, "output");
  auto* s = new PreparedScript::Impl();
  s->conn = std::move(conn);
  s->inputs = inputs;
  s->outputs = outputs;
  s->input_set.insert(inputs.begin(), inputs.end());
  s->output_set.insert(outputs.begin(), outputs.end());
  return s;
}

}  // namespace

PreparedScript Connection::prepare_script(const std::string& plan_text,
                                          const std::vector<std::string>& inputs,
                                          const std::vector<std::string>& outputs,
                                          const std::map<std::string, std::string>& args) const {
  std::unique_ptr<PreparedScript::Impl> s(make_script_impl(impl_, inputs, outputs));
  guarded([&] {
    const auto t0 = std::chrono::steady_clock::now();
    s->program = runtime::parse_plan(plan_text, "<script>", to_plan_args(args));
    runtime::apply_plan_rewrites(s->program, impl_->config);
    s->parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  return PreparedScript(std::move(s));
}

PreparedScript Connection::prepare_script_file(
    const std::string& path, const std::vector<std::string>& inputs,
    const std::vector<std::string>& outputs, const std::map<std::string, std::string>& args) const {
  std::unique_ptr<PreparedScript::Impl> s(make_script_impl(impl_, inputs, outputs));
  guarded([&] {
    const auto t0 = std::chrono::steady_clock::now();
    s->program = runtime::parse_plan_file(path, to_plan_args(args));
    runtime::apply_plan_rewrites(s->program, impl_->config);
    s->parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  return PreparedScript(std::move(s));
}

PreparedScript::PreparedScript(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PreparedScript::~PreparedScript() = default;
PreparedScript::PreparedScript(PreparedScript&&) noexcept = default;
PreparedScript& PreparedScript::operator=(PreparedScript&&) noexcept = default;

const std::vector<std::string>& PreparedScript::input_names() const { return impl_->inputs; }
const std::vector<std::string>& PreparedScript::output_names() const { return impl_->outputs; }

void PreparedScript::set_matrix(const std::string& name, int64_t rows, int64_t cols,
                                const double* row_major) {
  impl_->require_input(name, "set_matrix");
  if (rows < 0 || cols < 0) {
    throw Error("set_matrix: '" + name + "': negative dimensions " + std::to_string(rows) + "x" +
                std::to_string(cols));
  }
  if (row_major == nullptr && rows * cols > 0) {
    throw Error("set_matrix: '" + name + "': null data for a " + std::to_string(rows) + "x" +
                std::to_string(cols) + " matrix");
  }
  std::vector<double> data(row_major, row_major + rows * cols);
  set_matrix(name, Matrix(rows, cols, std::move(data)));
}

void PreparedScript::set_matrix(const std::string& name,
                                const std::vector<std::vector<double>>& rows) {
  impl_->require_input(name, "set_matrix");
  set_matrix(name, Matrix::from_rows(rows));
}

void PreparedScript::set_matrix(const std::string& name, Matrix m) {
  impl_->require_input(name, "set_matrix");
  impl_->bindings[name] =
      guarded([&] { return std::make_shared<const kernels::MatrixBlock>(to_block(m)); });
}

void PreparedScript::set_scalar(const std::string& name, double v) {
  impl_->require_input(name, "set_scalar");
  impl_->bindings[name] = inst::ScalarValue::fp64(v);
}
void PreparedScript::set_scalar(const std::string& name, int64_t v) {
  impl_->require_input(name, "set_scalar");
  impl_->bindings[name] = inst::ScalarValue::int64(v);
}
void PreparedScript::set_scalar(const std::string& name, bool v) {
  impl_->require_input(name, "set_scalar");
  impl_->bindings[name] = inst::ScalarValue::boolean(v);
}
void PreparedScript::set_scalar(const std::string& name, std::string v) {
  impl_->require_input(name, "set_scalar");
  impl_->bindings[name] = inst::ScalarValue::string(std::move(v));
}

void PreparedScript::clear_parameters() { impl_->bindings.clear(); }

std::string PreparedScript::statistics() const { return impl_->last_statistics; }

std::string PreparedScript::explain(bool raw) const {
  return guarded([&] {
    std::ostringstream os;
    runtime::print_explain(impl_->program, os, raw);
    return os.str();
  });
}

// ---------------------------------------------------------------- ResultVariables

struct ResultVariables::Impl {
  std::vector<std::string> declared;
  std::map<std::string, Binding> values;

  const Binding& get(const std::string& name, const char* what) const {
    const auto it = values.find(name);
    if (it != values.end()) return it->second;
    if (std::find(declared.begin(), declared.end(), name) == declared.end()) {
      throw Error(std::string(what) + ": '" + name +
                  "' is not a declared output of this script (outputs: " + join(declared) + ")");
    }
    throw Error(std::string(what) + ": output '" + name +
                "' is not in the symbol table after the run (the plan never set it, or removed it "
                "with rmvar; plans for the API must keep their outputs)");
  }
  const inst::ScalarValue& scalar(const std::string& name, const char* what) const {
    const Binding& b = get(name, what);
    if (const auto* s = std::get_if<inst::ScalarValue>(&b)) return *s;
    const auto& m = std::get<BlockPtr>(b);
    throw Error(std::string(what) + ": output '" + name + "' is a " +
                kernels::dims_string(m->rows(), m->cols()) + " matrix, not a scalar");
  }
  const kernels::MatrixBlock& matrix(const std::string& name, const char* what) const {
    const Binding& b = get(name, what);
    if (const auto* m = std::get_if<BlockPtr>(&b)) return **m;
    throw Error(std::string(what) + ": output '" + name + "' is a scalar (" +
                inst::name_of(std::get<inst::ScalarValue>(b).type()) + "), not a matrix");
  }
};

ResultVariables PreparedScript::execute() {
  Impl& s = *impl_;
  for (const std::string& in : s.inputs) {
    if (!s.bindings.count(in)) {
      throw Error("execute: input '" + in +
                  "' has no value; bind it with set_matrix or set_scalar");
    }
  }
  const Options& opts = s.conn->options;
  s.last_statistics.clear();
  auto result = std::make_unique<ResultVariables::Impl>();
  result->declared = s.outputs;
  guarded([&] {
    runtime::Statistics stats;
    stats.set_max_wrap_length(s.conn->config.stats_max_wrap_length);
    std::ostream& out = opts.output ? *opts.output : std::cout;
    runtime::Interpreter interp(s.program, out, opts.statistics ? &stats : nullptr);
    inst::RunOptions run_options;
    run_options.seed = opts.seed;
    run_options.gpu_mode = opts.gpu == GpuMode::kForce ? inst::GpuMode::kForce
                           : opts.gpu == GpuMode::kOn  ? inst::GpuMode::kOn
                                                       : inst::GpuMode::kOff;
    if (!s.gpu_opened) {
      runtime::RuntimeConfig config = s.conn->config;
      config.precision = opts.precision == Precision::kSingle ? runtime::FloatPrecision::kSingle
                                                              : runtime::FloatPrecision::kDouble;
      s.gpu = runtime::open_gpu_for_run(s.program, run_options.gpu_mode, config, -1, false);
      s.gpu_opened = true;
    }
    run_options.gpu = s.gpu;
#ifdef DMLRT_WITH_CUDA
    if (s.gpu) s.gpu->set_timing(opts.statistics && s.conn->config.stats_gpu_events);
#endif
    if (s.gpu) stats.set_gpu_stats(mem::stats_of(s.gpu.get()));
    inst::ExecutionContext ec(interp, run_options);
    // A fresh symbol table per run: new matrix objects over the shared, immutable input data, so
    // nothing a run does to its variables reaches the bindings.
    for (const auto& [name, binding] : s.bindings) {
      if (const auto* v = std::get_if<inst::ScalarValue>(&binding)) {
        ec.set(name, *v);
      } else {
        auto mo = std::make_shared<inst::MatrixObject>();
        mo->set_block(std::get<BlockPtr>(binding));
        ec.set(name, std::move(mo));
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    interp.run(ec);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const std::string& name : s.outputs) {
      const inst::Value* v = ec.find(name);
      if (v == nullptr) continue;  // reported when asked for (JMLC does the same)
      if (const auto* sv = std::get_if<inst::ScalarValue>(v)) {
        result->values[name] = *sv;
      } else {
        result->values[name] = ec.matrix(name);
      }
    }
    if (opts.statistics) {
      stats.set_parse_seconds(s.parse_seconds);
      stats.set_execute_seconds(seconds);
      std::ostringstream os;
      stats.print(os, opts.statistics_top_n);
      s.last_statistics = os.str();
    }
  });
  return ResultVariables(std::move(result));
}

ResultVariables::ResultVariables() : impl_(std::make_unique<Impl>()) {}
ResultVariables::ResultVariables(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResultVariables::~ResultVariables() = default;
ResultVariables::ResultVariables(const ResultVariables& o)
    : impl_(std::make_unique<Impl>(*o.impl_)) {}
ResultVariables& ResultVariables::operator=(const ResultVariables& o) {
  if (this != &o) impl_ = std::make_unique<Impl>(*o.impl_);
  return *this;
}
ResultVariables::ResultVariables(ResultVariables&&) noexcept = default;
ResultVariables& ResultVariables::operator=(ResultVariables&&) noexcept = default;

std::vector<std::string> ResultVariables::names() const {
  std::vector<std::string> out;
  for (const auto& kv : impl_->values) out.push_back(kv.first);
  return out;
}
size_t ResultVariables::size() const { return impl_->values.size(); }
bool ResultVariables::contains(const std::string& name) const {
  return impl_->values.count(name) != 0;
}
bool ResultVariables::is_matrix(const std::string& name) const {
  return std::holds_alternative<BlockPtr>(impl_->get(name, "is_matrix"));
}

Matrix ResultVariables::get_matrix(const std::string& name) const {
  const kernels::MatrixBlock& b = impl_->matrix(name, "get_matrix");
  return guarded([&] { return b.is_sparse() ? to_matrix(b.to_dense()) : to_matrix(b); });
}
Matrix ResultVariables::get_matrix_block(const std::string& name) const {
  const kernels::MatrixBlock& b = impl_->matrix(name, "get_matrix_block");
  return guarded([&] { return to_matrix(b); });
}
double ResultVariables::get_double(const std::string& name) const {
  const inst::ScalarValue& v = impl_->scalar(name, "get_double");
  return guarded([&] { return v.to_double(); });
}
int64_t ResultVariables::get_long(const std::string& name) const {
  const inst::ScalarValue& v = impl_->scalar(name, "get_long");
  return guarded([&] { return v.to_int(); });
}
bool ResultVariables::get_boolean(const std::string& name) const {
  const inst::ScalarValue& v = impl_->scalar(name, "get_boolean");
  return guarded([&] { return v.to_bool(); });
}
std::string ResultVariables::get_string(const std::string& name) const {
  return impl_->scalar(name, "get_string").to_string();
}

}  // namespace dmlrt
