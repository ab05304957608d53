// Shared reader/writer helpers: number parsing and Java-style formatting, lines, chunks of lines
// for parallel parsing, coordinate lists, buffered output (see io_detail.h).
//
// Note [Parallel text parsing]
// The csv, text and Matrix Market readers parse the file's bytes (already in memory) in chunks
// of whole lines on the CPU pool. Chunks are cut every parse_chunk_bytes() bytes (moved to the
// next line end), never by thread count, and one pass counts each chunk's lines, so each chunk
// knows the file's number of its first line (for messages) and, in a csv file, its first row
// (where it writes into the preallocated dense array). Coordinate formats collect one Triplets
// list per chunk and append them in chunk order: the builder sees entries in file order, so
// duplicates add up as in a sequential parse. Each chunk stops at its first error; the error of
// the lowest chunk wins, which is the first bad line of the file, the one a sequential parse
// reports. State that runs across lines (csv's column count from the first line and its
// ignored blank tail; Matrix Market's running entry count) is settled before or after the
// parallel pass (see the readers). A file of one chunk is parsed on the calling thread by the
// same code, so the single- and multi-chunk paths cannot drift apart.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <utility>

#include "gpu_context/error.h"
#include "kernels/cpu/java_format.h"
#include "kernels/cpu/parallel.h"
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

namespace {
// 1 MiB: long enough that waking the pool and counting lines is noise, short enough that a file
// of a few MiB already spreads over the cores.
constexpr size_t kDefaultParseChunkBytes = size_t{1} << 20;
std::atomic<size_t> g_parse_chunk_bytes{kDefaultParseChunkBytes};
}  // namespace

namespace {
// Blocks of 4 KiB counted into 32-bit sums, which compilers vectorise (std::count's 64-bit
// counter is not, and memchr per line is slow on short lines).
int64_t count_newlines(std::string_view s) {
  int64_t total = 0;
  const char* p = s.data();
  for (size_t n = s.size(); n > 0;) {
    const size_t m = std::min<size_t>(n, 4096);
    uint32_t c = 0;
    for (size_t j = 0; j < m; ++j) c += p[j] == '\n';
    total += c;
    p += m;
    n -= m;
  }
  return total;
}
}  // namespace

size_t parse_chunk_bytes() { return g_parse_chunk_bytes.load(std::memory_order_relaxed); }

void set_parse_chunk_bytes(size_t bytes) {
  g_parse_chunk_bytes.store(bytes ? bytes : kDefaultParseChunkBytes, std::memory_order_relaxed);
}

std::vector<LineChunk> split_line_chunks(std::string_view data, int64_t first_line) {
  const size_t target = std::max<size_t>(parse_chunk_bytes(), 1);
  std::vector<LineChunk> chunks;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t end = std::min(data.size(), pos + target);
    if (end < data.size()) {  // extend to the end of the line holding byte end-1
      const size_t nl = data.find('\n', end - 1);
      end = nl == std::string_view::npos ? data.size() : nl + 1;
    }
    LineChunk c;
    c.text = data.substr(pos, end - pos);
    chunks.push_back(c);
    pos = end;
  }
  // Count the lines as LineReader does: one per '\n', plus an unterminated last line.
  kernels::cpu::parallel_chunks(0, static_cast<int64_t>(chunks.size()), 1,
                                [&](int64_t k, int64_t, int64_t) {
                                  LineChunk& c = chunks[static_cast<size_t>(k)];
                                  c.lines = count_newlines(c.text);
                                  if (!c.text.empty() && c.text.back() != '\n') ++c.lines;
                                });
  for (LineChunk& c : chunks) {
    c.first_line = first_line;
    first_line += c.lines;
  }
  return chunks;
}

