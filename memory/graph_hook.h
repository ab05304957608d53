// What the CUDA graph runner (runtime/cuda_graphs.cpp, Note [CUDA graphs]) learns from the memory
// layer while it captures a run of GPU instructions on this thread: the allocations an
// instruction makes and returns, and the device matrices it reads and writes. Host-clean.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gpu_context/host_sync_hook.h"

namespace dmlrt::mem {

class AllocLabel;
class DeviceMatrix;
struct HostSlot;

class GraphHook {
 public:
  virtual ~GraphHook() = default;
  // A block of `bytes` (zero-filled on the stream when `zero`) at `ptr`, and its return.
  virtual void allocated(void* ptr, size_t bytes, const AllocLabel& what, bool zero) = 0;
  virtual void released(void* ptr) = 0;
  // A matrix object's device copy read by an instruction (MatrixObject::acquire_device_read) and
  // an instruction's device result (MatrixObject::set_device_result); `name` is the variable.
  virtual void input(const std::string& name, const DeviceMatrix& m) = 0;
  virtual void output(const std::string& name, const DeviceMatrix& m) = 0;
  // A scalar result left deferred (Note [Deferred scalars] in instructions/scalar_value.cpp):
  // the instruction queued the copy of its value into `slot`.
  virtual void deferred_scalar(const std::string& name, const std::shared_ptr<HostSlot>& slot) {
    (void)name;
    (void)slot;
  }
};

inline thread_local GraphHook* t_graph_hook = nullptr;

}  // namespace dmlrt::mem
