// File I/O: round trips in every format, files written by SystemDS 3.4 and NumPy (fixtures in
// unit/data/io, made by generate.dml and gen_npy.py there), every malformed-input error, and
// writes that fail without leaving or changing files.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "common/test_paths.h"
#include "common/compare.h"
#include "gpu_context/error.h"
#include "instructions/scalar_value.h"
#include "runtime/io/io_detail.h"
#include "runtime/io/matrix_io.h"
#include "runtime/io/mtd.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using dmlrt::inst::FileFormat;
using dmlrt::inst::MatrixMeta;
using dmlrt::inst::ScalarValue;
using dmlrt::inst::ValueType;
using dmlrt::kernels::MatrixBlock;
namespace io = dmlrt::io;
namespace test = dmlrt::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::string fixture(const std::string& name) {
  return dmlrt::test::test_data_dir() + "/unit/data/io/" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// A fresh folder per test, removed at the end.
struct TempDir {
  fs::path dir;
  explicit TempDir(const std::string& tag) {
    dir = fs::temp_directory_path() /
          ("dmlrt_io_" + tag + "_" + std::to_string(::getpid()) + "_" +
           std::to_string(test::seed_from(Catch::getResultCapture().getCurrentTestName()) % 100000));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
  // Names in the folder (to check that no temporary files are left).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

FileFormat format_of(const std::string& f) {
  FileFormat fmt;
  fmt.format = f;
  return fmt;
}

MatrixMeta meta_of(int64_t rows, int64_t cols) {
  MatrixMeta m;
  m.rows = rows;
  m.cols = cols;
  return m;
}

const MatrixMeta kUnknownMeta;

MatrixBlock read_str(const std::string& data, const std::string& name, const std::string& fmt,
                     MatrixMeta meta = {}, const std::string* mtd = nullptr) {
  return io::read_matrix_from_string(data, name, format_of(fmt), meta, mtd);
}

// The values of SystemDS fixture X (generate.dml), row-major 4x3.
const std::vector<double> kX = {1, 0, 3.5, -4, 0, 6, 1e-300, 1e300, 0.1, 0, 0, -2.5e-7};

std::vector<MatrixBlock> round_trip_blocks(uint64_t seed) {
  std::vector<MatrixBlock> out;
  out.push_back(test::random_block(7, 5, 1.0, seed, -1e3, 1e3));
  out.push_back(test::random_block(50, 40, 0.1, seed + 1, -1, 1, true));
  out.push_back(test::random_block(200, 100, 0.001, seed + 2, -1, 1, true));
  out.push_back(test::dense_of(1, 1, {-3.25}));
  out.push_back(MatrixBlock::dense(3, 2, 0.0));           // all zero
  out.push_back(test::dense_of(2, 4, {kNaN, kInf, -kInf, 5e-324, 1.7976931348623157e308,
                                      -1e-300, 1e22, 0.1 + 0.2}));
  out.push_back(test::dense_of(3, 1, {1, -2, 3}));        // odd shapes
  out.push_back(test::dense_of(1, 3, {0, 0, 7}));
  return out;
}

}  // namespace

// ---------------------------------------------------------------- round trips

TEST_CASE("every format round-trips dense, sparse and special values", "[io]") {
  TempDir tmp("rt");
  const uint64_t seed = test::seed_from("io round trip");
  FileFormat csv_h = format_of("csv");
  csv_h.header = true;
  csv_h.delim = ";";
  FileFormat csv_s = format_of("csv");
  csv_s.sparse = true;
  const std::vector<std::pair<std::string, FileFormat>> formats = {
      {"a.csv", format_of("csv")}, {"b.csv", csv_h},         {"c.csv", csv_s},
      {"d.txt", format_of("text")}, {"e.mtx", format_of("mm")}, {"f.npy", format_of("npy")}};
  for (const auto& [file, fmt] : formats) {
    int i = 0;
    for (const MatrixBlock& b : round_trip_blocks(seed)) {
      INFO(file << " block " << i++ << " " << b.shape_string());
      const std::string path = tmp / file;
      io::write_matrix(b, path, fmt);
      // With the plan's format, and with an unknown one (from the .mtd or the extension).
      MatrixBlock got = io::read_matrix(path, fmt, kUnknownMeta);
      REQUIRE(got.equals(b));
      MatrixBlock again = io::read_matrix(path, format_of("unknown"), kUnknownMeta);
      REQUIRE(again.equals(b));
      MatrixBlock expect = b;
      expect.examine_format();
      REQUIRE(got.is_sparse() == expect.is_sparse());
    }
  }
}

TEST_CASE("empty matrices round-trip (SystemDS refuses to write them)", "[io]") {
  TempDir tmp("empty");
  for (const auto& [r, c] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 3}, {4, 0}}) {
    const MatrixBlock b = MatrixBlock::dense(r, c, 0.0);
    for (const std::string f : {"csv", "text", "mm", "npy"}) {
      INFO(f << " " << r << "x" << c);
      const std::string path = tmp / ("e." + f);
      io::write_matrix(b, path, format_of(f));
      // CSV cannot tell 4x0 from 0x0 on its own: its .mtd gives the dims.
      const MatrixBlock got = io::read_matrix(path, format_of(f), kUnknownMeta);
      REQUIRE(got.rows() == r);
      REQUIRE(got.cols() == c);
    }
  }
}

