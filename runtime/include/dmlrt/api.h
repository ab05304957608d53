// The embedded C++ API, shaped like SystemDS's JMLC: a Connection prepares a plan once into a
// PreparedScript bound to declared input and output variable names; each execute() runs it with a
// fresh symbol table seeded from the current bindings and returns the declared outputs.
//
//   dmlrt::Connection conn;
//   dmlrt::PreparedScript s = conn.prepare_script(plan_text, {"X", "W"}, {"Y"});
//   s.set_matrix("X", x);  s.set_matrix("W", w);
//   dmlrt::Matrix y = s.execute().get_matrix("Y");
//
// Plans for the API read their inputs by name (no createvar/read for them) and leave their outputs
// in the symbol table (no rmvar of them). Every exception leaving the API is a dmlrt::Error.
//
// Threads. A Connection, its copies and the PreparedScripts it makes may be used from many threads
// at once; for parallel runs give each thread a script of its own (prepare_script is cheap):
//  - Scripts run in parallel, each execute() with its own interpreter, symbol table and statistics.
//  - One PreparedScript runs one execute() at a time: concurrent calls on the same object wait for
//    each other (a mutex). set_matrix / set_scalar / clear_parameters may be called concurrently
//    with execute(): a run takes a snapshot of the bindings when it starts, so a binding changed
//    during the run applies from the next execute().
//  - statistics() returns the text of the last execute() that completed (never a mix of runs).
//  - print output goes to Options::output one whole line at a time, so lines of concurrent runs
//    do not interleave within a line (the stream must not be written by others at the same time).
//  - A ResultVariables is a value: const methods may be called from many threads at once.
//  - A moved-from Connection, PreparedScript or ResultVariables throws dmlrt::Error ("... used
//    after move") from every method until a new value is assigned to it.
// Each execute() interprets on a thread of its own with a stack sized for the depth limits
// (at most 1000 nested function calls and 40000 nested blocks and calls), joined before it returns;
// deeper programs fail with "recursion depth exceeded".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "dmlrt/error.h"
#include "dmlrt/matrix.h"

namespace dmlrt {

enum class Precision { kDouble, kSingle };
// kOn: GPU where an op has a GPU implementation and fits the budget; kForce: wherever one exists.
enum class GpuMode { kOff, kOn, kForce };

struct Options {
  Precision precision = Precision::kDouble;  // single: device matrices held as float
  int64_t seed = -1;          // base seed for rand with seed -1 (-1 = a fresh one per run)
  bool statistics = false;    // collect per-instruction timings; see PreparedScript::statistics()
  int statistics_top_n = 10;  // heavy-hitter rows in statistics()
  GpuMode gpu = GpuMode::kOff;
  std::string config_file;         // optional SystemDS-config.xml-style file (sysds.* keys)
  std::ostream* output = nullptr;  // where print() writes; nullptr = std::cout
};

class ResultVariables {
 public:
  ResultVariables();
  ~ResultVariables();
  ResultVariables(const ResultVariables&);
  ResultVariables& operator=(const ResultVariables&);
  ResultVariables(ResultVariables&&) noexcept;
  ResultVariables& operator=(ResultVariables&&) noexcept;

  // The declared outputs the run left in the symbol table, sorted.
  std::vector<std::string> names() const;
  size_t size() const;
  bool contains(const std::string& name) const;
  bool is_matrix(const std::string& name) const;

  // Dense row-major copy of a matrix output (as JMLC's getMatrix).
  Matrix get_matrix(const std::string& name) const;
  // A matrix output in the form the runtime holds it (CSR when sparse).
  Matrix get_matrix_block(const std::string& name) const;
  // Scalar outputs, converted as DML converts (a 1x1 matrix is not a scalar).
  double get_double(const std::string& name) const;
  int64_t get_long(const std::string& name) const;
  bool get_boolean(const std::string& name) const;
  std::string get_string(const std::string& name) const;

  struct Impl;

 private:
  explicit ResultVariables(std::unique_ptr<Impl> impl);
  friend class PreparedScript;
  // The state; throws dmlrt::Error naming `method` on a moved-from object.
  const Impl& impl(const char* method) const;
  std::unique_ptr<Impl> impl_;
};

class PreparedScript {
 public:
  ~PreparedScript();
  PreparedScript(PreparedScript&&) noexcept;
  PreparedScript& operator=(PreparedScript&&) noexcept;
  PreparedScript(const PreparedScript&) = delete;
  PreparedScript& operator=(const PreparedScript&) = delete;

  const std::vector<std::string>& input_names() const;
  const std::vector<std::string>& output_names() const;

  // Bindings stay until replaced or cleared, so a script can run again with only some inputs
  // changed. Each throws dmlrt::Error when `name` is not a declared input.
  void set_matrix(const std::string& name, int64_t rows, int64_t cols, const double* row_major);
  void set_matrix(const std::string& name, const std::vector<std::vector<double>>& rows);
  void set_matrix(const std::string& name, Matrix m);
  void set_scalar(const std::string& name, double v);
  void set_scalar(const std::string& name, int64_t v);
  void set_scalar(const std::string& name, bool v);
  void set_scalar(const std::string& name, std::string v);
  void set_scalar(const std::string& name, const char* v) { set_scalar(name, std::string(v)); }
  // Any other integer type (int, unsigned, long long, ...) binds as INT64.
  template <typename T,
            std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                 !std::is_same<T, int64_t>::value,
                             int> = 0>
  void set_scalar(const std::string& name, T v) {
    set_scalar(name, static_cast<int64_t>(v));
  }
  void set_scalar(const std::string& name, float v) { set_scalar(name, static_cast<double>(v)); }
  void clear_parameters();

  // Runs the plan; throws dmlrt::Error when a declared input is unbound or the plan fails.
  ResultVariables execute();

  // The -stats text of the last execute() that completed ("" when statistics are off or no run
  // completed yet).
  std::string statistics() const;
  // The plan in SystemDS's explain rendering (° as a space, · as a dot); raw = lossless form.
  std::string explain(bool raw = false) const;

  struct Impl;

 private:
  explicit PreparedScript(std::unique_ptr<Impl> impl);
  friend class Connection;
  // The state; throws dmlrt::Error naming `method` on a moved-from object.
  Impl& impl(const char* method) const;
  std::unique_ptr<Impl> impl_;
};

class Connection {
 public:
  Connection();
  explicit Connection(Options options);  // reads options.config_file when set
  ~Connection();
  Connection(const Connection&);
  Connection& operator=(const Connection&);
  Connection(Connection&&) noexcept;
  Connection& operator=(Connection&&) noexcept;

  const Options& options() const;

  // Parses plan text once. `args` fills $name / $N tokens: keys "name", "$name", "1", "$1".
  // Input and output names must be distinct within each list; a name may be both.
  PreparedScript prepare_script(const std::string& plan_text,
                                const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs,
                                const std::map<std::string, std::string>& args = {}) const;
  PreparedScript prepare_script_file(const std::string& path,
                                     const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs,
                                     const std::map<std::string, std::string>& args = {}) const;

  // The text of a file (JMLC's readScript); throws dmlrt::Error when it cannot be read.
  static std::string read_script(const std::string& path);

  struct Impl;

 private:
  // The state, shared by copies and never modified; throws dmlrt::Error naming `method` on a
  // moved-from object.
  const std::shared_ptr<const Impl>& impl(const char* method) const;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace dmlrt
