// Variable instructions: createvar rmvar cpvar mvvar assignvar rmfilevar write read setfilename and
// the casts castdts castdtm castvtd castvti castvtb, with SystemDS's operand layouts
// (reference/systemds-format.md §1.6). They bind names, move files and convert values: CPU only.
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

// createvar name file override DATATYPE format rows cols blen nnz update [format extras]
class CreateVarInstruction final : public Instruction {
 public:
  explicit CreateVarInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::string name_, file_;
  bool override_ = true;
  MatrixMeta meta_;
  FileFormat fmt_;
};

// rmvar n1 n2 ...: unbind; the data is freed when no other name refers to it.
class RmVarInstruction final : public Instruction {
 public:
  explicit RmVarInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::vector<std::string> names_;
};

// cpvar src dst: dst aliases src's value.
class CpVarInstruction final : public Instruction {
 public:
  explicit CpVarInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::string src_, dst_;
};

// mvvar src dst (rename) | mvvar src file format (write src to file).
class MvVarInstruction final : public Instruction {
 public:
  explicit MvVarInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::string src_, dst_, format_;
};

// assignvar in out: scalar copy (converted to the output's value type).
class AssignVarInstruction final : public Instruction {
 public:
  explicit AssignVarInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

// rmfilevar v flag: SystemDS deletes the variable's file when flag is true. dmlrt writes no
// scratch files, so only the binding goes.
class RmFileVarInstruction final : public Instruction {
 public:
  explicit RmFileVarInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::string name_;
};

// write X fname fmt [csv: header delim sparse] description blen
class WriteInstruction final : public Instruction {
 public:
  explicit WriteInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, fname_, fmt_;
  std::string csv_header_, csv_delim_, csv_sparse_;
  size_t desc_field_ = 0;
};

// read x fname: reads a scalar from a file.
class ReadInstruction final : public Instruction {
 public:
  explicit ReadInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand out_, fname_;
};

// setfilename var fname remote|local
class SetFileNameInstruction final : public Instruction {
 public:
  explicit SetFileNameInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand var_, fname_;
};

// castdts castdtm castvtd castvti castvtb: in out [k]. castdtm makes a 1x1 matrix of a scalar (a
// matrix passes through); the others read a scalar or a 1x1 matrix's cell and convert it.
class CastInstruction final : public Instruction {
 public:
  explicit CastInstruction(InstructionText t);

  // The scalar casts of a matrix need a 1x1 matrix.
  void check(Shapes& shapes) const override;

  // The scalar casts of a matrix: a 1x1 matrix that lives on the device only is read there, one
  // element, never copied to the host as a block (variable_gpu.cpp).
  bool has_gpu_impl() const override { return in_.is_matrix() && to_ != To::kMatrix; }
  // Capturable when the 1x1 lives on the device only (dense): its cell is a deferred scalar.
  bool graph_safe(ExecutionContext& ec) const override;

 private:
  int64_t device_bytes(ExecutionContext& ec) const override;
  void run_cpu(ExecutionContext& ec) override;
  DMLRT_RUN_GPU;
  // Binds the output: `v` (the cell or the scalar input) converted to the cast's type.
  void set_result(ExecutionContext& ec, ScalarValue v) const;

  enum class To { kMatrix, kScalar, kDouble, kInt, kBool };
  To to_ = To::kScalar;
  Operand in_, out_;
};

}  // namespace dmlrt::inst
