// MatrixObject: block assignment keeps the metadata in step with the data; the host/device state
// machine of Note [Host and device copies].
#include "instructions/matrix_object.h"

#include "gpu_context/error.h"

#ifdef DMLRT_WITH_CUDA
#include "memory/gpu_session.h"
#include "memory/graph_hook.h"
#endif

namespace dmlrt::inst {

MatrixObject::~MatrixObject() { drop_device_copy(); }

const std::shared_ptr<const kernels::MatrixBlock>& MatrixObject::block() const {
#ifdef DMLRT_WITH_CUDA
  if (block_ == nullptr && device_dirty_ && device_ != nullptr) {
    // CPU read of device data: copy it down and keep the device copy, now clean.
    block_ = std::make_shared<const kernels::MatrixBlock>(session_->download(*device_));
    device_dirty_ = false;
  }
#endif
  return block_;
}

void MatrixObject::set_block(std::shared_ptr<const kernels::MatrixBlock> block) {
  drop_device_copy();
  block_ = std::move(block);
  if (block_) {
    meta_.rows = block_->rows();
    meta_.cols = block_->cols();
    meta_.nnz = block_->nnz();
  }
}

void MatrixObject::set_block(kernels::MatrixBlock block) {
  set_block(std::make_shared<const kernels::MatrixBlock>(std::move(block)));
}

void MatrixObject::drop_device_copy() {
  if (device_ == nullptr) return;
#ifdef DMLRT_WITH_CUDA
  session_->memory().unregister_evictable(this);
#endif
  device_.reset();
  session_ = nullptr;
  device_dirty_ = false;
  read_pins_ = write_pins_ = 0;
}

std::string MatrixObject::describe() const {
  return "matrix " + (gpu_name_.empty() ? std::string("(unnamed)") : gpu_name_) + " " +
         (device_ ? device_->describe() : std::string("(no device copy)"));
}

#ifdef DMLRT_WITH_CUDA

const mem::DeviceMatrix& MatrixObject::acquire_device_read(mem::GpuSession& session,
                                                           const std::string& name) {
  DMLRT_REQUIRE(device_ == nullptr || session_ == &session, NotSupported,
                "matrix '" << name << "' has a device copy in another GPU session");
  gpu_name_ = name;
  if (device_ == nullptr) {
    DMLRT_REQUIRE(block_ != nullptr, RuntimeError,
                  "matrix '" << name << "' has no data to copy to the GPU");
    // Upload before registering: the upload's allocations may evict others, never this one.
    device_ = std::make_unique<mem::DeviceMatrix>(session.upload(*block_, "matrix " + name));
    session_ = &session;
    device_dirty_ = false;
    session.memory().register_evictable(this);
  }
  ++read_pins_;
  last_use_ = session.memory().tick();
  if (mem::t_graph_hook != nullptr) mem::t_graph_hook->input(name, *device_);
  return *device_;
}

void MatrixObject::release_device_read() {
  if (read_pins_ > 0) --read_pins_;
  if (session_ != nullptr) last_use_ = session_->memory().tick();
}

void MatrixObject::set_device_result(mem::GpuSession& session, mem::DeviceMatrix m,
                                     const std::string& name) {
  if (mem::t_graph_hook != nullptr) mem::t_graph_hook->output(name, m);
  const bool registered = device_ != nullptr && session_ == &session;
  if (registered) {
    // A new result over a copy of the same session (a loop writing the same variable): the old
    // buffers go back to the manager and the object stays registered, without the unregister /
    // register pair and the heap round trip of a fresh DeviceMatrix.
    *device_ = std::move(m);
    read_pins_ = write_pins_ = 0;  // as drop_device_copy
  } else {
    drop_device_copy();
    device_ = std::make_unique<mem::DeviceMatrix>(std::move(m));
    session_ = &session;
  }
  block_.reset();
  meta_.rows = device_->rows();
  meta_.cols = device_->cols();
  meta_.nnz = device_->nnz();
  gpu_name_ = name;
  device_dirty_ = true;
  last_use_ = session.memory().tick();
  if (!registered) session.memory().register_evictable(this);
}

void MatrixObject::evict_device_copy() {
  if (device_ == nullptr) return;
  if (device_dirty_) {
    block_ = std::make_shared<const kernels::MatrixBlock>(
        session_->download(*device_, /*for_eviction=*/true));
    meta_.nnz = block_->nnz();
    device_dirty_ = false;
  }
  drop_device_copy();
}

#else  // CPU-only build: no session can exist, so no device copy ever does.

const mem::DeviceMatrix& MatrixObject::acquire_device_read(mem::GpuSession&, const std::string&) {
  DMLRT_FAIL(NotSupported, "CPU-only build (DMLRT_WITH_CUDA=OFF): no device copies");
}
void MatrixObject::release_device_read() {}
void MatrixObject::set_device_result(mem::GpuSession&, mem::DeviceMatrix, const std::string&) {
  DMLRT_FAIL(NotSupported, "CPU-only build (DMLRT_WITH_CUDA=OFF): no device copies");
}
void MatrixObject::evict_device_copy() {}

#endif  // DMLRT_WITH_CUDA

}  // namespace dmlrt::inst
