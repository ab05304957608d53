// NumPy .npy files: versions 1.0, 2.0 and 3.0 headers; float, signed and unsigned integer and
// bool dtypes of either byte order; C and Fortran order; 0-D (1x1), 1-D (n -> n x 1) and 2-D
// arrays. Written as version 1.0, '<f8', C order, as np.save writes a float64 matrix.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>

#include "gpu_context/error.h"
#include "runtime/io/io_detail.h"

namespace dmlrt::io::detail {
namespace {

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  bool has_descr = false, has_fortran = false, has_shape = false;
};

// The header is a Python dict literal, e.g.
//   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
class DictParser {
 public:
  DictParser(std::string_view s, const std::string& name) : s_(s), name_(name) {}

  NpyHeader parse() {
    NpyHeader h;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = string_lit();
      expect(':');
      if (key == "descr") {
        h.descr = string_lit();
        h.has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = bool_lit();
        h.has_fortran = true;
      } else if (key == "shape") {
        h.shape = tuple_lit();
        h.has_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      break;
    }
    skip_ws();
    DMLRT_REQUIRE(i_ == s_.size(), IoError,
                  name_ << ": bad .npy header: unexpected text after the dict");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    DMLRT_FAIL(IoError, name_ << ": bad .npy header: " << what << " at offset " << i_ << " in '"
                              << std::string(s_.substr(0, 120)) << "'");
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    skip_ws();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_lit() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const size_t end = s_.find(q, i_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return out;
  }
  bool bool_lit() {
    skip_ws();
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> tuple_lit() {
    expect('(');
    std::vector<int64_t> out;
    while (true) {
      skip_ws();
      if (peek() == ')') {
        ++i_;
        return out;
      }
      const size_t b = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      // Python 2 era files may write 3L.
      const size_t e = i_;
      if (peek() == 'L') ++i_;
      int64_t v = 0;
      if (e == b || !parse_int64(s_.substr(b, e - b), v)) fail("expected a dimension");
      out.push_back(v);
      if (out.size() > 32) fail("too many dimensions");
      skip_ws();
      if (peek() == ',') ++i_;
      else if (peek() != ')') fail("expected ',' or ')'");
    }
  }

  std::string_view s_;
  const std::string& name_;
  size_t i_ = 0;
};

uint32_t le_u16(const unsigned char* p) { return p[0] | (p[1] << 8); }
uint32_t le_u32(const unsigned char* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

enum class Kind { kFloat, kInt, kUInt, kBool };

// Element k of the array as a double; `p` points at its bytes.
template <typename T>
double load(const unsigned char* p, bool swap) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (swap)
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  T v;
  std::memcpy(&v, b, sizeof(T));
  return static_cast<double>(v);
}

}  // namespace

kernels::MatrixBlock read_npy(std::string_view data, const std::string& name) {
  const auto* u = reinterpret_cast<const unsigned char*>(data.data());
  DMLRT_REQUIRE(data.size() >= 10 && std::memcmp(data.data(), "\x93NUMPY", 6) == 0, IoError,
                name << ": not a .npy file (missing the \\x93NUMPY magic)");
  const int major = u[6], minor = u[7];
  DMLRT_REQUIRE(major >= 1 && major <= 3, IoError,
                name << ": unsupported .npy version " << major << "." << minor
                     << " (dmlrt reads 1.x, 2.x and 3.x)");
  size_t header_start = 10, header_len = le_u16(u + 8);
  if (major >= 2) {
    DMLRT_REQUIRE(data.size() >= 12, IoError, name << ": truncated .npy header");
    header_start = 12;
    header_len = le_u32(u + 8);
  }
  DMLRT_REQUIRE(header_len <= data.size() - header_start, IoError,
                name << ": truncated .npy header: " << header_len << " bytes declared, "
                     << data.size() - header_start << " present");
  const NpyHeader h = DictParser(data.substr(header_start, header_len), name).parse();
  DMLRT_REQUIRE(h.has_descr && h.has_fortran && h.has_shape, IoError,
                name << ": bad .npy header: needs the keys 'descr', 'fortran_order' and 'shape'");

  // dtype: byte order, kind, item size, e.g. '<f8', '|b1', '>i4'.
  const std::string& d = h.descr;
  const std::string supported =
      " (dmlrt reads float32/64, int8..64, uint8..64 and bool arrays)";
  DMLRT_REQUIRE(d.size() >= 3 && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '='),
                IoError, name << ": unsupported .npy dtype '" << d << "'" << supported);
  Kind kind;
  switch (d[1]) {
    case 'f': kind = Kind::kFloat; break;
    case 'i': kind = Kind::kInt; break;
    case 'u': kind = Kind::kUInt; break;
    case 'b': kind = Kind::kBool; break;
    default: DMLRT_FAIL(IoError, name << ": unsupported .npy dtype '" << d << "'" << supported);
  }
  int64_t item = 0;
  DMLRT_REQUIRE(parse_int64(std::string_view(d).substr(2), item) &&
                    ((kind == Kind::kFloat && (item == 4 || item == 8)) ||
                     ((kind == Kind::kInt || kind == Kind::kUInt) &&
                      (item == 1 || item == 2 || item == 4 || item == 8)) ||
                     (kind == Kind::kBool && item == 1)),
                IoError, name << ": unsupported .npy dtype '" << d << "'" << supported);
  const bool swap = d[0] == '>' && item > 1;  // hosts are little-endian

