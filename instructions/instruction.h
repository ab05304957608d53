// The instruction base class, its life cycle, and the parsed text every instruction is built from.
//
// Note [Instruction life cycle]
// An instruction is built once from its plan line and run any number of times. It declares:
//   constructor    parses its fields and checks what the text alone decides (field counts, operand
//                  kinds); errors are ParseErrors naming the line.
//   check(shapes)  its shape rules, once: matrix operands' dims against each other. At run time
//                  the dims are the inputs' actual ones; -explain runs it with the plan's dims,
//                  where -1 (unknown) lets every rule pass. Neither run repeats these rules.
//   has_gpu_impl() whether it has a GPU run for its operand kinds, and device_bytes(ec) the device
//                  size of its inputs and output (asked only where -gpu's budget rule needs it).
//   run_cpu(ec)    the CPU run (kernels/cpu).
//   run_gpu(ec, gpu)  the GPU run, declared with DMLRT_RUN_GPU and defined in the family's
//                  <family>_gpu.cpp, which only CUDA builds compile.
// run(ec), not virtual, is the one entry: it checks, decides the placement once (DESIGN.md §4,
// gpu_placement.h), starts and ends the GPU timing around run_gpu, or calls run_cpu, and says
// which ran. An instruction that stands for several plan lines (parts(): a fused chain) and is not
// placed on the GPU runs nothing and answers Ran::kParts: the caller runs the lines, each through
// this same life cycle, so -stats times them one by one. A wrapper (a line with ¶name¶
// placeholders, a renamed fused conv) names the instruction that does the work with target(ec).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "instructions/execution_context.h"
#include "instructions/operand.h"
#include "instructions/types.h"

namespace dmlrt::mem {
class GpuSession;
}

// Declares an instruction class's GPU run, defined in <family>_gpu.cpp. A CPU-only build declares
// nothing (those files are not compiled there) and never places anything on a GPU.
#ifdef DMLRT_WITH_CUDA
#define DMLRT_RUN_GPU void run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) override
#else
#define DMLRT_RUN_GPU static_assert(true, "CPU-only build: no GPU run")
#endif

namespace dmlrt::inst {

// What Instruction::run did.
enum class Ran {
  kCpu,    // run_cpu ran
  kGpu,    // run_gpu ran (its time is measured with events on the GPU stream)
  kParts,  // nothing ran: the caller runs parts() in order
};

struct SourceLocation {
  std::string file;  // plan file ("" for text given through the API)
  int line = 0;      // 1-based; 0 = unknown
};

// One instruction split into its fields. Fields are kept in the raw form (· inside operands).
struct InstructionText {
  ExecType exec_type = ExecType::kCP;
  std::string opcode;               // lower-cased (opcode lookup is case-insensitive)
  std::vector<std::string> fields;  // the fields after the opcode
  std::string raw;                  // the instruction as written, for messages
  SourceLocation loc;

  // Splits a raw `ExecType°opcode°field°...` string. Throws ParseError for an empty string, a
  // missing opcode or an unknown execution type.
  static InstructionText parse(const std::string& raw_text, SourceLocation loc = {});
  // Rebuilds the raw string from exec type, opcode and fields.
  std::string to_raw() const;
};

class Instruction {
 public:
  explicit Instruction(InstructionText text) : text_(std::move(text)) {}
  virtual ~Instruction() = default;
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  // The life cycle (Note [Instruction life cycle]): check, place, run on one side.
  Ran run(ExecutionContext& ec);
  // run(), and where it answers kParts, the parts in order the same way: for callers that keep no
  // -stats (tests, a fused chain's bookkeeping lines).
  void execute(ExecutionContext& ec);

  // The shape rules (Note [Instruction life cycle]); throws ShapeError naming the opcode, the
  // operands and their dims. Unknown dims (-1) pass.
  virtual void check(Shapes& shapes) const { (void)shapes; }
  // Heavy-hitter name in -stats (the opcode; function calls override it with the function name).
  // The interpreter prefixes gpu_ when the instruction ran on the GPU (Ran::kGpu).
  virtual std::string stats_name() const { return text_.opcode; }
  // True when this instruction (for its operand kinds) has a GPU run (run_gpu).
  virtual bool has_gpu_impl() const { return false; }
  // True when this instruction's GPU run may be captured into a CUDA graph and replayed without
  // running it (Note [CUDA graphs] in runtime/cuda_graphs.cpp): it enqueues its work on the
  // session's stream through kernels and libraries that capture, reads device data only through
  // acquire_device_read, writes dense results only through set_device_result, and learns
  // nothing on the host from the device (a point that would, passes gpu::before_host_sync).
  // `ec` is the state just before the run (graph_safe_dense below is the usual rule). A replay
  // binds the results the capture recorded and calls graph_host_effects for the rest.
  virtual bool graph_safe(ExecutionContext& ec) const {
    (void)ec;
    return false;
  }
  // The host-side effects of a GPU run besides binding its results, which a replayed CUDA graph
  // must still have: `before` the results are bound, then after (a fused chain's createvar and
  // rmvar lines). None by default.
  virtual void graph_host_effects(ExecutionContext& ec, bool before) {
    (void)ec;
    (void)before;
  }
  // The plan lines this instruction stands for when a plan rewrite fused several into it
  // (instructions/fused_cellwise.h): -explain prints them in its place. Null otherwise.
  virtual const std::vector<std::unique_ptr<Instruction>>* parts() const { return nullptr; }