void for_each_chunk(size_t n, const std::function<void(size_t k)>& fn) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> first_failed{n};
  kernels::cpu::parallel_chunks(0, static_cast<int64_t>(n), 1, [&](int64_t kk, int64_t, int64_t) {
    const size_t k = static_cast<size_t>(kk);
    // A later chunk's result is never used once an earlier one failed.
    if (k > first_failed.load(std::memory_order_relaxed)) return;
    try {
      fn(k);
    } catch (...) {
      errors[k] = std::current_exception();
      size_t cur = first_failed.load(std::memory_order_relaxed);
      while (k < cur && !first_failed.compare_exchange_weak(cur, k)) {
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

size_t split_blanks(std::string_view line, std::string_view* tokens, size_t max) {
  // A table lookup per byte instead of three compares: this loop is most of a text or Matrix
  // Market chunk's parse.
  static constexpr struct Blanks {
    bool is[256] = {};
    constexpr Blanks() : is() { is[' '] = is['\t'] = is['\r'] = true; }
  } kBlank;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(line.data());
  size_t n = 0, i = 0;
  const size_t len = line.size();
  while (true) {
    while (i < len && kBlank.is[p[i]]) ++i;
    if (i >= len) break;
    const size_t b = i;
    while (i < len && !kBlank.is[p[i]]) ++i;
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
  size_t n = 0;
  for (const Triplets& p : parts_) n += p.size();
  // Bucket by row (counting sort), then order each row by column, keeping file order among equal
  // coordinates so duplicates add up in the order they were written.
  std::vector<int64_t> ptr(static_cast<size_t>(rows_) + 1, 0);
  for (const Triplets& p : parts_)
    for (int64_t r : p.r) ++ptr[static_cast<size_t>(r) + 1];
  for (size_t i = 1; i < ptr.size(); ++i) ptr[i] += ptr[i - 1];
  // Left uninitialised (every slot is written below): zeroing it first costs a pass of its own.
  struct Entry {
    int32_t first;
    double second;
  };
  const std::unique_ptr<Entry[]> ent_owner(new Entry[n]);
  Entry* const ent = ent_owner.get();
  {
    std::vector<int64_t> fill(ptr.begin(), ptr.end() - 1);
    for (Triplets& p : parts_) {
      for (size_t k = 0; k < p.size(); ++k)
        ent[static_cast<size_t>(fill[static_cast<size_t>(p.r[k])]++)] = {p.c[k], p.v[k]};
      p = Triplets();
    }
  }
  std::vector<Triplets>().swap(parts_);
  // Rows are independent from here on: each is sorted, summed and compacted to the front of its
  // own range in parallel (the same work for any split, so the result is thread-count
  // independent), then copied out after a prefix sum of the kept counts.
  std::vector<int64_t> kept(static_cast<size_t>(rows_), 0);
  const int64_t avg = std::max<int64_t>(1, static_cast<int64_t>(n) / std::max<int64_t>(rows_, 1));
  const int64_t grain = std::max<int64_t>(1, kernels::cpu::kParallelGrain / 8 / avg);
  kernels::cpu::parallel_for(0, rows_, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      Entry* first = ent + ptr[static_cast<size_t>(r)];
      Entry* last = ent + ptr[static_cast<size_t>(r) + 1];
      if (last - first <= 32) {  // insertion sort: stable, and no buffer per short row
        for (Entry* it = first + (first != last); it < last; ++it) {
          const Entry e = *it;
          Entry* j = it;
          for (; j != first && (j - 1)->first > e.first; --j) *j = *(j - 1);
          *j = e;
        }
      } else {
        std::stable_sort(first, last,
                         [](const Entry& a, const Entry& b) { return a.first < b.first; });
      }
      Entry* out = first;
      for (Entry* it = first; it != last;) {
        const int32_t c = it->first;
        double sum = 0.0;
        for (; it != last && it->first == c; ++it) sum += it->second;
        if (sum != 0.0 || std::isnan(sum)) *out++ = {c, sum};
      }
      kept[static_cast<size_t>(r)] = out - first;
    }
  });
  std::vector<int64_t> row_ptr(static_cast<size_t>(rows_) + 1, 0);
  for (size_t r = 0; r < kept.size(); ++r) row_ptr[r + 1] = row_ptr[r] + kept[r];
  std::vector<int32_t> col_idx(static_cast<size_t>(row_ptr.back()));
  std::vector<double> values(col_idx.size());
  kernels::cpu::parallel_for(0, rows_, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const size_t from = static_cast<size_t>(ptr[static_cast<size_t>(r)]);
      const size_t to = static_cast<size_t>(row_ptr[static_cast<size_t>(r)]);
      for (int64_t k = 0; k < kept[static_cast<size_t>(r)]; ++k) {
        col_idx[to + static_cast<size_t>(k)] = ent[from + static_cast<size_t>(k)].first;
        values[to + static_cast<size_t>(k)] = ent[from + static_cast<size_t>(k)].second;
      }
    }
  });
  ptr = std::move(row_ptr);
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
