// The opcode table (each opcode names its instruction's constructor) and the placeholder-patching
// wrapper.
#include "instructions/opcode_table.h"

#include <algorithm>
#include <unordered_map>

#include "gpu_context/error.h"
#include "instructions/aggregate_instructions.h"
#include "instructions/append_instructions.h"
#include "instructions/binary_instructions.h"
#include "instructions/control_instructions.h"
#include "instructions/count_distinct_instructions.h"
#include "instructions/ctable_instructions.h"
#include "instructions/datagen_instructions.h"
#include "instructions/distribution_instructions.h"
#include "instructions/dnn_batchnorm_instructions.h"
#include "instructions/dnn_conv_instructions.h"
#include "instructions/dnn_lstm_instructions.h"
#include "instructions/dnn_pool_instructions.h"
#include "instructions/eigen_instruction.h"
#include "instructions/einsum_instruction.h"
#include "instructions/fft_instructions.h"
#include "instructions/function_call_instruction.h"
#include "instructions/indexing_instructions.h"
#include "instructions/linalg_instructions.h"
#include "instructions/list_instructions.h"
#include "instructions/paramserv_instruction.h"
#include "instructions/matmult_instructions.h"
#include "instructions/meta_instructions.h"
#include "instructions/nary_instructions.h"
#include "instructions/out_of_scope.h"
#include "instructions/parameterized_instructions.h"
#include "instructions/pmm_prefetch_instructions.h"
#include "instructions/printf_instruction.h"
#include "instructions/quaternary_instructions.h"
#include "instructions/reorg_instructions.h"
#include "instructions/solve_instruction.h"
#include "instructions/sort_instructions.h"
#include "instructions/sqrt_matrix_instruction.h"
#include "instructions/stats_instructions.h"
#include "instructions/ternary_instructions.h"
#include "instructions/uagg_outer_chain_instruction.h"
#include "instructions/unary_instructions.h"
#include "instructions/unique_instructions.h"
#include "instructions/union_instructions.h"
#include "instructions/variable_instructions.h"

