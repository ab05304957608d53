// The embedded API (include/dmlrt/api.h): Connection, PreparedScript and ResultVariables over the
// plan parser and interpreter. Internal errors already derive from dmlrt::Error (see Note [One
// Error type]); anything else that escapes the runtime is wrapped into one with its message. The
// thread-safety contract of api.h is kept here: see Note [API threads].
#include "dmlrt/api.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>
#include <set>
#include <sstream>
#include <streambuf>
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

// Note [API threads]
// The contract of api.h, and what keeps it:
//  - Connection::Impl is immutable once built, so copies share it across threads freely.
//  - PreparedScript::Impl has two mutexes. run_mu serialises execute() on one object (the GPU
//    session it keeps is one stream and one memory manager). state_mu guards what set_* and
//    statistics() touch (bindings, last_statistics) and is held only briefly: execute() copies
//    the bindings under it when it starts (shared, immutable matrix data: a cheap copy), so a
//    binding call never waits for a run, and a run never sees a half-made binding.
//  - Each run has its own Interpreter, ExecutionContext and Statistics; the process-wide state
//    they reach is read-only (opcode and keyword tables), atomic (the fresh-seed counter of
//    rand, the log level) or locked (the logger). The interpreter thread of each run is its own
//    (Note [Interpreter stack]).
//  - print output of every run goes through a LinePrinter that hands whole lines to the
//    destination under one process-wide mutex: scripts of one Connection share Options::output,
//    often an ostringstream, which is not safe to write from two threads.
//  - A moved-from object has a null impl_; every method reaches the state through impl(name),
//    which throws "<Class>::<method>: used after move".

std::mutex& print_mutex() {
  static std::mutex mu;
  return mu;
}

// A streambuf that collects one line and writes it to `dest` under print_mutex(); what is left
// without a newline is written by sync() (the end of a run calls it).
class LinePrinter final : public std::streambuf {
 public:
  explicit LinePrinter(std::ostream& dest) : dest_(dest) {}
  LinePrinter(const LinePrinter&) = delete;
  LinePrinter& operator=(const LinePrinter&) = delete;

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    line_.push_back(traits_type::to_char_type(c));
    if (line_.back() == '\n') write_line();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize k = 0; k < n; ++k) {
      line_.push_back(s[k]);
      if (s[k] == '\n') write_line();
    }
    return n;
  }
  int sync() override {
    write_line();
    return 0;
  }

 private:
  void write_line() {
    if (line_.empty()) return;
    std::lock_guard<std::mutex> lock(print_mutex());
    dest_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    line_.clear();
  }
  std::ostream& dest_;
  std::string line_;
};

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
  auto impl = guarded([] { return std::make_shared<Impl>(); });
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
Connection::Connection(const Connection& o) : impl_(o.impl("Connection (copy)")) {}
Connection& Connection::operator=(const Connection& o) {
  impl_ = o.impl("Connection::operator= (copy)");
  return *this;
}
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

const std::shared_ptr<const Connection::Impl>& Connection::impl(const char* method) const {
  if (!impl_) throw Error(std::string(method) + ": Connection used after move");
  return impl_;
}

const Options& Connection::options() const { return impl("Connection::options")->options; }

std::string Connection::read_script(const std::string& path) {
  return guarded([&] {
    std::ifstream in(path, std::ios::binary);
    if (!in.good()) throw IoError(path + ": cannot read the script");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  });
}

// ---------------------------------------------------------------- PreparedScript

struct PreparedScript::Impl {
  // Immutable once prepared.
  std::shared_ptr<const Connection::Impl> conn;
  runtime::Program program;
  double parse_seconds = 0.0;
  std::vector<std::string> inputs, outputs;
  std::set<std::string> input_set, output_set;

  // Guarded by state_mu (Note [API threads]).
  std::mutex state_mu;
  std::map<std::string, Binding> bindings;
  std::string last_statistics;

  // Guarded by run_mu, held for a whole execute().
  std::mutex run_mu;
  // Opened by the first execute() that needs it and kept for later runs (creating a context costs
  // far more than a typical run).
  std::shared_ptr<mem::GpuSession> gpu;
  bool gpu_opened = false;

