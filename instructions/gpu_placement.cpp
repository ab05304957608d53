// Placement rule, ExecutionContext::gpu_for, and device access for GPU instructions; see
// gpu_placement.h.
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

int64_t dense_device_bytes(const mem::GpuSession* gpu, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0) return -1;
#ifdef DMLRT_WITH_CUDA
  const int64_t es = gpu != nullptr ? static_cast<int64_t>(mem::dtype_size(gpu->dtype())) : 8;
#else
  (void)gpu;
  const int64_t es = 8;
#endif
  return rows * cols * es;
}

mem::GpuSession* ExecutionContext::gpu_for(const Instruction& inst, int64_t operand_bytes) {
#ifdef DMLRT_WITH_CUDA
  mem::GpuSession* gpu = options_.gpu.get();
  const int64_t budget = gpu != nullptr ? static_cast<int64_t>(gpu->memory().budget()) : 0;
  if (choose_placement(inst.exec_type(), options_.gpu_mode, gpu != nullptr, inst.has_gpu_impl(),
                       operand_bytes, budget) == Placement::kCpu)
    return nullptr;
  gpu->begin_instruction();
  ran_on_gpu_ = true;
  return gpu;
#else
  (void)inst;
  (void)operand_bytes;
  return nullptr;
#endif
}

DeviceRead::~DeviceRead() {
  temp_.reset();
  if (mo_) mo_->release_device_read();
}

DeviceRead& DeviceRead::operator=(DeviceRead&& o) noexcept {
  if (this != &o) {
    temp_.reset();
    if (mo_) mo_->release_device_read();
    mo_ = std::move(o.mo_);
    m_ = o.m_;
    temp_ = std::move(o.temp_);
    o.m_ = nullptr;
  }
  return *this;
}

#ifdef DMLRT_WITH_CUDA

const mem::DeviceMatrix& DeviceRead::dense(mem::GpuSession& gpu) {
  if (!m_->is_sparse()) return *m_;
  if (!temp_ || temp_->is_sparse())
    temp_ = std::make_unique<mem::DeviceMatrix>(gpu.to_dense(*m_, "dense view of " + m_->describe()));
  return *temp_;
}

const mem::DeviceMatrix& DeviceRead::csr(mem::GpuSession& gpu) {
  if (m_->is_sparse()) return *m_;
  if (!temp_ || !temp_->is_sparse())
    temp_ = std::make_unique<mem::DeviceMatrix>(gpu.to_csr(*m_, "csr view of " + m_->describe()));
  return *temp_;
}

DeviceRead gpu_read(ExecutionContext& ec, mem::GpuSession& gpu, const Operand& op) {
  DMLRT_REQUIRE(!op.literal, RuntimeError,
                "literal '" << op.name << "' used where a matrix is expected");
  const std::shared_ptr<MatrixObject>& mo = ec.matrix_object_ref(op.name);
  if (!mo->has_device_copy()) ec.matrix(op.name);  // reads the file on first use
  const mem::DeviceMatrix& m = mo->acquire_device_read(gpu, op.name);
  return DeviceRead(mo, &m);
}

void set_gpu_output(ExecutionContext& ec, mem::GpuSession& gpu, const std::string& name,
                    mem::DeviceMatrix m) {
  if (const Value* v = ec.find(name)) {
    if (const auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(v)) {
      (*mo)->set_device_result(gpu, std::move(m), name);
      return;
    }
  }
  auto mo = std::make_shared<MatrixObject>();
  mo->set_device_result(gpu, std::move(m), name);
  ec.set(name, std::move(mo));
}

#else  // CPU-only build: gpu_for never answers, so these are unreachable.

const mem::DeviceMatrix& DeviceRead::dense(mem::GpuSession&) {
  DMLRT_FAIL(NotSupported, "CPU-only build (DMLRT_WITH_CUDA=OFF): no device data");
}
const mem::DeviceMatrix& DeviceRead::csr(mem::GpuSession&) {
  DMLRT_FAIL(NotSupported, "CPU-only build (DMLRT_WITH_CUDA=OFF): no device data");
}
DeviceRead gpu_read(ExecutionContext&, mem::GpuSession&, const Operand&) {
  DMLRT_FAIL(NotSupported, "CPU-only build (DMLRT_WITH_CUDA=OFF): no device data");
}
void set_gpu_output(ExecutionContext&, mem::GpuSession&, const std::string&, mem::DeviceMatrix) {
  DMLRT_FAIL(NotSupported, "CPU-only build (DMLRT_WITH_CUDA=OFF): no device data");
}

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::inst
