// Reading SystemDS's binary block format: files SystemDS 3.4 wrote (unit/data/systemds_binary, made
// by make_files.sh there) against their csv/text twins, SequenceFiles built here byte by byte for
// what SystemDS does not write by default (sync markers, metadata, other block sizes), and one test
// per error message. See Note [SystemDS binary blocks] in runtime/io/binary_io.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.h"
#include "common/test_files.h"
#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "kernels/cpu/parallel.h"
#include "runtime/io/matrix_io.h"
#include "runtime/io/mtd.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using dmlrt::inst::FileFormat;
using dmlrt::inst::MatrixMeta;
using dmlrt::kernels::MatrixBlock;
namespace io = dmlrt::io;
namespace test = dmlrt::test;
namespace cpu = dmlrt::kernels::cpu;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::string fixture(const std::string& name) {
  return test::test_data_dir() + "/unit/data/systemds_binary/" + name;
}

FileFormat format_of(const std::string& f) {
  FileFormat fmt;
  fmt.format = f;
  return fmt;
}

MatrixMeta meta_of(int64_t rows, int64_t cols, int64_t blen = 1000) {
  MatrixMeta m;
  m.rows = rows;
  m.cols = cols;
  m.blen = blen;
  return m;
}

struct ThreadCountGuard {
  int saved = cpu::num_threads();
  ~ThreadCountGuard() { cpu::set_num_threads(saved); }
};

// ---- A SequenceFile writer for the tests (Note [SystemDS binary blocks] has the layout) ----

void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_i32(std::string& out, int32_t v) { put_be(out, static_cast<uint32_t>(v), 4); }
void put_i64(std::string& out, int64_t v) { put_be(out, static_cast<uint64_t>(v), 8); }
void put_f64(std::string& out, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  put_be(out, bits, 8);
}
void put_text(std::string& out, const std::string& s) {  // vint length (< 128) + bytes
  out.push_back(static_cast<char>(s.size()));
  out += s;
}

const std::string kKey = "org.apache.sysds.runtime.matrix.data.MatrixIndexes";
const std::string kValue = "org.apache.sysds.runtime.matrix.data.MatrixBlock";

struct Header {
  int version = 6;
  std::string key = kKey, value = kValue;
  bool compressed = false, block_compressed = false;
  std::string codec = "org.apache.hadoop.io.compress.DefaultCodec";
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string sync = "0123456789abcdef";
};

std::string header_bytes(const Header& h) {
  std::string out = "SEQ";
  out.push_back(static_cast<char>(h.version));
  put_text(out, h.key);
  put_text(out, h.value);
  out.push_back(h.compressed ? 1 : 0);
  out.push_back(h.block_compressed ? 1 : 0);
  if (h.compressed) put_text(out, h.codec);
  put_i32(out, static_cast<int32_t>(h.metadata.size()));
  for (const auto& [k, v] : h.metadata) {
    put_text(out, k);
    put_text(out, v);
  }
  return out + h.sync;
}

void put_record(std::string& out, int64_t rbi, int64_t cbi, const std::string& value) {
  put_i32(out, static_cast<int32_t>(16 + value.size()));
  put_i32(out, 16);
  put_i64(out, rbi);
  put_i64(out, cbi);
  out += value;
}

void put_sync(std::string& out, const std::string& sync) {
  put_i32(out, -1);
  out += sync;
}

std::string block_header(int32_t rows, int32_t cols, uint8_t type) {
  std::string out;
  put_i32(out, rows);
  put_i32(out, cols);
  out.push_back(static_cast<char>(type));
  return out;
}

std::string empty_value(int32_t rows, int32_t cols) { return block_header(rows, cols, 0); }

std::string dense_value(int32_t rows, int32_t cols, const std::vector<double>& v) {
  std::string out = block_header(rows, cols, 3);
  for (double d : v) put_f64(out, d);
  return out;
}

