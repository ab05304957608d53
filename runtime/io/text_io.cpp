// Coordinate text formats: SystemDS's "text" (ijv: `i j v` per nonzero, 1-based, dims from the
// plan or the .mtd) and Matrix Market (coordinate and array; real, integer and pattern; general,
// symmetric and skew-symmetric), read into and written from host blocks.
//
// Note [Duplicate coordinates]
// A cell listed twice is summed, as Matrix Market tools (SciPy's mmread, coo->csr) do. SystemDS
// 3.4 is not consistent here: its text reader keeps both entries of a sparse row (X[i,j] shows
// the last, sum(X) counts both) and its Matrix Market reader shows the first, so no SystemDS
// behaviour is worth copying.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <limits>

#include "gpu_context/error.h"
#include "gpu_context/string_util.h"
#include "runtime/io/io_detail.h"

namespace dmlrt::io::detail {
namespace {

std::string shorten(std::string_view s) {
  return s.size() <= 40 ? std::string(s) : std::string(s.substr(0, 40)) + "...";
}

int64_t index_field(std::string_view tok, const char* what, const std::string& name,
                    int64_t line) {
  int64_t v = 0;
  DMLRT_REQUIRE(parse_int64(tok, v), IoError,
                name << ":" << line << ": " << what << " '" << shorten(tok)
                     << "' is not an integer");
  return v;
}

double value_field(std::string_view tok, const std::string& name, int64_t line) {
  double v = 0.0;
  DMLRT_REQUIRE(parse_double(tok, v), IoError,
                name << ":" << line << ": value '" << shorten(tok) << "' is not a number");
  return v;
}

// rows*cols, or -1 when it does not fit int64.
int64_t checked_cells(int64_t rows, int64_t cols) {
  int64_t n = 0;
  return __builtin_mul_overflow(rows, cols, &n) ? -1 : n;
}

}  // namespace

namespace {

// The entry lines of one chunk of a text (ijv) file.
void parse_ijv_chunk(const LineChunk& chunk, int64_t rows, int64_t cols, const std::string& name,
                     Triplets& out) {
  LineReader lines(chunk.text, chunk.first_line);
  std::string_view line;
  std::string_view tok[3];
  while (lines.next(line)) {
    const size_t n = split_blanks(line, tok, 3);
    if (n == 0) continue;
    DMLRT_REQUIRE(n == 3, IoError,
                  name << ":" << lines.line_no() << ": expected 'row col value', found " << n
                       << " field" << (n == 1 ? "" : "s"));
    const int64_t i = index_field(tok[0], "row index", name, lines.line_no());
    const int64_t j = index_field(tok[1], "column index", name, lines.line_no());
    const double v = value_field(tok[2], name, lines.line_no());
    // SystemDS writes an all-zero matrix as the single line "0 0 0" (it rejects empty files).
    if (i == 0 && j == 0) continue;
    DMLRT_REQUIRE(i >= 1 && i <= rows && j >= 1 && j <= cols, IoError,
                  name << ":" << lines.line_no() << ": cell (" << i << "," << j
                       << ") is outside the " << kernels::dims_string(rows, cols)
                       << " matrix (indices are 1-based)");
    out.add(i - 1, j - 1, v);
  }
}

// At most one entry a line, and an entry line ("1 1\n") has at least 4 bytes: what a chunk's
// lists are reserved for (a file of blank lines does not reserve an entry per line).
size_t entry_bound(const LineChunk& chunk) {
  return std::min(static_cast<size_t>(chunk.lines), chunk.text.size() / 4 + 1);
}

// What the entry lines of one Matrix Market coordinate file are checked against.
struct MmCoordinate {
  const std::string* name;
  int64_t rows, cols, nnz, size_line;
  bool pattern, sym, skew;
  std::string symmetry;
};

// Parses entry lines until `lines` ends or one is bad. `count` (in: entries before these lines;
// out: after them, also when this throws) is checked against `limit`: the declared nnz, or
// kNoLimit for a chunk parsed before the entries ahead of it are known.
// See Note [Matrix Market entry count].
constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

void parse_mm_entries(LineReader& lines, const MmCoordinate& m, int64_t limit, int64_t& count,
                      Triplets& out) {
  const std::string& name = *m.name;
  const int64_t rows = m.rows, cols = m.cols;
  const size_t per = m.pattern ? 2 : 3;
  std::string_view line;
  std::string_view tok[4];
  while (lines.next(line)) {
    const size_t k = split_blanks(line, tok, 4);
    if (k == 0 || tok[0][0] == '%') continue;
    // SystemDS writes an all-zero matrix with one extra "0 0 0" entry line.
    if (k == 3 && count == limit && tok[0] == "0" && tok[1] == "0") continue;
    DMLRT_REQUIRE(k == per, IoError,
                  name << ":" << lines.line_no() << ": expected "
                       << (m.pattern ? "'row col'" : "'row col value'") << ", found " << k
                       << " field" << (k == 1 ? "" : "s"));
    DMLRT_REQUIRE(count < limit, IoError,
                  name << ":" << lines.line_no() << ": more entries than the " << m.nnz
                       << " declared on line " << m.size_line);
    const int64_t i = index_field(tok[0], "row index", name, lines.line_no());
    const int64_t j = index_field(tok[1], "column index", name, lines.line_no());
    const double v = m.pattern ? 1.0 : value_field(tok[2], name, lines.line_no());
    DMLRT_REQUIRE(i >= 1 && i <= rows && j >= 1 && j <= cols, IoError,
                  name << ":" << lines.line_no() << ": entry (" << i << "," << j
                       << ") is outside the " << kernels::dims_string(rows, cols)
                       << " matrix (indices are 1-based)");
    DMLRT_REQUIRE(!m.skew || i != j, IoError,
                  name << ":" << lines.line_no() << ": diagonal entry (" << i << "," << j
                       << ") in a skew-symmetric matrix");
    ++count;
    out.add(i - 1, j - 1, v);
    // Symmetric files store one triangle; the other is implied.
    if ((m.sym || m.skew) && i != j) out.add(j - 1, i - 1, m.skew ? -v : v);
  }
}

// Array-format values: as parse_mm_entries, with `base + out.size()` the running count.
void parse_mm_values(LineReader& lines, const std::string& name, int64_t limit, int64_t expected,
                     const std::string& what, int64_t base, std::vector<double>& out) {
  std::string_view line;
  while (lines.next(line)) {
    std::string_view t[2];
    const size_t k = split_blanks(line, t, 2);
    if (k == 0 || t[0][0] == '%') continue;
    DMLRT_REQUIRE(k == 1, IoError,
                  name << ":" << lines.line_no() << ": expected one value, found " << k
                       << " fields");
    DMLRT_REQUIRE(base + static_cast<int64_t>(out.size()) < limit, IoError,
                  name << ":" << lines.line_no() << ": more values than the " << expected
                       << " a " << what << " array holds");
    out.push_back(value_field(t[0], name, lines.line_no()));
  }
}

// One chunk's result from the pass that runs before earlier chunks' counts are known.
template <typename Part>
struct CountedChunk {
  Part part;
  int64_t count = 0;         // entries (values) before the end or the bad line
  std::exception_ptr error;  // the chunk's first bad line, read with no limit
};

// Note [Matrix Market entry count]
// A coordinate line's meaning depends on how many entries came before it: the (nnz+1)-th is an
// error, or skipped when it reads "0 0 0"; so does an array file's value count. Chunks are first
// parsed in parallel with no limit, counting their entries. Walking them in order with the
// running count, a chunk whose lines all saw fewer than nnz entries before them (count <= nnz
// left, or < nnz before its bad line) was parsed exactly as a sequential parse would: its
// entries are kept, or its error is the file's first. The first chunk where the limit is reached
// and everything after it are parsed again on the calling thread with the real limit; in a
// well-formed file that is at most one chunk of entries and then blank or comment lines.
template <typename Part, typename ParseFn, typename KeepFn>
void parse_counted(std::string_view data, int64_t first_line, int64_t limit, size_t per_line,
                   ParseFn parse, KeepFn keep, int64_t& count) {
  const std::vector<LineChunk> chunks = split_line_chunks(data, first_line);
  std::vector<CountedChunk<Part>> res(chunks.size());
  for_each_chunk(chunks.size(), [&](size_t k) {
    LineReader lines(chunks[k].text, chunks[k].first_line);
    res[k].part.reserve(entry_bound(chunks[k]) * per_line);
    try {
      parse(lines, kNoLimit, int64_t{0}, res[k].count, res[k].part);
    } catch (...) {
      // Kept, not thrown: whether it is the file's error depends on the chunks before.
      res[k].error = std::current_exception();
    }
  });
  count = 0;
  for (size_t k = 0; k < chunks.size(); ++k) {
    CountedChunk<Part>& c = res[k];
    const bool exact = c.error ? count + c.count < limit : count + c.count <= limit;
    if (!exact) {
      const size_t from = static_cast<size_t>(chunks[k].text.data() - data.data());
      LineReader lines(data.substr(from), chunks[k].first_line);
      Part tail;
      int64_t n = 0;
      parse(lines, limit, count, n, tail);
      keep(std::move(tail));
      count += n;
      return;
    }
    if (c.error) std::rethrow_exception(c.error);
    keep(std::move(c.part));
    count += c.count;
  }
}

}  // namespace

kernels::MatrixBlock read_text_cell(std::string_view data, const std::string& name, int64_t rows,
                                    int64_t cols, const ReadLimits& limits) {
  DMLRT_REQUIRE(rows >= 0 && cols >= 0, IoError,
                name << ": the text (ijv) format needs the matrix dimensions, and neither the "
                        "plan (createvar) nor a .mtd file gives them");
  CoordinateBuilder builder(rows, cols, name, limits);
  // Lines are independent: chunks parse in parallel and are appended in file order
  // (see Note [Parallel text parsing] in io_util.cpp).
  const std::vector<LineChunk> chunks = split_line_chunks(data, 1);
  std::vector<Triplets> parts(chunks.size());
  for_each_chunk(chunks.size(), [&](size_t k) {
    parts[k].reserve(entry_bound(chunks[k]));
    parse_ijv_chunk(chunks[k], rows, cols, name, parts[k]);
  });
  for (Triplets& p : parts) builder.append(std::move(p));
  return builder.build();
}

kernels::MatrixBlock read_matrix_market(std::string_view data, const std::string& name,
                                        const ReadLimits& limits) {
  LineReader lines(data);
  std::string_view line;
  DMLRT_REQUIRE(lines.next(line), IoError, name << ": empty file (expected a %%MatrixMarket header)");
  std::string_view h[6];
  const size_t nh = split_blanks(line, h, 6);
  DMLRT_REQUIRE(nh >= 1 && to_lower(h[0]) == "%%matrixmarket", IoError,
                name << ":1: expected '%%MatrixMarket matrix <format> <field> <symmetry>', found '"
                     << shorten(line) << "'");
  DMLRT_REQUIRE(nh == 5, IoError,
                name << ":1: the header needs 4 words after %%MatrixMarket "
                        "(matrix <format> <field> <symmetry>), found "
                     << nh - 1);
  const std::string object = to_lower(h[1]), layout = to_lower(h[2]), field = to_lower(h[3]),
                    symmetry = to_lower(h[4]);
  DMLRT_REQUIRE(object == "matrix", IoError,
                name << ":1: object '" << h[1] << "' is not supported (only 'matrix')");
  DMLRT_REQUIRE(layout == "coordinate" || layout == "array", IoError,
                name << ":1: format '" << h[2] << "' is not 'coordinate' or 'array'");
  DMLRT_REQUIRE(field != "complex", IoError,
                name << ":1: complex matrices are not supported (dmlrt matrices are real)");
  DMLRT_REQUIRE(field == "real" || field == "integer" || field == "double" || field == "pattern",
                IoError,
                name << ":1: field '" << h[3] << "' is not real, integer or pattern");
  DMLRT_REQUIRE(symmetry != "hermitian", IoError,
                name << ":1: hermitian matrices are not supported (they are complex)");
  DMLRT_REQUIRE(symmetry == "general" || symmetry == "symmetric" || symmetry == "skew-symmetric",
                IoError,
                name << ":1: symmetry '" << h[4]
                     << "' is not general, symmetric or skew-symmetric");
  const bool pattern = field == "pattern";
  const bool coordinate = layout == "coordinate";
  DMLRT_REQUIRE(coordinate || !pattern, IoError,
                name << ":1: the pattern field needs the coordinate format");
  const bool sym = symmetry == "symmetric", skew = symmetry == "skew-symmetric";

  // Size line, after % comments and blank lines.
  std::string_view tok[4];
  size_t n = 0;
  while (true) {
    DMLRT_REQUIRE(lines.next(line), IoError,
                  name << ": truncated: no size line after the header");
    const std::string_view t = trim(line);
    if (t.empty() || t[0] == '%') continue;
    n = split_blanks(line, tok, 4);
    break;
  }
  const int64_t size_line = lines.line_no();
  const size_t want = coordinate ? 3 : 2;
  DMLRT_REQUIRE(n == want, IoError,
                name << ":" << size_line << ": expected the size line '"
                     << (coordinate ? "rows cols nonzeros" : "rows cols") << "', found " << n
                     << " fields");
  const int64_t rows = index_field(tok[0], "row count", name, size_line);
  const int64_t cols = index_field(tok[1], "column count", name, size_line);
  const int64_t nnz = coordinate ? index_field(tok[2], "nonzero count", name, size_line) : 0;
  DMLRT_REQUIRE(rows >= 0 && cols >= 0 && nnz >= 0, IoError,
                name << ":" << size_line << ": negative size " << rows << " " << cols
                     << (coordinate ? " " + std::to_string(nnz) : ""));
  DMLRT_REQUIRE(cols <= std::numeric_limits<int32_t>::max(), IoError,
                name << ":" << size_line << ": " << cols << " columns exceed the supported 2^31-1");
  DMLRT_REQUIRE(!(sym || skew) || rows == cols, IoError,
                name << ":" << size_line << ": a " << symmetry << " matrix must be square, got "
                     << kernels::dims_string(rows, cols));

  if (coordinate) {
    CoordinateBuilder builder(rows, cols, name, limits);
    const MmCoordinate m{&name, rows, cols, nnz, size_line, pattern, sym, skew, symmetry};
    int64_t count = 0;
    parse_counted<Triplets>(
        lines.rest(), size_line + 1, nnz, sym || skew ? 2 : 1,
        [&](LineReader& l, int64_t limit, int64_t base, int64_t& n, Triplets& out) {
          n = base;
          try {
            parse_mm_entries(l, m, limit, n, out);
          } catch (...) {
            n -= base;
            throw;
          }
          n -= base;
        },
        [&](Triplets&& t) { builder.append(std::move(t)); }, count);
    DMLRT_REQUIRE(count == nnz, IoError,
                  name << ": truncated: " << nnz << " entries declared on line " << size_line
                       << ", found " << count);
    return builder.build();
  }

  // Array: values column by column; symmetric files hold the lower triangle with the diagonal,
  // skew-symmetric ones the strict lower triangle.
  DMLRT_REQUIRE(checked_cells(rows, cols) >= 0, IoError,
                name << ":" << size_line << ": " << kernels::dims_string(rows, cols)
                     << " cells overflow");
  const __int128 r128 = rows;
  const int64_t expected = sym    ? static_cast<int64_t>(r128 * (r128 + 1) / 2)
                           : skew ? static_cast<int64_t>(r128 * (r128 - 1) / 2)
                                  : rows * cols;
  const std::string what = symmetry + " " + kernels::dims_string(rows, cols);
  std::vector<double> vals;
  int64_t count = 0;
  parse_counted<std::vector<double>>(
      lines.rest(), size_line + 1, expected, 1,
      [&](LineReader& l, int64_t limit, int64_t base, int64_t& n, std::vector<double>& out) {
        try {
          parse_mm_values(l, name, limit, expected, what, base, out);
        } catch (...) {
          n = static_cast<int64_t>(out.size());
          throw;
        }
        n = static_cast<int64_t>(out.size());
      },
      [&](std::vector<double>&& v) {
        if (vals.empty()) vals = std::move(v);
        else vals.insert(vals.end(), v.begin(), v.end());
      },
      count);
  DMLRT_REQUIRE(static_cast<int64_t>(vals.size()) == expected, IoError,
                name << ": truncated: a " << symmetry << " " << kernels::dims_string(rows, cols)
                     << " array holds " << expected << " values, found " << vals.size());
  // (rows, cols) row-major; the file is column-major.
  check_alloc(8.0 * static_cast<double>(rows) * static_cast<double>(cols), limits, name,
              "a dense " + kernels::dims_string(rows, cols) + " matrix");
  kernels::MatrixBlock b = kernels::MatrixBlock::dense(rows, cols, 0.0);
  double* d = b.dense_data();
  size_t k = 0;
  for (int64_t j = 0; j < cols; ++j) {
    const int64_t i0 = sym ? j : skew ? j + 1 : 0;
    for (int64_t i = i0; i < rows; ++i) {
      const double v = vals[k++];
      d[i * cols + j] = v;
      if (sym) d[j * cols + i] = v;
      if (skew) d[j * cols + i] = -v;
    }
  }
  b.examine_format();
  return b;
}

namespace {

template <typename Fn>
void for_each_nonzero(const kernels::MatrixBlock& b, Fn fn) {
  if (b.is_sparse()) {
    const auto& ptr = b.row_ptr();
    const auto& ci = b.col_idx();
    const auto& vals = b.csr_values();
    for (int64_t r = 0; r < b.rows(); ++r)
      for (int64_t k = ptr[static_cast<size_t>(r)]; k < ptr[static_cast<size_t>(r) + 1]; ++k)
        if (vals[static_cast<size_t>(k)] != 0.0) fn(r, ci[static_cast<size_t>(k)], vals[static_cast<size_t>(k)]);
  } else {
    const double* d = b.dense_data();
    for (int64_t r = 0; r < b.rows(); ++r)
      for (int64_t c = 0; c < b.cols(); ++c)
        if (d[r * b.cols() + c] != 0.0) fn(r, c, d[r * b.cols() + c]);
  }
}

void write_entries(const kernels::MatrixBlock& b, Output& out) {
  std::string& s = out.buf();
  for_each_nonzero(b, [&](int64_t r, int64_t c, double v) {
    s += std::to_string(r + 1);
    s += ' ';
    s += std::to_string(c + 1);
    s += ' ';
    append_double_java(s, v);
    s += '\n';
    out.maybe_flush();
  });
}

}  // namespace

void write_text_cell(const kernels::MatrixBlock& b, Output& out) {
  // SystemDS writes "0 0 0" for a matrix without nonzeros, since it refuses empty text files.
  if (b.nnz() == 0) {
    out.buf() += "0 0 0\n";
    return;
  }
  write_entries(b, out);
}

void write_matrix_market(const kernels::MatrixBlock& b, Output& out) {
  // Unlike SystemDS we add no "0 0 0" line for an all-zero matrix: the size line says 0 entries,
  // which SystemDS and other Matrix Market readers take as is.
  std::string& s = out.buf();
  s += "%%MatrixMarket matrix coordinate real general\n";
  s += std::to_string(b.rows()) + " " + std::to_string(b.cols()) + " " +
       std::to_string(b.nnz()) + "\n";
  write_entries(b, out);
}

}  // namespace dmlrt::io::detail
