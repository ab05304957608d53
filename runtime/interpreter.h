// Runs a parsed Program: program blocks, predicates, loops, function calls, and the services
// instructions call back into (file I/O through runtime/io, function calls, program output).
#pragma once

#include <iosfwd>
#include <string>

#include "instructions/execution_context.h"
#include "runtime/program.h"
#include "runtime/stats.h"

namespace dmlrt::runtime {

class Interpreter final : public inst::Services {
 public:
  // `out` receives print output; `stats` (may be null) receives per-instruction timings.
  Interpreter(const Program& program, std::ostream& out, Statistics* stats = nullptr);

  // Runs the main program in `ec` (its symbol table may hold pre-bound inputs).
  // Errors are rethrown with the plan file, line and instruction in front of the message.
  void run(inst::ExecutionContext& ec);

  // inst::Services
  kernels::MatrixBlock read_matrix(const inst::MatrixObject& mo) override;
  void write_matrix(const kernels::MatrixBlock& block, const inst::WriteRequest& req) override;
  void write_scalar(const inst::ScalarValue& value, const std::string& path) override;
  inst::ScalarValue read_scalar(const std::string& path, inst::ValueType vt) override;
  std::vector<inst::Value> call_function(const std::string& key,
                                         const std::vector<std::string>& arg_names,
                                         std::vector<inst::Value> args) override;
  std::vector<std::string> function_outputs(const std::string& key) override;
  std::ostream& out() override { return *out_; }
  // Each part timed and located as a line of its own; the fused instruction itself is then not
  // counted in -stats.
  void run_parts(const InstructionList& parts, inst::ExecutionContext& ec) override;

  // Nested function calls deeper than this fail with "recursion depth exceeded" instead of
  // overflowing the native stack.
  static constexpr int kMaxCallDepth = 1000;

 private:
  void run_blocks(const std::vector<BlockPtr>& blocks, inst::ExecutionContext& ec);
  void run_block(const Block& b, inst::ExecutionContext& ec);
  void run_for(const Block& b, inst::ExecutionContext& ec);
  void run_instructions(const InstructionList& list, inst::ExecutionContext& ec);
  void finish_gpu_instruction(const inst::Instruction& i, inst::ExecutionContext& ec);
  // Runs predicate instructions and takes the scalar they left in __pred.
  inst::ScalarValue eval_predicate(const InstructionList& list, inst::ExecutionContext& ec,
                                   const Block& b, const char* what);
  std::string block_where(const Block& b) const;

  const Program& program_;
  std::ostream* out_;
  Statistics* stats_;
  inst::RunOptions options_;
  int call_depth_ = 0;
  // Set by run_parts: the instruction that called it is not recorded in -stats (its parts were).
  bool parts_ran_ = false;
};

}  // namespace dmlrt::runtime