TEST_CASE("writers produce SystemDS's bytes", "[io]") {
  const MatrixBlock x = test::dense_of(4, 3, kX);
  REQUIRE(io::write_matrix_to_string(x, format_of("csv")) == slurp(fixture("sd_dense.csv")));
  REQUIRE(io::write_matrix_to_string(x.to_sparse(), format_of("csv")) ==
          slurp(fixture("sd_dense.csv")));
  FileFormat h = format_of("csv");
  h.header = true;
  h.delim = ";";
  REQUIRE(io::write_matrix_to_string(x, h) == slurp(fixture("sd_header.csv")));
  FileFormat s = format_of("csv");
  s.sparse = true;
  REQUIRE(io::write_matrix_to_string(x, s) == slurp(fixture("sd_sparse.csv")));
  REQUIRE(io::write_matrix_to_string(x, format_of("text")) == slurp(fixture("sd_cells.txt")));
  REQUIRE(io::write_matrix_to_string(x.to_sparse(), format_of("text")) ==
          slurp(fixture("sd_cells.txt")));
  REQUIRE(io::write_matrix_to_string(x, format_of("mm")) == slurp(fixture("sd_cells.mtx")));
  const MatrixBlock z = MatrixBlock::dense(3, 2, 0.0);
  REQUIRE(io::write_matrix_to_string(z, format_of("text")) == slurp(fixture("sd_zero.txt")));
  REQUIRE(io::write_matrix_to_string(z, format_of("csv")) == slurp(fixture("sd_zero.csv")));
  // Matrix Market: no extra "0 0 0" line (SystemDS writes one; readers need none).
  REQUIRE(io::write_matrix_to_string(z, format_of("mm")) ==
          "%%MatrixMarket matrix coordinate real general\n3 2 0\n");
  const MatrixBlock sp = test::dense_of(2, 2, {kNaN, kNaN, kInf, -kInf});
  REQUIRE(io::write_matrix_to_string(sp, format_of("csv")) == slurp(fixture("sd_special.csv")));
  REQUIRE(io::write_matrix_to_string(sp, format_of("text")) == slurp(fixture("sd_special.txt")));
  // -0.0 is a zero, as in SystemDS's writers.
  REQUIRE(io::write_matrix_to_string(test::dense_of(1, 2, {-0.0, 1}), format_of("csv")) ==
          "0,1.0\n");
}

TEST_CASE(".mtd files carry SystemDS's keys in SystemDS's order", "[io]") {
  using OJ = nlohmann::ordered_json;
  auto without_volatile = [](OJ j) {
    j.erase("author");
    j.erase("created");
    return j;
  };
  FileFormat h = format_of("csv");
  h.header = true;
  h.delim = ";";
  h.description = "fixture";
  REQUIRE(OJ::parse(io::matrix_mtd_json(4, 3, 8, h, true)) ==
          without_volatile(OJ::parse(slurp(fixture("sd_header.csv.mtd")))));
  REQUIRE(OJ::parse(io::matrix_mtd_json(4, 3, 8, format_of("csv"), true)) ==
          without_volatile(OJ::parse(slurp(fixture("sd_dense.csv.mtd")))));
  REQUIRE(OJ::parse(io::matrix_mtd_json(4, 3, 8, format_of("text"), true)) ==
          without_volatile(OJ::parse(slurp(fixture("sd_cells.txt.mtd")))));
  REQUIRE(OJ::parse(io::scalar_mtd_json(ValueType::kINT64, true)) ==
          without_volatile(OJ::parse(slurp(fixture("sd_scalar_int.txt.mtd")))));
  REQUIRE(OJ::parse(io::scalar_mtd_json(ValueType::kBoolean, true)) ==
          without_volatile(OJ::parse(slurp(fixture("sd_scalar_bool.txt.mtd")))));
  // SystemDS's 4-space layout; the written one also has author and created.
  const std::string full = io::matrix_mtd_json(2, 2, 1, format_of("text"));
  REQUIRE_THAT(full, Contains("{\n    \"data_type\": \"matrix\",\n    \"value_type\": \"double\""));
  REQUIRE_THAT(full, Contains("\"author\": "));
  REQUIRE_THAT(full, Contains("\"created\": "));
}

// ---------------------------------------------------------------- SystemDS and NumPy files

