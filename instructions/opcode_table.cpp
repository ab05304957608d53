// The opcode table and the placeholder-patching wrapper.
#include "instructions/opcode_table.h"

#include <algorithm>
#include <unordered_map>

#include "gpu_context/error.h"
#include "instructions/families.h"

namespace dmlrt::inst {
namespace {

const std::vector<OpcodeEntry> kTable = {
    // variables
    {"createvar", make_variable, "variable"},
    {"rmvar", make_variable, "variable"},
    {"cpvar", make_variable, "variable"},
    {"mvvar", make_variable, "variable"},
    {"assignvar", make_variable, "variable"},
    {"rmfilevar", make_variable, "variable"},
    {"write", make_variable, "variable"},
    {"read", make_variable, "variable"},
    {"setfilename", make_variable, "variable"},
    {"castdts", make_variable, "variable"},
    {"castdtm", make_variable, "variable"},
    {"castvtd", make_variable, "variable"},
    {"castvti", make_variable, "variable"},
    {"castvtb", make_variable, "variable"},
    // control
    {"print", make_control, "control"},
    {"stop", make_control, "control"},
    {"assert", make_control, "control"},
    {"fcall", make_function_call, "function"},
    // data generation
    {"rand", make_datagen, "datagen"},
    {"seq", make_datagen, "datagen"},
    // matrix multiply
    {"ba+*", make_matmult, "matmult"},
    {"tsmm", make_matmult, "matmult"},
    {"mmchain", make_matmult, "matmult"},
    // cell-wise binary
    {"+", make_binary, "binary"},
    {"-", make_binary, "binary"},
    {"*", make_binary, "binary"},
    {"/", make_binary, "binary"},
    {"^", make_binary, "binary"},
    {"%%", make_binary, "binary"},
    {"%/%", make_binary, "binary"},
    {"==", make_binary, "binary"},
    {"!=", make_binary, "binary"},
    {"<", make_binary, "binary"},
    {">", make_binary, "binary"},
    {"<=", make_binary, "binary"},
    {">=", make_binary, "binary"},
    {"&&", make_binary, "binary"},
    {"||", make_binary, "binary"},
    {"min", make_binary, "binary"},
    {"max", make_binary, "binary"},
    {"1-*", make_binary, "binary"},
    {"-nz", make_binary, "binary"},
    {"xor", make_binary, "binary"},
    // n-ary cell-wise (chains of + and *, min/max of 3+ arguments)
    {"n+", make_nary, "nary"},
    {"n*", make_nary, "nary"},
    {"nmin", make_nary, "nary"},
    {"nmax", make_nary, "nary"},
    // ternary
    {"ifelse", make_ternary, "ternary"},
    {"+*", make_ternary, "ternary"},
    {"-*", make_ternary, "ternary"},
    // unary builtins
    {"exp", make_unary, "unary"},
    {"log", make_unary, "unary"},
    {"abs", make_unary, "unary"},
    {"sqrt", make_unary, "unary"},
    {"round", make_unary, "unary"},
    {"floor", make_unary, "unary"},
    {"ceil", make_unary, "unary"},
    {"sin", make_unary, "unary"},
    {"cos", make_unary, "unary"},
    {"tan", make_unary, "unary"},
    {"sinh", make_unary, "unary"},
    {"cosh", make_unary, "unary"},
    {"tanh", make_unary, "unary"},
    {"asin", make_unary, "unary"},
    {"acos", make_unary, "unary"},
    {"atan", make_unary, "unary"},
    {"sign", make_unary, "unary"},
    {"sigmoid", make_unary, "unary"},
    {"!", make_unary, "unary"},
    {"^2", make_unary, "unary"},
    {"*2", make_unary, "unary"},
    {"ucumk+", make_unary, "unary"},
    {"ucum*", make_unary, "unary"},
    {"ucummin", make_unary, "unary"},
    {"ucummax", make_unary, "unary"},
    {"ucumk+*", make_unary, "unary"},
    {"softmax", make_unary, "unary"},
    {"isnan", make_unary, "unary"},
    {"urowcumk+", make_unary, "unary"},
    // aggregates
    {"ua+", make_aggregate, "aggregate"},
    {"uak+", make_aggregate, "aggregate"},
    {"uar+", make_aggregate, "aggregate"},
    {"uark+", make_aggregate, "aggregate"},
    {"uac+", make_aggregate, "aggregate"},
    {"uack+", make_aggregate, "aggregate"},
    {"ua*", make_aggregate, "aggregate"},
    {"uar*", make_aggregate, "aggregate"},
    {"uac*", make_aggregate, "aggregate"},
    {"uamean", make_aggregate, "aggregate"},
    {"uarmean", make_aggregate, "aggregate"},
    {"uacmean", make_aggregate, "aggregate"},
    {"uamax", make_aggregate, "aggregate"},
    {"uarmax", make_aggregate, "aggregate"},
    {"uacmax", make_aggregate, "aggregate"},
    {"uamin", make_aggregate, "aggregate"},
    {"uarmin", make_aggregate, "aggregate"},
    {"uacmin", make_aggregate, "aggregate"},
    {"uasqk+", make_aggregate, "aggregate"},
    {"uarsqk+", make_aggregate, "aggregate"},
    {"uacsqk+", make_aggregate, "aggregate"},
    {"uavar", make_aggregate, "aggregate"},
    {"uarvar", make_aggregate, "aggregate"},
    {"uacvar", make_aggregate, "aggregate"},
    {"uarimax", make_aggregate, "aggregate"},
    {"uarimin", make_aggregate, "aggregate"},
    {"nrow", make_aggregate, "aggregate"},
    {"ncol", make_aggregate, "aggregate"},
    {"length", make_aggregate, "aggregate"},
    // reorg
    {"r'", make_reorg, "reorg"},
    {"rshape", make_reorg, "reorg"},
    {"rdiag", make_reorg, "reorg"},
    {"rev", make_reorg, "reorg"},
    // indexing
    {"rightindex", make_indexing, "indexing"},
    {"leftindex", make_indexing, "indexing"},
    // append
    {"append", make_append, "append"},
    {"cbind", make_append, "append"},
    {"rbind", make_append, "append"},
    // linear algebra
    {"solve", make_solve, "solve"},
    // parameterized builtins, table(), sorting and order statistics, eigen, statistics
    {"replace", make_parameterized, "parameterized"},
    {"contains", make_parameterized, "parameterized"},
    {"rexpand", make_parameterized, "parameterized"},
    {"groupedagg", make_parameterized, "parameterized"},
    {"tostring", make_parameterized, "parameterized"},
    {"ctable", make_ctable, "ctable"},
    {"ctableexpand", make_ctable, "ctable"},
    {"rsort", make_sort, "sort"},
    {"qsort", make_sort, "sort"},
    {"qpick", make_sort, "sort"},
    {"eigen", make_eigen, "eigen"},
    {"cov", make_stats, "stats"},
    {"cm", make_stats, "stats"},
    {"tak+*", make_stats, "stats"},
    {"tack+*", make_stats, "stats"},
    // DNN
    {"conv2d", make_dnn, "dnn"},
    {"conv2d_bias_add", make_dnn, "dnn"},
    {"conv2d_backward_filter", make_dnn, "dnn"},
    {"conv2d_backward_data", make_dnn, "dnn"},
    {"maxpooling", make_dnn, "dnn"},
    {"maxpooling_backward", make_dnn, "dnn"},
    {"avgpooling", make_dnn, "dnn"},
    {"avgpooling_backward", make_dnn, "dnn"},
    {"relu_maxpooling", make_dnn, "dnn"},
    {"relu_maxpooling_backward", make_dnn, "dnn"},
    {"relu_backward", make_dnn, "dnn"},
    {"bias_add", make_dnn, "dnn"},
    {"bias_multiply", make_dnn, "dnn"},
    {"channel_sums", make_dnn, "dnn"},
    {"batch_norm2d", make_dnn, "dnn"},
    {"batch_norm2d_backward", make_dnn, "dnn"},
    {"batch_norm2d_test", make_dnn, "dnn"},
    {"batch_norm2d_train", make_dnn, "dnn"},
    {"lstm", make_dnn, "dnn"},
    {"lstm_backward", make_dnn, "dnn"},
    {"update_nesterov_x", make_dnn, "dnn"},
};

const std::unordered_map<std::string, const OpcodeEntry*>& index() {
  static const auto* idx = [] {
    auto* m = new std::unordered_map<std::string, const OpcodeEntry*>();
    for (const auto& e : kTable) (*m)[e.opcode] = &e;
    return m;
  }();
  return *idx;
}

// Substitutes ¶name¶ by the current value of scalar `name` (or the file name of matrix `name`),
// then builds and runs the real instruction (SystemDS's instruction patching).
class PatchedInstruction final : public Instruction {
 public:
  explicit PatchedInstruction(InstructionText text) : Instruction(std::move(text)) {}

