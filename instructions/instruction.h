// The instruction base class and the parsed text every instruction is built from.
// Life cycle (STYLE.md 11): the constructor parses operands and checks what it can without data;
// execute() checks shapes against the actual inputs and runs the op.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "instructions/execution_context.h"
#include "instructions/operand.h"
#include "instructions/types.h"

namespace dmlrt::inst {

struct SourceLocation {
  std::string file;  // plan file ("" for text given through the API)
  int line = 0;      // 1-based; 0 = unknown
};

// One instruction split into its fields. Fields are kept in the raw form (· inside operands).
struct InstructionText {
  ExecType exec_type = ExecType::kCP;
  std::string opcode;               // lower-cased (opcode lookup is case-insensitive)
  std::vector<std::string> fields;  // the fields after the opcode
  std::string raw;                  // the instruction as written, for messages
  SourceLocation loc;

  // Splits a raw `ExecType°opcode°field°...` string. Throws ParseError for an empty string, a
  // missing opcode or an unknown execution type.
  static InstructionText parse(const std::string& raw_text, SourceLocation loc = {});
  // Rebuilds the raw string from exec type, opcode and fields.
  std::string to_raw() const;
};

class Instruction {
 public:
  explicit Instruction(InstructionText text) : text_(std::move(text)) {}
  virtual ~Instruction() = default;
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  virtual void execute(ExecutionContext& ec) = 0;
  // Heavy-hitter name in -stats (the opcode; function calls override it with the function name).
  // The interpreter prefixes gpu_ when the instruction ran on the GPU (ExecutionContext::ran_on_gpu).
  virtual std::string stats_name() const { return text_.opcode; }
  // True when this instruction (for its operand kinds) has a GPU implementation that execute()
  // uses when ExecutionContext::gpu_for answers with a session (instructions/gpu_placement.h).
  virtual bool has_gpu_impl() const { return false; }
  // The plan lines this instruction stands for when a plan rewrite fused several into it
  // (instructions/fused_cellwise.h): -explain prints them in its place. Null otherwise.
  virtual const std::vector<std::unique_ptr<Instruction>>* parts() const { return nullptr; }

  const InstructionText& text() const { return text_; }
  const std::string& opcode() const { return text_.opcode; }
  ExecType exec_type() const { return text_.exec_type; }
  // "file:line: instruction 'raw'" — the prefix of every error raised while running this.
  std::string where() const;

 protected:
  size_t num_fields() const { return text_.fields.size(); }
  const std::string& field(size_t i) const;
  Operand operand(size_t i) const;
  // Throws ParseError "expected N..M fields, got K" naming the instruction.
  void expect_fields(size_t min, size_t max) const;
  void expect_fields(size_t n) const { expect_fields(n, n); }

 private:
  InstructionText text_;
};

using InstructionPtr = std::unique_ptr<Instruction>;

// Formats a shape for messages: "3x4".
std::string shape_of(const kernels::MatrixBlock& b);

}  // namespace dmlrt::inst
