// Matrix and scalar file I/O: CSV, text (ijv), Matrix Market and NumPy .npy, with SystemDS's .mtd
// metadata files. Writes go to a temporary name in the target folder and are renamed.
#pragma once

#include <string>

#include "instructions/matrix_object.h"
#include "instructions/scalar_value.h"
#include "kernels/matrix_block.h"

namespace dmlrt::io {

// Reads the matrix at `path`. `fmt` and `meta` carry what the plan knows (createvar); the file's
// .mtd (path + ".mtd"), when present, supplies what they leave unknown and is checked against them.
// Throws IoError naming the file, line and problem for missing, unreadable or malformed files.
kernels::MatrixBlock read_matrix(const std::string& path, const inst::FileFormat& fmt,
                                 const inst::MatrixMeta& meta);

// Writes `block` in `fmt.format` (csv, text, mm, npy; "binary" is written as ... see README) and
// its .mtd where SystemDS writes one.
void write_matrix(const kernels::MatrixBlock& block, const std::string& path,
                  const inst::FileFormat& fmt);

inst::ScalarValue read_scalar(const std::string& path, inst::ValueType vt);
void write_scalar(const inst::ScalarValue& value, const std::string& path);

}  // namespace dmlrt::io