TEST_CASE("reads the matrices SystemDS wrote", "[io]") {
  const FileFormat unknown = format_of("unknown");
  for (const std::string f : {"sd_dense.csv", "sd_header.csv", "sd_sparse.csv", "sd_cells.txt",
                              "sd_cells.mtx"}) {
    INFO(f);
    DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture(f), unknown, kUnknownMeta), 4, 3, kX, 0, 0);
  }
  // As a plan would name them: createvar's format and dims (csv extras from createvar).
  FileFormat h = format_of("csv");
  h.header = true;
  h.delim = ";";
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("sd_header.csv"), h, meta_of(4, 3)), 4, 3, kX, 0, 0);
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("sd_cells.txt"), format_of("text"), meta_of(4, 3)),
                      4, 3, kX, 0, 0);
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("sd_cells.mtx"), format_of("mm"), kUnknownMeta), 4,
                      3, kX, 0, 0);
  for (const std::string f : {"sd_zero.txt", "sd_zero.mtx", "sd_zero.csv"}) {
    INFO(f);
    const MatrixBlock z = io::read_matrix(fixture(f), unknown, kUnknownMeta);
    REQUIRE(z.rows() == 3);
    REQUIRE(z.cols() == 2);
    REQUIRE(z.nnz() == 0);
    REQUIRE(z.is_sparse());  // what SystemDS picks for an empty block
  }
  const MatrixBlock s = io::read_matrix(fixture("sd_special.txt"), unknown, kUnknownMeta);
  REQUIRE(std::isnan(s.get(0, 0)));
  REQUIRE(std::isnan(s.get(0, 1)));
  REQUIRE(s.get(1, 0) == kInf);
  REQUIRE(s.get(1, 1) == -kInf);
  REQUIRE(io::read_matrix(fixture("sd_special.csv"), unknown, kUnknownMeta).equals(s));
}

TEST_CASE("SystemDS's binary format is read, and refused for writing with advice", "[io]") {
  // Reading: the same X as sd_dense.csv (more in test_io_binary.cpp).
  const MatrixBlock dense = io::read_matrix(fixture("sd_dense.csv"), format_of("csv"), kUnknownMeta);
  for (const std::string f : {"binary", "unknown"}) {
    const MatrixBlock b = io::read_matrix(fixture("sd_binary.bin"), format_of(f), kUnknownMeta);
    REQUIRE(b.nnz() == 8);
    REQUIRE(test::compare_bits(b, dense).ok);
  }
  TempDir tmp("bin");
  REQUIRE_THROWS_WITH(io::write_matrix(MatrixBlock::dense(1, 1, 1.0), tmp / "x", format_of("binary")),
                      Contains("binary block format is not supported for writing"));
  REQUIRE_THROWS_WITH(io::write_matrix(MatrixBlock::dense(1, 1, 1.0), tmp / "x", format_of("hdf5")),
                      Contains("format 'hdf5' is not supported"));
}

TEST_CASE("reads the scalars SystemDS wrote", "[io]") {
  REQUIRE(io::read_scalar(fixture("sd_scalar_double.txt"), ValueType::kFP64).to_double() == 3.5);
  REQUIRE(io::read_scalar(fixture("sd_scalar_int.txt"), ValueType::kINT64).to_int() == 42);
  REQUIRE(io::read_scalar(fixture("sd_scalar_bool.txt"), ValueType::kBoolean).to_bool());
  REQUIRE(io::read_scalar(fixture("sd_scalar_string.txt"), ValueType::kString).to_string() ==
          "hello world");
  // Unknown type: from the .mtd.
  const ScalarValue v = io::read_scalar(fixture("sd_scalar_int.txt"), ValueType::kUnknown);
  REQUIRE(v.type() == ValueType::kINT64);
}

TEST_CASE("scalars round-trip and are written as SystemDS writes them", "[io]") {
  TempDir tmp("scalar");
  io::write_scalar(ScalarValue::fp64(3.5), tmp / "d.txt");
  REQUIRE(slurp(tmp / "d.txt") == slurp(fixture("sd_scalar_double.txt")));
  io::write_scalar(ScalarValue::int64(42), tmp / "i.txt");
  REQUIRE(slurp(tmp / "i.txt") == slurp(fixture("sd_scalar_int.txt")));
  io::write_scalar(ScalarValue::boolean(true), tmp / "b.txt");
  REQUIRE(slurp(tmp / "b.txt") == slurp(fixture("sd_scalar_bool.txt")));
  io::write_scalar(ScalarValue::string("hello world"), tmp / "s.txt");
  REQUIRE(slurp(tmp / "s.txt") == slurp(fixture("sd_scalar_string.txt")));
  REQUIRE_THAT(slurp(tmp / "i.txt.mtd"), Contains("\"value_type\": \"int\""));
  for (double d : {0.1, 1e-20, -kInf, 123456789.0, 5e-324}) {
    io::write_scalar(ScalarValue::fp64(d), tmp / "x.txt");
    REQUIRE(io::read_scalar(tmp / "x.txt", ValueType::kFP64).to_double() == d);
  }
  io::write_scalar(ScalarValue::int64(-9007199254740993), tmp / "x.txt");
  REQUIRE(io::read_scalar(tmp / "x.txt", ValueType::kINT64).to_int() == -9007199254740993);
  io::write_scalar(ScalarValue::string("two\nlines"), tmp / "x.txt");
  REQUIRE(io::read_scalar(tmp / "x.txt", ValueType::kString).to_string() == "two\nlines");
}

