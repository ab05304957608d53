// Internals shared by the matrix readers and writers: number parsing and formatting, a line
// cursor, a coordinate-list builder and a buffered output. Each format lives in its own .cpp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "instructions/matrix_object.h"
#include "kernels/matrix_block.h"
#include "runtime/io/matrix_io.h"

namespace dmlrt::io::detail {

// Java's Double.parseDouble forms plus C's inf/nan spellings: [+-]digits[.digits][e[+-]digits],
// NaN, Infinity. The whole of `s` must be the number (callers trim). Out-of-range values become
// +-Infinity or (sub)zero as in Java.
bool parse_double(std::string_view s, double& out);
// [+-]digits, the whole of `s`, within int64.
bool parse_int64(std::string_view s, int64_t& out);

// Java 17's Double.toString ("1.0", "0.1", "1.0E-300", "1.23456789E8", "NaN", "-Infinity"),
// appended without a temporary string: kernels::append_java_double (kernels/cpu/java_format.h).
void append_double_java(std::string& out, double v);

std::string_view trim(std::string_view s);  // spaces, tabs, \r at both ends

// Walks the lines of a buffer; '\n' ends a line, a trailing '\r' is dropped, and the last line may
// lack its '\n' (a buffer ending in '\n' has no empty last line).
class LineReader {
 public:
  // `first_line`: the file's number for the first line of `data` (a chunk of the file).
  explicit LineReader(std::string_view data, int64_t first_line = 1)
      : data_(data), line_no_(first_line - 1) {}
  bool next(std::string_view& line);
  int64_t line_no() const { return line_no_; }  // 1-based number of the line last returned
  std::string_view rest() const { return data_.substr(pos_); }  // after the line last returned

 private:
  std::string_view data_;
  size_t pos_ = 0;
  int64_t line_no_;
};

// ---- Parallel parsing of line formats (see Note [Parallel text parsing] in io_util.cpp) ----

// A run of whole lines of a file.
struct LineChunk {
  std::string_view text;
  int64_t first_line = 1;  // the file's 1-based number of its first line
  int64_t lines = 0;       // how many lines it holds (LineReader's count)
};

// Cuts `data`, whose first line is line `first_line` of the file, into chunks of about
// parse_chunk_bytes() bytes that end at line ends, and numbers their lines (one parallel pass).
// The cut depends on the bytes and the chunk size only, never on the thread count.
std::vector<LineChunk> split_line_chunks(std::string_view data, int64_t first_line);

// The chunk size of split_line_chunks; files shorter than it are parsed as one chunk on the
// calling thread. set_parse_chunk_bytes(0) restores the default (tests set tiny chunks to run the
// parallel path on small files). Not to be changed while a read runs.
size_t parse_chunk_bytes();
void set_parse_chunk_bytes(size_t bytes);

// Runs fn(k) for chunks k = 0..n-1 on the CPU pool. If some throw, rethrows the exception of the
// lowest k, the one a parse from the top would have hit first; chunks after a failed one may be
// skipped.
void for_each_chunk(size_t n, const std::function<void(size_t k)>& fn);

// Splits on runs of spaces and tabs into at most `max` tokens; returns how many there were
// (which may exceed max: the extra ones are not stored).
size_t split_blanks(std::string_view line, std::string_view* tokens, size_t max);

// Throws when an allocation of `bytes` that the file's declared shape asks for exceeds the
// limit (fuzzing) or cannot be represented.
void check_alloc(double bytes, const ReadLimits& limits, const std::string& name,
                 const std::string& what);

// Coordinates (0-based, in range) in file order, as one chunk of a file yields them.
struct Triplets {
  std::vector<int64_t> r;
  std::vector<int32_t> c;
  std::vector<double> v;
  void add(int64_t row, int64_t col, double val) {
    r.push_back(row);
    c.push_back(static_cast<int32_t>(col));
    v.push_back(val);
  }
  size_t size() const { return v.size(); }
  void reserve(size_t n) {
    r.reserve(n);
    c.reserve(n);
    v.reserve(n);
  }
};

// Coordinates -> a block in the format SystemDS would pick. Duplicate coordinates are summed in
// file order (see Note [Duplicate coordinates] in text_io.cpp), so parts must be appended in the
// order their chunks appear in the file.
class CoordinateBuilder {
 public:
  CoordinateBuilder(int64_t rows, int64_t cols, const std::string& name, const ReadLimits& limits);
  void append(Triplets&& part) {
    if (part.size()) parts_.push_back(std::move(part));
  }
  kernels::MatrixBlock build();

 private:
  int64_t rows_, cols_;
  std::string name_;
  ReadLimits limits_;
  std::vector<Triplets> parts_;
};

// Format readers over the whole file content. `rows`/`cols` are what createvar or the .mtd
// declare (-1 = unknown); readers check the data against them.
kernels::MatrixBlock read_csv(std::string_view data, const std::string& name,
                              const inst::FileFormat& fmt, int64_t rows, int64_t cols);
kernels::MatrixBlock read_text_cell(std::string_view data, const std::string& name, int64_t rows,
                                    int64_t cols, const ReadLimits& limits);
kernels::MatrixBlock read_matrix_market(std::string_view data, const std::string& name,
                                        const ReadLimits& limits);
kernels::MatrixBlock read_npy(std::string_view data, const std::string& name);
// SystemDS's binary block format (binary_io.cpp): `data` is one SequenceFile or a folder's part
// files concatenated; `blen` is the block size (<= 0: taken from the blocks).
kernels::MatrixBlock read_binary_block(std::string_view data, const std::string& name,
                                       int64_t rows, int64_t cols, int64_t blen,
                                       const ReadLimits& limits);

// Buffered output to a FILE (or, with a null FILE, to `text()` only).
class Output {
 public:
  Output(std::FILE* f, const std::string& name) : f_(f), name_(name) { buf_.reserve(kChunk); }
  std::string& buf() { return buf_; }  // append, then call maybe_flush()
  void maybe_flush() {
    if (f_ && buf_.size() >= kChunk) flush();
  }
  void flush();
  const std::string& text() const { return buf_; }

 private:
  static constexpr size_t kChunk = 1 << 20;
  std::FILE* f_;
  std::string name_;
  std::string buf_;
};

void write_csv(const kernels::MatrixBlock& b, const inst::FileFormat& fmt, Output& out);
void write_text_cell(const kernels::MatrixBlock& b, Output& out);
void write_matrix_market(const kernels::MatrixBlock& b, Output& out);
void write_npy(const kernels::MatrixBlock& b, Output& out);

}  // namespace dmlrt::io::detail