// rows[r] = (column, value) pairs of row r.
std::string sparse_value(int32_t rows, int32_t cols,
                         const std::vector<std::vector<std::pair<int32_t, double>>>& row_cells,
                         bool long_nnz = false) {
  std::string out = block_header(rows, cols, 2);
  int64_t nnz = 0;
  for (const auto& r : row_cells) nnz += static_cast<int64_t>(r.size());
  if (long_nnz)
    put_i64(out, nnz);
  else
    put_i32(out, static_cast<int32_t>(nnz));
  for (int32_t r = 0; r < rows; ++r) {
    const auto* cells = r < static_cast<int32_t>(row_cells.size()) ? &row_cells[r] : nullptr;
    put_i32(out, cells ? static_cast<int32_t>(cells->size()) : 0);
    if (cells)
      for (const auto& [c, v] : *cells) {
        put_i32(out, c);
        put_f64(out, v);
      }
  }
  return out;
}

struct Cell {
  int32_t r, c;
  double v;
};
std::string ultra_value(int32_t rows, int32_t cols, const std::vector<Cell>& cells) {
  std::string out = block_header(rows, cols, 1);
  put_i32(out, static_cast<int32_t>(cells.size()));
  for (const Cell& x : cells) {
    put_i32(out, x.r);
    if (cols != 1) put_i32(out, x.c);
    put_f64(out, x.v);
  }
  return out;
}

MatrixBlock read_bin(const std::string& data, MatrixMeta meta = {},
                     const std::string* mtd = nullptr, io::ReadLimits limits = {}) {
  return io::read_matrix_from_string(data, "m.bin", format_of("binary"), meta, mtd, limits);
}

// A 5x3 matrix in blocks of 2: a 3x2 grid of blocks, of every kind.
//   row block 1: (1,1) dense 2x2, (1,2) sparse 2x1
//   row block 2: (2,1) ultra-sparse 2x2, (2,2) empty 2x1
//   row block 3: (3,1) sparse 1x2, (3,2) ultra-sparse column 1x1
const std::vector<double> kGrid = {1, 2,  0,  //
                                   0, 4,  5,  //
                                   0, 0,  0,  //
                                   0, -7, 0,  //
                                   8, 0,  9.5};
std::string grid_records() {
  std::string out;
  put_record(out, 3, 2, ultra_value(1, 1, {{0, 0, 9.5}}));  // records in no particular order
  put_record(out, 1, 1, dense_value(2, 2, {1, 2, 0, 4}));
  put_record(out, 2, 2, empty_value(2, 1));
  put_record(out, 1, 2, sparse_value(2, 1, {{}, {{0, 5}}}));
  put_record(out, 2, 1, ultra_value(2, 2, {{1, 1, -7}}));
  put_record(out, 3, 1, sparse_value(1, 2, {{{0, 8}}}));
  return out;
}

}  // namespace

// ------------------------------------------------------------- files SystemDS wrote