TEST_CASE("scalar read errors name the file and the text", "[io]") {
  TempDir tmp("scalar_err");
  spit(tmp / "x.txt", "3.5");
  REQUIRE_THROWS_WITH(io::read_scalar(tmp / "x.txt", ValueType::kINT64),
                      Contains("x.txt: '3.5' is not an integer"));
  spit(tmp / "x.txt", "abc\n");
  REQUIRE_THROWS_WITH(io::read_scalar(tmp / "x.txt", ValueType::kFP64),
                      Contains("x.txt: 'abc' is not a double"));
  REQUIRE_THROWS_WITH(io::read_scalar(tmp / "x.txt", ValueType::kBoolean),
                      Contains("x.txt: 'abc' is not a boolean"));
  REQUIRE_THROWS_WITH(io::read_scalar(tmp / "nope.txt", ValueType::kFP64),
                      Contains("nope.txt: no such file"));
}

TEST_CASE("reads NumPy's .npy files", "[io]") {
  const std::vector<double> a = {1.5, -2.0, 0.0, 4.0, 1e-300, kInf};
  const FileFormat npy = format_of("npy");
  for (const std::string f : {"np_f8_c.npy", "np_f8_fortran.npy", "np_f8_be.npy", "np_v2.npy"}) {
    INFO(f);
    DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture(f), npy, kUnknownMeta), 2, 3, a, 0, 0);
  }
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("np_f4.npy"), npy, kUnknownMeta), 2, 2,
                      {0.5, -1.25, 3.0, 0.0}, 0, 0);
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("np_i4.npy"), npy, kUnknownMeta), 2, 2,
                      {1, -2, 3, 2147483647}, 0, 0);
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("np_i8.npy"), npy, kUnknownMeta), 1, 2,
                      {1, -9007199254740992.0}, 0, 0);
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("np_b1.npy"), npy, kUnknownMeta), 2, 2,
                      {1, 0, 0, 1}, 0, 0);
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("np_1d.npy"), npy, kUnknownMeta), 3, 1, {1, 2, 3},
                      0, 0);
  DMLRT_REQUIRE_CLOSE(io::read_matrix(fixture("np_0d.npy"), npy, kUnknownMeta), 1, 1, {7}, 0, 0);
  const MatrixBlock e = io::read_matrix(fixture("np_empty.npy"), format_of("unknown"), kUnknownMeta);
  REQUIRE(e.rows() == 0);
  REQUIRE(e.cols() == 3);
  REQUIRE_THROWS_WITH(io::read_matrix(fixture("np_c16.npy"), npy, kUnknownMeta),
                      Contains("np_c16.npy: unsupported .npy dtype '<c16'"));
  REQUIRE_THROWS_WITH(io::read_matrix(fixture("np_3d.npy"), npy, kUnknownMeta),
                      Contains("np_3d.npy: a 3-D .npy array is not a matrix"));
  // What we write is what np.save writes for a float64 matrix, up to header padding.
  const std::string ours = io::write_matrix_to_string(test::dense_of(2, 3, a), npy);
  REQUIRE(ours.size() % 64 == 2 * 3 * 8 % 64);
  REQUIRE(ours.substr(ours.size() - 48) ==
          slurp(fixture("np_f8_c.npy")).substr(slurp(fixture("np_f8_c.npy")).size() - 48));
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  REQUIRE(ours.substr(10, dict.size()) == dict);
}

// ---------------------------------------------------------------- reader features

TEST_CASE("csv: header, delimiter, fill, na strings, quotes, CRLF", "[io]") {
  FileFormat f = format_of("csv");
  DMLRT_REQUIRE_CLOSE(io::read_matrix_from_string("1,2\r\n3, 4 \r\n", "a.csv", f, kUnknownMeta),
                      2, 2, {1, 2, 3, 4}, 0, 0);
  f.fill_value = 7;
  DMLRT_REQUIRE_CLOSE(io::read_matrix_from_string("1,,3\n,5,\n", "a.csv", f, kUnknownMeta), 2, 3,
                      {1, 7, 3, 7, 5, 7}, 0, 0);
  f.na_strings = "NA,?";
  const MatrixBlock na = io::read_matrix_from_string("NA,2\n3,?\n", "a.csv", f, kUnknownMeta);
  REQUIRE(std::isnan(na.get(0, 0)));
  REQUIRE(std::isnan(na.get(1, 1)));
  REQUIRE(na.get(0, 1) == 2);
  f.header = true;
  f.delim = "::";
  DMLRT_REQUIRE_CLOSE(
      io::read_matrix_from_string("a::b\n\"1.5\"::-2\n+3::1e2\n", "a.csv", f, kUnknownMeta), 2, 2,
      {1.5, -2, 3, 100}, 0, 0);
  // Header only: no rows, columns from the header.
  const MatrixBlock h = io::read_matrix_from_string("a::b::c\n", "a.csv", f, kUnknownMeta);
  REQUIRE(h.rows() == 0);
  REQUIRE(h.cols() == 3);
  // Java's and C's spellings of the special values.
  const MatrixBlock sp =
      read_str("NaN,Infinity,-Infinity,inf,-inf,nan,1.0d\n", "s.csv", "csv");
  REQUIRE(std::isnan(sp.get(0, 0)));
  REQUIRE(sp.get(0, 1) == kInf);
  REQUIRE(sp.get(0, 2) == -kInf);
  REQUIRE(sp.get(0, 3) == kInf);
  REQUIRE(sp.get(0, 4) == -kInf);
  REQUIRE(std::isnan(sp.get(0, 5)));
  REQUIRE(sp.get(0, 6) == 1.0);
  // Out-of-range numbers saturate as in Java.
  const MatrixBlock big = read_str("1e400,-1e400,1e-400\n", "b.csv", "csv");
  REQUIRE(big.get(0, 0) == kInf);
  REQUIRE(big.get(0, 1) == -kInf);
  REQUIRE(big.get(0, 2) == 0.0);
  // Blank lines at the end are ignored, except in one column where they are zeros.
  DMLRT_REQUIRE_CLOSE(read_str("1,2\n3,4\n\n \n", "t.csv", "csv"), 2, 2, {1, 2, 3, 4}, 0, 0);
  REQUIRE_THROWS_WITH(read_str("1,2\n\n3,4\n", "t.csv", "csv"),
                      Contains("t.csv:2: 1 fields, expected 2"));
  // A one-column sparse csv writes zeros as empty lines.
  DMLRT_REQUIRE_CLOSE(read_str("1\n\n3\n", "c.csv", "csv"), 3, 1, {1, 0, 3}, 0, 0);
}

