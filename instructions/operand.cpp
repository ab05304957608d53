// Operand splitting by SystemDS's CPOperand.split rules.
#include "instructions/operand.h"

#include "gpu_context/error.h"

namespace dmlrt::inst {

bool is_integer_text(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

std::vector<std::string> split_keep_empty(const std::string& s, const std::string& delim) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(delim, start);
    if (pos == std::string::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + delim.size();
  }
}

Operand Operand::parse(const std::string& field) {
  const std::vector<std::string> parts = split_keep_empty(field, kTypeDelim);
  Operand op;
  op.name = parts[0];
  switch (parts.size()) {
    case 1:  // an FP64 literal (SystemDS: "for literals in MR instructions")
      op.data_type = DataType::kScalar;
      op.value_type = ValueType::kFP64;
      op.literal = true;
      break;
    case 2:
      op.data_type = DataType::kUnknown;
      op.value_type = parse_value_type(parts[1]);
      break;
    case 3:
    case 4:
      op.data_type = parse_data_type(parts[1]);
      op.value_type = parse_value_type(parts[2]);
      if (parts.size() == 4) {
        DMLRT_REQUIRE(parts[3] == "true" || parts[3] == "false", ParseError,
                      "operand '" << field << "': literal flag must be true or false, got '"
                                  << parts[3] << "'");
        op.literal = parts[3] == "true";
      }
      break;
    default:
      DMLRT_FAIL(ParseError, "operand '" << field << "' has " << parts.size()
                                         << " parts (expected name·DATATYPE·VALUETYPE[·literal])");
  }
  return op;
}

std::string Operand::to_string() const {
  return name + kTypeDelim + name_of(data_type) + kTypeDelim + name_of(value_type) + kTypeDelim +
         (literal ? "true" : "false");
}

}  // namespace dmlrt::inst