TEST_CASE("binary files SystemDS wrote equal their csv and text twins", "[io]") {
  struct Case {
    const char* bin;
    const char* twin;  // nullptr: all zeros
    int64_t rows, cols;
  };
  const Case cases[] = {
      {"dense.bin", "dense.csv", 30, 20},                // one dense block
      {"sparse30.bin", "sparse30.csv", 60, 50},          // sparse block, sparsity 0.3
      {"sparse01.bin", "sparse01.txt", 300, 200},        // sparse block, sparsity 0.01
      {"ultra.bin", "ultra.txt", 1200, 1100},            // 2x2 ultra-sparse blocks, part files
      {"mixed.bin", "mixed.txt", 1050, 1020},            // sparse + ultra-sparse blocks, part files
      {"empty.bin", nullptr, 1200, 1100},                // 2x2 empty blocks
      {"one.bin", "one.csv", 1, 1},                      // 1x1
      {"tall.bin", "tall.csv", 1100, 2},                 // row blocks of 1000 and 100
      {"wide.bin", "wide.csv", 2, 1100},                 // column blocks of 1000 and 100
      {"column.bin", "column.csv", 1500, 1},             // ultra-sparse column blocks
      {"special_dense.bin", "special_dense.csv", 2, 2},  // NaN, +-Infinity
      {"special_sparse.bin", "special_sparse.csv", 40, 30},
  };
  ThreadCountGuard guard;
  for (int threads : {1, 4}) {
    cpu::set_num_threads(threads);
    for (const Case& c : cases) {
      INFO(c.bin << " with " << threads << " threads");
      const std::string path = fixture(c.bin);
      const io::Mtd mtd = io::parse_mtd(test::read_all(path + ".mtd"), path + ".mtd");
      REQUIRE(mtd.format == "binary");
      // The format from the plan, and from the .mtd.
      const MatrixBlock got = io::read_matrix(path, format_of("binary"), MatrixMeta{});
      const MatrixBlock via_mtd = io::read_matrix(path, format_of("unknown"), MatrixMeta{});
      REQUIRE(got.rows() == c.rows);
      REQUIRE(got.cols() == c.cols);
      REQUIRE(got.nnz() == mtd.nnz);
      REQUIRE(got.is_sparse() == MatrixBlock::prefers_sparse(c.rows, c.cols, mtd.nnz));
      const auto same = test::compare_bits(via_mtd, got);
      REQUIRE(same.ok);
      if (c.twin == nullptr) {
        REQUIRE(got.nnz() == 0);
        continue;
      }
      const MatrixBlock twin = io::read_matrix(fixture(c.twin), format_of("unknown"), MatrixMeta{});
      const auto cmp = test::compare_bits(got, twin);
      INFO(cmp.report);
      REQUIRE(cmp.ok);
    }
  }
}

TEST_CASE("binary fixtures cover part folders and every block kind SystemDS writes", "[io]") {
  // SystemDS picks the layout; this pins what the fixtures above exercise.
  for (const char* folder : {"ultra.bin", "mixed.bin"}) {
    INFO(folder);
    REQUIRE(fs::is_directory(fixture(folder)));
    size_t parts = 0;
    for (const auto& e : fs::directory_iterator(fixture(folder))) parts += e.is_regular_file();
    REQUIRE(parts >= 2);
  }
  // The block type byte of the first record (after the 126-byte header, 4+4+16 record bytes and
  // 8 bytes of block dims).
  auto first_type = [](const std::string& name) {
    return static_cast<int>(test::read_all(fixture(name))[126 + 24 + 8]);
  };
  CHECK(first_type("dense.bin") == 3);
  CHECK(first_type("sparse30.bin") == 2);
  CHECK(first_type("column.bin") == 1);
  CHECK(first_type("special_sparse.bin") == 1);
  CHECK(first_type("empty.bin") == 0);
}

TEST_CASE("binary reader skips the sync marker Hadoop put in a file SystemDS wrote", "[io]") {
  // sync.bin: a 13x1001 matrix with cell (i,j) = (i-1)*1001 + j (1-based), in a folder with one
  // part file: a 104 KB dense block, a sync marker, then the 13x1 block.
  const std::string part = test::read_all(fixture("sync.bin/0-m-00000"));
  const std::string marker = std::string("\xff\xff\xff\xff", 4) + part.substr(110, 16);
  REQUIRE(part.find(marker) != std::string::npos);
  const MatrixBlock q = io::read_matrix(fixture("sync.bin"), format_of("binary"), {});
  std::vector<double> want(13 * 1001);
  for (size_t k = 0; k < want.size(); ++k) want[k] = static_cast<double>(k + 1);
  const auto cmp = test::compare_bits(q, test::dense_of(13, 1001, want));
  INFO(cmp.report);
  REQUIRE(cmp.ok);
  REQUIRE_FALSE(q.is_sparse());
}