TEST_CASE("csv: .mtd options apply when the plan's format is unknown", "[io]") {
  const std::string mtd =
      R"({"data_type": "matrix", "rows": 2, "cols": 2, "format": "csv", "header": true,
          "sep": "|", "naStrings": ["NA"]})";
  const MatrixBlock b = read_str("x|y\n1|NA\n3|4\n", "m.csv", "unknown", {}, &mtd);
  REQUIRE(std::isnan(b.get(0, 1)));
  REQUIRE(b.get(1, 0) == 3);
  // Old SystemML files wrote leading commas and quoted numbers; both are plain JSON to us.
  const std::string old = "{ \"data_type\": \"matrix\"\n, \"value_type\": \"double\"\n"
                          ", \"rows\": \"2\"\n, \"cols\": 1\n, \"format\": \"text\"\n}";
  DMLRT_REQUIRE_CLOSE(read_str("2 1 5\n", "o.txt", "unknown", {}, &old), 2, 1, {0, 5}, 0, 0);
}

TEST_CASE("text and mm: duplicates are summed, symmetric forms expanded", "[io]") {
  const std::string mtd = R"({"rows": 3, "cols": 3, "format": "text"})";
  // See Note [Duplicate coordinates] in runtime/io/text_io.cpp.
  DMLRT_REQUIRE_CLOSE(read_str("1 1 1\n\n3 2 4\n1 1 2\n2 2 5\n2 2 -5\n", "d.txt", "text", {}, &mtd),
                      3, 3, {3, 0, 0, 0, 0, 0, 0, 4, 0}, 0, 0);
  const std::string hdr = "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n\n";
  DMLRT_REQUIRE_CLOSE(read_str(hdr + "3 3 3\n1 1 2.0\n2 1 5\n3 2 -1.5\n", "s.mtx", "mm"), 3, 3,
                      {2, 5, 0, 5, 0, -1.5, 0, -1.5, 0}, 0, 0);
  DMLRT_REQUIRE_CLOSE(
      read_str("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 -1.5\n",
               "k.mtx", "mm"),
      3, 3, {0, -5, 0, 5, 0, 1.5, 0, -1.5, 0}, 0, 0);
  DMLRT_REQUIRE_CLOSE(
      read_str("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n", "p.mtx", "mm"),
      2, 2, {0, 1, 1, 0}, 0, 0);
  DMLRT_REQUIRE_CLOSE(
      read_str("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 1\n1 1 2\n", "d.mtx",
               "mm"),
      2, 2, {3, 0, 0, 0}, 0, 0);
  // Array: column-major; symmetric arrays hold the lower triangle.
  DMLRT_REQUIRE_CLOSE(
      read_str("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n", "a.mtx", "mm"),
      2, 3, {1, 3, 5, 2, 4, 6}, 0, 0);
  DMLRT_REQUIRE_CLOSE(
      read_str("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", "a.mtx", "mm"), 2, 2,
      {1, 2, 2, 3}, 0, 0);
  DMLRT_REQUIRE_CLOSE(
      read_str("%%matrixmarket MATRIX Array Real Skew-Symmetric\n2 2\n4\n", "a.mtx", "mm"), 2, 2,
      {0, -4, 4, 0}, 0, 0);
}

TEST_CASE("a folder of part files reads as one file", "[io]") {
  TempDir tmp("parts");
  fs::create_directories(tmp / "x.csv");
  spit(tmp / "x.csv/0-m-00001", "3,4\n");
  spit(tmp / "x.csv/0-m-00000", "1,2\n");
  spit(tmp / "x.csv/_SUCCESS", "");
  spit(tmp / "x.csv/.0-m-00000.crc", "junk");
  DMLRT_REQUIRE_CLOSE(io::read_matrix(tmp / "x.csv", format_of("csv"), kUnknownMeta), 2, 2,
                      {1, 2, 3, 4}, 0, 0);
  // Writing over it is refused: dmlrt never removes a folder (Note [Safe writes]).
  REQUIRE_THROWS_WITH(
      io::write_matrix(test::dense_of(1, 1, {5}), tmp / "x.csv", format_of("csv")),
      Contains("cannot replace the folder"));
  REQUIRE(fs::is_directory(tmp / "x.csv"));
  REQUIRE(slurp(tmp / "x.csv/0-m-00000") == "1,2\n");
}

