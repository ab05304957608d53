// DML lists (Note [List values] in execution_context.h) and eval: list, nvlist, rightIndex /
// leftIndex / append / length / castdts / castdtm / toString of a list, remove, castdtl, and eval
// (call a function by name). SystemDS layouts and semantics; CPU only. Opcodes shared with matrix
// forms go through the make_* factories, which pick the list class by the first operand's data
// type (as SystemDS does when it parses the line) and otherwise build the matrix (or string) class.
#pragma once

#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::inst {

InstructionPtr make_right_index(InstructionText t);
InstructionPtr make_left_index(InstructionText t);
InstructionPtr make_append(InstructionText t);
InstructionPtr make_length(InstructionText t);
InstructionPtr make_cast(InstructionText t);  // castdts, castdtm, castdtl
InstructionPtr make_to_string(InstructionText t);

// list°in1°...°inN°out: an unnamed list of the inputs (matrices, scalars, lists).
class ListInstruction final : public Instruction {
 public:
  explicit ListInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::vector<Operand> inputs_;
  Operand out_;
};

// nvlist°name1=value1°...°out: a named list. A value is the variable of that name when one is
// bound, else a literal: true/false (any case) a boolean, an integer an INT64, anything else a
// string (SystemDS's ScalarObjectFactory, so 3.5 becomes the string "3.5").
class NamedListInstruction final : public Instruction {
 public:
  explicit NamedListInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  std::vector<std::string> names_, values_;
  Operand out_;
};

// rightIndex°L·LIST°rl°ru°cl°cu°out: the sub-list of entries rl..ru (1-based, inclusive), or
// between the entries named rl and ru when either is a string; always a list (L[2] is a list of
// one entry: as.matrix / as.scalar take the entry out). cl and cu are ignored.
class ListIndexInstruction final : public Instruction {
 public:
  explicit ListIndexInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, rl_, ru_, out_;
};

// leftIndex°L·LIST°rhs°rl°ru°cl°cu°out: a copy of L with entry rl (a position or a name) set to
// the scalar or matrix rhs, or with entries rl..ru replaced by the entries of the list rhs (of
// length ru-rl+1; replacing all of L also takes rhs's names).
class ListLeftIndexInstruction final : public Instruction {
 public:
  explicit ListLeftIndexInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, rhs_, rl_, ru_, out_;
};

// append°L·LIST°x°offset°out°flag: a copy of the unnamed list L with x added at the end;
// remove°L·LIST°pos°out°removed: L without entry pos, and a list of that one entry.
class ListAppendRemoveInstruction final : public Instruction {
 public:
  explicit ListAppendRemoveInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  bool remove_ = false;
  Operand in_, arg_;
  std::string out_, removed_;
};

// castdts / castdtm of a list (as.scalar(L[i]), as.matrix(L[i])) and castdtl (as.list):
//   castdts: the first entry, which must be a scalar;
//   castdtm: a list of one matrix gives that matrix, of one number a 1x1 matrix, of several
//            scalars an n x 1 column;
//   castdtl: a list holding exactly one list gives that inner list, any other list itself.
class ListCastInstruction final : public Instruction {
 public:
  explicit ListCastInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

// length°L·LIST°out: the number of entries.
class ListLengthInstruction final : public Instruction {
 public:
  explicit ListLengthInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand in_, out_;
};

// toString°target=X°...°out (print(L) compiles to it too): the target's kind is known only at run
// time (a bare name), so this wrapper formats a list itself, as SystemDS's DataConverter does
// ("List containing:\n[" entries "]", a matrix entry as "\nMatrix:\n" + toString(matrix) with
// the same rows/cols/decimal/sep/linesep), and hands any other target to the matrix form.
class ToStringInstruction final : public Instruction {
 public:
  explicit ToStringInstruction(InstructionText t);

 private:
  Instruction& target(ExecutionContext& ec, InstructionPtr& built) override;
  void run_cpu(ExecutionContext& ec) override;

  std::vector<std::pair<std::string, std::string>> params_;
  Operand out_;
  InstructionPtr matrix_form_;
};

// eval°fname·STRING°arg1°...°out: calls the function named by the string fname (Note [eval]
// in list_instructions.cpp has the lookup and how a single list argument is spread).
class EvalInstruction final : public Instruction {
 public:
  explicit EvalInstruction(InstructionText t);

 private:
  void run_cpu(ExecutionContext& ec) override;

  Operand fname_;
  std::vector<Operand> args_;
  Operand out_;
};

}  // namespace dmlrt::inst