TEST_CASE("binary files read without a .mtd take their dims from the blocks", "[io]") {
  for (const char* name : {"tall.bin", "wide.bin", "sparse01.bin", "one.bin"}) {
    INFO(name);
    const std::string data = test::read_all(fixture(name));
    const MatrixBlock ref = io::read_matrix(fixture(name), format_of("binary"), MatrixMeta{});
    REQUIRE(test::compare_bits(read_bin(data), ref).ok);
    // Declared dims that agree are fine; the block size may also come from the blocks.
    REQUIRE(test::compare_bits(read_bin(data, meta_of(ref.rows(), ref.cols(), -1)), ref).ok);
  }
  // A folder's parts, concatenated as read_matrix does, without the .mtd.
  std::string parts;
  for (const char* p : {"0-m-00000", "0-m-00001"})
    parts += test::read_all(fixture("ultra.bin/") + p);
  const MatrixBlock ultra = io::read_matrix(fixture("ultra.bin"), format_of("binary"), {});
  REQUIRE(test::compare_bits(read_bin(parts), ultra).ok);
}

// ------------------------------------------------------------- files built here

TEST_CASE("binary reader places every block kind in a grid of small blocks", "[io]") {
  const std::string data = header_bytes({}) + grid_records();
  const MatrixBlock want = test::dense_of(5, 3, kGrid);
  // Block size from createvar, from the .mtd (both spellings), and from the blocks.
  REQUIRE(test::compare_bits(read_bin(data, meta_of(5, 3, 2)), want).ok);
  const std::string mtd = R"({"data_type": "matrix", "rows": 5, "cols": 3, "blocksize": 2})";
  REQUIRE(test::compare_bits(read_bin(data, {}, &mtd), want).ok);
  const std::string mtd_old = R"({"rows": 5, "cols": 3, "rows_in_block": "2", "format": "binary"})";
  REQUIRE(test::compare_bits(
              io::read_matrix_from_string(data, "m", format_of("unknown"), {}, &mtd_old), want)
              .ok);
  REQUIRE(test::compare_bits(read_bin(data, meta_of(-1, -1, -1)), want).ok);
  REQUIRE(read_bin(data, meta_of(5, 3, 2)).nnz() == 7);
}

TEST_CASE("binary reader skips sync markers and metadata and reads concatenated parts", "[io]") {
  Header h;
  h.metadata = {{"k", "v"}, {"other", ""}};
  std::string a = header_bytes(h);
  put_sync(a, h.sync);
  put_record(a, 1, 1, dense_value(2, 2, {1, 2, 0, 4}));
  put_sync(a, h.sync);
  put_record(a, 1, 2, sparse_value(2, 1, {{}, {{0, 5}}}));
  Header h2;
  h2.sync = "fedcba9876543210";  // each part file has its own marker
  std::string b = header_bytes(h2);
  put_record(b, 2, 1, ultra_value(2, 2, {{1, 1, -7}}));
  put_sync(b, h2.sync);
  put_record(b, 3, 1, sparse_value(1, 2, {{{0, 8}}}));
  put_record(b, 3, 2, ultra_value(1, 1, {{0, 0, 9.5}}));
  std::string c = header_bytes(h);  // a part with no records
  const MatrixBlock got = read_bin(a + c + b, meta_of(5, 3, 2));
  REQUIRE(test::compare_bits(got, test::dense_of(5, 3, kGrid)).ok);
  // Explicit zeros in sparse and ultra-sparse blocks are not nonzeros.
  std::string z = header_bytes({});
  put_record(z, 1, 1, sparse_value(2, 2, {{{0, 0.0}, {1, 3}}, {{1, -0.0}}}));
  const MatrixBlock zb = read_bin(z, meta_of(2, 2));
  REQUIRE(zb.nnz() == 1);
  REQUIRE(zb.get(0, 1) == 3);
}

