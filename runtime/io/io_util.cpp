// Shared reader/writer helpers: number parsing and Java-style formatting, lines, coordinate
// lists, buffered output (see io_detail.h).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "gpu_context/error.h"
#include "kernels/cpu/java_format.h"
#include "kernels/host_memory.h"
#include "runtime/io/io_detail.h"

namespace dmlrt::io::detail {
namespace {

bool iequals(std::string_view a, const char* b) {
  const size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool parse_double(std::string_view s, double& out) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  // Java spells the specials NaN and Infinity; NumPy and C write nan and inf.
  if (iequals(s, "nan")) {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (iequals(s, "infinity") || iequals(s, "inf")) {
    out = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  if (!is_digit(s[0]) && s[0] != '.') return false;
  // Java's parseDouble also takes a type suffix: 1.0d, 2f.
  const char last = s.back();
  if (last == 'd' || last == 'D' || last == 'f' || last == 'F') s.remove_suffix(1);
  if (s.empty()) return false;
  double v = 0.0;
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, v, std::chars_format::general);
  if (r.ptr != end) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars leaves v alone; strtod gives Java's answer (+-HUGE_VAL -> Infinity, or 0).
    const std::string tmp(s);
    v = std::strtod(tmp.c_str(), nullptr);
  } else if (r.ec != std::errc()) {
    return false;
  }
  out = neg ? -v : v;
  return true;
}

bool parse_int64(std::string_view s, int64_t& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty() || s[0] == '+') return false;
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

void append_double_java(std::string& out, double v) { kernels::append_java_double(out, v); }

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

bool LineReader::next(std::string_view& line) {
  if (pos_ >= data_.size()) return false;
  const size_t nl = data_.find('\n', pos_);
  const size_t end = nl == std::string_view::npos ? data_.size() : nl;
  line = data_.substr(pos_, end - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = nl == std::string_view::npos ? data_.size() : nl + 1;
  ++line_no_;
  return true;
}

size_t split_blanks(std::string_view line, std::string_view* tokens, size_t max) {
  size_t n = 0, i = 0;
  const size_t len = line.size();
  while (true) {
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= len) break;
    const size_t b = i;
    while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (n < max) tokens[n] = line.substr(b, i - b);
    ++n;
  }
  return n;
}

void check_alloc(double bytes, const ReadLimits& limits, const std::string& name,
                 const std::string& what) {
  const bool over_limit = limits.max_bytes >= 0 && bytes > static_cast<double>(limits.max_bytes);
  DMLRT_REQUIRE(!over_limit && bytes < 9.0e18, OutOfMemory,
                name << ": " << what << " needs " << kernels::bytes_string(bytes)
                     << ", more than "
                     << (over_limit ? "the reader's limit" : "a 64-bit process can address"));
  // The file's declared shape against the memory left (kernels/host_memory.h).
  kernels::check_host_bytes(name, what, bytes);
}

CoordinateBuilder::CoordinateBuilder(int64_t rows, int64_t cols, const std::string& name,
                                     const ReadLimits& limits)
    : rows_(rows), cols_(cols), name_(name), limits_(limits) {
  DMLRT_REQUIRE(cols <= std::numeric_limits<int32_t>::max(), IoError,
                name << ": " << cols << " columns exceed the supported 2^31-1");
  check_alloc(8.0 * (static_cast<double>(rows) + 1.0), limits, name,
              "the row index of a " + kernels::dims_string(rows, cols) + " matrix");
}

kernels::MatrixBlock CoordinateBuilder::build() {
  const size_t n = v_.size();
  // Bucket by row (counting sort), then order each row by column, keeping file order among equal
  // coordinates so duplicates add up in the order they were written.
  std::vector<int64_t> ptr(static_cast<size_t>(rows_) + 1, 0);
  for (int64_t r : r_) ++ptr[static_cast<size_t>(r) + 1];
  for (size_t i = 1; i < ptr.size(); ++i) ptr[i] += ptr[i - 1];
  std::vector<std::pair<int32_t, double>> ent(n);
  {
    std::vector<int64_t> fill(ptr.begin(), ptr.end() - 1);
    for (size_t k = 0; k < n; ++k)
      ent[static_cast<size_t>(fill[static_cast<size_t>(r_[k])]++)] = {c_[k], v_[k]};
  }
  std::vector<int64_t>().swap(r_);
  std::vector<int32_t>().swap(c_);
  std::vector<double>().swap(v_);
  std::vector<int32_t> col_idx;
  std::vector<double> values;
  col_idx.reserve(n);
  values.reserve(n);
  int64_t begin = 0;
  for (int64_t r = 0; r < rows_; ++r) {
    const int64_t end = ptr[static_cast<size_t>(r) + 1];
    auto first = ent.begin() + begin, last = ent.begin() + end;
    std::stable_sort(first, last, [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = first; it != last;) {
      const int32_t c = it->first;
      double sum = 0.0;
      for (; it != last && it->first == c; ++it) sum += it->second;
      if (sum != 0.0 || std::isnan(sum)) {
        col_idx.push_back(c);
        values.push_back(sum);
      }
    }
    begin = end;
    ptr[static_cast<size_t>(r) + 1] = static_cast<int64_t>(values.size());
  }
  kernels::MatrixBlock b = kernels::MatrixBlock::csr(rows_, cols_, std::move(ptr),
                                                     std::move(col_idx), std::move(values));
  b.examine_format();
  return b;
}

void Output::flush() {
  if (!f_ || buf_.empty()) return;
  const size_t w = std::fwrite(buf_.data(), 1, buf_.size(), f_);
  DMLRT_REQUIRE(w == buf_.size(), IoError,
                name_ << ": write failed: " << std::strerror(errno));
  buf_.clear();
}

}  // namespace dmlrt::io::detail
