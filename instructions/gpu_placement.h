// Where an instruction runs (DESIGN.md §4) and how a GPU run reaches its data: the placement rule
// that Instruction::run applies, the pinned device view of an input (DeviceRead) and output
// binding. Every GPU instruction family uses these; see Note [Writing a GPU instruction].
//
// Note [Writing a GPU instruction]
// In the class (instructions/<family>_instructions.h), beside run_cpu:
//   bool has_gpu_impl() const override { return true; }        // per operand kinds
//   int64_t device_bytes(ExecutionContext& ec) const override;  // inputs + output, from metadata
//   DMLRT_RUN_GPU;
// and in <family>_gpu.cpp (CUDA builds only):
//   void XInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
//     DeviceRead a = gpu_read(ec, gpu, in1_);          // H2D if needed; pinned until scope end
//     const mem::DeviceMatrix& ad = a.dense(gpu);       // temp dense view when the copy is CSR
//     mem::DeviceMatrix c = mem::DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(),
//                                                    gpu.stream(), "gpu_<op> output");
//     mem::with_dtype(gpu.dtype(), [&](auto t) {            // one body for FP64 and FP32
//       using T = decltype(t);
//       kernels::cuda::launch_xxx(ad.values_as<T>(), ..., gpu.stream());  // never synchronise
//     });
//     set_gpu_output(ec, gpu, out_.name, std::move(c));   // device copy, dirty; no D2H
//   }
// Instruction::run has checked the shapes (check()) and started the GPU timing before run_gpu;
// neither run repeats the checks. Scalars a GPU op computes are read with gpu.read_element
// (synchronous; only for scalar outputs). Library algorithms that need workspace take it from a
// mem::ScopedScratch (Note [Device scratch] in kernels/cuda/scratch.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "instructions/execution_context.h"
#include "instructions/types.h"
#include "memory/device_matrix.h"

namespace dmlrt::inst {

enum class Placement { kCpu, kGpu };

// The placement rule, free of devices (unit-tested): a GPU line runs on the GPU when a device is
// usable and the op has a GPU implementation; a CP line runs on the CPU unless mode is kOn (GPU
// when the op has an implementation and operand_bytes is known and within budget_bytes) or kForce
// (GPU whenever the op has one). Without a usable device everything runs on the CPU.
Placement choose_placement(ExecType exec_type, GpuMode mode, bool device_usable, bool has_gpu_impl,
                           int64_t operand_bytes, int64_t budget_bytes);

// True when the placement weighs the operands' device bytes for `inst` (a CP line under -gpu);
// only then does Instruction::run ask device_bytes.
bool placement_needs_bytes(const ExecutionContext& ec, const Instruction& inst);

// Device bytes of a (rows, cols) dense matrix in the session's element type (-1 when a dim is
// unknown); instructions sum these over inputs and output in device_bytes.
int64_t dense_device_bytes(const mem::GpuSession* gpu, int64_t rows, int64_t cols);
// The device budget -gpu weighs operands against (the memory manager's).
int64_t gpu_budget_bytes(mem::GpuSession& gpu);

// --- device access: defined in gpu_placement_gpu.cpp, called only from GPU runs ---

// A matrix input's device copy, pinned for reading while this object lives.
class DeviceRead {
 public:
  DeviceRead() = default;
  DeviceRead(std::shared_ptr<MatrixObject> mo, const mem::DeviceMatrix* m)
      : mo_(std::move(mo)), m_(m) {}
  ~DeviceRead();
  DeviceRead(DeviceRead&&) noexcept = default;
  DeviceRead& operator=(DeviceRead&&) noexcept;
  DeviceRead(const DeviceRead&) = delete;
  DeviceRead& operator=(const DeviceRead&) = delete;

  const mem::DeviceMatrix& operator*() const { return *m_; }
  const mem::DeviceMatrix* operator->() const { return m_; }
  const mem::DeviceMatrix& get() const { return *m_; }
  // A dense view: the copy itself, or a temporary conversion of a CSR copy owned by this object
  // (the input keeps its format).
  const mem::DeviceMatrix& dense(mem::GpuSession& gpu);
  // A CSR view, likewise.
  const mem::DeviceMatrix& csr(mem::GpuSession& gpu);

 private:
  std::shared_ptr<MatrixObject> mo_;
  const mem::DeviceMatrix* m_ = nullptr;
  std::unique_ptr<mem::DeviceMatrix> temp_;
};

// The device copy of matrix operand `op` (read from its file and uploaded as needed), pinned.
DeviceRead gpu_read(ExecutionContext& ec, mem::GpuSession& gpu, const Operand& op);
// Binds a device result to variable `name` (the object createvar made, or a new one).
void set_gpu_output(ExecutionContext& ec, mem::GpuSession& gpu, const std::string& name,
                    mem::DeviceMatrix m);
// Element (0, 0) of dense device matrix `m` as the FP64 value of scalar result `name`: read now,
// or, inside a DeferScope of this session, deferred (Note [Deferred scalars] in
// scalar_value.cpp; the CUDA graph runner learns of it through mem::t_graph_hook).
ScalarValue gpu_scalar_result(mem::GpuSession& gpu, const mem::DeviceMatrix& m,
                              const std::string& name);
// The deferred FP64 scalar that `slot` holds once `gpu`'s stream has passed its copy, registered
// with the open DeferScope of `gpu` (there must be one).
ScalarValue deferred_slot_scalar(mem::GpuSession& gpu, std::shared_ptr<mem::HostSlot> slot);

}  // namespace dmlrt::inst
