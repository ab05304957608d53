// A parsed plan: functions and the main program as a tree of program blocks (SystemDS's GENERIC,
// IF, WHILE, FOR and PARFOR), each holding built instructions.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "instructions/instruction.h"

namespace dmlrt::runtime {

enum class BlockKind { kGeneric, kIf, kWhile, kFor, kParfor };

// A PARFOR's parameters as the plan's header gives them (Note [PARFOR parameters] in
// runtime/interpreter.cpp). dml2plan prints them only when SystemDS itself honours them (opt=NONE or
// opt=CONSTRAINED); otherwise the runtime decides, as SystemDS's rule-based optimizer does.
struct ParforParams {
  enum class Opt { kRuleBased, kNone, kConstrained };
  enum class Partitioner { kUnspecified, kFixed, kNaive, kStatic, kFactoring, kFactoringCmin,
                           kFactoringCmax };
  Opt opt = Opt::kRuleBased;
  int64_t par = -1;  // workers; <= 0: unspecified
  Partitioner partitioner = Partitioner::kUnspecified;
  int64_t task_size = -1;  // <= 0: unspecified
  std::string mode;          // LOCAL, REMOTE_SPARK, REMOTE_SPARK_DP, UNSPECIFIED or empty
  std::string result_merge;  // accepted and recorded: results are always merged in memory
};

struct Block;
using BlockPtr = std::unique_ptr<Block>;
using InstructionList = std::vector<inst::InstructionPtr>;

struct Block {
  BlockKind kind = BlockKind::kGeneric;
  std::string header;        // the header line as written, for messages and -explain
  inst::SourceLocation loc;  // where the header is
  InstructionList instructions;  // GENERIC: the body
  InstructionList predicate;     // IF, WHILE: writes __pred
  InstructionList from, to, incr;  // FOR, PARFOR: each writes __pred; incr may be empty
  std::string iter_var;            // FOR, PARFOR: [iter=...]
  ParforParams parfor;             // PARFOR: [opt=..., par=..., ...]
  std::vector<BlockPtr> body;       // IF: then-branch; loops: body
  std::vector<BlockPtr> else_body;  // IF: else-branch
  InstructionList exit_instructions;  // run once after the block (e.g. a packed rmvar)
};

struct Param {
  std::string name;
  inst::DataType data_type = inst::DataType::kMatrix;
  inst::ValueType value_type = inst::ValueType::kFP64;
};

struct Function {
  std::string key;  // "namespace::name", e.g. ".defaultNS::affine"
  std::vector<Param> inputs;
  std::vector<Param> outputs;
  std::vector<BlockPtr> body;
  inst::SourceLocation loc;
};

struct Program {
  std::string file;  // plan file name ("" for text)
  std::map<std::string, Function> functions;
  std::vector<BlockPtr> main;
};

}  // namespace dmlrt::runtime
