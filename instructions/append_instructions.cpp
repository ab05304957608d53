// Append instructions: parsing, shape rule and CPU run (append_instructions.h).
#include "instructions/append_instructions.h"

#include <cstdint>
#include <memory>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/append.h"

namespace dmlrt::inst {

namespace {

// SystemDS's StringObject.MAX_STRING_SIZE.
constexpr int64_t kMaxStringLength = 1 << 20;

// The length Java's String.length() gives for UTF-8 text: one unit per code point, two for those
// outside the BMP (a 4-byte sequence).
int64_t utf16_length(const std::string& s) {
  int64_t n = 0;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) != 0x80) ++n;
    if (c >= 0xF0) ++n;
  }
  return n;
}

}  // namespace

InstructionPtr AppendInstruction::make(InstructionText t) {
  if (t.opcode == "append" && !t.fields.empty() && Operand::parse(t.fields[0]).is_scalar())
    return std::make_unique<StringAppendInstruction>(std::move(t));
  return std::make_unique<AppendInstruction>(std::move(t));
}

AppendInstruction::AppendInstruction(InstructionText t) : Instruction(std::move(t)) {
  if (opcode() == "append") {
    // The offset operand (the first input's column or row count) is informational.
    expect_fields(5);
    inputs_ = {operand(0), operand(1)};
    out_ = operand(3);
    const std::string& flag = field(4);
    if (flag == "true" || flag == "TRUE")
      cbind_ = true;
    else if (flag == "false" || flag == "FALSE")
      cbind_ = false;
    else
      DMLRT_FAIL(ParseError, where() << ": append expects true (cbind) or false (rbind) as its "
                                        "last field, got '"
                                     << flag << "'");
    name_ = cbind_ ? "append (cbind)" : "append (rbind)";
  } else {
    expect_fields(2, static_cast<size_t>(-1));
    cbind_ = opcode() == "cbind";
    for (size_t i = 0; i + 1 < num_fields(); ++i) inputs_.push_back(operand(i));
    out_ = operand(num_fields() - 1);
    name_ = opcode();
  }
  for (size_t i = 0; i < inputs_.size(); ++i)
    DMLRT_REQUIRE(inputs_[i].is_matrix(), ParseError,
                  where() << ": " << name_ << " input " << i + 1 << " (" << inputs_[i].to_string()
                          << ") is not a matrix; " << (cbind_ ? "cbind" : "rbind")
                          << " takes matrices");
  DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                where() << ": " << name_ << " expects a matrix output, got " << out_.to_string());
}

void AppendInstruction::check(Shapes& shapes) const {
  const Dims first = shapes.dims(inputs_[0]);
  for (size_t i = 1; i < inputs_.size(); ++i) {
    const Dims d = shapes.dims(inputs_[i]);
    const int64_t want = cbind_ ? first.rows : first.cols, got = cbind_ ? d.rows : d.cols;
    if (want < 0 || got < 0) continue;
    DMLRT_REQUIRE(want == got, ShapeError,
                  name_ << ": " << (cbind_ ? "row" : "column") << " counts differ: input 1 is "
                        << kernels::dims_string(first.rows, first.cols) << ", input " << i + 1
                        << " is " << kernels::dims_string(d.rows, d.cols));
  }
}

void AppendInstruction::run_cpu(ExecutionContext& ec) {
  std::vector<std::shared_ptr<const kernels::MatrixBlock>> held;
  std::vector<const kernels::MatrixBlock*> blocks;
  for (const auto& op : inputs_) {
    held.push_back(ec.matrix(op));
    blocks.push_back(held.back().get());
  }
  ec.set_matrix(out_.name, cbind_ ? kernels::cpu::cbind(blocks) : kernels::cpu::rbind(blocks));
}

// The inputs' total, twice: the output is their sum.
int64_t AppendInstruction::device_bytes(ExecutionContext& ec) const {
  int64_t total = 0;
  for (const auto& op : inputs_) {
    const MatrixMeta& m = ec.matrix_object(op.name)->meta();
    const int64_t b = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
    if (b < 0) return -1;
    total += 2 * b;
  }
  return total;
}

StringAppendInstruction::StringAppendInstruction(InstructionText t) : Instruction(std::move(t)) {
  // The offset operand (-1 for strings) and the cbind flag mean nothing here.
  expect_fields(5);
  in1_ = operand(0);
  in2_ = operand(1);
  out_ = operand(3);
  DMLRT_REQUIRE(in1_.is_scalar() && in2_.is_scalar(), ParseError,
                where() << ": append of strings takes two scalars, got " << in1_.to_string()
                        << " and " << in2_.to_string());
  DMLRT_REQUIRE(out_.is_scalar(), ParseError,
                where() << ": append of strings expects a scalar output, got " << out_.to_string());
}

void StringAppendInstruction::run_cpu(ExecutionContext& ec) {
  const std::string a = ec.scalar(in1_).to_string();
  const std::string b = ec.scalar(in2_).to_string();
  const int64_t len = utf16_length(a) + utf16_length(b);
  DMLRT_REQUIRE(len <= kMaxStringLength, RuntimeError,
                "append: output string length exceeds maximum scalar string length ("
                    << len << " > " << kMaxStringLength << ")");
  ec.set_scalar(out_, ScalarValue::string(a + "\n" + b));
}

}  // namespace dmlrt::inst