TEST_CASE("Java number formatting matches Double.toString and round-trips", "[io]") {
  std::mt19937_64 gen(test::seed_from("io java format"));
  std::uniform_int_distribution<uint64_t> bits;
  for (int i = 0; i < 20000; ++i) {
    uint64_t u = bits(gen);
    double d;
    std::memcpy(&d, &u, sizeof d);
    if (i % 2) d = std::ldexp(static_cast<double>(u % 1000000), static_cast<int>(u % 60) - 30);
    std::string s;
    io::detail::append_double_java(s, d);
    REQUIRE(s == dmlrt::inst::format_double_java(d));
    double back = 0;
    REQUIRE(io::detail::parse_double(s, back));
    REQUIRE((back == d || (std::isnan(back) && std::isnan(d))));
  }
}

// ---------------------------------------------------------------- malformed input

TEST_CASE("missing and unreadable files", "[io]") {
  REQUIRE_THROWS_WITH(io::read_matrix("/nonexistent/x.csv", format_of("csv"), kUnknownMeta),
                      Contains("/nonexistent/x.csv: no such file"));
  REQUIRE_THROWS_AS(io::read_matrix("/nonexistent/x.csv", format_of("csv"), kUnknownMeta),
                    dmlrt::IoError);
  REQUIRE_THROWS_WITH(read_str("1\n", "x.dat", "unknown"),
                      Contains("x.dat: unknown file format"));
  REQUIRE_THROWS_WITH(read_str("1\n", "x.dat", "libsvm"),
                      Contains("x.dat: format 'libsvm' is not supported"));
}

TEST_CASE("csv errors name file, line and field", "[io]") {
  REQUIRE_THROWS_WITH(read_str("1,2\n3,x\n", "t.csv", "csv"),
                      Contains("t.csv:2: field 2 'x' is not a number"));
  REQUIRE_THROWS_WITH(read_str("1,2\n3\n", "t.csv", "csv"),
                      Contains("t.csv:2: 1 fields, expected 2 (as on the first data line)"));
  REQUIRE_THROWS_WITH(read_str("1,2,3\n", "t.csv", "csv", meta_of(-1, 2)),
                      Contains("t.csv:1: 3 fields, expected 2 (the declared number of columns)"));
  REQUIRE_THROWS_WITH(read_str("1,2\n", "t.csv", "csv", meta_of(2, 2)),
                      Contains("t.csv: 1 data rows, but 2 were declared"));
  FileFormat nofill = format_of("csv");
  nofill.fill = false;
  REQUIRE_THROWS_WITH(io::read_matrix_from_string("1,,3\n", "t.csv", nofill, kUnknownMeta),
                      Contains("t.csv:1: field 2 is empty (read with fill=TRUE"));
  REQUIRE_THROWS_WITH(read_str("0x10\n", "t.csv", "csv"),
                      Contains("t.csv:1: field 1 '0x10' is not a number"));
  REQUIRE_THROWS_WITH(read_str("1e\n", "t.csv", "csv"), Contains("'1e' is not a number"));
}

TEST_CASE("text (ijv) errors", "[io]") {
  REQUIRE_THROWS_WITH(read_str("1 1 1\n", "t.txt", "text"),
                      Contains("t.txt: the text (ijv) format needs the matrix dimensions"));
  const MatrixMeta m = meta_of(3, 2);
  REQUIRE_THROWS_WITH(read_str("1 1 1\n4 1 5\n", "t.txt", "text", m),
                      Contains("t.txt:2: cell (4,1) is outside the 3x2 matrix"));
  REQUIRE_THROWS_WITH(read_str("0 1 5\n", "t.txt", "text", m),
                      Contains("t.txt:1: cell (0,1) is outside the 3x2 matrix"));
  REQUIRE_THROWS_WITH(read_str("1 1\n", "t.txt", "text", m),
                      Contains("t.txt:1: expected 'row col value', found 2 fields"));
  REQUIRE_THROWS_WITH(read_str("1.5 1 1\n", "t.txt", "text", m),
                      Contains("t.txt:1: row index '1.5' is not an integer"));
  REQUIRE_THROWS_WITH(read_str("1 1 abc\n", "t.txt", "text", m),
                      Contains("t.txt:1: value 'abc' is not a number"));
}

