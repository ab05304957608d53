// Parallel parsing of csv, text (ijv) and Matrix Market files (Note [Parallel text parsing] in
// runtime/io/io_util.cpp): with tiny chunks so small files take the multi-chunk path, every read
// must give the block, or the error message, that a one-chunk parse on one thread gives, for 1
// and 4 threads; errors name the file's line, and the first bad line wins.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/compare.h"
#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "runtime/io/io_detail.h"
#include "runtime/io/matrix_io.h"

using Catch::Matchers::Contains;
using dmlrt::inst::FileFormat;
using dmlrt::inst::MatrixMeta;
using dmlrt::kernels::MatrixBlock;
namespace cpu = dmlrt::kernels::cpu;
namespace detail = dmlrt::io::detail;
namespace io = dmlrt::io;
namespace test = dmlrt::test;

namespace {

// Sets the chunk size and thread count for one read; restores the defaults after.
struct ParseSetup {
  int saved_threads = cpu::num_threads();
  ParseSetup(size_t chunk_bytes, int threads) {
    detail::set_parse_chunk_bytes(chunk_bytes);
    cpu::set_num_threads(threads);
  }
  ~ParseSetup() {
    detail::set_parse_chunk_bytes(0);
    cpu::set_num_threads(saved_threads);
  }
};

struct Input {
  std::string data, name;
  FileFormat fmt;
  MatrixMeta meta;
};

Input input(std::string data, const std::string& name, const std::string& format,
            int64_t rows = -1, int64_t cols = -1) {
  Input in;
  in.data = std::move(data);
  in.name = name;
  in.fmt.format = format;
  in.meta.rows = rows;
  in.meta.cols = cols;
  return in;
}

// The block, or the error message, of one read.
struct Outcome {
  MatrixBlock block;
  std::string error;
};

Outcome read_with(const Input& in, size_t chunk_bytes, int threads) {
  ParseSetup setup(chunk_bytes, threads);
  Outcome out;
  try {
    out.block = io::read_matrix_from_string(in.data, in.name, in.fmt, in.meta);
  } catch (const dmlrt::Error& e) {
    out.error = e.what();
  }
  return out;
}

// The sequential reference: the whole file as one chunk on one thread.
Outcome read_sequential(const Input& in) { return read_with(in, size_t{1} << 40, 1); }

// Every chunk size (down to a few lines per chunk) and thread count agrees with the reference.
Outcome require_same_every_way(const Input& in) {
  const Outcome ref = read_sequential(in);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{64}, size_t{1000}}) {
    for (int threads : {1, 4}) {
      INFO(in.name << ": chunk " << chunk << " bytes, " << threads << " threads");
      const Outcome got = read_with(in, chunk, threads);
      REQUIRE(got.error == ref.error);
      if (!ref.error.empty()) continue;
      REQUIRE(got.block.is_sparse() == ref.block.is_sparse());
      REQUIRE(got.block.nnz() == ref.block.nnz());
      const test::CompareResult c = test::compare_bits(got.block, ref.block);
      INFO(c.report);
      REQUIRE(c.ok);
    }
  }
  return ref;
}

std::mt19937_64 rng_for_test() {
  return std::mt19937_64(test::seed_from(Catch::getResultCapture().getCurrentTestName()));
}

// A csv cell: mostly numbers in assorted spellings, some zeros, specials and blanks.
std::string csv_cell(std::mt19937_64& rng, bool blanks) {
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  switch (rng() % 16) {
    case 0: return "0";
    case 1: return "NaN";
    case 2: return "-Infinity";
    case 3: return "inf";
    case 4: return blanks ? "" : "1e-300";
    case 5: return " \"2.5\" ";
    case 6: return "1.0d";
    case 7: return "-0.0";
    default: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", u(rng));
      return buf;
    }
  }
}

std::string random_csv(std::mt19937_64& rng, int64_t rows, int64_t cols, bool header,
                       bool blanks, const std::string& delim = ",") {
  std::string s;
  if (header) {
    for (int64_t c = 0; c < cols; ++c) s += (c ? delim : "") + "C" + std::to_string(c + 1);
    s += "\n";
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) s += (c ? delim : "") + csv_cell(rng, blanks);
    s += (r % 5 == 3) ? "\r\n" : "\n";
  }
  return s;
}

