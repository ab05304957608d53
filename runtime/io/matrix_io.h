// Matrix and scalar file I/O: CSV, text (ijv), Matrix Market and NumPy .npy, with SystemDS's .mtd
// metadata files; SystemDS's binary block format is read too. Writes go to temporaries in the
// target folder, published as one pair under a folder lock (safe_write.h); they never remove or
// replace what dmlrt did not create.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "instructions/matrix_object.h"
#include "instructions/scalar_value.h"
#include "kernels/matrix_block.h"

namespace dmlrt::io {

// Reads the matrix at `path`. `fmt` and `meta` carry what the plan knows (createvar); the file's
// .mtd (path + ".mtd"), when present, supplies what they leave unknown and is checked against them.
// Throws IoError naming the file, line and problem for missing, unreadable or malformed files.
//
// The format is fmt.format unless that is "unknown"/"": then the .mtd's, else the extension's
// (.csv .mtx .mm .npy). SystemDS's "binary" block format (uncompressed Hadoop SequenceFiles of
// matrix blocks, block size from the .mtd, else createvar's) is read; see binary_io.cpp.
// A folder (SystemDS's multi-part output) is read as its part files concatenated in name order.
// The file and its .mtd are read under a shared lock of their folder, so they come from one write.
// The result is in the format SystemDS would pick (MatrixBlock::examine_format).
kernels::MatrixBlock read_matrix(const std::string& path, const inst::FileFormat& fmt,
                                 const inst::MatrixMeta& meta);

// Writes `block` in `fmt.format` (csv, text, mm, npy) and its .mtd where SystemDS writes one (csv,
// text); for mm and npy a stale regular-file .mtd is removed. Parent folders are created.
// "binary" is refused with an IoError. `path` and `path`.mtd may each be absent, a regular file
// or a symlink to one (written through, the link stays); a folder, device, FIFO, socket or a
// symlink to one is refused with an IoError before anything is written or removed. The data file
// and .mtd are published together (concurrent writers of one path end with one writer's pair). A
// failure leaves neither a partial file nor a changed target. See Note [Safe writes].
void write_matrix(const kernels::MatrixBlock& block, const std::string& path,
                  const inst::FileFormat& fmt);

// Scalars: the value as text (doubles as Java prints them, booleans as true/false) plus a .mtd;
// read_scalar parses the file's text as `vt` (kUnknown: the .mtd's value type, else string).
// write_scalar follows write_matrix's rules for the file and its .mtd.
inst::ScalarValue read_scalar(const std::string& path, inst::ValueType vt);
void write_scalar(const inst::ScalarValue& value, const std::string& path);

// ---- In-memory entry points (tests, fuzzers) ----

// Caps allocations that a file's declared shape asks for beyond what its size implies (e.g. the
// row index of a 10^12-row Matrix Market file with three entries). -1 = no cap.
struct ReadLimits {
  int64_t max_bytes = -1;
};

// Parses `data` as the contents of a matrix file named `name` (messages only; its extension may
// pick the format), with `mtd_text` the contents of its .mtd (nullptr: none). Same rules as
// read_matrix.
kernels::MatrixBlock read_matrix_from_string(std::string_view data, const std::string& name,
                                             const inst::FileFormat& fmt,
                                             const inst::MatrixMeta& meta,
                                             const std::string* mtd_text = nullptr,
                                             ReadLimits limits = {});

// The bytes write_matrix would put in the data file for `fmt.format` (csv, text, mm, npy).
std::string write_matrix_to_string(const kernels::MatrixBlock& block, const inst::FileFormat& fmt);

}  // namespace dmlrt::io