  // A profiler's handle for this instruction's label (runtime/interpreter.cpp, Note [Instruction
  // ranges for the profiler]): registered at the instruction's first run, then reused.
  // Atomic: PARFOR and paramserv workers share instructions across threads (two may register
  // the same label; both get the same handle).
  const void* profiler_label(bool* registered) const {
    *registered = profiler_label_registered_.load(std::memory_order_acquire);
    return profiler_label_.load(std::memory_order_relaxed);
  }
  void set_profiler_label(const void* label) const {
    profiler_label_.store(label, std::memory_order_relaxed);
    profiler_label_registered_.store(true, std::memory_order_release);
  }

  const InstructionText& text() const { return text_; }
  const std::string& opcode() const { return text_.opcode; }
  ExecType exec_type() const { return text_.exec_type; }
  // "file:line: instruction 'raw'" — the prefix of every error raised while running this.
  std::string where() const;

 protected:
  // Device bytes of the inputs and the output, from the metadata (-1 when a shape is unknown);
  // -gpu places a CP line on the GPU only when this is known and within the budget.
  virtual int64_t device_bytes(ExecutionContext& ec) const {
    (void)ec;
    return -1;
  }
  // Checked at run time after has_gpu_impl: false when this run cannot go to the GPU after all
  // (a fused chain whose inputs are not the shapes its kernel handles); run_cpu (or the parts)
  // runs instead, as the plan would have.
  virtual bool gpu_applicable(ExecutionContext& ec) {
    (void)ec;
    return true;
  }
  virtual void run_cpu(ExecutionContext& ec) = 0;
  // Reached only through run() with a session; the base class's raises an internal error.
  virtual void run_gpu(ExecutionContext& ec, mem::GpuSession& gpu);
  // The instruction that does the work when this one wraps another (see the Note), run through
  // the whole life cycle in this one's place: a member (a renamed fused conv), or one built for
  // this run only and handed over in `built`, which run() keeps alive until the run ends (a line
  // with placeholders; a recursive function may reach the same line while it runs). A wrapper
  // never wraps an instruction with parts().
  virtual Instruction& target(ExecutionContext& ec, std::unique_ptr<Instruction>& built) {
    (void)ec;
    (void)built;
    return *this;
  }

  // graph_safe for instructions whose GPU runs capture when every matrix operand with data is a
  // dense device copy (a CSR operand may take library paths that synchronise; a host-only one is
  // uploaded first).
  bool graph_safe_dense(ExecutionContext& ec) const;

  size_t num_fields() const { return text_.fields.size(); }
  const std::string& field(size_t i) const;
  Operand operand(size_t i) const;
  // Fields [first, last) in SystemDS's `name=value` layout of parameterized builtins, by name;
  // throws ParseError naming the field that is not one.
  std::map<std::string, std::string> named_fields(size_t first, size_t last) const;
  // Throws ParseError "expected N..M fields, got K" naming the instruction.
  void expect_fields(size_t min, size_t max) const;
  void expect_fields(size_t n) const { expect_fields(n, n); }

 private:
  // run() on the instruction that does the work; `named` gives the -stats name (the wrapper's).
  Ran run_as(ExecutionContext& ec, const Instruction& named);
  // The session when this run goes to the GPU (DESIGN.md §4 via choose_placement), else null.
  mem::GpuSession* placement(ExecutionContext& ec);

  InstructionText text_;
  mutable std::atomic<const void*> profiler_label_{nullptr};
  mutable std::atomic<bool> profiler_label_registered_{false};
};

using InstructionPtr = std::unique_ptr<Instruction>;

// Formats a shape for messages: "3x4".
std::string shape_of(const kernels::MatrixBlock& b);

}  // namespace dmlrt::inst
