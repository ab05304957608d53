// Runs a parsed Program: program blocks, predicates, loops, function calls, and the services
// instructions call back into (file I/O through runtime/io, function calls, program output).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "instructions/execution_context.h"
#include "runtime/program.h"
#include "runtime/stats.h"

namespace dmlrt::runtime {

// "<-stats name> (line N)": an instruction's label for the profiler (Note [Instruction ranges for
// the profiler] in interpreter.cpp; the line part only when the plan line is known).
std::string instruction_label(const inst::Instruction& i);

// The tasks a PARFOR of n iterations runs on k workers, as half-open ranges of iteration indices
// in order, cut as `p` says (Note [PARFOR parameters] in interpreter.cpp).
std::vector<std::pair<int64_t, int64_t>> parfor_tasks(const ParforParams& p, int64_t n, int k);

class Interpreter final : public inst::Services {
 public:
  // `out` receives print output; `stats` (may be null) receives per-instruction timings.
  Interpreter(const Program& program, std::ostream& out, Statistics* stats = nullptr);

  // Runs the main program in `ec` (its symbol table may hold pre-bound inputs) on a thread of its
  // own with a stack of stack_bytes(), and waits for it; the CLI and the API both run programs
  // here. Errors are rethrown with the plan file, line and instruction in front of the message.
  // See Note [Interpreter stack].
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
  std::optional<inst::FunctionSignature> function_signature(const std::string& key) override;
  std::ostream& out() override { return *out_; }
  void run_workers(int k, const std::function<void(int, inst::Services&)>& body) override;
  int process_count() override;
  int process_rank() override;
  std::vector<inst::ListPtr> gather_lists(const inst::ListPtr& mine) override;
  inst::ListPtr sum_lists(const inst::ListPtr& mine) override;
  void record_paramserv(int workers, int64_t updates, double update_seconds,
                        double seconds) override;
  // Each part timed and located as a line of its own; the fused instruction itself is then not
  // counted in -stats.

  // The documented depth limits of a run (Note [Interpreter stack]). A program within both runs;
  // one beyond either fails with "recursion depth exceeded" naming the plan line and the function,
  // never with a signal.
  // Nested function calls (the main program's calls are depth 1).
  static constexpr int kMaxCallDepth = 1000;
  // Nested blocks (GENERIC, IF, WHILE, FOR, PARFOR) and function calls together, counted from the
  // main program (a recursion kMaxCallDepth calls deep with its call in 30 nested IFs is 32,001).
  static constexpr int kMaxNestingDepth = 40 * kMaxCallDepth;

  // The stack run() interprets on: sized for the limits above, with room for the instructions of
  // the deepest level (Note [Interpreter stack]).
  static size_t stack_bytes();
  // The deepest point the last run() reached below its first frame, in bytes, as seen at block
  // entries (0 before any run). Tests compare it with the budget of the note.
  size_t peak_stack_bytes() const { return peak_stack_bytes_; }

 private:
  void run_main(inst::ExecutionContext& ec);
  // An Interpreter for a worker thread of this one (PARFOR, paramserv): same program and options
  // (with `gpu` as its session when given), its own output stream, -stats and depth counters.
  std::unique_ptr<Interpreter> make_worker(std::ostream& out, Statistics* stats,
                                           std::shared_ptr<mem::GpuSession> gpu) const;
  // On a worker's own thread, before it interprets: its stack bounds (Note [Interpreter stack]).
  void enter_worker_thread();
  // The session's device for this thread; at the end, the one synchronisation and the last GPU
  // event times (no-ops without a GPU session).
  void begin_gpu_thread(const char* what);
  void end_gpu_run(const char* what);
  void run_blocks(const std::vector<BlockPtr>& blocks, inst::ExecutionContext& ec);
  void run_block(const Block& b, inst::ExecutionContext& ec);
  void run_for(const Block& b, inst::ExecutionContext& ec);
  // A PARFOR's n iterations from + i * step on worker threads (Note [Parallel PARFOR]); false
  // when this loop runs in order instead.
  bool run_parfor(const Block& b, inst::ExecutionContext& ec, int64_t from, int64_t step,
                  int64_t n);
  // Loops longer than this run in order (their iteration values are computed in 128 bits).
  static constexpr int64_t kMaxParforIterations = int64_t{1} << 40;
  void run_instructions(const InstructionList& list, inst::ExecutionContext& ec);
  // One instruction with the plan location added to its errors (run_instructions' body).
  void run_checked(inst::Instruction& instr, inst::ExecutionContext& ec);
  // One instruction through its life cycle (inst::Instruction::run), recorded in -stats.
  void run_instruction(inst::Instruction& i, inst::ExecutionContext& ec);
  void record_gpu_instruction(const inst::Instruction& i, inst::ExecutionContext& ec);
  // Instruction i's -stats entry, under its name or (gpu) gpu_<name>: looked up by name once per
  // instruction, then kept (a replayed graph walks ~100 instructions per launch).
  Statistics::Entry& stats_entry(const inst::Instruction& i, bool gpu);
  // Runs predicate instructions and takes the scalar they left in __pred.
  inst::ScalarValue eval_predicate(const InstructionList& list, inst::ExecutionContext& ec,
                                   const Block& b, const char* what);
  std::string block_where(const Block& b) const;
  // Entering block `b`: counts the level, tracks the stack and fails beyond the limits.
  void check_depth(const Block& b);
  // "in function f, 12 calls deep" or "in the main program".
  std::string depth_context() const;

  const Program& program_;
  std::ostream* out_;
  Statistics* stats_;
  std::unordered_map<const inst::Instruction*, std::pair<Statistics::Entry*, Statistics::Entry*>>
      stats_entries_;  // (name, gpu_name) entries by instruction
  Statistics::Entry* graph_entry_ = nullptr;  // gpu_graph: CUDA graph launches
  inst::RunOptions options_;
  double read_seconds_ = 0.0;  // time in read_matrix so far (Note [Read time])
  bool parfor_worker_ = false;  // a PARFOR worker: its own PARFORs run in order
  int call_depth_ = 0;
  int nesting_depth_ = 0;                  // blocks and calls entered and not yet left
  const std::string* function_ = nullptr;  // the function running now; null in the main program
  // The interpreter thread's stack during run(): its first frame, the lowest address block entries
  // may reach before failing, and the lowest address seen (0 outside run()).
  uintptr_t stack_top_ = 0, stack_floor_ = 0, stack_lowest_ = 0;
  size_t peak_stack_bytes_ = 0;
};

}  // namespace dmlrt::runtime
