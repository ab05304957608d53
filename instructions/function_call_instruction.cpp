// The function call instruction: parsing and run (function_call_instruction.h).
#include <cctype>
#include <cstdlib>

#include "instructions/function_call_instruction.h"

#include "gpu_context/error.h"

namespace dmlrt::inst {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Field `s` as a count of inputs or outputs.
size_t count_field(const std::string& s, const char* what, const std::string& where) {
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  DMLRT_REQUIRE(
      !s.empty() && *end == '\0' && v >= 0, ParseError,
      where << ": fcall's " << what << " must be a non-negative integer, got '" << s << "'");
  return static_cast<size_t>(v);
}

}  // namespace

FunctionCallInstruction::FunctionCallInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(5, static_cast<size_t>(-1));
  ns_ = field(0);
  fname_ = field(1);
  DMLRT_REQUIRE(!ns_.empty() && !fname_.empty(), ParseError,
                where() << ": fcall needs a namespace and a function name");
  DMLRT_REQUIRE(
      field(2) == "true" || field(2) == "false", ParseError,
      where() << ": fcall's optimize flag must be true or false, got '" << field(2) << "'");
  const size_t nin = count_field(field(3), "number of inputs", where());
  const size_t nout = count_field(field(4), "number of outputs", where());
  DMLRT_REQUIRE(num_fields() == 5 + nin + nout, ParseError,
                where() << ": fcall declares " << nin << " inputs and " << nout
                        << " outputs, so it needs " << 5 + nin + nout << " fields, got "
                        << num_fields());
  for (size_t i = 0; i < nin; ++i) {
    const std::string& f = field(5 + i);
    const size_t eq = f.find('=');
    std::string name, op;
    if (eq != std::string::npos && is_identifier(f.substr(0, eq))) {
      name = f.substr(0, eq);
      op = f.substr(eq + 1);
    } else {
      op = f;  // positional
    }
    DMLRT_REQUIRE(!op.empty(), ParseError,
                  where() << ": fcall argument " << i + 1 << " ('" << f << "') has no operand");
    Operand o;
    try {
      o = Operand::parse(op);
    } catch (const Error& e) {  // keeps FramesNotSupported (Note [Frames in plans])
      rethrow_with_context(e, where() + ": fcall argument " + std::to_string(i + 1) + ": ");
    }
    DMLRT_REQUIRE(!o.literal || o.is_scalar(), ParseError,
                  where() << ": fcall argument " << i + 1 << ": a literal must be a scalar");
    arg_names_.push_back(std::move(name));
    args_.push_back(std::move(o));
  }
  for (size_t i = 0; i < nout; ++i) {
    std::string out = field(5 + nin + i);
    const size_t p = out.find(kTypeDelim);
    if (p != std::string::npos) out = out.substr(0, p);
    DMLRT_REQUIRE(!out.empty(), ParseError,
                  where() << ": fcall output " << i + 1 << " has no variable name");
    outputs_.push_back(std::move(out));
  }
}

void FunctionCallInstruction::run_cpu(ExecutionContext& ec) {
  const std::string key = ns_ + "::" + fname_;
  std::vector<Value> values;
  values.reserve(args_.size());
  for (const Operand& a : args_) {
    if (a.literal) {
      values.emplace_back(ScalarValue::from_literal(a.name, a.value_type));
      continue;
    }
    const Value* v = ec.find(a.name);
    DMLRT_REQUIRE(v != nullptr, RuntimeError,
                  "input variable '" << a.name << "' is not defined on call of " << key);
    values.push_back(*v);
  }
  std::vector<Value> results = ec.services().call_function(key, arg_names_, std::move(values));
  DMLRT_REQUIRE(results.size() >= outputs_.size(), RuntimeError,
                "function " << key << " returned " << results.size() << " values, the call binds "
                            << outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) ec.set(outputs_[i], std::move(results[i]));
}

}  // namespace dmlrt::inst
