// Operand splitting by SystemDS's CPOperand.split rules.
#include "instructions/operand.h"

#include <sstream>

#include "gpu_context/error.h"
#include "instructions/execution_context.h"
#include "kernels/host_memory.h"

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
      DMLRT_REQUIRE(parts[1] != "FRAME", FramesNotSupported,
                    "operand '" << field << "' is a frame: frames are not supported yet");
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

std::string out_of_memory_context(const std::vector<std::string>& fields,
                                  const ExecutionContext& ec) noexcept {
  try {
    std::ostringstream os;
    bool any = false;
    for (const std::string& f : fields) {
      if (f.find(kTypeDelim) == std::string::npos) continue;
      Operand op;
      try {
        op = Operand::parse(f);
      } catch (const std::exception&) {
        continue;
      }
      if (op.literal) continue;
      const Value* v = ec.find(op.name);
      if (v == nullptr) continue;
      const auto* mo = std::get_if<std::shared_ptr<MatrixObject>>(v);
      if (mo == nullptr || !*mo) continue;
      const MatrixMeta& m = (*mo)->meta();
      os << (any ? ", " : "operands ") << op.name;
      any = true;
      if (m.rows < 0 || m.cols < 0) {
        os << " (shape not known yet)";
        continue;
      }
      os << " = " << m.rows << "x" << m.cols << " ("
         << kernels::bytes_string(8.0 * static_cast<double>(m.rows) * static_cast<double>(m.cols))
         << " dense)";
    }
    const kernels::HostMemory mem = kernels::host_memory();
    os << (any ? "; " : "") << "host memory available: ";
    if (mem.available_bytes < 0)
      os << "unknown";
    else
      os << kernels::bytes_string(static_cast<double>(mem.available_bytes)) << " ("
         << mem.limited_by << ")";
    return os.str();
  } catch (...) {
    return "operand shapes unavailable";
  }
}

}  // namespace dmlrt::inst
