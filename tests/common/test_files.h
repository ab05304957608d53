// Whole-file reads and writes for tests that drive the CLI or the plan parser through files.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dmlrt::test {

// The bytes of `p` ("" when it cannot be read).
inline std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Replaces `p`'s contents with `text`.
inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace dmlrt::test