// `n` ijv lines in a rows x cols matrix, with duplicates (small index range) and blank lines.
std::string random_entries(std::mt19937_64& rng, int64_t n, int64_t rows, int64_t cols,
                           bool pattern = false, bool lower = false) {
  std::string s;
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = 1 + static_cast<int64_t>(rng() % rows), j = 1 + static_cast<int64_t>(rng() % cols);
    if (lower && j > i) std::swap(i, j);
    if (lower && i == j) {  // off the diagonal, which skew-symmetric files must not list
      if (i > 1) j = i - 1;
      else i = 2;
    }
    s += std::to_string(i) + " " + std::to_string(j);
    if (!pattern) s += " " + std::to_string(static_cast<int64_t>(rng() % 200) - 100) + ".25";
    s += "\n";
    if (k % 37 == 5) s += "\n";
  }
  return s;
}

}  // namespace

TEST_CASE("parallel csv: same block for any chunk size and thread count", "[io]") {
  auto rng = rng_for_test();
  SECTION("dense, no header") {
    require_same_every_way(input(random_csv(rng, 300, 7, false, false), "a.csv", "csv"));
  }
  SECTION("header, declared dims, semicolons") {
    Input in = input(random_csv(rng, 250, 5, true, false, ";"), "h.csv", "csv", 250, 5);
    in.fmt.header = true;
    in.fmt.delim = ";";
    const Outcome ref = require_same_every_way(in);
    REQUIRE(ref.error.empty());
    REQUIRE(ref.block.rows() == 250);
  }
  SECTION("blank fields filled, na strings, mostly zeros (read sparse)") {
    std::string s;
    for (int r = 0; r < 400; ++r)
      s += r % 9 == 0 ? ",NA,0,,3.5\n" : (r % 4 ? "0,0,0,0,0\n" : "0,,0,1e5,0\n");
    Input in = input(s, "f.csv", "csv");
    in.fmt.fill = true;
    in.fmt.fill_value = -7;
    in.fmt.na_strings = "NA";
    const Outcome ref = require_same_every_way(in);
    REQUIRE(ref.error.empty());
    REQUIRE(std::isnan(ref.block.get(0, 1)));
    REQUIRE(ref.block.get(0, 0) == -7);
  }
  SECTION("blank lines at the end are dropped, in a one-column file they are rows") {
    const Outcome two =
        require_same_every_way(input(random_csv(rng, 100, 2, false, false) + "\n \n\t\n\n",
                                     "t.csv", "csv"));
    REQUIRE(two.block.rows() == 100);
    const Outcome one = require_same_every_way(input("1\n\n3\n\n", "o.csv", "csv"));
    REQUIRE(one.block.rows() == 4);
    // A blank first line that sets the column count (delimiter ' ') stays a row.
    Input sp = input("  \n \n", "s.csv", "csv");
    sp.fmt.delim = " ";
    sp.fmt.fill = true;
    const Outcome s = require_same_every_way(sp);
    REQUIRE(s.block.rows() == 1);
    REQUIRE(s.block.cols() == 3);
  }
  SECTION("no final newline, empty file, header only") {
    require_same_every_way(input("1,2\n3,4", "n.csv", "csv"));
    require_same_every_way(input("", "e.csv", "csv"));
    Input h = input("a,b,c\n", "h.csv", "csv");
    h.fmt.header = true;
    REQUIRE(require_same_every_way(h).block.cols() == 3);
  }
}