TEST_CASE("binary reader reads the long nnz of a block over 2^31 cells", "[io]") {
  // A 50000x50000 block (2.5e9 cells) writes its nnz as a long.
  std::string data = header_bytes({});
  std::vector<std::vector<std::pair<int32_t, double>>> rows(50000);
  rows[3] = {{7, 1.5}, {49999, -2}};
  put_record(data, 1, 1, sparse_value(50000, 50000, rows, /*long_nnz=*/true));
  const MatrixBlock b = read_bin(data, meta_of(50000, 50000, 50000));
  REQUIRE(b.is_sparse());
  REQUIRE(b.nnz() == 2);
  REQUIRE(b.get(3, 7) == 1.5);
  REQUIRE(b.get(3, 49999) == -2);
}

TEST_CASE("binary reader keeps NaN and infinities in every block kind", "[io]") {
  std::string data = header_bytes({});
  put_record(data, 1, 1, dense_value(1, 2, {kNaN, kInf}));
  put_record(data, 1, 2, sparse_value(1, 2, {{{1, -kInf}}}));
  put_record(data, 1, 3, ultra_value(1, 2, {{0, 0, kNaN}}));
  const MatrixBlock b = read_bin(data, meta_of(1, 6, 2));
  REQUIRE(std::isnan(b.get(0, 0)));
  REQUIRE(b.get(0, 1) == kInf);
  REQUIRE(b.get(0, 3) == -kInf);
  REQUIRE(std::isnan(b.get(0, 4)));
  REQUIRE(b.nnz() == 4);
}

// ------------------------------------------------------------- errors

TEST_CASE("binary reader: not a SequenceFile", "[io]") {
  REQUIRE_THROWS_WITH(read_bin("1,2,3\n"),
                      Contains("m.bin: not a SequenceFile (it does not start with \"SEQ\")"));
  REQUIRE_THROWS_WITH(read_bin(""), Contains("m.bin: not a SequenceFile"));
  // A csv file whose .mtd says binary: the file is named.
  REQUIRE_THROWS_AS(io::read_matrix(fixture("dense.csv"), format_of("binary"), {}), dmlrt::IoError);
  REQUIRE_THROWS_WITH(io::read_matrix(fixture("dense.csv"), format_of("binary"), {}),
                      Contains("dense.csv: not a SequenceFile"));
}

TEST_CASE("binary reader: unsupported SequenceFile version", "[io]") {
  Header h;
  h.version = 5;
  REQUIRE_THROWS_WITH(
      read_bin(header_bytes(h)),
      Contains("m.bin: SequenceFile version 5 is not supported") && Contains("(byte 0)"));
}

TEST_CASE("binary reader: unsupported key or value class", "[io]") {
  Header h;
  h.value = "org.apache.sysds.runtime.frame.data.FrameBlock";
  h.key = "org.apache.hadoop.io.LongWritable";
  REQUIRE_THROWS_WITH(read_bin(header_bytes(h)),
                      Contains("m.bin: the SequenceFile holds (org.apache.hadoop.io.LongWritable, "
                               "org.apache.sysds.runtime.frame.data.FrameBlock) records, not "
                               "SystemDS matrix blocks"));
  Header k;
  k.key = "org.apache.hadoop.io.Text";
  REQUIRE_THROWS_WITH(read_bin(header_bytes(k)), Contains("not SystemDS matrix blocks"));
}

TEST_CASE("binary reader: compressed SequenceFile", "[io]") {
  Header h;
  h.compressed = true;
  REQUIRE_THROWS_WITH(read_bin(header_bytes(h)),
                      Contains("m.bin: is a compressed SequenceFile (record compression, codec "
                               "org.apache.hadoop.io.compress.DefaultCodec)") &&
                          Contains("dmlrt reads uncompressed ones"));
  h.block_compressed = true;
  h.codec = "org.apache.hadoop.io.compress.SnappyCodec";
  REQUIRE_THROWS_WITH(read_bin(header_bytes(h)),
                      Contains("compressed SequenceFile (block compression, codec "
                               "org.apache.hadoop.io.compress.SnappyCodec)"));
}

