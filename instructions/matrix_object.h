// A matrix variable's object: metadata, where its data lives on disk, and its host block once read.
// Several symbol-table names may share one object (cpvar); it is freed when the last name goes.
//
// Note [Values live in instructions/]
// DESIGN.md §1 lists values and the symbol table under runtime/. Instructions execute against them
// and dependencies point down only, so they live here, one layer below runtime/; runtime/ supplies
// the services they call back into (file I/O, function calls, output) through inst::Services.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/matrix_block.h"
#include "memory/device_matrix.h"
#include "memory/evictable.h"

namespace dmlrt::mem {
class GpuSession;
}

namespace dmlrt::inst {

// How a matrix is stored in a file (createvar's format fields, write's arguments, .mtd keys).
struct FileFormat {
  std::string format = "binary";  // csv | text | mm | npy | binary | ...
  bool header = false;            // csv
  std::string delim = ",";        // csv
  bool fill = true;               // csv: fill empty fields
  double fill_value = 0.0;        // csv
  std::string na_strings;         // csv, comma-separated
  bool sparse = false;            // csv write: omit zeros
  std::string description;        // write
};

struct MatrixMeta {
  int64_t rows = -1;  // -1 = unknown
  int64_t cols = -1;
  int64_t nnz = -1;
  int64_t blen = 1000;
};

// Note [Host and device copies]
// A matrix object holds its host block and at most one device copy (DESIGN.md §2), with flags:
// host valid (block_ set), device valid (device_ set), device dirty (the device copy is newer and
// the host block is absent). A CPU read of device-dirty data copies it to the host and keeps the
// device copy, now clean, so alternating CPU and GPU readers cost one transfer, not one each (no
// ping-pong). A GPU read of host-only data uploads it. A write replaces one side and drops the
// other. Running instructions pin device copies (read/write pin counts) so the memory manager never
// evicts them mid-op; unpinned copies may be evicted at any allocation, dirty ones being written
// back first (mem::Evictable), so nothing is lost. The device copy belongs to one GpuSession, which
// outlives it or evicts it when it ends.
class MatrixObject final : public mem::Evictable {
 public:
  MatrixObject() = default;
  MatrixObject(MatrixMeta meta, std::string file_name, FileFormat format)
      : meta_(meta), file_name_(std::move(file_name)), format_(std::move(format)) {}
  ~MatrixObject() override;
  MatrixObject(const MatrixObject&) = delete;
  MatrixObject& operator=(const MatrixObject&) = delete;

  const MatrixMeta& meta() const { return meta_; }
  MatrixMeta& meta() { return meta_; }
  const std::string& file_name() const { return file_name_; }
  void set_file_name(std::string name) { file_name_ = std::move(name); }
  const FileFormat& format() const { return format_; }
  void set_format(FileFormat f) { format_ = std::move(f); }

  // True once the data is in memory (computed or read), on the host or on the device.
  bool has_block() const { return block_ != nullptr || device_dirty_; }
  // The host block; copies device-dirty data to the host first (null when there is no data).
  const std::shared_ptr<const kernels::MatrixBlock>& block() const;
  // Sets the data and refreshes rows, cols and nnz; drops a device copy (it is stale now).
  void set_block(std::shared_ptr<const kernels::MatrixBlock> block);
  void set_block(kernels::MatrixBlock block);

  // --- device side (Note [Host and device copies]) ---
  bool host_valid() const { return block_ != nullptr; }
  bool has_device_copy() const { return device_ != nullptr; }
  const mem::DeviceMatrix* device_copy() const { return device_.get(); }
  // The device copy, uploaded first when only the host holds the data (the caller has made sure
  // it does: ExecutionContext reads the file); pinned for reading until release_device_read().
  // `name` is the variable name, for the memory table.
  const mem::DeviceMatrix& acquire_device_read(mem::GpuSession& session, const std::string& name);
  void release_device_read();
  // Makes `m` the data: the device copy is dirty, the host block is dropped; rows, cols and nnz
  // follow m (nnz -1 when unknown).
  void set_device_result(mem::GpuSession& session, mem::DeviceMatrix m, const std::string& name);
  // Drops the device copy without writing it back (only valid when the host block is current).
  void drop_device_copy();
  int read_pins() const { return read_pins_; }

  // mem::Evictable
  size_t device_bytes() const override { return device_ ? device_->device_bytes() : 0; }
  bool device_pinned() const override { return read_pins_ > 0 || write_pins_ > 0; }
  bool device_dirty() const override { return device_dirty_; }
  uint64_t last_use() const override { return last_use_; }
  std::string describe() const override;
  void evict_device_copy() override;

  // The file is a persistent input (createvar with override=false) that dmlrt must never modify.
  bool is_persistent_input() const { return persistent_input_; }
  void set_persistent_input(bool v) { persistent_input_ = v; }

 private:
  MatrixMeta meta_;
  std::string file_name_;
  FileFormat format_;
  bool persistent_input_ = false;
  // Mutable: a const read of device-dirty data fills the host side (block()).
  mutable std::shared_ptr<const kernels::MatrixBlock> block_;
  std::unique_ptr<mem::DeviceMatrix> device_;
  mem::GpuSession* session_ = nullptr;  // owner of device_'s memory
  mutable bool device_dirty_ = false;
  int read_pins_ = 0;
  int write_pins_ = 0;
  uint64_t last_use_ = 0;
  std::string gpu_name_;  // variable name at the last device use, for the memory table
};

}  // namespace dmlrt::inst