TEST_CASE("parallel csv: errors name the file's line, the first bad line wins", "[io]") {
  std::vector<std::string> lines;
  for (int r = 0; r < 2000; ++r) lines.push_back("1.5,2,-3,4e2");
  auto join = [&](const std::vector<std::string>& ls) {
    std::string s;
    for (const auto& l : ls) s += l + "\n";
    return s;
  };
  SECTION("a bad value far into the file") {
    auto ls = lines;
    ls[1233] = "1,2,abc,4";
    const Outcome o = require_same_every_way(input(join(ls), "x.csv", "csv"));
    REQUIRE_THAT(o.error, Contains("x.csv:1234: field 3 'abc' is not a number"));
    // With a header, the file's line numbers still count it.
    Input h = input("a,b,c,d\n" + join(ls), "x.csv", "csv");
    h.fmt.header = true;
    REQUIRE_THAT(require_same_every_way(h).error, Contains("x.csv:1235: field 3"));
  }
  SECTION("two bad chunks: the earlier line is reported") {
    auto ls = lines;
    ls[1799] = "1,2,3";
    ls[300] = "1,,3,4";
    Input in = input(join(ls), "y.csv", "csv");
    in.fmt.fill = false;
    const Outcome o = require_same_every_way(in);
    REQUIRE_THAT(o.error, Contains("y.csv:301: field 2 is empty (read with fill=TRUE"));
    // Check the multi-chunk path directly too: 4 threads, 1 KiB chunks.
    REQUIRE_THAT(read_with(in, 1024, 4).error, Contains("y.csv:301: field 2 is empty"));
  }
  SECTION("wrong field counts, against the first line and the declared columns") {
    auto ls = lines;
    ls[1500] = "1,2,3,4,5";
    REQUIRE_THAT(require_same_every_way(input(join(ls), "z.csv", "csv")).error,
                 Contains("z.csv:1501: 5 fields, expected 4 (as on the first data line)"));
    REQUIRE_THAT(require_same_every_way(input(join(lines), "z.csv", "csv", -1, 3)).error,
                 Contains("z.csv:1: 4 fields, expected 3 (the declared number of columns)"));
    // A first line far wider than the rest: found without allocating rows x its width.
    ls = lines;
    ls[0] = std::string(5000, ',');
    REQUIRE_THAT(require_same_every_way(input(join(ls), "w.csv", "csv")).error,
                 Contains("w.csv:2: 4 fields, expected 5001 (as on the first data line)"));
  }
  SECTION("a blank line in the middle, and the declared row count") {
    auto ls = lines;
    ls[1700] = "";
    REQUIRE_THAT(require_same_every_way(input(join(ls), "b.csv", "csv")).error,
                 Contains("b.csv:1701: 1 fields, expected 4"));
    REQUIRE_THAT(require_same_every_way(input(join(lines), "r.csv", "csv", 1999, 4)).error,
                 Contains("r.csv: 2000 data rows, but 1999 were declared"));
  }
}

TEST_CASE("parallel text (ijv): duplicates sum in file order, errors name the line", "[io]") {
  auto rng = rng_for_test();
  const std::string body = random_entries(rng, 3000, 20, 15);
  const Outcome ok = require_same_every_way(input(body, "d.txt", "text", 20, 15));
  REQUIRE(ok.error.empty());
  REQUIRE(ok.block.nnz() > 0);
  require_same_every_way(input("0 0 0\n", "z.txt", "text", 3, 3));

  std::string bad = body;
  // Append two bad lines; the first one must be reported with its line number.
  const int64_t n = std::count(bad.begin(), bad.end(), '\n');
  bad += "1 1 1\n3 x 2\n1 1 1\n99 1 1\n";
  REQUIRE_THAT(require_same_every_way(input(bad, "d.txt", "text", 20, 15)).error,
               Contains("d.txt:" + std::to_string(n + 2) + ": column index 'x' is not an integer"));
  std::string out = body + "21 1 1\n";
  REQUIRE_THAT(require_same_every_way(input(out, "d.txt", "text", 20, 15)).error,
               Contains("d.txt:" + std::to_string(n + 1) + ": cell (21,1) is outside the 20x15"));
}

TEST_CASE("parallel Matrix Market: coordinate, symmetric, pattern, array", "[io]") {
  auto rng = rng_for_test();
  const std::string gen = "%%MatrixMarket matrix coordinate real general\n% comment\n";
  const std::string entries = random_entries(rng, 2000, 30, 25);
  const int64_t nnz = 2000;
  const std::string size = "30 25 " + std::to_string(nnz) + "\n";
  REQUIRE(require_same_every_way(input(gen + size + entries, "g.mtx", "mm")).error.empty());
  // SystemDS's extra "0 0 0" line after the entries, anywhere in a later chunk.
  REQUIRE(require_same_every_way(input(gen + size + entries + "\n%c\n0 0 0\n", "g.mtx", "mm"))
              .error.empty());

  const std::string sq = random_entries(rng, 1500, 40, 40, false, true);
  for (const std::string sym : {"symmetric", "skew-symmetric"}) {
    const Outcome o = require_same_every_way(
        input("%%MatrixMarket matrix coordinate real " + sym + "\n40 40 1500\n" + sq, "s.mtx",
              "mm"));
    REQUIRE(o.error.empty());
  }
  const std::string pat = random_entries(rng, 1200, 30, 25, true);
  REQUIRE(require_same_every_way(
              input("%%MatrixMarket matrix coordinate pattern general\n30 25 1200\n" + pat,
                    "p.mtx", "mm"))
              .error.empty());

  std::string arr = "%%MatrixMarket matrix array real general\n40 30\n";
  for (int k = 0; k < 1200; ++k) arr += std::to_string(k % 7 == 0 ? 0 : k) + ".5\n";
  const Outcome a = require_same_every_way(input(arr, "a.mtx", "mm"));
  REQUIRE(a.error.empty());
  REQUIRE(a.block.get(1, 0) == 1.5);  // column-major in the file
  std::string sarr = "%%MatrixMarket matrix array real symmetric\n40 40\n";
  for (int k = 0; k < 40 * 41 / 2; ++k) sarr += std::to_string(k) + "\n";
  REQUIRE(require_same_every_way(input(sarr, "a.mtx", "mm")).error.empty());
}