  void bind(const std::string& name, Binding value) {
    std::lock_guard<std::mutex> lock(state_mu);
    bindings[name] = std::move(value);
  }

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
  const auto& conn = impl("Connection::prepare_script");
  std::unique_ptr<PreparedScript::Impl> s(
      guarded([&] { return make_script_impl(conn, inputs, outputs); }));
  guarded([&] {
    const auto t0 = std::chrono::steady_clock::now();
    s->program = runtime::parse_plan(plan_text, "<script>", to_plan_args(args));
    runtime::apply_plan_rewrites(s->program, conn->config);
    s->parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  return PreparedScript(std::move(s));
}

PreparedScript Connection::prepare_script_file(
    const std::string& path, const std::vector<std::string>& inputs,
    const std::vector<std::string>& outputs, const std::map<std::string, std::string>& args) const {
  const auto& conn = impl("Connection::prepare_script_file");
  std::unique_ptr<PreparedScript::Impl> s(
      guarded([&] { return make_script_impl(conn, inputs, outputs); }));
  guarded([&] {
    const auto t0 = std::chrono::steady_clock::now();
    s->program = runtime::parse_plan_file(path, to_plan_args(args));
    runtime::apply_plan_rewrites(s->program, conn->config);
    s->parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  return PreparedScript(std::move(s));
}

PreparedScript::PreparedScript(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PreparedScript::~PreparedScript() = default;
PreparedScript::PreparedScript(PreparedScript&&) noexcept = default;
PreparedScript& PreparedScript::operator=(PreparedScript&&) noexcept = default;

PreparedScript::Impl& PreparedScript::impl(const char* method) const {
  if (!impl_) throw Error(std::string(method) + ": PreparedScript used after move");
  return *impl_;
}

const std::vector<std::string>& PreparedScript::input_names() const {
  return impl("PreparedScript::input_names").inputs;
}
const std::vector<std::string>& PreparedScript::output_names() const {
  return impl("PreparedScript::output_names").outputs;
}

void PreparedScript::set_matrix(const std::string& name, int64_t rows, int64_t cols,
                                const double* row_major) {
  impl("PreparedScript::set_matrix").require_input(name, "set_matrix");
  if (rows < 0 || cols < 0) {
    throw Error("set_matrix: '" + name + "': negative dimensions " + std::to_string(rows) + "x" +
                std::to_string(cols));
  }
  if (row_major == nullptr && rows > 0 && cols > 0) {
    throw Error("set_matrix: '" + name + "': null data for a " + std::to_string(rows) + "x" +
                std::to_string(cols) + " matrix");
  }
  if (cols != 0 && rows > std::numeric_limits<int64_t>::max() / cols) {
    throw Error("set_matrix: '" + name + "': dimensions " + std::to_string(rows) + "x" +
                std::to_string(cols) + " overflow");
  }
  const int64_t n = rows * cols;
  const std::string what = "set_matrix: '" + name + "': " + std::to_string(rows) + "x" +
                           std::to_string(cols) + " matrix of " + std::to_string(n) + " x 8 bytes";
  if (static_cast<uint64_t>(n) >
      static_cast<uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(double)) {
    throw OutOfMemory(what + ": more than the address space holds");
  }
  std::vector<double> data;
  try {
    data.assign(row_major, row_major + n);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(what + ": out of host memory");
  }
  set_matrix(name, Matrix(rows, cols, std::move(data)));
}

void PreparedScript::set_matrix(const std::string& name,
                                const std::vector<std::vector<double>>& rows) {
  impl("PreparedScript::set_matrix").require_input(name, "set_matrix");
  set_matrix(name, Matrix::from_rows(rows));
}

void PreparedScript::set_matrix(const std::string& name, Matrix m) {
  Impl& s = impl("PreparedScript::set_matrix");
  s.require_input(name, "set_matrix");
  s.bind(name, guarded([&] { return std::make_shared<const kernels::MatrixBlock>(to_block(m)); }));
}

void PreparedScript::set_scalar(const std::string& name, double v) {
  Impl& s = impl("PreparedScript::set_scalar");
  s.require_input(name, "set_scalar");
  s.bind(name, inst::ScalarValue::fp64(v));
}
void PreparedScript::set_scalar(const std::string& name, int64_t v) {
  Impl& s = impl("PreparedScript::set_scalar");
  s.require_input(name, "set_scalar");
  s.bind(name, inst::ScalarValue::int64(v));
}
void PreparedScript::set_scalar(const std::string& name, bool v) {
  Impl& s = impl("PreparedScript::set_scalar");
  s.require_input(name, "set_scalar");
  s.bind(name, inst::ScalarValue::boolean(v));
}
void PreparedScript::set_scalar(const std::string& name, std::string v) {
  Impl& s = impl("PreparedScript::set_scalar");
  s.require_input(name, "set_scalar");
  s.bind(name, guarded([&] { return inst::ScalarValue::string(std::move(v)); }));
}

void PreparedScript::clear_parameters() {
  Impl& s = impl("PreparedScript::clear_parameters");
  std::lock_guard<std::mutex> lock(s.state_mu);
  s.bindings.clear();
}

std::string PreparedScript::statistics() const {
  Impl& s = impl("PreparedScript::statistics");
  std::lock_guard<std::mutex> lock(s.state_mu);
  return s.last_statistics;
}

std::string PreparedScript::explain(bool raw) const {
  const Impl& s = impl("PreparedScript::explain");
  return guarded([&] {
    std::ostringstream os;
    runtime::print_explain(s.program, os, raw);
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
  Impl& s = impl("PreparedScript::execute");
  std::lock_guard<std::mutex> run_lock(s.run_mu);
  std::map<std::string, Binding> bindings;
  guarded([&] {
    std::lock_guard<std::mutex> lock(s.state_mu);
    bindings = s.bindings;
  });
  for (const std::string& in : s.inputs) {
    if (!bindings.count(in)) {
      throw Error("execute: input '" + in +
                  "' has no value; bind it with set_matrix or set_scalar");
    }
  }
  const Options& opts = s.conn->options;
  return guarded([&] {
    auto result = std::make_unique<ResultVariables::Impl>();
    result->declared = s.outputs;
    runtime::Statistics stats;
    stats.set_max_wrap_length(s.conn->config.stats_max_wrap_length);
    LinePrinter printer(opts.output ? *opts.output : std::cout);
    std::ostream out(&printer);
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
    for (const auto& [name, binding] : bindings) {
      if (const auto* v = std::get_if<inst::ScalarValue>(&binding)) {
        ec.set(name, *v);
      } else {
        auto mo = std::make_shared<inst::MatrixObject>();
        mo->set_block(std::get<BlockPtr>(binding));
        ec.set(name, std::move(mo));
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    try {
      interp.run(ec);  // on its own stack (Note [Interpreter stack])
    } catch (...) {
      out.flush();  // the program's output ahead of the error, as the CLI does
      throw;
    }
    out.flush();
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
    std::string text;
    if (opts.statistics) {
      stats.set_parse_seconds(s.parse_seconds);
      stats.set_execute_seconds(seconds);
      std::ostringstream os;
      stats.print(os, opts.statistics_top_n);
      text = os.str();
    }
    {
      std::lock_guard<std::mutex> lock(s.state_mu);
      s.last_statistics = std::move(text);
    }
    return ResultVariables(std::move(result));
  });
}

ResultVariables::ResultVariables() : impl_(std::make_unique<Impl>()) {}
ResultVariables::ResultVariables(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResultVariables::~ResultVariables() = default;
ResultVariables::ResultVariables(const ResultVariables& o)
    : impl_(guarded([&] { return std::make_unique<Impl>(o.impl("ResultVariables (copy)")); })) {}
ResultVariables& ResultVariables::operator=(const ResultVariables& o) {
  if (this != &o) {
    const Impl& from = o.impl("ResultVariables::operator= (copy)");
    impl_ = guarded([&] { return std::make_unique<Impl>(from); });
  }
  return *this;
}
ResultVariables::ResultVariables(ResultVariables&&) noexcept = default;
ResultVariables& ResultVariables::operator=(ResultVariables&&) noexcept = default;

const ResultVariables::Impl& ResultVariables::impl(const char* method) const {
  if (!impl_) throw Error(std::string(method) + ": ResultVariables used after move");
  return *impl_;
}

std::vector<std::string> ResultVariables::names() const {
  const Impl& r = impl("ResultVariables::names");
  return guarded([&] {
    std::vector<std::string> out;
    for (const auto& kv : r.values) out.push_back(kv.first);
    return out;
  });
}
size_t ResultVariables::size() const { return impl("ResultVariables::size").values.size(); }
bool ResultVariables::contains(const std::string& name) const {
  return impl("ResultVariables::contains").values.count(name) != 0;
}
bool ResultVariables::is_matrix(const std::string& name) const {
  return std::holds_alternative<BlockPtr>(
      impl("ResultVariables::is_matrix").get(name, "is_matrix"));
}

Matrix ResultVariables::get_matrix(const std::string& name) const {
  const kernels::MatrixBlock& b = impl("ResultVariables::get_matrix").matrix(name, "get_matrix");
  return guarded([&] { return b.is_sparse() ? to_matrix(b.to_dense()) : to_matrix(b); });
}
Matrix ResultVariables::get_matrix_block(const std::string& name) const {
  const kernels::MatrixBlock& b =
      impl("ResultVariables::get_matrix_block").matrix(name, "get_matrix_block");
  return guarded([&] { return to_matrix(b); });
}
double ResultVariables::get_double(const std::string& name) const {
  const inst::ScalarValue& v = impl("ResultVariables::get_double").scalar(name, "get_double");
  return guarded([&] { return v.to_double(); });
}
int64_t ResultVariables::get_long(const std::string& name) const {
  const inst::ScalarValue& v = impl("ResultVariables::get_long").scalar(name, "get_long");
  return guarded([&] { return v.to_int(); });
}
bool ResultVariables::get_boolean(const std::string& name) const {
  const inst::ScalarValue& v = impl("ResultVariables::get_boolean").scalar(name, "get_boolean");
  return guarded([&] { return v.to_bool(); });
}
std::string ResultVariables::get_string(const std::string& name) const {
  const inst::ScalarValue& v = impl("ResultVariables::get_string").scalar(name, "get_string");
  return guarded([&] { return v.to_string(); });
}

}  // namespace dmlrt
