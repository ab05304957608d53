// The placement rule and the sizes it weighs; see gpu_placement.h (device access is in
// gpu_placement_gpu.cpp).
#include "instructions/gpu_placement.h"

#include "gpu_context/error.h"
#include "instructions/instruction.h"

#ifdef DMLRT_WITH_CUDA
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {

Placement choose_placement(ExecType exec_type, GpuMode mode, bool device_usable, bool has_gpu_impl,
                           int64_t operand_bytes, int64_t budget_bytes) {
  if (!device_usable || !has_gpu_impl) return Placement::kCpu;
  if (exec_type == ExecType::kGPU) return Placement::kGpu;
  switch (mode) {
    case GpuMode::kOff:
      return Placement::kCpu;
    case GpuMode::kForce:
      return Placement::kGpu;
    case GpuMode::kOn:
      break;
  }
  return operand_bytes >= 0 && operand_bytes <= budget_bytes ? Placement::kGpu : Placement::kCpu;
}

bool placement_needs_bytes(const ExecutionContext& ec, const Instruction& inst) {
  return ec.options().gpu != nullptr && ec.options().gpu_mode == GpuMode::kOn &&
         inst.exec_type() != ExecType::kGPU;
}

#ifdef DMLRT_WITH_CUDA

int64_t dense_device_bytes(const mem::GpuSession* gpu, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0) return -1;
  const int64_t es = gpu != nullptr ? static_cast<int64_t>(mem::dtype_size(gpu->dtype())) : 8;
  return rows * cols * es;
}

int64_t gpu_budget_bytes(mem::GpuSession& gpu) {
  return static_cast<int64_t>(gpu.memory().budget());
}

#else  // CPU-only build: no session exists, so these see none.

int64_t dense_device_bytes(const mem::GpuSession*, int64_t rows, int64_t cols) {
  return rows < 0 || cols < 0 ? -1 : rows * cols * 8;
}

int64_t gpu_budget_bytes(mem::GpuSession&) { return 0; }

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::inst
