// Matrix and scalar file I/O entry points: file reading, format resolution against createvar and
// the .mtd, dimension checks, and writes through temporaries published as a pair (safe_write.h).
#include "runtime/io/matrix_io.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

#include "gpu_context/error.h"
#include "runtime/io/io_detail.h"
#include "runtime/io/mtd.h"
#include "runtime/io/safe_write.h"

namespace dmlrt::io {
namespace fs = std::filesystem;
namespace {

const char* file_kind(fs::file_type t) {
  switch (t) {
    case fs::file_type::fifo: return "a FIFO (named pipe)";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

std::string read_regular_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  DMLRT_REQUIRE(f != nullptr, IoError, path << ": cannot open: " << std::strerror(errno));
  // Read straight into a buffer of the file's size (a file that grows meanwhile is read to its
  // end all the same); 64 KiB appends re-copy a 100 MB file several times.
  std::string out;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  size_t len = 0;
  out.resize(ec ? size_t{1} << 16 : static_cast<size_t>(size) + 1);
  size_t n;
  while ((n = std::fread(&out[len], 1, out.size() - len, f)) > 0) {
    len += n;
    if (len == out.size()) out.resize(out.size() * 2);
  }
  out.resize(len);
  const bool bad = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  DMLRT_REQUIRE(!bad, IoError, path << ": read failed: " << std::strerror(err));
  return out;
}

// A file's bytes; a folder (SystemDS's multi-part output) gives its part files concatenated in
// name order, skipping hidden and bookkeeping files (.crc, _SUCCESS).
std::string read_file_bytes(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  DMLRT_REQUIRE(st.type() != fs::file_type::not_found, IoError, path << ": no such file");
  DMLRT_REQUIRE(!ec, IoError, path << ": cannot access: " << ec.message());
  if (st.type() == fs::file_type::regular) return read_regular_file(path);
  // A FIFO or device could block forever (a FIFO without a writer) or never end (/dev/zero).
  DMLRT_REQUIRE(st.type() == fs::file_type::directory, IoError,
                path << ": is " << file_kind(st.type())
                     << ", not a regular file; dmlrt reads data from regular files (and SystemDS's "
                        "part folders)");
  std::vector<std::string> parts;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    const std::string base = e.path().filename().string();
    if (base.empty() || base[0] == '.' || base[0] == '_' || !e.is_regular_file()) continue;
    parts.push_back(e.path().string());
  }
  DMLRT_REQUIRE(!ec, IoError, path << ": cannot list folder: " << ec.message());
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += read_regular_file(p);
  return out;
}

// The block size of a binary matrix's .mtd ("blocksize", or SystemDS 3.4's "rows_in_block"), else
// `fallback` (createvar's). Parsed apart from parse_mtd: only the binary reader needs it.
int64_t mtd_blocksize(const std::string& text, int64_t fallback) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return fallback;  // parse_mtd has already reported a bad .mtd
  for (const char* key : {"blocksize", "rows_in_block"}) {
    const auto it = j.find(key);
    if (it == j.end()) continue;
    int64_t v = -1;
    if (it->is_number_integer()) v = it->get<int64_t>();
    else if (it->is_string() && !detail::parse_int64(it->get<std::string>(), v)) v = -1;
    if (v > 0) return v;
  }
  return fallback;
}

std::string extension_format(const std::string& name) {
  const std::string ext = fs::path(name).extension().string();
  if (ext == ".csv") return "csv";
  if (ext == ".mtx" || ext == ".mm") return "mm";
  if (ext == ".npy") return "npy";
  return "unknown";
}

// ---- Writes ----
// See Note [Safe writes] in safe_write.cpp.

void write_text_file(detail::TempFile& tf, const std::string& name, const std::string& text) {
  detail::Output out(tf.file(), name);
  out.buf() = text;
  out.flush();
  tf.close();
}

// The two names a write publishes: the data file and its .mtd (written, or removed when stale).
struct WritePlan {
  detail::WriteTarget data, mtd;
};

// Checks both names before anything is written or removed, then creates the parent folders.
WritePlan prepare_write(const std::string& path, const char* role, bool with_mtd) {
  DMLRT_REQUIRE(!path.empty(), IoError, "cannot write to an empty file name");
  WritePlan plan;
  plan.data = detail::check_write_target(path, path, role);
  plan.mtd = with_mtd ? detail::check_write_target(path, path + ".mtd", "its metadata file")
                      : detail::check_stale_mtd(path, path + ".mtd");
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);  // as SystemDS does
    DMLRT_REQUIRE(!ec, IoError,
                  path << ": cannot create the folder " << parent.string() << ": "
                       << ec.message());
  }
  detail::remove_stale_temporaries(plan.data.folder);
  if (plan.mtd.folder != plan.data.folder) detail::remove_stale_temporaries(plan.mtd.folder);
  return plan;
}

