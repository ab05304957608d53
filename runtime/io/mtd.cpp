// .mtd metadata: lenient JSON reading and SystemDS-layout writing (see mtd.h).
#include "runtime/io/mtd.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>

#include <nlohmann/json.hpp>

#include "gpu_context/error.h"
#include "gpu_context/string_util.h"

namespace dmlrt::io {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// A value for messages (never throws on odd strings).
std::string show(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

int64_t get_dim(const Json& v, const char* key, const std::string& name) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      DMLRT_FAIL(IoError, name << ": bad .mtd: \"" << key << "\" is too large: " << show(v));
    const int64_t x = v.get<int64_t>();
    // SystemDS writes -1 for unknown nnz; dims must be known and non-negative.
    DMLRT_REQUIRE(x >= -1, IoError, name << ": bad .mtd: \"" << key << "\" is negative: " << x);
    return x;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    DMLRT_REQUIRE(std::isfinite(d) && d == std::floor(d) && d >= -1 && d < 9.2e18, IoError,
                  name << ": bad .mtd: \"" << key << "\" is not an integer: " << show(v));
    return static_cast<int64_t>(d);
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(s.c_str(), &end, 10);
    DMLRT_REQUIRE(!s.empty() && *end == '\0' && errno == 0 && x >= -1, IoError,
                  name << ": bad .mtd: \"" << key << "\" is not an integer: " << show(v));
    return x;
  }
  DMLRT_FAIL(IoError, name << ": bad .mtd: \"" << key << "\" must be a number, got " << show(v));
}

bool get_bool(const Json& v, const char* key, const std::string& name) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    const std::string s = to_lower(v.get<std::string>());
    if (s == "true") return true;
    if (s == "false") return false;
  }
  DMLRT_FAIL(IoError, name << ": bad .mtd: \"" << key << "\" must be true or false, got "
                           << show(v));
}

std::string get_string(const Json& v, const char* key, const std::string& name) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  DMLRT_FAIL(IoError, name << ": bad .mtd: \"" << key << "\" must be a string, got " << show(v));
}

std::string author() {
  const char* u = std::getenv("USER");
  return u && *u ? u : "dmlrt";
}

std::string created_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace

Mtd parse_mtd(std::string_view text, const std::string& name) {
  Json j;
  try {
    j = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    DMLRT_FAIL(IoError, name << ": bad .mtd: not valid JSON (" << e.what() << ")");
  }
  DMLRT_REQUIRE(j.is_object(), IoError,
                name << ": bad .mtd: expected a JSON object, got " << j.type_name());
  Mtd m;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    if (v.is_null()) continue;
    if (k == "data_type") m.data_type = to_lower(get_string(v, "data_type", name));
    else if (k == "value_type") m.value_type = to_lower(get_string(v, "value_type", name));
    else if (k == "format") m.format = to_lower(get_string(v, "format", name));
    else if (k == "rows") m.rows = get_dim(v, "rows", name);
    else if (k == "cols") m.cols = get_dim(v, "cols", name);
    else if (k == "nnz") m.nnz = get_dim(v, "nnz", name);
    else if (k == "header") m.header = get_bool(v, "header", name);
    else if (k == "sep") m.sep = get_string(v, "sep", name);
    else if (k == "fill") m.fill = get_bool(v, "fill", name);
    else if (k == "default") {
      DMLRT_REQUIRE(v.is_number(), IoError,
                    name << ": bad .mtd: \"default\" must be a number, got " << show(v));
      m.fill_value = v.get<double>();
    } else if (k == "naStrings" || k == "na.strings") {
      if (v.is_array()) {
        std::string s;
        for (const auto& e : v) s += (s.empty() ? "" : ",") + get_string(e, "naStrings", name);
        m.na_strings = s;
      } else {
        m.na_strings = get_string(v, "naStrings", name);
      }
    } else if (k == "description") {
      m.description = get_string(v, "description", name);
    }
  }
  DMLRT_REQUIRE(m.rows >= -1 && m.cols >= -1, IoError, name << ": bad .mtd: negative dims");
  return m;
}

std::string matrix_mtd_json(int64_t rows, int64_t cols, int64_t nnz, const inst::FileFormat& fmt,
                            bool stable) {
  // Key order as SystemDS 3.4's HDFSTool.metaDataToString writes it.
  OrderedJson j;
  j["data_type"] = "matrix";
  j["value_type"] = "double";
  j["rows"] = rows;
  j["cols"] = cols;
  j["nnz"] = nnz;
  j["format"] = canonical_format(fmt.format);
  if (!fmt.description.empty()) j["description"] = fmt.description;
  if (!stable) j["author"] = author();
  if (canonical_format(fmt.format) == "csv") {
    j["header"] = fmt.header;
    j["sep"] = fmt.delim;
  }
  if (!stable) j["created"] = created_now();
  return j.dump(4, ' ', false, OrderedJson::error_handler_t::replace);
}

std::string scalar_mtd_json(inst::ValueType vt, bool stable) {
  OrderedJson j;
  j["data_type"] = "scalar";
  const char* v = "double";
  switch (vt) {
    case inst::ValueType::kINT64:
    case inst::ValueType::kINT32: v = "int"; break;
    case inst::ValueType::kBoolean: v = "boolean"; break;
    case inst::ValueType::kString: v = "string"; break;
    default: break;
  }
  j["value_type"] = v;
  j["format"] = "text";
  if (!stable) {
    j["author"] = author();
    j["created"] = created_now();
  }
  return j.dump(4, ' ', false, OrderedJson::error_handler_t::replace);
}

std::string canonical_format(const std::string& format) {
  const std::string f = to_lower(format);
  if (f == "text" || f == "textcell") return "text";
  if (f == "mm" || f == "matrixmarket") return "mm";
  if (f == "binary" || f == "binaryblock") return "binary";
  if (f.empty() || f == "unknown") return "unknown";
  return f;
}

}  // namespace dmlrt::io
