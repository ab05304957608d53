// SystemDS's "binary" matrix format, read side: Hadoop SequenceFiles of (MatrixIndexes,
// MatrixBlock) records, one file or a folder of part files, turned into one host block. Writing it
// stays refused (matrix_io.cpp). See Note [SystemDS binary blocks].
#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

#include "gpu_context/error.h"
#include "runtime/io/io_detail.h"

namespace dmlrt::io::detail {

// Note [SystemDS binary blocks]
// The layout, learnt from Hadoop's SequenceFile.java and SystemDS's MatrixIndexes/MatrixBlock
// write methods and checked against files SystemDS 3.4 wrote (tests/unit/data/systemds_binary).
// Every number is big-endian (Java's DataOutput).
//
//   file   := "SEQ" version(=6) keyClass valueClass compressed(u8) blockCompressed(u8)
//             [codecClass if compressed] metadata sync(16 bytes) record*
//   class  := vint length, UTF-8 bytes (Hadoop's Text); a vint is Hadoop's zero-compressed form
//   metadata := i32 count, count x (Text key, Text value)
//   record := i32 -1, sync(16 bytes)                         (a sync marker, every few KB)
//           | i32 recordLength, i32 keyLength(=16), key, value (recordLength = key + value bytes)
//   key    := i64 row-block index, i64 column-block index     (1-based)
//   value  := i32 rows, i32 cols, u8 type, then by type:
//     0 empty         nothing
//     1 ultra-sparse  i32 nnz, nnz x (i32 r, i32 c, f64 v), row-major; a column (cols == 1) has
//                     nnz x (i32 r, f64 v)
//     2 sparse        nnz (i64 if rows*cols > INT32_MAX, else i32), then per row: i32 n,
//                     n x (i32 c, f64 v), columns increasing
//     3 dense         rows*cols f64, row-major
//     4 dedup dense   (embedding tables; not read here)
// Block (i, j) covers rows (i-1)*blen .. and columns (j-1)*blen .. of the matrix; every block but
// the last of a row or column of blocks is blen x blen. SystemDS writes every block, empty ones
// included, uncompressed; nothing orders the records (each part file holds a range of row blocks).
// The file holds no matrix dims: they come from createvar or the .mtd, else from the blocks; the
// block size from the .mtd, else createvar (matrix_io.cpp), else the largest block side.
//
// The reader is strict where SystemDS's writer is regular (columns increasing, ultra-sparse cells
// row-major, each block once and shaped as the dims and block size say) and lenient where that
// costs nothing: a sparse block's nnz field is not trusted (its row lengths are), stored zeros
// are dropped, and absent blocks read as zeros.
//
// A folder arrives here as its part files concatenated in name order (read_file_bytes), so a new
// "SEQ" header may follow any record. A record there would start with its 4-byte length, and a
// length spelling "SEQ" plus a byte (about 1.4 GB, a block of 174M cells) would be followed by the
// key length 16, whose first byte is 0; a header has the key class name's nonzero length byte
// there. So "SEQ", a version byte and a nonzero byte at a record boundary start a new part.

namespace {

constexpr const char* kKeyClass = "org.apache.sysds.runtime.matrix.data.MatrixIndexes";
constexpr const char* kValueClass = "org.apache.sysds.runtime.matrix.data.MatrixBlock";
constexpr int kSeqVersion = 6;
constexpr size_t kSyncSize = 16;
constexpr int64_t kKeySize = 16;

enum BlockType : uint8_t { kEmpty = 0, kUltraSparse = 1, kSparse = 2, kDense = 3, kDedup = 4 };

// One record's block, validated; `payload` is where its cells start (after the type byte and,
// for sparse kinds, the nnz field).
struct BlockRef {
  int64_t rbi = 0, cbi = 0;  // 1-based block indexes
  int32_t rows = 0, cols = 0;
  uint8_t type = kEmpty;
  int64_t entries = 0;  // ultra-sparse: stored triples
  int64_t nnz = 0;      // nonzero cells (stored zeros not counted)
  size_t payload = 0, end = 0;
  size_t record = 0;  // offset of the record, for messages
};

// Big-endian reads of Java's DataOutput; callers check has() first.
class Cursor {
 public:
  Cursor(std::string_view data, size_t pos, size_t end) : data_(data), pos_(pos), end_(end) {}
  size_t pos() const { return pos_; }
  size_t left() const { return end_ - pos_; }
  bool has(size_t n) const { return n <= end_ - pos_; }
  void skip(size_t n) { pos_ += n; }
  uint8_t u8() { return static_cast<uint8_t>(data_[pos_++]); }
  int32_t i32() { return static_cast<int32_t>(static_cast<uint32_t>(be(4))); }
  int64_t i64() { return static_cast<int64_t>(be(8)); }
  double f64() {
    const uint64_t bits = be(8);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  std::string_view bytes(size_t n) {
    const std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  uint64_t be(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(data_[pos_++]);
    return v;
  }
  std::string_view data_;
  size_t pos_, end_;
};

class BinaryReader {
 public:
  BinaryReader(std::string_view data, const std::string& name, int64_t rows, int64_t cols,
               int64_t blen, const ReadLimits& limits)
      : data_(data), name_(name), rows_(rows), cols_(cols), blen_(blen), limits_(limits) {}

  kernels::MatrixBlock read() {
    scan();
    resolve_dims();
    int64_t nnz = 0;
    for (const BlockRef& b : blocks_) nnz += b.nnz;
    kernels::MatrixBlock out = kernels::MatrixBlock::prefers_sparse(rows_, cols_, nnz)
                                   ? assemble_csr(nnz)
                                   : assemble_dense();
    out.examine_format(nnz);
    return out;
  }

 private:
  // Messages name the byte offset in its part file, and the part (1-based, in name order) when
  // a folder's parts came concatenated.
  [[noreturn]] void fail(size_t pos, const std::string& what) const {
    const auto part = std::upper_bound(part_starts_.begin(), part_starts_.end(), pos);
    const size_t k = static_cast<size_t>(part - part_starts_.begin());  // 1-based
    std::ostringstream where;
    if (part_starts_.size() > 1) where << "part file " << k << " (in name order), ";
    where << "byte " << (pos - (k > 0 ? part_starts_[k - 1] : 0));
    DMLRT_FAIL(IoError, name_ << ": " << what << " (" << where.str() << ")");
  }
  std::string block_name(const BlockRef& b) const {
    return "block (" + std::to_string(b.rbi) + "," + std::to_string(b.cbi) + ")";
  }

  // ---- Pass 1: headers and records, every byte checked ----

  void scan() {
    if (data_.size() < 4 || data_.substr(0, 3) != "SEQ")
      DMLRT_FAIL(IoError,
                 name_ << ": not a SequenceFile (it does not start with \"SEQ\"); SystemDS's "
                          "binary matrices are Hadoop SequenceFiles: is the format right?");
    size_t pos = 0;
    while (pos < data_.size()) {
      if (pos == 0 || starts_part(pos)) {
        pos = read_header(pos);
        continue;
      }
      pos = read_record(pos);
    }
  }

  bool starts_part(size_t pos) const {
    return data_.size() - pos >= 5 && data_.substr(pos, 3) == "SEQ" && data_[pos + 4] != 0;
  }

  // Hadoop's zero-compressed vint (WritableUtils.readVLong).
  int64_t vint(Cursor& c, size_t start) const {
    if (!c.has(1)) fail(start, "truncated SequenceFile header");
    const int8_t first = static_cast<int8_t>(c.u8());
    if (first >= -112) return first;
    const bool negative = first < -120;
    const int len = negative ? -120 - first : -112 - first;
    if (!c.has(static_cast<size_t>(len))) fail(start, "truncated SequenceFile header");
    uint64_t v = 0;
    for (int i = 0; i < len; ++i) v = (v << 8) | c.u8();
    return negative ? static_cast<int64_t>(~v) : static_cast<int64_t>(v);
  }

  std::string_view text(Cursor& c, size_t start, const char* what) const {
    const int64_t len = vint(c, start);
    if (len < 0 || !c.has(static_cast<size_t>(len)))
      fail(start, std::string("truncated SequenceFile header (") + what + ")");
    return c.bytes(static_cast<size_t>(len));
  }

  size_t read_header(size_t start) {
    part_starts_.push_back(start);
    Cursor c(data_, start + 3, data_.size());
    const int version = c.u8();
    if (version != kSeqVersion)
      fail(start, "SequenceFile version " + std::to_string(version) +
                      " is not supported (dmlrt reads version 6, which SystemDS writes)");
    const std::string_view key = text(c, start, "key class");
    const std::string_view value = text(c, start, "value class");
    if (key != kKeyClass || value != kValueClass)
      fail(start, "the SequenceFile holds (" + std::string(key) + ", " + std::string(value) +
                      ") records, not SystemDS matrix blocks (" + kKeyClass + ", " + kValueClass +
                      "); dmlrt reads binary matrices only, not frames or tensors");
    if (!c.has(2)) fail(start, "truncated SequenceFile header");
    const bool compressed = c.u8() != 0;
    const bool block_compressed = c.u8() != 0;
    if (compressed) {
      const std::string codec(text(c, start, "codec class"));
      fail(start, std::string("is a compressed SequenceFile (") +
                      (block_compressed ? "block" : "record") + " compression, codec " + codec +
                      "); dmlrt reads uncompressed ones, which SystemDS writes by default "
                      "(or write the matrix with format=\"csv\", \"text\" or \"mm\")");
    }
    if (!c.has(4)) fail(start, "truncated SequenceFile header (metadata)");
    const int32_t entries = c.i32();
    if (entries < 0) fail(start, "bad SequenceFile header: negative metadata count");
    for (int32_t i = 0; i < entries; ++i) {
      text(c, start, "metadata key");
      text(c, start, "metadata value");
    }
    if (!c.has(kSyncSize)) fail(start, "truncated SequenceFile header (sync marker)");
    sync_ = c.bytes(kSyncSize);
    return c.pos();
  }

  size_t read_record(size_t start) {
    Cursor c(data_, start, data_.size());
    if (!c.has(4)) fail(start, "truncated record: " + std::to_string(c.left()) + " stray bytes");
    const int32_t len = c.i32();
    if (len == -1) {  // sync escape
      if (!c.has(kSyncSize)) fail(start, "truncated record: the file ends inside a sync marker");
      if (c.bytes(kSyncSize) != sync_)
        fail(start, "corrupt SequenceFile: a sync marker differs from the header's");
      return c.pos();
    }
    if (!c.has(4)) fail(start, "truncated record: the file ends inside its header");
    const int32_t key_len = c.i32();
    if (len < 0 || key_len != kKeySize || len < key_len)
      fail(start, "corrupt record: length " + std::to_string(len) + ", key length " +
                      std::to_string(key_len) + " (a MatrixIndexes key has 16 bytes)");
    if (!c.has(static_cast<size_t>(len)))
      fail(start, "truncated record: it needs " + std::to_string(len) + " bytes, the file has " +
                      std::to_string(c.left()) + " left");
    BlockRef b;
    b.record = start;
    b.rbi = c.i64();
    b.cbi = c.i64();
    b.end = c.pos() + static_cast<size_t>(len - key_len);
    read_block(Cursor(data_, c.pos(), b.end), b);
    blocks_.push_back(b);
    return b.end;
  }

  // The value of a record: validated, its nonzeros counted.
  void read_block(Cursor c, BlockRef& b) {
    const size_t at = b.record;
    auto need = [&](double bytes, const char* what) {
      if (bytes > static_cast<double>(c.left()))
        fail(at, "truncated record: " + block_name(b) + " needs more bytes than its record " +
                     "holds (" + what + ")");
    };
    need(9, "block header");
    b.rows = c.i32();
    b.cols = c.i32();
    b.type = c.u8();
    if (b.rows < 0 || b.cols < 0)
      fail(at, block_name(b) + " has negative dims " + kernels::dims_string(b.rows, b.cols));
    const int64_t cells = static_cast<int64_t>(b.rows) * b.cols;
    switch (b.type) {
      case kEmpty:
        break;
      case kUltraSparse: {
        need(4, "nnz");
        const int32_t n = c.i32();
        if (n < 0 || n > cells)
          fail(at, block_name(b) + " claims " + std::to_string(n) + " nonzeros in " +
                       std::to_string(cells) + " cells");
        const bool column = b.cols == 1;
        need(static_cast<double>(n) * (column ? 12 : 16), "ultra-sparse cells");
        b.entries = n;
        b.payload = c.pos();
        int64_t prev = -1;
        for (int32_t k = 0; k < n; ++k) {
          const int32_t r = c.i32();
          const int32_t col = column ? 0 : c.i32();
          const double v = c.f64();
          if (r < 0 || r >= b.rows || col < 0 || col >= b.cols)
            fail(at, block_name(b) + ": cell (" + std::to_string(r) + "," + std::to_string(col) +
                         ") lies outside its " + kernels::dims_string(b.rows, b.cols) + " block");
          const int64_t key = static_cast<int64_t>(r) * b.cols + col;
          if (key <= prev)
            fail(at, block_name(b) + ": ultra-sparse cells are not in row-major order");
          prev = key;
          b.nnz += v != 0.0;
        }
        break;
      }
      case kSparse: {
        const bool wide = cells > std::numeric_limits<int32_t>::max();
        need(wide ? 8 : 4, "nnz");
        c.skip(wide ? 8 : 4);  // the row counts below are what counts
        need(4.0 * b.rows, "row lengths");
        b.payload = c.pos();
        for (int32_t r = 0; r < b.rows; ++r) {
          need(4, "row length");
          const int32_t n = c.i32();
          if (n < 0 || n > b.cols)
            fail(at, block_name(b) + ": row " + std::to_string(r) + " claims " + std::to_string(n) +
                         " nonzeros in " + std::to_string(b.cols) + " columns");
          need(12.0 * n, "sparse row");
          int32_t prev = -1;
          for (int32_t k = 0; k < n; ++k) {
            const int32_t col = c.i32();
            const double v = c.f64();
            if (col <= prev || col >= b.cols)
              fail(at, block_name(b) + ": row " + std::to_string(r) + " has column index " +
                           std::to_string(col) + " out of order or outside 0.." +
                           std::to_string(b.cols - 1));
            prev = col;
            b.nnz += v != 0.0;
          }
        }
        break;
      }
      case kDense: {
        need(8.0 * static_cast<double>(cells), "dense cells");
        b.payload = c.pos();
        for (int64_t k = 0; k < cells; ++k) b.nnz += c.f64() != 0.0;
        break;
      }
      case kDedup:
        fail(at, block_name(b) +
                     " is a deduplicated dense block (type 4), which dmlrt does not "
                     "read; write the matrix with format=\"csv\"");
      default:
        fail(at, block_name(b) + " has unknown block type " + std::to_string(b.type) +
                     " (SystemDS writes 0 empty, 1 ultra-sparse, 2 sparse, 3 dense)");
    }
    if (c.left() != 0)
      fail(at, "corrupt record: " + block_name(b) + " ends " + std::to_string(c.left()) +
                   " bytes before its record does");
  }

  // ---- Dims and block placement ----

  void resolve_dims() {
    if (blen_ <= 0) {  // unknown: the largest block side (every block but the last is full)
      blen_ = 1;
      for (const BlockRef& b : blocks_) blen_ = std::max<int64_t>({blen_, b.rows, b.cols});
    }
    for (const BlockRef& b : blocks_) {
      if (b.rbi < 1 || b.cbi < 1) fail(b.record, block_name(b) + ": block indexes are 1-based");
      if (b.rows > blen_ || b.cols > blen_)
        fail(b.record, block_name(b) + " is " + kernels::dims_string(b.rows, b.cols) +
                           ", larger than the block size " + std::to_string(blen_));
    }
    const int64_t kMax = std::numeric_limits<int64_t>::max();
    auto infer = [&](int64_t BlockRef::*index, int32_t BlockRef::*side, const char* what) {
      int64_t n = 0;
      for (const BlockRef& b : blocks_) {
        if (b.*index - 1 > (kMax - b.*side) / blen_)
          fail(b.record, block_name(b) + ": " + what + " block index too large");
        n = std::max(n, (b.*index - 1) * blen_ + b.*side);
      }
      return n;
    };
    if (blocks_.empty() && (rows_ < 0 || cols_ < 0))
      DMLRT_FAIL(IoError, name_ << ": holds no blocks, and its dims are unknown (no .mtd)");
    if (rows_ < 0) rows_ = infer(&BlockRef::rbi, &BlockRef::rows, "row");
    if (cols_ < 0) cols_ = infer(&BlockRef::cbi, &BlockRef::cols, "column");
    DMLRT_REQUIRE(cols_ <= std::numeric_limits<int32_t>::max(), IoError,
                  name_ << ": " << cols_ << " columns; dmlrt matrices have at most 2^31-1");

    const int64_t row_blocks = rows_ / blen_ + (rows_ % blen_ != 0);  // no overflow near 2^63
    const int64_t col_blocks = cols_ / blen_ + (cols_ % blen_ != 0);
    for (const BlockRef& b : blocks_) {
      if (b.rbi > row_blocks || b.cbi > col_blocks)
        fail(b.record, block_name(b) + " lies outside the declared " +
                           kernels::dims_string(rows_, cols_) + " matrix (" +
                           std::to_string(row_blocks) + "x" + std::to_string(col_blocks) +
                           " blocks of " + std::to_string(blen_) + ")");
      const int64_t want_r = std::min(blen_, rows_ - (b.rbi - 1) * blen_);
      const int64_t want_c = std::min(blen_, cols_ - (b.cbi - 1) * blen_);
      if (b.rows != want_r || b.cols != want_c)
        fail(b.record, block_name(b) + " is " + kernels::dims_string(b.rows, b.cols) + ", but a " +
                           kernels::dims_string(rows_, cols_) + " matrix in blocks of " +
                           std::to_string(blen_) + " has a " +
                           kernels::dims_string(want_r, want_c) + " block there");
    }
    // Column-block order puts each row's cells in column order when the CSR is filled.
    std::sort(blocks_.begin(), blocks_.end(), [](const BlockRef& a, const BlockRef& b) {
      return a.cbi != b.cbi ? a.cbi < b.cbi : a.rbi < b.rbi;
    });
    for (size_t i = 1; i < blocks_.size(); ++i)
      if (blocks_[i].rbi == blocks_[i - 1].rbi && blocks_[i].cbi == blocks_[i - 1].cbi)
        fail(blocks_[i].record, block_name(blocks_[i]) + " appears twice");
  }

  // ---- Pass 2: cells into the matrix (bytes already checked) ----

  // fn(r, c, v) for each nonzero of block b, row-major, with 0-based block-local coordinates.
  template <class Fn>
  void for_each_nonzero(const BlockRef& b, Fn&& fn) const {
    Cursor c(data_, b.payload, b.end);
    switch (b.type) {
      case kUltraSparse:
        for (int64_t k = 0; k < b.entries; ++k) {
          const int32_t r = c.i32();
          const int32_t col = b.cols == 1 ? 0 : c.i32();
          const double v = c.f64();
          if (v != 0.0) fn(r, col, v);
        }
        break;
      case kSparse:
        for (int32_t r = 0; r < b.rows; ++r) {
          const int32_t n = c.i32();
          for (int32_t k = 0; k < n; ++k) {
            const int32_t col = c.i32();
            const double v = c.f64();
            if (v != 0.0) fn(r, col, v);
          }
        }
        break;
      case kDense:
        for (int32_t r = 0; r < b.rows; ++r)
          for (int32_t col = 0; col < b.cols; ++col) {
            const double v = c.f64();
            if (v != 0.0) fn(r, col, v);
          }
        break;
      default:
        break;  // empty
    }
  }

  kernels::MatrixBlock assemble_dense() {
    check_alloc(8.0 * static_cast<double>(rows_) * static_cast<double>(cols_), limits_, name_,
                "a dense " + kernels::dims_string(rows_, cols_) + " matrix");
    kernels::MatrixBlock out = kernels::MatrixBlock::dense(rows_, cols_);
    double* d = out.dense_data();  // (rows, cols) row-major
    for (const BlockRef& b : blocks_) {
      double* base = d + ((b.rbi - 1) * blen_) * cols_ + (b.cbi - 1) * blen_;
      for_each_nonzero(b, [&](int32_t r, int32_t c, double v) { base[r * cols_ + c] = v; });
    }
    return out;
  }

  kernels::MatrixBlock assemble_csr(int64_t nnz) {
    check_alloc(8.0 * (static_cast<double>(rows_) + 1.0) + 12.0 * static_cast<double>(nnz), limits_,
                name_, "a sparse " + kernels::dims_string(rows_, cols_) + " matrix");
    std::vector<int64_t> ptr(static_cast<size_t>(rows_) + 1, 0);
    for (const BlockRef& b : blocks_) {
      int64_t* row = ptr.data() + 1 + (b.rbi - 1) * blen_;
      for_each_nonzero(b, [&](int32_t r, int32_t, double) { ++row[r]; });
    }
    for (size_t i = 1; i < ptr.size(); ++i) ptr[i] += ptr[i - 1];
    std::vector<int32_t> idx(static_cast<size_t>(nnz));
    std::vector<double> val(static_cast<size_t>(nnz));
    std::vector<int64_t> next(ptr.begin(), ptr.end() - 1);  // fill cursor of each row
    for (const BlockRef& b : blocks_) {  // by column block: each row fills in column order
      const int64_t r0 = (b.rbi - 1) * blen_;
      const int32_t c0 = static_cast<int32_t>((b.cbi - 1) * blen_);
      for_each_nonzero(b, [&](int32_t r, int32_t c, double v) {
        const int64_t k = next[static_cast<size_t>(r0 + r)]++;
        idx[static_cast<size_t>(k)] = c0 + c;
        val[static_cast<size_t>(k)] = v;
      });
    }
    return kernels::MatrixBlock::csr(rows_, cols_, std::move(ptr), std::move(idx), std::move(val));
  }

  std::string_view data_;
  const std::string& name_;
  int64_t rows_, cols_, blen_;
  ReadLimits limits_;
  std::vector<size_t> part_starts_;  // where each part file's header starts
  std::string_view sync_;
  std::vector<BlockRef> blocks_;
};

}  // namespace

kernels::MatrixBlock read_binary_block(std::string_view data, const std::string& name, int64_t rows,
                                       int64_t cols, int64_t blen, const ReadLimits& limits) {
  return BinaryReader(data, name, rows, cols, blen, limits).read();
}

}  // namespace dmlrt::io::detail