namespace dmlrt::inst {
namespace {

// The instruction behind an opcode, built from its text.
template <typename I>
InstructionPtr construct(InstructionText text) {
  return std::make_unique<I>(std::move(text));
}

// Each opcode names its constructor; `true` marks opcodes with a GPU run for some operand kinds
// (OpcodeEntry::gpu).
const std::vector<OpcodeEntry> kTable = {
    // variables (variable_instructions.h)
    {"createvar", construct<CreateVarInstruction>, "variable"},
    {"rmvar", construct<RmVarInstruction>, "variable"},
    {"cpvar", construct<CpVarInstruction>, "variable"},
    {"prefetch", construct<PrefetchInstruction>, "variable"},
    {"mvvar", construct<MvVarInstruction>, "variable"},
    {"assignvar", construct<AssignVarInstruction>, "variable"},
    {"rmfilevar", construct<RmFileVarInstruction>, "variable"},
    {"write", construct<WriteInstruction>, "variable"},
    {"read", construct<ReadInstruction>, "variable"},
    {"setfilename", construct<SetFileNameInstruction>, "variable"},
    {"castdts", make_cast, "variable", true},  // a list input: list_instructions.h
    {"castdtm", make_cast, "variable"},
    {"castdtl", make_cast, "list"},
    {"castvtd", construct<CastInstruction>, "variable", true},
    {"castvti", construct<CastInstruction>, "variable", true},
    {"castvtb", construct<CastInstruction>, "variable", true},
    // control (control_instructions.h, function_call_instruction.h)
    {"print", construct<ControlInstruction>, "control"},
    {"stop", construct<ControlInstruction>, "control"},
    {"assert", construct<ControlInstruction>, "control"},
    {"printf", construct<PrintfInstruction>, "control"},
    {"fcall", construct<FunctionCallInstruction>, "function"},
    // lists and eval (list_instructions.h)
    {"list", construct<ListInstruction>, "list"},
    {"nvlist", construct<NamedListInstruction>, "list"},
    {"remove", construct<ListAppendRemoveInstruction>, "list"},
    {"paramserv", construct<ParamservInstruction>, "function"},
    {"eval", construct<EvalInstruction>, "function"},
    // data generation (datagen_instructions.h)
    {"rand", construct<RandInstruction>, "datagen", true},
    {"seq", construct<SeqInstruction>, "datagen", true},
    {"sinit", construct<StringInitInstruction>, "datagen"},
    {"sample", construct<SampleInstruction>, "datagen", true},
    // matrix multiply (matmult_instructions.h)
    {"ba+*", construct<MatMultInstruction>, "matmult", true},
    {"tsmm", construct<TsmmInstruction>, "matmult", true},
    {"pmm", construct<PmmInstruction>, "matmult", true},
    {"mmchain", construct<MMChainInstruction>, "matmult", true},
    // cell-wise binary (binary_instructions.h)
    {"+", construct<BinaryInstruction>, "binary", true},
    {"-", construct<BinaryInstruction>, "binary", true},
    {"*", construct<BinaryInstruction>, "binary", true},
    {"/", construct<BinaryInstruction>, "binary", true},
    {"^", construct<BinaryInstruction>, "binary", true},
    {"%%", construct<BinaryInstruction>, "binary", true},
    {"%/%", construct<BinaryInstruction>, "binary", true},
    {"==", construct<BinaryInstruction>, "binary", true},
    {"!=", construct<BinaryInstruction>, "binary", true},
    {"<", construct<BinaryInstruction>, "binary", true},
    {">", construct<BinaryInstruction>, "binary", true},
    {"<=", construct<BinaryInstruction>, "binary", true},
    {">=", construct<BinaryInstruction>, "binary", true},
    {"&&", construct<BinaryInstruction>, "binary", true},
    {"||", construct<BinaryInstruction>, "binary", true},
    {"min", construct<BinaryInstruction>, "binary", true},
    {"max", construct<BinaryInstruction>, "binary", true},
    {"1-*", construct<BinaryInstruction>, "binary", true},
    {"-nz", construct<BinaryInstruction>, "binary", true},
    {"xor", construct<BinaryInstruction>, "binary", true},
    {"bitwand", construct<BinaryInstruction>, "binary", true},
    {"bitwor", construct<BinaryInstruction>, "binary", true},
    {"bitwxor", construct<BinaryInstruction>, "binary", true},
    {"bitwshiftl", construct<BinaryInstruction>, "binary", true},
    {"bitwshiftr", construct<BinaryInstruction>, "binary", true},
    // n-ary cell-wise: chains of + and *, min/max of 3+ arguments (nary_instructions.h)
    {"n+", construct<NaryInstruction>, "nary", true},
    {"n*", construct<NaryInstruction>, "nary", true},
    {"nmin", construct<NaryInstruction>, "nary", true},
    {"nmax", construct<NaryInstruction>, "nary", true},
    // quaternary (quaternary_instructions.h)
    {"wsloss", construct<QuaternaryInstruction>, "quaternary", true},
    {"wdivmm", construct<QuaternaryInstruction>, "quaternary", true},
    {"wcemm", construct<QuaternaryInstruction>, "quaternary", true},
    {"wsigmoid", construct<QuaternaryInstruction>, "quaternary", true},
    {"wumm", construct<QuaternaryInstruction>, "quaternary", true},
    // ternary (ternary_instructions.h)
    {"ifelse", construct<TernaryInstruction>, "ternary", true},
    {"+*", construct<TernaryInstruction>, "ternary", true},
    {"-*", construct<TernaryInstruction>, "ternary", true},
    // unary builtins (unary_instructions.h); log with a base is another class, picked by form
    {"exp", construct<UnaryInstruction>, "unary", true},
    {"log", UnaryInstruction::make, "unary", true},
    {"abs", construct<UnaryInstruction>, "unary", true},
    {"sqrt", construct<UnaryInstruction>, "unary", true},
    {"round", construct<UnaryInstruction>, "unary", true},
    {"floor", construct<UnaryInstruction>, "unary", true},
    {"ceil", construct<UnaryInstruction>, "unary", true},
    {"sin", construct<UnaryInstruction>, "unary", true},
    {"cos", construct<UnaryInstruction>, "unary", true},
    {"tan", construct<UnaryInstruction>, "unary", true},
    {"sinh", construct<UnaryInstruction>, "unary", true},
    {"cosh", construct<UnaryInstruction>, "unary", true},
    {"tanh", construct<UnaryInstruction>, "unary", true},
    {"asin", construct<UnaryInstruction>, "unary", true},
    {"acos", construct<UnaryInstruction>, "unary", true},
    {"atan", construct<UnaryInstruction>, "unary", true},
    {"sign", construct<UnaryInstruction>, "unary", true},
    {"sigmoid", construct<UnaryInstruction>, "unary", true},
    {"!", construct<UnaryInstruction>, "unary", true},
    {"^2", construct<UnaryInstruction>, "unary", true},
    {"*2", construct<UnaryInstruction>, "unary", true},
    {"ucumk+", construct<UnaryInstruction>, "unary", true},
    {"ucum*", construct<UnaryInstruction>, "unary", true},
    {"ucummin", construct<UnaryInstruction>, "unary", true},
    {"ucummax", construct<UnaryInstruction>, "unary", true},
    {"ucumk+*", construct<UnaryInstruction>, "unary", true},
    {"softmax", construct<UnaryInstruction>, "unary", true},
    {"isnan", construct<UnaryInstruction>, "unary", true},
    {"isinf", construct<UnaryInstruction>, "unary", true},
    {"sprop", construct<UnaryInstruction>, "unary", true},
    {"isna", construct<UnaryInstruction>, "unary", true},
    {"plogp", construct<UnaryInstruction>, "unary", true},
    {"log_nz", construct<UnaryInstruction>, "unary", true},
    {"urowcumk+", construct<UnaryInstruction>, "unary", true},
    // aggregates (aggregate_instructions.h)
    {"ua+", construct<AggregateInstruction>, "aggregate", true},
    {"uak+", construct<AggregateInstruction>, "aggregate", true},
    {"uar+", construct<AggregateInstruction>, "aggregate", true},
    {"uark+", construct<AggregateInstruction>, "aggregate", true},
    {"uac+", construct<AggregateInstruction>, "aggregate", true},
    {"uack+", construct<AggregateInstruction>, "aggregate", true},
    {"ua*", construct<AggregateInstruction>, "aggregate", true},
    {"uar*", construct<AggregateInstruction>, "aggregate", true},
    {"uac*", construct<AggregateInstruction>, "aggregate", true},
    {"uamean", construct<AggregateInstruction>, "aggregate", true},
    {"uarmean", construct<AggregateInstruction>, "aggregate", true},
    {"uacmean", construct<AggregateInstruction>, "aggregate", true},
    {"uamax", construct<AggregateInstruction>, "aggregate", true},
    {"uarmax", construct<AggregateInstruction>, "aggregate", true},
    {"uacmax", construct<AggregateInstruction>, "aggregate", true},
    {"uamin", construct<AggregateInstruction>, "aggregate", true},
    {"uarmin", construct<AggregateInstruction>, "aggregate", true},
    {"uacmin", construct<AggregateInstruction>, "aggregate", true},
    {"uasqk+", construct<AggregateInstruction>, "aggregate", true},
    {"uarsqk+", construct<AggregateInstruction>, "aggregate", true},
    {"uacsqk+", construct<AggregateInstruction>, "aggregate", true},
    {"uavar", construct<AggregateInstruction>, "aggregate", true},
    {"uarvar", construct<AggregateInstruction>, "aggregate", true},
    {"uacvar", construct<AggregateInstruction>, "aggregate", true},
    {"uarimax", construct<AggregateInstruction>, "aggregate", true},
    {"uarimin", construct<AggregateInstruction>, "aggregate", true},
    {"uatrace", construct<AggregateInstruction>, "aggregate", true},
    {"uaktrace", construct<AggregateInstruction>, "aggregate", true},
    {"nrow", construct<DimsInstruction>, "aggregate"},
    {"ncol", construct<DimsInstruction>, "aggregate"},
    {"length", make_length, "aggregate"},  // of a list: list_instructions.h
    // reorg (reorg_instructions.h)
    {"r'", construct<TransposeInstruction>, "reorg", true},
    {"rshape", construct<ReshapeInstruction>, "reorg", true},
    {"rdiag", construct<DiagInstruction>, "reorg", true},
    {"rev", construct<ReverseInstruction>, "reorg", true},
    {"roll", construct<RollInstruction>, "reorg", true},
    {"time", construct<TimeInstruction>, "meta"},
    {"exists", construct<ExistsInstruction>, "meta"},
    // indexing (indexing_instructions.h)
    {"rightindex", make_right_index, "indexing", true},  // on a list: list_instructions.h
    {"leftindex", make_left_index, "indexing", true},
    // append (append_instructions.h)
    {"append", make_append, "append", true},  // to a list: list_instructions.h
    {"cbind", construct<AppendInstruction>, "append", true},
    {"rbind", construct<AppendInstruction>, "append", true},
    // linear algebra (solve_instruction.h, eigen_instruction.h)
    {"solve", construct<SolveInstruction>, "solve", true},
    {"eigen", construct<EigenInstruction>, "eigen", true},
    // LAPACK linear algebra (linalg_instructions.h)
    {"inverse", construct<LinalgInstruction>, "linalg", true},
    {"cholesky", construct<LinalgInstruction>, "linalg", true},
    {"sqrt_matrix_java", construct<SqrtMatrixInstruction>, "linalg", true},
    {"einsum", construct<EinsumInstruction>, "linalg", true},
    {"det", construct<LinalgInstruction>, "linalg", true},
    {"lu", construct<LinalgInstruction>, "linalg", true},
    {"qr", construct<LinalgInstruction>, "linalg", true},
    {"svd", construct<LinalgInstruction>, "linalg", true},
    // FFTs (FFTW / cuFFT) and rowClassMeet (fft_instructions.h)
    {"fft", construct<FftInstruction>, "fft", true},
    {"ifft", construct<FftInstruction>, "fft", true},
    {"fft_linearized", construct<FftInstruction>, "fft", true},
    {"ifft_linearized", construct<FftInstruction>, "fft", true},
    {"stft", construct<FftInstruction>, "fft", true},
    {"rcm", construct<RowClassMeetInstruction>, "fft", true},
    // parameterized builtins (parameterized_instructions.h), table() (ctable_instructions.h)
    {"replace", construct<ParameterizedInstruction>, "parameterized", true},
    {"contains", construct<ParameterizedInstruction>, "parameterized", true},
    {"rexpand", construct<ParameterizedInstruction>, "parameterized", true},
    {"groupedagg", construct<ParameterizedInstruction>, "parameterized", true},
    {"tostring", make_to_string, "parameterized"},  // matrix or list target
    {"cdf", construct<DistributionInstruction>, "parameterized"},
    {"invcdf", construct<DistributionInstruction>, "parameterized"},
    {"lowertri", construct<ParameterizedInstruction>, "parameterized", true},
    {"uppertri", construct<ParameterizedInstruction>, "parameterized", true},
    {"rmempty", construct<ParameterizedInstruction>, "parameterized", true},
    {"ctable", construct<CtableInstruction>, "ctable", true},
    {"ctableexpand", construct<CtableInstruction>, "ctable", true},
    // sorting and order statistics (sort_instructions.h), statistics (stats_instructions.h)
    {"rsort", construct<RsortInstruction>, "sort", true},
    {"qsort", construct<QsortInstruction>, "sort", true},
    {"qpick", construct<QpickInstruction>, "sort", true},
    {"unique", construct<UniqueInstruction>, "unique", true},
    {"union_distinct", construct<UnionDistinctInstruction>, "unique", true},  // union_instructions.h
    {"uniquer", construct<UniqueInstruction>, "unique", true},
    {"uniquec", construct<UniqueInstruction>, "unique", true},
    {"uacd", construct<CountDistinctInstruction>, "count_distinct", true},
    {"uacdr", construct<CountDistinctInstruction>, "count_distinct", true},
    {"uacdc", construct<CountDistinctInstruction>, "count_distinct", true},
    {"uacdap", construct<CountDistinctInstruction>, "count_distinct", true},
    {"uacdapr", construct<CountDistinctInstruction>, "count_distinct", true},
    {"uacdapc", construct<CountDistinctInstruction>, "count_distinct", true},
    {"uaggouterchain", construct<UaggOuterChainInstruction>, "aggregate", true},
    {"cov", construct<CovInstruction>, "stats", true},
    {"cm", construct<CentralMomentInstruction>, "stats", true},
    {"tak+*", construct<TernaryAggInstruction>, "stats", true},
    {"tack+*", construct<TernaryAggInstruction>, "stats", true},
    // DNN (dnn_conv_instructions.h, dnn_pool_instructions.h, dnn_batchnorm_instructions.h, dnn_lstm_instructions.h)
    {"conv2d", construct<Conv2dInstruction>, "dnn", true},
    {"conv2d_bias_add", construct<Conv2dInstruction>, "dnn", true},
    {"conv2d_backward_filter", construct<Conv2dInstruction>, "dnn", true},
    {"conv2d_backward_data", construct<Conv2dInstruction>, "dnn", true},
    {"maxpooling", construct<PoolInstruction>, "dnn", true},
    {"maxpooling_backward", construct<PoolInstruction>, "dnn", true},
    {"avgpooling", construct<PoolInstruction>, "dnn", true},
    {"avgpooling_backward", construct<PoolInstruction>, "dnn", true},
    {"relu_maxpooling", construct<PoolInstruction>, "dnn", true},
    {"relu_maxpooling_backward", construct<PoolInstruction>, "dnn", true},
    {"relu_backward", construct<BinaryDnnInstruction>, "dnn", true},
    {"bias_add", construct<BinaryDnnInstruction>, "dnn", true},
    {"bias_multiply", construct<BinaryDnnInstruction>, "dnn", true},
    {"channel_sums", construct<ChannelSumsInstruction>, "dnn", true},
    {"batch_norm2d", construct<BatchNormForwardInstruction>, "dnn", true},
    {"batch_norm2d_test", construct<BatchNormForwardInstruction>, "dnn", true},
    {"batch_norm2d_train", construct<BatchNormForwardInstruction>, "dnn", true},
    {"batch_norm2d_backward", construct<BatchNormBackwardInstruction>, "dnn", true},
    {"lstm", construct<LstmInstruction>, "dnn", true},
    {"lstm_backward", construct<LstmInstruction>, "dnn", true},
    {"update_nesterov_x", construct<NesterovInstruction>, "dnn", true},
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
// then builds the real instruction (SystemDS's instruction patching), which the base class runs
// through the whole life cycle under this one's -stats name.
class PatchedInstruction final : public Instruction {
 public:
  explicit PatchedInstruction(InstructionText text) : Instruction(std::move(text)) {}

 private:
  Instruction& target(ExecutionContext& ec, InstructionPtr& built) override {
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
      if (const auto* s = std::get_if<ScalarValue>(&v))
        out += s->to_string();
      else if (const auto* m = std::get_if<std::shared_ptr<MatrixObject>>(&v))
        out += (*m)->file_name();
      else
        DMLRT_FAIL(RuntimeError, where() << ": placeholder ¶" << name << "¶ names a list");
      pos = b + mark.size();
    }
    // Built for this run only (a recursive function may reach this line again while it runs); a
    // substituted value that itself holds ¶name¶ gives another wrapper, patched in its turn.
    built = make_instruction(InstructionText::parse(out, text().loc));
    return *built;
  }

  void run_cpu(ExecutionContext&) override {
    DMLRT_FAIL(Error, where() << ": internal: a placeholder line runs its patched instruction");
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
  if (e == nullptr) {
    if (const OutOfScopeOpcode* out = find_out_of_scope(text.opcode)) {
      if (std::string(out->reason) == "frame")  // Note [Frames in plans]
        DMLRT_FAIL(FramesNotSupported, where() << ": " << out_of_scope_message(*out));
      DMLRT_FAIL(ParseError, where() << ": " << out_of_scope_message(*out));
    }
    DMLRT_FAIL(ParseError, where() << ": unknown opcode '" << text.opcode << "'");
  }
  if (text.raw.find(kPlaceholder) != std::string::npos)
    return std::make_unique<PatchedInstruction>(std::move(text));
  return e->factory(std::move(text));
}

}  // namespace dmlrt::inst
