// CSV matrices as SystemDS reads and writes them: optional header line, any delimiter, empty
// fields filled (fill/default) or rejected, na strings read as NaN; written with Java's
// Double.toString for nonzeros and "0" (or nothing, with sparse=TRUE) for zeros.
#include <algorithm>
#include <cmath>
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
  bool quoted = false;
  const size_t n = line.size();
  while (i < n) {
    if (line[i] == '"') {
      quoted = !quoted;
      ++i;
    } else if (!quoted && line.compare(i, delim.size(), delim) == 0) {
      out.push_back(line.substr(start, i - start));
      i += delim.size();
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
  std::vector<double> values;
  int64_t nrows = 0;
  while (lines.next(line)) {
    if (ncols == 0 && trim(line).empty()) {  // rows of a declared N x 0 matrix
      ++nrows;
      continue;
    }
    // Blank lines at the end of a file are ignored (editors add them); elsewhere, and in a
    // one-column file (where SystemDS's sparse writer makes them zeros), they are rows.
    if (ncols > 1 && trim(line).empty() &&
        lines.rest().find_first_not_of(" \t\r\n") == std::string_view::npos)
      break;
    split_fields(line, delim, fields);
    const int64_t nf = static_cast<int64_t>(fields.size());
    if (ncols < 0) {
      ncols = nf;
      DMLRT_REQUIRE(ncols <= std::numeric_limits<int32_t>::max(), IoError,
                    name << ":" << lines.line_no() << ": " << ncols
                         << " columns exceed the supported 2^31-1");
    }
    DMLRT_REQUIRE(nf == ncols, IoError,
                  name << ":" << lines.line_no() << ": " << nf << " fields, expected " << ncols
                       << (cols >= 0 ? " (the declared number of columns)"
                                     : " (as on the first data line)"));
    for (int64_t f = 0; f < nf; ++f) {
      std::string_view t = trim(fields[static_cast<size_t>(f)]);
      if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = trim(t.substr(1, t.size() - 2));
      double v = 0.0;
      if (t.empty()) {
        DMLRT_REQUIRE(fmt.fill, IoError,
                      name << ":" << lines.line_no() << ": field " << f + 1
                           << " is empty (read with fill=TRUE to fill empty fields)");
        v = fmt.fill_value;
      } else if (std::find(na.begin(), na.end(), t) != na.end()) {
        v = std::numeric_limits<double>::quiet_NaN();
      } else if (!parse_double(t, v)) {
        DMLRT_FAIL(IoError, name << ":" << lines.line_no() << ": field " << f + 1 << " '"
                                 << shorten(t) << "' is not a number");
      }
      values.push_back(v);
    }
    ++nrows;
  }
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