TEST_CASE("Matrix Market errors", "[io]") {
  const std::string g = "%%MatrixMarket matrix coordinate real general\n";
  REQUIRE_THROWS_WITH(read_str("", "t.mtx", "mm"), Contains("t.mtx: empty file"));
  REQUIRE_THROWS_WITH(read_str("3 3 1\n", "t.mtx", "mm"),
                      Contains("t.mtx:1: expected '%%MatrixMarket matrix"));
  REQUIRE_THROWS_WITH(read_str("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
                               "t.mtx", "mm"),
                      Contains("t.mtx:1: complex matrices are not supported"));
  REQUIRE_THROWS_WITH(read_str("%%MatrixMarket matrix coordinate real hermitian\n", "t.mtx", "mm"),
                      Contains("hermitian matrices are not supported"));
  REQUIRE_THROWS_WITH(read_str("%%MatrixMarket vector coordinate real general\n", "t.mtx", "mm"),
                      Contains("t.mtx:1: object 'vector' is not supported"));
  REQUIRE_THROWS_WITH(read_str("%%MatrixMarket matrix array pattern general\n", "t.mtx", "mm"),
                      Contains("the pattern field needs the coordinate format"));
  REQUIRE_THROWS_WITH(read_str(g, "t.mtx", "mm"), Contains("t.mtx: truncated: no size line"));
  REQUIRE_THROWS_WITH(read_str(g + "2 2\n", "t.mtx", "mm"),
                      Contains("t.mtx:2: expected the size line 'rows cols nonzeros'"));
  REQUIRE_THROWS_WITH(read_str(g + "2 2 2\n1 1 1\n", "t.mtx", "mm"),
                      Contains("t.mtx: truncated: 2 entries declared on line 2, found 1"));
  REQUIRE_THROWS_WITH(read_str(g + "2 2 1\n1 1 1\n2 2 2\n", "t.mtx", "mm"),
                      Contains("t.mtx:4: more entries than the 1 declared on line 2"));
  REQUIRE_THROWS_WITH(read_str(g + "2 2 1\n3 1 1\n", "t.mtx", "mm"),
                      Contains("t.mtx:3: entry (3,1) is outside the 2x2 matrix"));
  REQUIRE_THROWS_WITH(read_str(g + "2 2 1\n1 1 x\n", "t.mtx", "mm"),
                      Contains("t.mtx:3: value 'x' is not a number"));
  REQUIRE_THROWS_WITH(
      read_str("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", "t.mtx", "mm"),
      Contains("t.mtx:3: diagonal entry (1,1) in a skew-symmetric matrix"));
  REQUIRE_THROWS_WITH(
      read_str("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "t.mtx", "mm"),
      Contains("t.mtx:2: a symmetric matrix must be square, got 2x3"));
  REQUIRE_THROWS_WITH(
      read_str("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "t.mtx", "mm"),
      Contains("t.mtx: truncated: a general 2x2 array holds 4 values, found 3"));
  REQUIRE_THROWS_WITH(read_str(g + "2 2 0\n", "t.mtx", "mm", meta_of(3, 2)),
                      Contains("t.mtx: the file holds a 2x2 matrix, but 3x2 was declared"));
  // Declared shapes too large for memory are refused before allocating.
  REQUIRE_THROWS_AS(io::read_matrix_from_string(g + "1000000000000 1 1\n1 1 1\n", "t.mtx",
                                                format_of("mm"), kUnknownMeta, nullptr,
                                                io::ReadLimits{1 << 20}),
                    dmlrt::OutOfMemory);
  REQUIRE_THROWS_WITH(read_str(g + "1 3000000000 0\n", "t.mtx", "mm"),
                      Contains("3000000000 columns exceed the supported 2^31-1"));
}

TEST_CASE(".npy errors", "[io]") {
  const std::string good = slurp(fixture("np_f8_c.npy"));
  REQUIRE_THROWS_WITH(read_str("hello", "t.npy", "npy"),
                      Contains("t.npy: not a .npy file (missing the \\x93NUMPY magic)"));
  REQUIRE_THROWS_WITH(read_str(good.substr(0, 40), "t.npy", "npy"),
                      Contains("t.npy: truncated .npy header"));
  REQUIRE_THROWS_WITH(read_str(good.substr(0, good.size() - 3), "t.npy", "npy"),
                      Contains("t.npy: truncated .npy data: shape 2x3 of '<f8' needs 48 bytes, 45 "
                               "present"));
  REQUIRE_THROWS_WITH(read_str(good + "xx", "t.npy", "npy"),
                      Contains("t.npy: 2 unexpected bytes after the .npy data"));
  std::string v9 = good;
  v9[6] = 9;
  REQUIRE_THROWS_WITH(read_str(v9, "t.npy", "npy"), Contains("unsupported .npy version 9.0"));
  auto with_header = [&](std::string h) {
    std::string s("\x93NUMPY\x01\x00", 8);
    s += static_cast<char>(h.size());
    s += '\0';
    return s + h;
  };
  REQUIRE_THROWS_WITH(read_str(with_header("{'descr': '<f8', 'shape': (1,), }"), "t.npy", "npy"),
                      Contains("needs the keys 'descr', 'fortran_order' and 'shape'"));
  REQUIRE_THROWS_WITH(
      read_str(with_header("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,), }"), "t.npy",
               "npy"),
      Contains("t.npy: bad .npy header: expected True or False"));
  REQUIRE_THROWS_WITH(
      read_str(with_header("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }"), "t.npy",
               "npy"),
      Contains("t.npy: unsupported .npy dtype '<U3'"));
  REQUIRE_THROWS_WITH(
      read_str(with_header("{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }"), "t.npy",
               "npy"),
      Contains("unsupported .npy dtype '<f2'"));
  REQUIRE_THROWS_WITH(
      read_str(with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }"), "t.npy",
               "npy"),
      Contains("bad .npy header: expected a dimension"));
  REQUIRE_THROWS_WITH(read_str(good, "t.npy", "npy", meta_of(3, 3)),
                      Contains("t.npy: the file holds a 2x3 matrix, but 3x3 was declared"));
}

TEST_CASE(".mtd errors and disagreements", "[io]") {
  const std::string bad = "{\"rows\": 2,";
  REQUIRE_THROWS_WITH(read_str("1\n", "m.csv", "csv", {}, &bad),
                      Contains("m.csv.mtd: bad .mtd: not valid JSON"));
  const std::string arr = "[1, 2]";
  REQUIRE_THROWS_WITH(read_str("1\n", "m.csv", "csv", {}, &arr),
                      Contains("m.csv.mtd: bad .mtd: expected a JSON object, got array"));
  const std::string neg = R"({"rows": -5, "cols": 1})";
  REQUIRE_THROWS_WITH(read_str("1\n", "m.csv", "csv", {}, &neg),
                      Contains("m.csv.mtd: bad .mtd: \"rows\" is negative: -5"));
  const std::string frac = R"({"rows": 1.5, "cols": 1})";
  REQUIRE_THROWS_WITH(read_str("1\n", "m.csv", "csv", {}, &frac),
                      Contains("\"rows\" is not an integer: 1.5"));
  const std::string hdr = R"({"header": "maybe"})";
  REQUIRE_THROWS_WITH(read_str("1\n", "m.csv", "csv", {}, &hdr),
                      Contains("\"header\" must be true or false"));
  const std::string scalar = R"({"data_type": "scalar", "value_type": "double"})";
  REQUIRE_THROWS_WITH(read_str("1\n", "m.csv", "csv", {}, &scalar),
                      Contains("m.csv.mtd: describes a scalar, not a matrix"));
  const std::string dims = R"({"rows": 3, "cols": 1, "format": "csv"})";
  REQUIRE_THROWS_WITH(read_str("1\n2\n", "m.csv", "unknown", {}, &dims),
                      Contains("m.csv: 2 data rows, but 3 were declared"));
  REQUIRE_THROWS_WITH(read_str("1\n2\n", "m.csv", "csv", meta_of(2, 1), &dims),
                      Contains("m.csv: the plan declares 2 rows but the .mtd says 3"));
}

// ---------------------------------------------------------------- failed writes

TEST_CASE("a failed write leaves no file and keeps the old target", "[io]") {
  TempDir tmp("fail");
  const MatrixBlock b = test::dense_of(1, 2, {1, 2});
  // The .mtd cannot be written (a folder holds its name): nothing changes.
  spit(tmp / "x.csv", "old\n");
  spit(tmp / "x.csv.mtd", "");
  fs::remove(tmp / "x.csv.mtd");
  fs::create_directories(tmp / "x.csv.mtd/inner");
  REQUIRE_THROWS_WITH(io::write_matrix(b, tmp / "x.csv", format_of("csv")),
                      Contains("x.csv: cannot replace the folder") && Contains("x.csv.mtd"));
  REQUIRE(slurp(tmp / "x.csv") == "old\n");
  REQUIRE(tmp.names() == std::vector<std::string>{"x.csv", "x.csv.mtd"});
  // The folder cannot be created (a file is in the way).
  spit(tmp / "plain", "file");
  REQUIRE_THROWS_WITH(io::write_matrix(b, tmp / "plain/sub/y.csv", format_of("csv")),
                      Contains("plain/sub/y.csv: cannot create the folder"));
  REQUIRE_THROWS_AS(io::write_scalar(ScalarValue::fp64(1), tmp / "plain/s.txt"), dmlrt::IoError);
  // An unsupported format fails before touching anything.
  REQUIRE_THROWS(io::write_matrix(b, tmp / "x.csv", format_of("binary")));
  REQUIRE(slurp(tmp / "x.csv") == "old\n");
  REQUIRE(tmp.names() == std::vector<std::string>{"plain", "x.csv", "x.csv.mtd"});
}

TEST_CASE("writes create folders and replace files and stale .mtd", "[io]") {
  TempDir tmp("write");
  const MatrixBlock b = test::dense_of(2, 2, {1, 0, 0, 2});
  io::write_matrix(b, tmp / "a/b/x.csv", format_of("csv"));
  REQUIRE(slurp(tmp / "a/b/x.csv") == "1.0,0\n0,2.0\n");
  REQUIRE(fs::exists(tmp / "a/b/x.csv.mtd"));
  // mm has no .mtd in SystemDS: an old one would misdescribe the new file.
  io::write_matrix(b, tmp / "a/b/x.csv", format_of("mm"));
  REQUIRE_FALSE(fs::exists(tmp / "a/b/x.csv.mtd"));
  REQUIRE(io::read_matrix(tmp / "a/b/x.csv", format_of("mm"), kUnknownMeta).equals(b));
  REQUIRE(std::vector<std::string>{"x.csv"} ==
          [&] {
            std::vector<std::string> n;
            for (const auto& e : fs::directory_iterator(tmp / "a/b"))
              n.push_back(e.path().filename().string());
            return n;
          }());
}