std::string scalar_text(const inst::ScalarValue& v) {
  switch (v.type()) {
    case inst::ValueType::kBoolean: return v.to_bool() ? "true" : "false";  // SystemDS: lower case
    case inst::ValueType::kFP64:
    case inst::ValueType::kFP32: {
      std::string s;
      detail::append_double_java(s, v.to_double());
      return s;
    }
    default: return v.to_string();
  }
}

}  // namespace

kernels::MatrixBlock read_matrix_from_string(std::string_view data, const std::string& name,
                                             const inst::FileFormat& fmt,
                                             const inst::MatrixMeta& meta,
                                             const std::string* mtd_text, ReadLimits limits) {
  std::optional<Mtd> mtd;
  if (mtd_text) mtd = parse_mtd(*mtd_text, name + ".mtd");
  DMLRT_REQUIRE(!mtd || mtd->data_type.empty() || mtd->data_type == "matrix", IoError,
                name << ".mtd: describes a " << mtd->data_type << ", not a matrix");

  inst::FileFormat f = fmt;
  std::string format = canonical_format(fmt.format);
  if (format == "unknown") {
    if (mtd && !mtd->format.empty()) {
      format = canonical_format(mtd->format);
      if (mtd->header) f.header = *mtd->header;
      if (mtd->sep) f.delim = *mtd->sep;
      if (mtd->fill) f.fill = *mtd->fill;
      if (mtd->fill_value) f.fill_value = *mtd->fill_value;
      if (mtd->na_strings) f.na_strings = *mtd->na_strings;
    } else {
      format = extension_format(name);
    }
  }
  DMLRT_REQUIRE(format != "unknown", IoError,
                name << ": unknown file format: give it in the plan (createvar/read format=...) "
                        "or in a .mtd file");

  // Declared dims: createvar's, then the .mtd's; they must agree.
  int64_t rows = meta.rows, cols = meta.cols;
  if (mtd) {
    auto merge = [&](int64_t& v, int64_t m, const char* what) {
      if (m < 0) return;
      DMLRT_REQUIRE(v < 0 || v == m, IoError,
                    name << ": the plan declares " << v << " " << what << " but the .mtd says "
                         << m);
      v = m;
    };
    merge(rows, mtd->rows, "rows");
    merge(cols, mtd->cols, "columns");
  }

  kernels::MatrixBlock b;
  try {
    if (format == "csv") b = detail::read_csv(data, name, f, rows, cols);
    else if (format == "text") b = detail::read_text_cell(data, name, rows, cols, limits);
    else if (format == "mm") b = detail::read_matrix_market(data, name, limits);
    else if (format == "npy") b = detail::read_npy(data, name);
    else if (format == "binary")
      b = detail::read_binary_block(data, name, rows, cols,
                                    mtd_text ? mtd_blocksize(*mtd_text, meta.blen) : meta.blen,
                                    limits);
    else
      DMLRT_FAIL(IoError, name << ": format '" << fmt.format
                               << "' is not supported (dmlrt reads csv, text, mm, npy and "
                                  "SystemDS's binary)");
  } catch (const std::bad_alloc&) {
    DMLRT_FAIL(OutOfMemory, name << ": not enough host memory to read the matrix");
  } catch (const std::length_error&) {
    DMLRT_FAIL(OutOfMemory, name << ": not enough host memory to read the matrix");
  }
  // Formats that carry their own dims (mm, npy) must match the declared ones.
  DMLRT_REQUIRE((rows < 0 || b.rows() == rows) && (cols < 0 || b.cols() == cols), IoError,
                name << ": the file holds a " << kernels::dims_string(b.rows(), b.cols())
                     << " matrix, but " << kernels::dims_string(rows, cols)
                     << " was declared (-1 = unknown)");
  return b;
}

kernels::MatrixBlock read_matrix(const std::string& path, const inst::FileFormat& fmt,
                                 const inst::MatrixMeta& meta) {
  std::string data;
  std::optional<std::string> mtd;
  {
    // Shared with other readers, exclusive of a writer publishing a pair: the file and its .mtd
    // come from one write.
    detail::FolderLock lock(detail::read_lock_folders(path), /*exclusive=*/false);
    data = read_file_bytes(path);
    std::error_code ec;
    if (fs::is_regular_file(path + ".mtd", ec)) mtd = read_regular_file(path + ".mtd");
  }
  return read_matrix_from_string(data, path, fmt, meta, mtd ? &*mtd : nullptr);
}

