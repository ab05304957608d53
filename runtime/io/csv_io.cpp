// CSV matrices as SystemDS reads and writes them: optional header line, any delimiter, empty
// fields filled (fill/default) or rejected, na strings read as NaN; written with Java's
// Double.toString for nonzeros and "0" (or nothing, with sparse=TRUE) for zeros.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"
#include "runtime/io/io_detail.h"

namespace dmlrt::io::detail {
namespace {

// Splits a line on `delim`, keeping delimiters inside double quotes in their field.
void split_fields(std::string_view line, std::string_view delim,
                  std::vector<std::string_view>& out) {
  out.clear();
  size_t start = 0, i = 0;
  const size_t n = line.size(), dl = delim.size();
  const char d0 = delim[0];  // never empty
  // The parallel reader's hot loop: a line without quotes (the usual case) is cut where memchr
  // finds the delimiter's first byte, instead of testing every byte.
  if (std::memchr(line.data(), '"', n) == nullptr) {
    while (i < n) {
      const void* hit = std::memchr(line.data() + i, d0, n - i);
      if (hit == nullptr) break;
      i = static_cast<size_t>(static_cast<const char*>(hit) - line.data());
      if (dl == 1 || line.compare(i, dl, delim) == 0) {
        out.push_back(line.substr(start, i - start));
        i += dl;
        start = i;
      } else {
        ++i;
      }
    }
    out.push_back(line.substr(start));
    return;
  }
  bool quoted = false;
  while (i < n) {
    const char c = line[i];
    if (c == '"') {
      quoted = !quoted;
      ++i;
    } else if (!quoted && c == d0 && (dl == 1 || line.compare(i, dl, delim) == 0)) {
      out.push_back(line.substr(start, i - start));
      i += dl;
      start = i;
    } else {
      ++i;
    }
  }
  out.push_back(line.substr(start));
}

std::vector<std::string> split_na_strings(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size() && !s.empty()) {
    const size_t e = s.find(',', b);
    const std::string tok = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (!tok.empty()) out.push_back(tok);
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}

std::string shorten(std::string_view s) {
  return s.size() <= 40 ? std::string(s) : std::string(s.substr(0, 40)) + "...";
}

}  // namespace

namespace {

// What every data line of one csv file is checked against.
struct CsvRules {
  const std::string* name;
  std::string_view delim;
  const std::vector<std::string>* na;
  bool fill;
  double fill_value;
  int64_t ncols;       // known before the lines are parsed
  bool declared_cols;  // ncols came from the plan or the .mtd, not the first line
};

// Parses the data lines of `chunk`, the first of which is row `first_row`, into rows of `out`
// ((rows, ncols) row-major; nullptr: check only). Throws at the chunk's first bad line.
void parse_csv_chunk(const LineChunk& chunk, int64_t first_row, const CsvRules& r, double* out) {
  const std::string& name = *r.name;
  const int64_t ncols = r.ncols;
  LineReader lines(chunk.text, chunk.first_line);
  std::string_view line;
  std::vector<std::string_view> fields;
  int64_t row = first_row;
  while (lines.next(line)) {
    if (ncols == 0 && trim(line).empty()) {  // rows of a declared N x 0 matrix
      ++row;
      continue;
    }
    split_fields(line, r.delim, fields);
    const int64_t nf = static_cast<int64_t>(fields.size());
    DMLRT_REQUIRE(nf == ncols, IoError,
                  name << ":" << lines.line_no() << ": " << nf << " fields, expected " << ncols
                       << (r.declared_cols ? " (the declared number of columns)"
                                           : " (as on the first data line)"));
    double* dst = out ? out + row * ncols : nullptr;
    for (int64_t f = 0; f < nf; ++f) {
      std::string_view t = trim(fields[static_cast<size_t>(f)]);
      if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = trim(t.substr(1, t.size() - 2));
      double v = 0.0;
      if (t.empty()) {
        DMLRT_REQUIRE(r.fill, IoError,
                      name << ":" << lines.line_no() << ": field " << f + 1
                           << " is empty (read with fill=TRUE to fill empty fields)");
        v = r.fill_value;
      } else if (!r.na->empty() && std::find(r.na->begin(), r.na->end(), t) != r.na->end()) {
        v = std::numeric_limits<double>::quiet_NaN();
      } else if (!parse_double(t, v)) {
        DMLRT_FAIL(IoError, name << ":" << lines.line_no() << ": field " << f + 1 << " '"
                                 << shorten(t) << "' is not a number");
      }
      if (dst) dst[f] = v;
    }
    ++row;
  }
}

}  // namespace

// Data lines are parsed in parallel chunks (see Note [Parallel text parsing] in io_util.cpp).
// Settled first, on the calling thread: the header, the column count (declared, or the first data
// line's) and the blank lines at the end that are dropped; then every line after the header and
// before that tail is one row, so a chunk's first row is the number of lines before it.
kernels::MatrixBlock read_csv(std::string_view data, const std::string& name,
                              const inst::FileFormat& fmt, int64_t rows, int64_t cols) {
  const std::string_view delim = fmt.delim.empty() ? std::string_view(",") : fmt.delim;
  const std::vector<std::string> na = split_na_strings(fmt.na_strings);
  LineReader lines(data);
  std::string_view line;
  std::vector<std::string_view> fields;
  int64_t ncols = cols;
  int64_t header_cols = -1;
  if (fmt.header && lines.next(line)) {
    split_fields(line, delim, fields);
    header_cols = static_cast<int64_t>(fields.size());
  }
  // A shape declared by createvar or the .mtd is checked against memory before the file is
  // parsed: a file of that shape could not be held (kernels/host_memory.h).
  if (rows >= 0 && cols >= 0)
    kernels::check_host_alloc(name + ": the declared " + kernels::dims_string(rows, cols) +
                                  " matrix",
                              rows, cols, sizeof(double));
  std::string_view body = lines.rest();
  const int64_t body_line = lines.line_no() + 1;
  // Without declared columns, the first data line sets their number.
  size_t first_line_end = 0;
  if (ncols < 0) {
    LineReader probe(body, body_line);
    if (probe.next(line)) {
      split_fields(line, delim, fields);
      ncols = static_cast<int64_t>(fields.size());
      DMLRT_REQUIRE(ncols <= std::numeric_limits<int32_t>::max(), IoError,
                    name << ":" << probe.line_no() << ": " << ncols
                         << " columns exceed the supported 2^31-1");
      first_line_end = body.size() - probe.rest().size();
    }
  }
  // Blank lines at the end of a file are ignored (editors add them); elsewhere, and in a
  // one-column file (where SystemDS's sparse writer makes them zeros), they are rows. The
  // ignored tail starts at the first line from which only blanks, tabs and line ends follow;
  // a first line that set the column count is always a row.
  if (ncols > 1) {
    const size_t last = body.find_last_not_of(" \t\r\n");
    size_t tail = 0;
    if (last != std::string_view::npos) {
      const size_t nl = body.find('\n', last);
      tail = nl == std::string_view::npos ? body.size() : nl + 1;
    }
    body = body.substr(0, std::max(tail, first_line_end));
  }

  const std::vector<LineChunk> chunks = split_line_chunks(body, body_line);
  std::vector<int64_t> first_row(chunks.size() + 1, 0);
  for (size_t k = 0; k < chunks.size(); ++k) first_row[k + 1] = first_row[k] + chunks[k].lines;
  const int64_t nrows = first_row.back();
  const CsvRules rules{&name, delim, &na, fmt.fill, fmt.fill_value, ncols, cols >= 0};
  auto parse = [&](double* out) {
    for_each_chunk(chunks.size(),
                   [&](size_t k) { parse_csv_chunk(chunks[k], first_row[k], rules, out); });
  };
  // A well-formed line of n fields has at least n-1 bytes (delimiters), so more cells than
  // bytes and lines together means a bad line somewhere: find it before allocating for them.
  int64_t cells = 0;
  const bool plausible =
      ncols <= 0 || (!__builtin_mul_overflow(nrows, ncols, &cells) &&
                     cells <= static_cast<int64_t>(body.size()) + nrows);
  if (!plausible) parse(nullptr);
  std::vector<double> values(ncols > 0 ? static_cast<size_t>(nrows * ncols) : 0);
  parse(values.data());

  if (ncols < 0) ncols = header_cols >= 0 ? header_cols : 0;
  DMLRT_REQUIRE(rows < 0 || nrows == rows, IoError,
                name << ": " << nrows << " data rows, but " << rows << " were declared");
  DMLRT_REQUIRE(ncols <= std::numeric_limits<int32_t>::max(), IoError,
                name << ": " << ncols << " columns exceed the supported 2^31-1");
  kernels::MatrixBlock b = kernels::MatrixBlock::dense(nrows, ncols, std::move(values));
  b.examine_format();
  return b;
}

void write_csv(const kernels::MatrixBlock& b, const inst::FileFormat& fmt, Output& out) {
  const std::string delim = fmt.delim.empty() ? "," : fmt.delim;
  const int64_t rows = b.rows(), cols = b.cols();
  std::string& s = out.buf();
  if (fmt.header) {  // SystemDS names the columns C1..Cn
    for (int64_t c = 0; c < cols; ++c) {
      if (c) s += delim;
      s += 'C';
      s += std::to_string(c + 1);
    }
    s += '\n';
  }
  const char* zero = fmt.sparse ? "" : "0";
  auto put = [&](double v) {
    if (v == 0.0) s += zero;  // also -0.0, as SystemDS's writer tests v != 0
    else append_double_java(s, v);
  };
  for (int64_t r = 0; r < rows; ++r) {
    if (b.is_sparse()) {
      const auto& ptr = b.row_ptr();
      const auto& ci = b.col_idx();
      const auto& vals = b.csr_values();
      int64_t k = ptr[static_cast<size_t>(r)];
      const int64_t kend = ptr[static_cast<size_t>(r) + 1];
      for (int64_t c = 0; c < cols; ++c) {
        if (c) s += delim;
        if (k < kend && ci[static_cast<size_t>(k)] == c) put(vals[static_cast<size_t>(k++)]);
        else s += zero;
      }
    } else {
      const double* row = b.dense_data() + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        if (c) s += delim;
        put(row[c]);
      }
    }
    s += '\n';
    out.maybe_flush();
  }
}

}  // namespace dmlrt::io::detail