TEST_CASE("binary reader: truncated header", "[io]") {
  const std::string full = header_bytes({});
  REQUIRE_THROWS_WITH(read_bin(full.substr(0, 20)),
                      Contains("m.bin: truncated SequenceFile header (key class)"));
  REQUIRE_THROWS_WITH(read_bin(full.substr(0, full.size() - 3)),
                      Contains("m.bin: truncated SequenceFile header (sync marker)"));
}

TEST_CASE("binary reader: block outside the declared dims", "[io]") {
  std::string data = header_bytes({});
  put_record(data, 1, 1, dense_value(2, 2, {1, 2, 3, 4}));
  put_record(data, 3, 1, dense_value(2, 2, {1, 2, 3, 4}));
  REQUIRE_THROWS_WITH(read_bin(data, meta_of(4, 2, 2)),
                      Contains("m.bin: block (3,1) lies outside the declared 4x2 matrix (2x1 "
                               "blocks of 2)"));
  // The dims of the real file's .mtd against a block beyond them.
  const std::string mtd = R"({"rows": 1000, "cols": 2, "format": "binary"})";
  REQUIRE_THROWS_WITH(io::read_matrix_from_string(test::read_all(fixture("tall.bin")), "tall.bin",
                                                  format_of("unknown"), {}, &mtd),
                      Contains("tall.bin: block (2,1) lies outside the declared 1000x2 matrix"));
  // A folder's blocks are named with their part file.
  std::string parts;
  for (const char* p : {"0-m-00000", "0-m-00001"})
    parts += test::read_all(fixture("ultra.bin/") + p);
  const std::string mtd1000 = R"({"rows": 1000, "cols": 1100, "format": "binary"})";
  REQUIRE_THROWS_WITH(
      io::read_matrix_from_string(parts, "ultra.bin", format_of("unknown"), {}, &mtd1000),
      Contains("ultra.bin: block (2,1) lies outside the declared 1000x1100 matrix (1x2 blocks of "
               "1000) (part file 2 (in name order), byte 126)"));
  std::string zero = header_bytes({});
  put_record(zero, 0, 1, empty_value(2, 2));
  REQUIRE_THROWS_WITH(read_bin(zero, meta_of(2, 2)),
                      Contains("block (0,1): block indexes are 1-based"));
}

TEST_CASE("binary reader: block of the wrong shape", "[io]") {
  std::string data = header_bytes({});
  put_record(data, 1, 1, dense_value(2, 2, {1, 2, 3, 4}));
  put_record(data, 2, 1, dense_value(2, 2, {1, 2, 3, 4}));
  REQUIRE_THROWS_WITH(read_bin(data, meta_of(3, 2, 2)),
                      Contains("m.bin: block (2,1) is 2x2, but a 3x2 matrix in blocks of 2 has a "
                               "1x2 block there"));
  // The declared block size is smaller than the blocks.
  REQUIRE_THROWS_WITH(read_bin(data, meta_of(4, 2, 1)),
                      Contains("m.bin: block (1,1) is 2x2, larger than the block size 1"));
  std::string neg = header_bytes({});
  put_record(neg, 1, 1, block_header(-1, 2, 0));
  REQUIRE_THROWS_WITH(read_bin(neg), Contains("block (1,1) has negative dims"));
}

