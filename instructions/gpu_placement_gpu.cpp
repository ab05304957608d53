// Device access for GPU runs (gpu_placement.h): pinned reads of inputs, views, output binding.
// CUDA builds only.
#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "memory/gpu_session.h"
#include "memory/graph_hook.h"

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
    temp_ =
        std::make_unique<mem::DeviceMatrix>(gpu.to_dense(*m_, "dense view of " + m_->describe()));
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

ScalarValue gpu_scalar_result(mem::GpuSession& gpu, const mem::DeviceMatrix& m,
                              const std::string& name) {
  if (DeferScope::active(&gpu) == nullptr) return ScalarValue::fp64(gpu.read_element(m, 0, 0));
  std::shared_ptr<mem::HostSlot> slot = gpu.copy_element_async(m);
  if (mem::t_graph_hook != nullptr) mem::t_graph_hook->deferred_scalar(name, slot);
  return deferred_slot_scalar(gpu, std::move(slot));
}

ScalarValue deferred_slot_scalar(mem::GpuSession& gpu, std::shared_ptr<mem::HostSlot> slot) {
  DeferScope* scope = DeferScope::active(&gpu);
  DMLRT_REQUIRE(scope != nullptr, RuntimeError, "a deferred scalar outside a DeferScope");
  mem::GpuSession* g = &gpu;  // outlives the scalar's computation: the scope computes it
  ScalarValue v = ScalarValue::deferred(
      ValueType::kFP64, [g, slot] { return ScalarValue::fp64(g->read_slot(*slot)); });
  scope->add(v);
  return v;
}

}  // namespace dmlrt::inst
