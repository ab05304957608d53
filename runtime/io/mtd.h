// SystemDS's .mtd metadata files: the JSON object written next to a matrix or scalar file (keys
// data_type, value_type, rows, cols, nnz, format, header, sep, description, author, created).
// Parsed leniently (numbers may be quoted, unknown keys ignored); written as SystemDS 3.4 does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "instructions/matrix_object.h"
#include "instructions/types.h"

namespace dmlrt::io {

struct Mtd {
  std::string data_type;   // "matrix", "scalar", ... ("" when absent)
  std::string value_type;  // "double", "int", "boolean", "string", ...
  std::string format;      // as written: "csv", "text", "mm", "binary", ...
  int64_t rows = -1;       // -1 = absent
  int64_t cols = -1;
  int64_t nnz = -1;
  std::optional<bool> header;  // csv
  std::optional<std::string> sep;
  std::optional<bool> fill;
  std::optional<double> fill_value;  // "default"
  std::optional<std::string> na_strings;
  std::string description;
};

// Parses the text of `name` (a .mtd file). Throws IoError "<name>: bad .mtd: ..." on bad JSON, a
// non-object, or a key of the wrong type (e.g. negative or fractional rows).
Mtd parse_mtd(std::string_view text, const std::string& name);

// The .mtd SystemDS writes for a matrix in csv or text: 4-space indented JSON, keys in SystemDS's
// order. `author` and `created` are included unless `stable` (tests compare the rest).
std::string matrix_mtd_json(int64_t rows, int64_t cols, int64_t nnz, const inst::FileFormat& fmt,
                            bool stable = false);
// The .mtd SystemDS writes next to a scalar file.
std::string scalar_mtd_json(inst::ValueType vt, bool stable = false);

// SystemDS's file-format names reduced to ours: "csv", "text" (also "textcell"), "mm" (also
// "matrixmarket"), "npy", "binary" (also "binaryblock"), "unknown" (also ""); others returned
// lower-cased as given.
std::string canonical_format(const std::string& format);

}  // namespace dmlrt::io