TEST_CASE("binary reader: truncated records", "[io]") {
  const std::string full = test::read_all(fixture("dense.bin"));
  REQUIRE_THROWS_WITH(read_bin(full.substr(0, full.size() - 1)),
                      Contains("m.bin: truncated record: it needs 4825 bytes, the file has 4824 "
                               "left (byte 126)"));
  REQUIRE_THROWS_WITH(read_bin(full.substr(0, 128)),
                      Contains("m.bin: truncated record: 2 stray bytes (byte 126)"));
  REQUIRE_THROWS_WITH(read_bin(full.substr(0, 132)),
                      Contains("truncated record: the file ends inside its header"));
  std::string sync = header_bytes({});
  put_sync(sync, "0123456789abcdef");
  REQUIRE_THROWS_WITH(read_bin(sync.substr(0, sync.size() - 1)),
                      Contains("truncated record: the file ends inside a sync marker"));
  // A record whose length holds less than its block needs.
  std::string shortv = header_bytes({});
  std::string value = dense_value(2, 2, {1, 2, 3, 4});
  put_record(shortv, 1, 1, value.substr(0, value.size() - 8));
  REQUIRE_THROWS_WITH(read_bin(shortv, meta_of(2, 2)),
                      Contains("m.bin: truncated record: block (1,1) needs more bytes than its "
                               "record holds (dense cells)"));
  std::string shorts = header_bytes({});
  std::string sv = sparse_value(2, 2, {{{0, 1}}, {{1, 2}}});
  put_record(shorts, 1, 1, sv.substr(0, sv.size() - 1));
  REQUIRE_THROWS_WITH(read_bin(shorts, meta_of(2, 2)),
                      Contains("needs more bytes than its record holds (sparse row)"));
  // The part file named in a folder's message.
  std::string parts = header_bytes({});
  put_record(parts, 1, 1, dense_value(1, 1, {1}));
  const std::string second = header_bytes({});
  REQUIRE_THROWS_WITH(
      read_bin(parts + second + "xy", meta_of(1, 1)),
      Contains("truncated record: 2 stray bytes (part file 2 (in name order), byte " +
               std::to_string(second.size()) + ")"));
}

TEST_CASE("binary reader: corrupt records", "[io]") {
  std::string bad_key = header_bytes({});
  put_i32(bad_key, 24);
  put_i32(bad_key, 8);
  bad_key += std::string(24, '\0');
  REQUIRE_THROWS_WITH(read_bin(bad_key),
                      Contains("m.bin: corrupt record: length 24, key length 8 (a MatrixIndexes "
                               "key has 16 bytes)"));
  Header h;
  std::string sync = header_bytes(h);
  put_sync(sync, "not the marker!!");
  REQUIRE_THROWS_WITH(read_bin(sync),
                      Contains("m.bin: corrupt SequenceFile: a sync marker differs from the "
                               "header's"));
  std::string longer = header_bytes({});
  put_record(longer, 1, 1, dense_value(1, 1, {1}) + "pad");
  REQUIRE_THROWS_WITH(read_bin(longer),
                      Contains("m.bin: corrupt record: block (1,1) ends 3 bytes before its record "
                               "does"));
  std::string twice = header_bytes({});
  put_record(twice, 1, 1, dense_value(1, 1, {1}));
  put_record(twice, 1, 1, dense_value(1, 1, {2}));
  REQUIRE_THROWS_WITH(read_bin(twice, meta_of(1, 1)), Contains("m.bin: block (1,1) appears twice"));
}

