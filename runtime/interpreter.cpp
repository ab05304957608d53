// The interpreter: runs program blocks (GENERIC, IF, WHILE, FOR, PARFOR) the way SystemDS's
// ProgramBlock classes do, times every instruction into Statistics, puts the plan location in
// front of errors, and provides inst::Services (file I/O through runtime/io, function calls).
#include "runtime/interpreter.h"

#include <chrono>
#include <cmath>
#include <ostream>

#include "gpu_context/error.h"
#include "runtime/io/matrix_io.h"

#ifdef DMLRT_WITH_CUDA
#include "memory/gpu_session.h"
#endif

namespace dmlrt::runtime {
namespace {

// SystemDS's ProgramBlock.PRED_VAR.
constexpr const char* kPredVar = "__pred";

std::string location_of(const inst::SourceLocation& loc) {
  std::string s = loc.file.empty() ? "<plan>" : loc.file;
  if (loc.line > 0) s += ":" + std::to_string(loc.line);
  return s;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// True when `msg` already starts with "<file>:<line>: " of the plan, e.g. an error raised inside
// a called function, which names the function's instruction: the call site adds nothing then.
bool has_plan_location(const std::string& msg, const inst::Instruction& i) {
  if (starts_with(msg, i.where())) return true;
  const std::string file = i.text().loc.file.empty() ? "<plan>" : i.text().loc.file;
  if (!starts_with(msg, file + ":")) return false;
  size_t p = file.size() + 1;
  const size_t digits_start = p;
  while (p < msg.size() && std::isdigit(static_cast<unsigned char>(msg[p]))) ++p;
  return p > digits_start && starts_with(msg.substr(p), ": ");
}


// Decrements the call depth on every exit from call_function.
struct DepthGuard {
  explicit DepthGuard(int& d) : depth(d) { ++depth; }
  ~DepthGuard() { --depth; }
  int& depth;
};

}  // namespace

Interpreter::Interpreter(const Program& program, std::ostream& out, Statistics* stats)
    : program_(program), out_(&out), stats_(stats) {}

void Interpreter::run(inst::ExecutionContext& ec) {
  options_ = ec.options();
  run_blocks(program_.main, ec);
#ifdef DMLRT_WITH_CUDA
  if (mem::GpuSession* gpu = options_.gpu.get()) {
    // End of the program: the one synchronisation that surfaces late asynchronous errors, and the
    // moment the remaining GPU event times are read (Note [GPU instruction timing]).
    gpu->synchronize("end of program");
    gpu->collect_timings(
        [&](const std::string& name, double s) {
          if (stats_) stats_->add_seconds(name, s);
        },
        /*wait=*/true);
  }
#endif
}

// A GPU instruction: counted under gpu_<name> now, its event-measured time added when the events
// complete (collected lazily, without synchronising).
void Interpreter::finish_gpu_instruction(const inst::Instruction& i, inst::ExecutionContext& ec) {
  ec.clear_ran_on_gpu();
#ifdef DMLRT_WITH_CUDA
  mem::GpuSession* gpu = ec.options().gpu.get();
  if (gpu == nullptr) return;
  // Without -stats, timing or -sync-check nothing uses the name: skip building it (a
  // per-instruction string concatenation, see Note [Allocation bookkeeping cost] in
  // memory/memory_manager.h).
  if (stats_ == nullptr && !gpu->uses_instruction_names()) return;
  const std::string name = "gpu_" + i.stats_name();
  gpu->end_instruction(name);
  if (stats_) stats_->record(name, 0.0);
  if (gpu->pending_timings() >= 64)
    gpu->collect_timings(
        [&](const std::string& n, double s) {
          if (stats_) stats_->add_seconds(n, s);
        },
        /*wait=*/false);
#else
  (void)i;
#endif
}

void Interpreter::run_parts(const InstructionList& parts, inst::ExecutionContext& ec) {
  run_instructions(parts, ec);
  parts_ran_ = true;
}

void Interpreter::run_blocks(const std::vector<BlockPtr>& blocks, inst::ExecutionContext& ec) {
  for (const auto& b : blocks) run_block(*b, ec);
}

std::string Interpreter::block_where(const Block& b) const {
  return location_of(b.loc) + ": " + b.header;
}

void Interpreter::run_instructions(const InstructionList& list, inst::ExecutionContext& ec) {
  for (const auto& i : list) {
    try {
      if (stats_) {
        const auto t0 = std::chrono::steady_clock::now();
        i->execute(ec);
        const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
        if (parts_ran_)
          parts_ran_ = false;  // recorded part by part
        else if (ec.ran_on_gpu())
          finish_gpu_instruction(*i, ec);
        else
          stats_->record(i->stats_name(), dt.count());
      } else {
        i->execute(ec);
        if (parts_ran_)
          parts_ran_ = false;
        else if (ec.ran_on_gpu())
          finish_gpu_instruction(*i, ec);
      }
    } catch (const std::exception& e) {
      if (has_plan_location(e.what(), *i)) throw;
      rethrow_with_context(e, i->where() + ": ");
    }
  }
}

inst::ScalarValue Interpreter::eval_predicate(const InstructionList& list,
                                              inst::ExecutionContext& ec, const Block& b,
                                              const char* what) {
  run_instructions(list, ec);
  const inst::Value* v = ec.find(kPredVar);
  DMLRT_REQUIRE(v != nullptr, RuntimeError,
                block_where(b) << ": the " << what << " instructions did not set " << kPredVar);
  const auto* s = std::get_if<inst::ScalarValue>(v);
  DMLRT_REQUIRE(s != nullptr, RuntimeError,
                block_where(b) << ": the " << what << " is a matrix, expected a scalar");
  const inst::ScalarValue result = *s;
  ec.remove(kPredVar);
  return result;
}

void Interpreter::run_block(const Block& b, inst::ExecutionContext& ec) {
  auto truth = [&](const inst::ScalarValue& v) {
    try {
      return v.to_bool();
    } catch (const std::exception& e) {
      rethrow_with_context(e, block_where(b) + ": predicate: ");
    }
  };
  switch (b.kind) {
    case BlockKind::kGeneric:
      run_instructions(b.instructions, ec);
      return;
    case BlockKind::kIf:
      if (truth(eval_predicate(b.predicate, ec, b, "predicate")))
        run_blocks(b.body, ec);
      else
        run_blocks(b.else_body, ec);
      break;
    case BlockKind::kWhile:
      while (truth(eval_predicate(b.predicate, ec, b, "predicate"))) run_blocks(b.body, ec);
      break;
    case BlockKind::kFor:
    case BlockKind::kParfor:
      // PARFOR runs its iterations one after another, in order: the results are those of FOR
      // (parfor bodies are independent by definition, so the order is not observable except in
      // print output, which SystemDS leaves unordered).
      run_for(b, ec);
      break;
  }
  run_instructions(b.exit_instructions, ec);
}

// Note [FOR iteration values]
// SystemDS's ForProgramBlock truncates from, to and increment to longs (Java's (long) cast) and
// always binds an INT64 loop variable: `for (z in 0.5:2.5)` runs z = 0, 1, 2, and an increment
// that truncates to 0 (e.g. seq(0, 1, 0.25)) runs no iteration at all. SystemDS decides the
// semantics (checked against SystemDS 3.4), so dmlrt does the same.
void Interpreter::run_for(const Block& b, inst::ExecutionContext& ec) {
  auto number = [&](const inst::ScalarValue& v, const char* what) {
    DMLRT_REQUIRE(inst::is_numeric(v.type()), RuntimeError,
                  block_where(b) << ": the '" << what << "' value is " << inst::name_of(v.type())
                                 << " '" << v.to_string() << "', expected a number");
    DMLRT_REQUIRE(std::isfinite(v.to_double()), RuntimeError,
                  block_where(b) << ": the '" << what << "' value must be finite, got "
                                 << v.to_string());
    return v.to_int();
  };
  const int64_t f = number(eval_predicate(b.from, ec, b, "from"), "from");
  const int64_t t = number(eval_predicate(b.to, ec, b, "to"), "to");
  const int64_t s = b.incr.empty() ? (f <= t ? 1 : -1)
                                   : number(eval_predicate(b.incr, ec, b, "incr"), "incr");
  if (s == 0 || (s > 0 && f > t) || (s < 0 && f < t)) return;
  // Iteration count in 128 bits: to - from may not fit in 64.
  const __int128 n = (static_cast<__int128>(t) - f) / s + 1;
  for (__int128 k = 0; k < n; ++k) {
    ec.set(b.iter_var, inst::ScalarValue::int64(static_cast<int64_t>(f + k * s)));
    run_blocks(b.body, ec);
  }
}

kernels::MatrixBlock Interpreter::read_matrix(const inst::MatrixObject& mo) {
  return io::read_matrix(mo.file_name(), mo.format(), mo.meta());
}

void Interpreter::write_matrix(const kernels::MatrixBlock& block, const inst::WriteRequest& req) {
  io::write_matrix(block, req.path, req.format);
}

void Interpreter::write_scalar(const inst::ScalarValue& value, const std::string& path) {
  io::write_scalar(value, path);
}

inst::ScalarValue Interpreter::read_scalar(const std::string& path, inst::ValueType vt) {
  return io::read_scalar(path, vt);
}

std::vector<inst::Value> Interpreter::call_function(const std::string& key,
                                                    const std::vector<std::string>& arg_names,
                                                    std::vector<inst::Value> args) {
  auto it = program_.functions.find(key);
  DMLRT_REQUIRE(it != program_.functions.end(), RuntimeError, "unknown function '" << key << "'");
  const Function& fn = it->second;
  DMLRT_REQUIRE(call_depth_ < kMaxCallDepth, RuntimeError,
                "recursion depth exceeded: more than "
                    << kMaxCallDepth << " nested function calls (calling " << key << ")");
  inst::ExecutionContext fec(*this, options_);
  std::vector<bool> bound(fn.inputs.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = i < arg_names.size() ? arg_names[i] : std::string();
    size_t p = 0;
    if (name.empty()) {
      p = i;
      DMLRT_REQUIRE(
          p < fn.inputs.size(), RuntimeError,
          "function " << key << " takes " << fn.inputs.size() << " inputs, got " << args.size());
    } else {
      while (p < fn.inputs.size() && fn.inputs[p].name != name) ++p;
      DMLRT_REQUIRE(p < fn.inputs.size(), RuntimeError,
                    "function " << key << " has no input named '" << name << "'");
    }
    const Param& param = fn.inputs[p];
    DMLRT_REQUIRE(!bound[p], RuntimeError,
                  "function " << key << ": input '" << param.name << "' is bound twice");
    bound[p] = true;
    inst::Value v = std::move(args[i]);
    if (auto* s = std::get_if<inst::ScalarValue>(&v)) {
      DMLRT_REQUIRE(
          param.data_type != inst::DataType::kMatrix, RuntimeError,
          "function " << key << ": input '" << param.name << "' expects a matrix, got a scalar");
      // SystemDS converts scalar arguments to the parameter's value type.
      if (param.value_type != inst::ValueType::kUnknown) v = s->cast_to(param.value_type);
    } else {
      DMLRT_REQUIRE(
          param.data_type != inst::DataType::kScalar, RuntimeError,
          "function " << key << ": input '" << param.name << "' expects a scalar, got a matrix");
    }
    fec.set(param.name, std::move(v));
  }
  for (size_t p = 0; p < bound.size(); ++p)
    DMLRT_REQUIRE(bound[p], RuntimeError,
                  "function " << key << ": input '" << fn.inputs[p].name << "' is not bound");

  {
    DepthGuard guard(call_depth_);
    run_blocks(fn.body, fec);
  }

  std::vector<inst::Value> results;
  results.reserve(fn.outputs.size());
  for (const Param& out : fn.outputs) {
    const inst::Value* v = fec.find(out.name);
    DMLRT_REQUIRE(v != nullptr, RuntimeError,
                  "function " << key << ": output '" << out.name << "' was never set");
    results.push_back(*v);
  }
  return results;
}

std::vector<std::string> Interpreter::function_outputs(const std::string& key) {
  auto it = program_.functions.find(key);
  DMLRT_REQUIRE(it != program_.functions.end(), RuntimeError, "unknown function '" << key << "'");
  std::vector<std::string> names;
  for (const Param& p : it->second.outputs) names.push_back(p.name);
  return names;
}

}  // namespace dmlrt::runtime
