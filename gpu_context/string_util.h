// The string helpers every layer uses (option values, plan text, metadata keys), said once.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace dmlrt {

// ASCII lower case (opcodes, option values, format names are ASCII).
inline std::string to_lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

// `s` without leading and trailing white space (std::isspace).
inline std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace dmlrt
