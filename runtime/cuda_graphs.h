// CUDA graphs for runs of GPU instructions (issue #19; Note [CUDA graphs] in cuda_graphs.cpp):
// the interpreter hands an instruction list to run_with_graphs when the run's GPU session has
// dmlrt.gpu.graphs on; it captures runs of consecutive GPU instructions once and replays them.
#pragma once

#include <cstddef>
#include <functional>

#include "instructions/execution_context.h"
#include "runtime/program.h"

namespace dmlrt::mem {
class GpuSession;
}

namespace dmlrt::runtime {

// True when lists run on `gpu` go through run_with_graphs: dmlrt.gpu.graphs is on and the run
// does not synchronise after each instruction (-sync-check), in a CUDA build.
bool graphs_enabled(const mem::GpuSession* gpu);

// What run_with_graphs asks of the interpreter.
struct GraphCallbacks {
  // Runs instruction i of the list as the interpreter does (its -stats, its errors).
  std::function<void(size_t)> run;
  // Instruction i's GPU work was done by a replayed graph (-stats counts it).
  std::function<void(size_t)> replayed;
  // A graph was launched (-stats counts gpu_graph; its time comes with the GPU timings).
  std::function<void()> launched;
};

// Runs every instruction of `list` in order on `ec`, capturing runs of GPU instructions as CUDA
// graphs and replaying them on later runs of the same list.
void run_with_graphs(mem::GpuSession& gpu, const InstructionList& list, inst::ExecutionContext& ec,
                     const GraphCallbacks& cb);

}  // namespace dmlrt::runtime
