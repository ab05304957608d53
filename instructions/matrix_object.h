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

class MatrixObject {
 public:
  MatrixObject() = default;
  MatrixObject(MatrixMeta meta, std::string file_name, FileFormat format)
      : meta_(meta), file_name_(std::move(file_name)), format_(std::move(format)) {}

  const MatrixMeta& meta() const { return meta_; }
  MatrixMeta& meta() { return meta_; }
  const std::string& file_name() const { return file_name_; }
  void set_file_name(std::string name) { file_name_ = std::move(name); }
  const FileFormat& format() const { return format_; }
  void set_format(FileFormat f) { format_ = std::move(f); }

  // True once the data is in memory (computed or read).
  bool has_block() const { return block_ != nullptr; }
  const std::shared_ptr<const kernels::MatrixBlock>& block() const { return block_; }
  // Sets the data and refreshes rows, cols and nnz.
  void set_block(std::shared_ptr<const kernels::MatrixBlock> block);
  void set_block(kernels::MatrixBlock block);

  // The file is a persistent input (createvar with override=false) that dmlrt must never modify.
  bool is_persistent_input() const { return persistent_input_; }
  void set_persistent_input(bool v) { persistent_input_ = v; }

 private:
  MatrixMeta meta_;
  std::string file_name_;
  FileFormat format_;
  bool persistent_input_ = false;
  std::shared_ptr<const kernels::MatrixBlock> block_;
};

}  // namespace dmlrt::inst