  void execute(ExecutionContext& ec) override {
    const std::string& raw = text().to_raw();
    const std::string mark = kPlaceholder;
    std::string out;
    size_t pos = 0;
    while (true) {
      const size_t a = raw.find(mark, pos);
      if (a == std::string::npos) {
        out += raw.substr(pos);
        break;
      }
      const size_t b = raw.find(mark, a + mark.size());
      DMLRT_REQUIRE(b != std::string::npos, ParseError,
                    "unterminated ¶name¶ placeholder");
      out += raw.substr(pos, a - pos);
      const std::string name = raw.substr(a + mark.size(), b - a - mark.size());
      const Value& v = ec.at(name);
      if (const auto* s = std::get_if<ScalarValue>(&v)) out += s->to_string();
      else out += std::get<std::shared_ptr<MatrixObject>>(v)->file_name();
      pos = b + mark.size();
    }
    InstructionText patched = InstructionText::parse(out, text().loc);
    InstructionPtr inst = make_instruction(std::move(patched));
    inst->execute(ec);
  }
};

}  // namespace

const OpcodeEntry* find_opcode(const std::string& opcode) {
  auto it = index().find(opcode);
  return it == index().end() ? nullptr : it->second;
}

const std::vector<OpcodeEntry>& opcode_table() { return kTable; }

InstructionPtr make_instruction(InstructionText text) {
  auto where = [&] {
    std::string s;
    if (!text.loc.file.empty()) s += text.loc.file + ":";
    if (text.loc.line > 0) s += std::to_string(text.loc.line) + ":";
    if (!s.empty()) s += " ";
    return s + "instruction '" + text.raw + "'";
  };
  switch (text.exec_type) {
    case ExecType::kSpark:
    case ExecType::kFed:
    case ExecType::kOOC:
      DMLRT_FAIL(ParseError, where() << ": " << name_of(text.exec_type)
                                     << " instructions are not supported; compile the script "
                                        "with -exec singlenode");
    default:
      break;
  }
  const OpcodeEntry* e = find_opcode(text.opcode);
  DMLRT_REQUIRE(e != nullptr, ParseError, where() << ": unknown opcode '" << text.opcode << "'");
  if (text.raw.find(kPlaceholder) != std::string::npos)
    return std::make_unique<PatchedInstruction>(std::move(text));
  return e->factory(std::move(text));
}

}  // namespace dmlrt::inst