TEST_CASE("binary reader: unsupported or bad block contents", "[io]") {
  auto one = [](const std::string& value) {
    std::string data = header_bytes({});
    put_record(data, 1, 1, value);
    return data;
  };
  REQUIRE_THROWS_WITH(read_bin(one(block_header(2, 2, 7)), meta_of(2, 2)),
                      Contains("m.bin: block (1,1) has unknown block type 7"));
  REQUIRE_THROWS_WITH(read_bin(one(block_header(2, 2, 4)), meta_of(2, 2)),
                      Contains("block (1,1) is a deduplicated dense block (type 4)"));
  REQUIRE_THROWS_WITH(read_bin(one(sparse_value(2, 3, {{{2, 1}, {1, 2}}})), meta_of(2, 3)),
                      Contains("block (1,1): row 0 has column index 1 out of order or outside "
                               "0..2"));
  REQUIRE_THROWS_WITH(read_bin(one(sparse_value(2, 3, {{{3, 1}}})), meta_of(2, 3)),
                      Contains("row 0 has column index 3 out of order"));
  std::string many = block_header(1, 2, 2);
  put_i32(many, 5);
  put_i32(many, 5);
  REQUIRE_THROWS_WITH(read_bin(one(many), meta_of(1, 2)),
                      Contains("block (1,1): row 0 claims 5 nonzeros in 2 columns"));
  REQUIRE_THROWS_WITH(read_bin(one(ultra_value(2, 3, {{2, 0, 1.0}})), meta_of(2, 3)),
                      Contains("block (1,1): cell (2,0) lies outside its 2x3 block"));
  REQUIRE_THROWS_WITH(read_bin(one(ultra_value(2, 3, {{1, 0, 1.0}, {0, 2, 1.0}})), meta_of(2, 3)),
                      Contains("block (1,1): ultra-sparse cells are not in row-major order"));
  std::string ultra_n = block_header(1, 2, 1);
  put_i32(ultra_n, 3);
  REQUIRE_THROWS_WITH(read_bin(one(ultra_n), meta_of(1, 2)),
                      Contains("block (1,1) claims 3 nonzeros in 2 cells"));
}

TEST_CASE("binary reader: unknown dims and allocation limits", "[io]") {
  const std::string empty_file = header_bytes({});
  REQUIRE_THROWS_WITH(read_bin(empty_file),
                      Contains("m.bin: holds no blocks, and its dims are unknown (no .mtd)"));
  // Known dims and no blocks: all zeros, as SystemDS reads a file without records.
  const MatrixBlock z = read_bin(empty_file, meta_of(3, 4));
  REQUIRE(z.nnz() == 0);
  REQUIRE(z.rows() == 3);
  // A declared shape far beyond what the file holds stops at the reader's limit.
  io::ReadLimits limits;
  limits.max_bytes = 1 << 20;
  REQUIRE_THROWS_AS(read_bin(empty_file, meta_of(int64_t{1} << 40, 5), nullptr, limits),
                    dmlrt::OutOfMemory);
  REQUIRE_THROWS_WITH(
      read_bin(empty_file, meta_of(int64_t{1} << 40, 5), nullptr, limits),
      Contains("m.bin: a sparse 1099511627776x5 matrix needs") && Contains("the reader's limit"));
}

TEST_CASE("binary reader fails cleanly on damaged files", "[io]") {
  // Flipped bytes and cut files either read or throw dmlrt::Error (the fuzzer, fuzz_readers.cpp,
  // goes further under sanitizers); the limit keeps a damaged size from allocating much.
  io::ReadLimits limits;
  limits.max_bytes = 64 << 20;
  uint64_t state = test::seed_from(Catch::getResultCapture().getCurrentTestName());
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  int errors = 0, reads = 0;
  for (const char* name :
       {"dense.bin", "sparse30.bin", "column.bin", "special_sparse.bin", "empty.bin", "one.bin"}) {
    const std::string good = test::read_all(fixture(name));
    for (int i = 0; i < 300; ++i) {
      std::string bad = good;
      const int flips = 1 + static_cast<int>(next() % 3);
      for (int f = 0; f < flips; ++f) bad[next() % bad.size()] = static_cast<char>(next() & 0xff);
      if (i % 5 == 0) bad.resize(next() % bad.size());
      const MatrixMeta meta = i % 2 ? MatrixMeta{} : meta_of(-1, -1, -1);
      try {
        read_bin(bad, meta, nullptr, limits);
        ++reads;
      } catch (const dmlrt::Error&) {
        ++errors;
      }
    }
  }
  REQUIRE(errors > 0);
  REQUIRE(reads + errors == 1800);
}