TEST_CASE("parallel Matrix Market: entry-count errors in later chunks", "[io]") {
  auto rng = rng_for_test();
  const std::string hdr = "%%MatrixMarket matrix coordinate real general\n";
  const std::string entries = random_entries(rng, 1000, 30, 25);
  const int64_t lines = 2 + std::count(entries.begin(), entries.end(), '\n');
  auto mm = [&](int64_t nnz, const std::string& tail) {
    return input(hdr + "30 25 " + std::to_string(nnz) + "\n" + entries + tail, "c.mtx", "mm");
  };
  // One entry too many, after 1000 lines of entries.
  REQUIRE_THAT(require_same_every_way(mm(1000, "1 1 1\n")).error,
               Contains("c.mtx:" + std::to_string(lines + 1) +
                        ": more entries than the 1000 declared on line 2"));
  // Fewer declared than present: the error is at the (nnz+1)-th entry, deep in the file.
  const Outcome early = require_same_every_way(mm(400, ""));
  REQUIRE_THAT(early.error, Contains(": more entries than the 400 declared on line 2"));
  // After the last entry a "0 0 <anything>" line is skipped, not parsed.
  REQUIRE(require_same_every_way(mm(1000, "0 0 junk\n")).error.empty());
  // ... but with entries left to read it is a bad entry.
  REQUIRE_THAT(require_same_every_way(mm(1001, "0 0 junk\n")).error,
               Contains("c.mtx:" + std::to_string(lines + 1) + ": value 'junk' is not a number"));
  // Past the count, a bad line is "more entries" (the count is checked before the fields).
  REQUIRE_THAT(require_same_every_way(mm(1000, "x y z\n")).error,
               Contains("c.mtx:" + std::to_string(lines + 1) + ": more entries than the 1000"));
  REQUIRE_THAT(require_same_every_way(mm(1002, "")).error,
               Contains("c.mtx: truncated: 1002 entries declared on line 2, found 1000"));
  // Two bad entries in different chunks: the first.
  std::string two = entries;
  two.replace(two.find('\n', 100) + 1, 0, "5 5 5 5\n");
  two.replace(two.find('\n', two.size() - 200) + 1, 0, "q 1 1\n");
  const Outcome o = require_same_every_way(
      input(hdr + "30 25 1002\n" + two, "c.mtx", "mm"));
  REQUIRE_THAT(o.error, Contains("expected 'row col value', found 4 fields"));

  std::string arr = "%%MatrixMarket matrix array real general\n20 30\n";
  for (int k = 0; k < 600; ++k) arr += "1\n";
  REQUIRE_THAT(require_same_every_way(input(arr + "2\n", "a.mtx", "mm")).error,
               Contains("a.mtx:603: more values than the 600 a general 20x30 array holds"));
  REQUIRE_THAT(require_same_every_way(input(arr.substr(0, arr.size() - 4), "a.mtx", "mm")).error,
               Contains("a.mtx: truncated: a general 20x30 array holds 600 values, found 598"));
}

TEST_CASE("split_line_chunks numbers lines as LineReader does", "[io]") {
  detail::set_parse_chunk_bytes(5);
  const auto chunks = detail::split_line_chunks("ab\ncdefgh\n\nij\r\nk", 10);
  detail::set_parse_chunk_bytes(0);
  int64_t line = 10;
  std::string joined;
  for (const auto& c : chunks) {
    REQUIRE(c.first_line == line);
    detail::LineReader r(c.text, c.first_line);
    std::string_view l;
    while (r.next(l)) ++line;
    REQUIRE(c.lines == r.line_no() - c.first_line + 1);
    joined += std::string(c.text);
  }
  REQUIRE(joined == "ab\ncdefgh\n\nij\r\nk");
  REQUIRE(line == 15);
  REQUIRE(detail::split_line_chunks("", 1).empty());
}