std::string write_matrix_to_string(const kernels::MatrixBlock& block, const inst::FileFormat& fmt) {
  detail::Output out(nullptr, "");
  const std::string format = canonical_format(fmt.format);
  if (format == "csv") detail::write_csv(block, fmt, out);
  else if (format == "text") detail::write_text_cell(block, out);
  else if (format == "mm") detail::write_matrix_market(block, out);
  else if (format == "npy") detail::write_npy(block, out);
  else if (format == "binary")
    DMLRT_FAIL(IoError, "SystemDS's binary block format is not supported for writing; write "
                        "format=\"csv\", \"text\", \"mm\" or \"npy\"");
  else
    DMLRT_FAIL(IoError, "format '" << fmt.format
                                   << "' is not supported (dmlrt writes csv, text, mm and npy)");
  return out.text();
}

void write_matrix(const kernels::MatrixBlock& block, const std::string& path,
                  const inst::FileFormat& fmt) {
  const std::string format = canonical_format(fmt.format);
  DMLRT_REQUIRE(format != "binary", IoError,
                path << ": SystemDS's binary block format is not supported for writing; write "
                        "format=\"csv\", \"text\", \"mm\" or \"npy\"");
  DMLRT_REQUIRE(format == "csv" || format == "text" || format == "mm" || format == "npy", IoError,
                path << ": format '" << fmt.format
                     << "' is not supported (dmlrt writes csv, text, mm and npy)");
  // SystemDS writes a .mtd for csv and text, none for mm (and it has no npy).
  const bool with_mtd = format == "csv" || format == "text";
  const WritePlan plan = prepare_write(path, "a matrix file", with_mtd);

  detail::TempFile data(plan.data);
  {
    detail::Output out(data.file(), path);
    if (format == "csv") detail::write_csv(block, fmt, out);
    else if (format == "text") detail::write_text_cell(block, out);
    else if (format == "mm") detail::write_matrix_market(block, out);
    else detail::write_npy(block, out);
    out.flush();
  }
  data.close();
  std::optional<detail::TempFile> meta;
  if (with_mtd) {
    meta.emplace(plan.mtd);
    write_text_file(*meta, path + ".mtd",
                    matrix_mtd_json(block.rows(), block.cols(), block.nnz(), fmt));
  }
  detail::publish_pair(path, data, plan.data, meta ? &*meta : nullptr, plan.mtd);
}

inst::ScalarValue read_scalar(const std::string& path, inst::ValueType vt) {
  std::string text;
  std::optional<std::string> mtd_text;
  {
    detail::FolderLock lock(detail::read_lock_folders(path), /*exclusive=*/false);
    text = read_file_bytes(path);
    std::error_code ec;
    if (vt == inst::ValueType::kUnknown && fs::is_regular_file(path + ".mtd", ec))
      mtd_text = read_regular_file(path + ".mtd");
  }
  if (vt == inst::ValueType::kUnknown) {
    vt = inst::ValueType::kString;
    if (mtd_text) {
      const Mtd m = parse_mtd(*mtd_text, path + ".mtd");
      if (m.value_type == "double") vt = inst::ValueType::kFP64;
      else if (m.value_type == "int") vt = inst::ValueType::kINT64;
      else if (m.value_type == "boolean") vt = inst::ValueType::kBoolean;
    }
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (vt == inst::ValueType::kString) return inst::ScalarValue::string(text);
  const std::string_view t = detail::trim(text);
  const std::string shown = t.size() <= 40 ? std::string(t) : std::string(t.substr(0, 40)) + "...";
  switch (vt) {
    case inst::ValueType::kFP64:
    case inst::ValueType::kFP32: {
      double d = 0.0;
      DMLRT_REQUIRE(detail::parse_double(t, d), IoError,
                    path << ": '" << shown << "' is not a double");
      return inst::ScalarValue::fp64(d);
    }
    case inst::ValueType::kINT64:
    case inst::ValueType::kINT32: {
      int64_t i = 0;
      DMLRT_REQUIRE(detail::parse_int64(t, i), IoError,
                    path << ": '" << shown << "' is not an integer");
      return inst::ScalarValue::int64(i);
    }
    case inst::ValueType::kBoolean: {
      std::string l(t);
      for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      DMLRT_REQUIRE(l == "true" || l == "false", IoError,
                    path << ": '" << shown << "' is not a boolean (true or false)");
      return inst::ScalarValue::boolean(l == "true");
    }
    default: break;
  }
  DMLRT_FAIL(IoError, path << ": cannot read a scalar of type " << inst::name_of(vt));
}

void write_scalar(const inst::ScalarValue& value, const std::string& path) {
  const WritePlan plan = prepare_write(path, "a scalar file", true);
  detail::TempFile data(plan.data);
  write_text_file(data, path, scalar_text(value));
  detail::TempFile meta(plan.mtd);
  write_text_file(meta, path + ".mtd", scalar_mtd_json(value.type()));
  detail::publish_pair(path, data, plan.data, &meta, plan.mtd);
}

}  // namespace dmlrt::io
