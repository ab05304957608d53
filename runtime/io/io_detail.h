// Internals shared by the matrix readers and writers: number parsing and formatting, a line
// cursor, a coordinate-list builder and a buffered output. Each format lives in its own .cpp.
#pragma once

#include <cstdint>
#include <cstdio>
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
  explicit LineReader(std::string_view data) : data_(data) {}
  bool next(std::string_view& line);
  int64_t line_no() const { return line_no_; }  // 1-based number of the line last returned
  std::string_view rest() const { return data_.substr(pos_); }  // after the line last returned

 private:
  std::string_view data_;
  size_t pos_ = 0;
  int64_t line_no_ = 0;
};

// Splits on runs of spaces and tabs into at most `max` tokens; returns how many there were
// (which may exceed max: the extra ones are not stored).
size_t split_blanks(std::string_view line, std::string_view* tokens, size_t max);

// Throws when an allocation of `bytes` that the file's declared shape asks for exceeds the
// limit (fuzzing) or cannot be represented.
void check_alloc(double bytes, const ReadLimits& limits, const std::string& name,
                 const std::string& what);

// Coordinates (0-based, in range) -> a block in the format SystemDS would pick. Duplicate
// coordinates are summed (see Note [Duplicate coordinates] in text_io.cpp).
class CoordinateBuilder {
 public:
  CoordinateBuilder(int64_t rows, int64_t cols, const std::string& name, const ReadLimits& limits);
  void add(int64_t r, int64_t c, double v) {
    r_.push_back(r);
    c_.push_back(static_cast<int32_t>(c));
    v_.push_back(v);
  }
  kernels::MatrixBlock build();

 private:
  int64_t rows_, cols_;
  std::string name_;
  ReadLimits limits_;
  std::vector<int64_t> r_;
  std::vector<int32_t> c_;
  std::vector<double> v_;
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
