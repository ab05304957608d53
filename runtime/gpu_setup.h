// Opening the GPU session of a run: the CLI and the API ask here whether a program needs the GPU
// (-gpu, -gpu force, or GPU° lines in the plan) and get a session configured from the runtime config
// (precision, budget, eviction policy, sync) — or null, after one warning, when no device is usable.
#pragma once

#include <memory>

#include "instructions/execution_context.h"
#include "runtime/config.h"
#include "runtime/program.h"

namespace dmlrt::mem {
class GpuSession;
}

namespace dmlrt::runtime {

// True when some instruction of the program (main or functions) is a GPU° line.
bool program_has_gpu_lines(const Program& program);

// The session for a run in `mode` of `program`, or null when the run does not need the GPU or no
// device is usable. `timing` turns on event timing (-stats). Throws when a present device fails.
std::shared_ptr<mem::GpuSession> open_gpu_for_run(const Program& program, inst::GpuMode mode,
                                                  const RuntimeConfig& config,
                                                  long long mem_budget_bytes, bool timing);

}  // namespace dmlrt::runtime
