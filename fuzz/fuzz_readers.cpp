// libFuzzer target for the matrix readers: the input picks a format, optional createvar dims and
// an optional .mtd, and the rest is the file. Any dmlrt::Error is a valid outcome; a crash,
// sanitizer report or leak is not. Whatever parses is written back and must read back equal.
//
// Input layout: byte 0 = selector, then (if selected) two dim bytes, then the file; the text after
// the first "\n#MTD#\n" is the .mtd.
//   selector bits 0-2: 0 csv, 1 text, 2 mm, 3 npy, 4 unknown (from the .mtd or the name),
//                      5 csv with header, ';', no fill, na "NA", 6 csv with fill value 7,
//                      7 text named .mtx (format unknown)
//   bit 3: the file has a .mtd section      bit 4: bytes 1-2 are createvar's rows, cols
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpu_context/error.h"
#include "runtime/io/matrix_io.h"

namespace {

void round_trip(const dmlrt::kernels::MatrixBlock& b, const std::string& format) {
  dmlrt::inst::FileFormat fmt;
  fmt.format = format;
  const std::string bytes = dmlrt::io::write_matrix_to_string(b, fmt);
  dmlrt::inst::MatrixMeta meta;
  meta.rows = b.rows();
  meta.cols = b.cols();
  const auto back = dmlrt::io::read_matrix_from_string(bytes, "roundtrip", fmt, meta);
  if (!back.equals(b)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  dmlrt::inst::MatrixMeta meta;
  if (sel & 0x10) {
    if (rest.size() < 2) return 0;
    meta.rows = static_cast<uint8_t>(rest[0]);
    meta.cols = static_cast<uint8_t>(rest[1]);
    rest.remove_prefix(2);
  }
  std::string mtd;
  bool has_mtd = false;
  if (sel & 0x08) {
    const size_t p = rest.find("\n#MTD#\n");
    if (p != std::string_view::npos) {
      mtd = std::string(rest.substr(p + 7));
      rest = rest.substr(0, p);
      has_mtd = true;
    }
  }
  dmlrt::inst::FileFormat fmt;
  std::string name = "fuzz.dat";
  switch (sel & 7) {
    case 0: fmt.format = "csv"; break;
    case 1: fmt.format = "text"; break;
    case 2: fmt.format = "mm"; break;
    case 3: fmt.format = "npy"; break;
    case 4: fmt.format = "unknown"; break;
    case 5:
      fmt.format = "csv";
      fmt.header = true;
      fmt.delim = ";";
      fmt.fill = false;
      fmt.na_strings = "NA";
      break;
    case 6:
      fmt.format = "csv";
      fmt.fill_value = 7;
      break;
    case 7:
      fmt.format = "unknown";
      name = "fuzz.mtx";
      break;
  }
  try {
    // A declared shape may ask for far more memory than the input holds; the cap turns that
    // into an error instead of a libFuzzer out-of-memory report.
    const auto b = dmlrt::io::read_matrix_from_string(rest, name, fmt, meta,
                                                      has_mtd ? &mtd : nullptr,
                                                      dmlrt::io::ReadLimits{64 << 20});
    if (b.rows() * b.cols() <= (1 << 16)) {
      for (const char* f : {"csv", "text", "mm", "npy"}) round_trip(b, f);
    }
  } catch (const dmlrt::Error&) {
  }
  return 0;
}