  int64_t rows = 1, cols = 1;
  switch (h.shape.size()) {
    case 0: break;  // a NumPy scalar: 1x1
    case 1: rows = h.shape[0]; break;
    case 2: rows = h.shape[0]; cols = h.shape[1]; break;
    default:
      DMLRT_FAIL(IoError, name << ": a " << h.shape.size()
                               << "-D .npy array is not a matrix (dmlrt reads 0-D, 1-D and 2-D)");
  }
  DMLRT_REQUIRE(cols <= std::numeric_limits<int32_t>::max(), IoError,
                name << ": " << cols << " columns exceed the supported 2^31-1");
  int64_t cells = 0, bytes = 0;
  DMLRT_REQUIRE(!__builtin_mul_overflow(rows, cols, &cells) &&
                    !__builtin_mul_overflow(cells, item, &bytes),
                IoError, name << ": .npy shape " << rows << "x" << cols << " overflows");
  const size_t data_start = header_start + header_len;
  const size_t have = data.size() - data_start;
  DMLRT_REQUIRE(static_cast<uint64_t>(bytes) <= have, IoError,
                name << ": truncated .npy data: shape " << kernels::dims_string(rows, cols)
                     << " of '" << d << "' needs " << bytes << " bytes, " << have << " present");
  DMLRT_REQUIRE(static_cast<uint64_t>(bytes) == have, IoError,
                name << ": " << have - static_cast<uint64_t>(bytes)
                     << " unexpected bytes after the .npy data");

  kernels::MatrixBlock b = kernels::MatrixBlock::dense(rows, cols, 0.0);  // (rows, cols) row-major
  double* out = b.dense_data();
  const unsigned char* p = u + data_start;
  for (int64_t k = 0; k < cells; ++k, p += item) {
    double v = 0.0;
    switch (kind) {
      case Kind::kFloat: v = item == 4 ? load<float>(p, swap) : load<double>(p, swap); break;
      case Kind::kBool: v = *p != 0 ? 1.0 : 0.0; break;
      case Kind::kInt:
        v = item == 1 ? load<int8_t>(p, swap)
            : item == 2 ? load<int16_t>(p, swap)
            : item == 4 ? load<int32_t>(p, swap)
                        : load<int64_t>(p, swap);
        break;
      case Kind::kUInt:
        v = item == 1 ? load<uint8_t>(p, swap)
            : item == 2 ? load<uint16_t>(p, swap)
            : item == 4 ? load<uint32_t>(p, swap)
                        : load<uint64_t>(p, swap);
        break;
    }
    // Fortran order stores column by column.
    const int64_t r = h.fortran ? k % rows : k / cols;
    const int64_t c = h.fortran ? k / rows : k % cols;
    out[r * cols + c] = v;
  }
  b.examine_format();
  return b;
}

void write_npy(const kernels::MatrixBlock& b, Output& out) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                       std::to_string(b.rows()) + ", " + std::to_string(b.cols()) + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to 64 bytes as
  // NumPy does, so the data is aligned.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string& s = out.buf();
  s.append("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(header.size() & 0xff);
  s += static_cast<char>((header.size() >> 8) & 0xff);
  s += header;
  const int64_t rows = b.rows(), cols = b.cols();
  std::vector<double> row(static_cast<size_t>(cols));
  for (int64_t r = 0; cols > 0 && r < rows; ++r) {
    if (b.is_sparse()) {
      std::fill(row.begin(), row.end(), 0.0);
      const auto& ptr = b.row_ptr();
      for (int64_t k = ptr[static_cast<size_t>(r)]; k < ptr[static_cast<size_t>(r) + 1]; ++k)
        row[static_cast<size_t>(b.col_idx()[static_cast<size_t>(k)])] =
            b.csr_values()[static_cast<size_t>(k)];
    } else {
      std::memcpy(row.data(), b.dense_data() + r * cols, sizeof(double) * static_cast<size_t>(cols));
    }
    s.append(reinterpret_cast<const char*>(row.data()), sizeof(double) * static_cast<size_t>(cols));
    out.maybe_flush();
  }
}

}  // namespace dmlrt::io::detail
