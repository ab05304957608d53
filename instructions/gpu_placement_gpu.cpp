// Device access for GPU runs (gpu_placement.h): pinned reads of inputs, views, output binding.
// CUDA builds only.
#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

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


}  // namespace dmlrt::inst
