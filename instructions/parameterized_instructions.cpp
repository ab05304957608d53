// Parameterized builtins: parsing, groupedagg's shape rule and CPU run
// (parameterized_instructions.h).
#include "instructions/parameterized_instructions.h"

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

// A matrix parameter (`target=X`) as the operand check() asks the dims of.
Operand matrix_param(const std::string& name) {
  Operand o;
  o.name = name;
  o.data_type = DataType::kMatrix;
  return o;
}

}  // namespace

ParameterizedInstruction::ParameterizedInstruction(InstructionText t) : Instruction(std::move(t)) {
  const std::string& op = opcode();
  if (op == "replace")
    kind_ = Kind::kReplace;
  else if (op == "contains")
    kind_ = Kind::kContains;
  else if (op == "rexpand")
    kind_ = Kind::kRexpand;
  else if (op == "groupedagg")
    kind_ = Kind::kGroupedAgg;
  else if (op == "tostring")
    kind_ = Kind::kToString;
  else if (op == "lowertri" || op == "uppertri")
    kind_ = Kind::kTriangle;
  else if (op == "rmempty")
    kind_ = Kind::kRmEmpty;
  else
    DMLRT_FAIL(NotSupported, "parameterized builtin '" << op << "' is not supported");
  DMLRT_REQUIRE(num_fields() >= 2, ParseError,
                where() << ": " << opcode() << " expects name=value fields and an output");
  params_ = named_fields(0, num_fields() - 1);
  out_ = operand(num_fields() - 1);
  require("target");
  switch (kind_) {
    case Kind::kReplace:
      require("pattern");
      require("replacement");
      break;
    case Kind::kContains:
      require("pattern");
      break;
    case Kind::kRexpand: {
      require("max");
      require("dir");
      const std::string& dir = params_.at("dir");
      DMLRT_REQUIRE(dir == "rows" || dir == "cols", ParseError,
                    where() << ": rexpand: dir must be 'rows' or 'cols', got '" << dir << "'");
      break;
    }
    case Kind::kGroupedAgg:
      require("groups");
      require("fn");
      DMLRT_REQUIRE(cpu::group_agg_fn_from_name(params_.at("fn"), &fn_), NotSupported,
                    where() << ": groupedagg: unsupported fn '" << params_.at("fn")
                            << "' (sum, count, mean, variance, centralmoment, min, max)");
      if (fn_ == cpu::GroupAggFn::kCentralMoment) require("order");
      break;
    case Kind::kRmEmpty: {
      require("margin");
      const std::string& margin = params_.at("margin");
      DMLRT_REQUIRE(
          margin == "rows" || margin == "cols", ParseError,
          where() << ": rmempty: margin must be 'rows' or 'cols', got '" << margin << "'");
      break;
    }
    case Kind::kToString:
    // diag and values default to false, as SystemDS's Boolean.parseBoolean of a missing value.
    case Kind::kTriangle:
      break;
  }
  const bool scalar_out = kind_ == Kind::kContains || kind_ == Kind::kToString;
  DMLRT_REQUIRE(scalar_out ? out_.is_scalar() : out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " output must be a "
                        << (scalar_out ? "SCALAR" : "MATRIX") << ", got "
                        << name_of(out_.data_type));
}

void ParameterizedInstruction::check(Shapes& shapes) const {
  if (kind_ == Kind::kRmEmpty && params_.count("select")) {
    const bool rows = params_.at("margin") == "rows";
    const Dims t = shapes.dims(matrix_param(params_.at("target")));
    const Dims s = shapes.dims(matrix_param(params_.at("select")));
    const int64_t len = rows ? t.rows : t.cols;
    DMLRT_REQUIRE(len < 0 || !s.known() || s.rows * s.cols == len, ShapeError,
                  "rmempty: select must have one cell per target "
                      << (rows ? "row" : "column") << ", got target "
                      << kernels::dims_string(t.rows, t.cols) << " and select "
                      << kernels::dims_string(s.rows, s.cols));
    return;
  }
  if (kind_ == Kind::kRexpand) {
    // Checked here rather than in the kernel alone so that both runs raise it the same way.
    const Dims t = shapes.dims(matrix_param(params_.at("target")));
    DMLRT_REQUIRE(!t.known() || t.cols == 1 || t.rows == 0, ShapeError,
                  "rexpand: the target must be a column vector, got "
                      << kernels::dims_string(t.rows, t.cols));
    return;
  }
  if (kind_ != Kind::kGroupedAgg) return;
  const Dims t = shapes.dims(matrix_param(params_.at("target")));
  const Dims g = shapes.dims(matrix_param(params_.at("groups")));
  DMLRT_REQUIRE(!t.known() || !g.known() || (g.cols == 1 && g.rows == t.rows), ShapeError,
                "groupedagg: groups must be a column vector with one row per target row, got "
                "target "
                    << kernels::dims_string(t.rows, t.cols) << " and groups "
                    << kernels::dims_string(g.rows, g.cols));
  if (!params_.count("weights")) return;
  const Dims w = shapes.dims(matrix_param(params_.at("weights")));
  DMLRT_REQUIRE(!t.known() || !w.known() || (w.rows == t.rows && w.cols == t.cols), ShapeError,
                "groupedagg: weights must have the shape of the target "
                    << kernels::dims_string(t.rows, t.cols) << ", got "
                    << kernels::dims_string(w.rows, w.cols));
}

void ParameterizedInstruction::run_cpu(ExecutionContext& ec) {
  auto target = ec.matrix(params_.at("target"));
  switch (kind_) {
    case Kind::kReplace:
      ec.set_matrix(out_.name,
                    cpu::replace(*target, number(ec, "pattern"), number(ec, "replacement")));
      return;
    case Kind::kContains:
      ec.set_scalar(out_, ScalarValue::boolean(cpu::contains(*target, number(ec, "pattern"))));
      return;
    case Kind::kRexpand:
      ec.set_matrix(out_.name, cpu::rexpand(*target, number(ec, "max"), params_.at("dir") == "rows",
                                            flag(ec, "cast", true), flag(ec, "ignore", true)));
      return;
    case Kind::kToString: {
      const int64_t rows = params_.count("rows") ? value(ec, "rows").to_int() : 100;
      const int64_t cols = params_.count("cols") ? value(ec, "cols").to_int() : 100;
      const int decimal =
          params_.count("decimal") ? static_cast<int>(value(ec, "decimal").to_int()) : 3;
      const std::string sep = params_.count("sep") ? params_.at("sep") : " ";
      const std::string linesep = params_.count("linesep") ? params_.at("linesep") : "\n";
      ec.set_scalar(out_.name,
                    ScalarValue::string(cpu::to_string(*target, rows, cols, decimal,
                                                       flag(ec, "sparse", false), sep, linesep)));
      return;
    }
    case Kind::kTriangle:
      ec.set_matrix(out_.name,
                    cpu::extract_triangular(*target, opcode() == "lowertri",
                                            flag(ec, "diag", false), flag(ec, "values", false)));
      return;
    case Kind::kRmEmpty: {
      std::shared_ptr<const kernels::MatrixBlock> select;
      if (params_.count("select")) select = ec.matrix(params_.at("select"));
      ec.set_matrix(out_.name, cpu::remove_empty(*target, params_.at("margin") == "rows",
                                                 flag(ec, "empty.return", true), select.get()));
      return;
    }
    case Kind::kGroupedAgg: {
      auto groups = ec.matrix(params_.at("groups"));
      std::shared_ptr<const kernels::MatrixBlock> weights;
      if (params_.count("weights")) weights = ec.matrix(params_.at("weights"));
      const int order = fn_ == cpu::GroupAggFn::kCentralMoment
                            ? static_cast<int>(value(ec, "order").to_int())
                            : 0;
      const int64_t ngroups = params_.count("ngroups") ? value(ec, "ngroups").to_int() : -1;
      ec.set_matrix(out_.name,
                    cpu::grouped_aggregate(*target, *groups, weights.get(), fn_, order, ngroups));
      return;
    }
  }
}

// The GPU forms: a dense input and an output of at most its shape (rmempty's select is at most a
// column of it; contains has none; rexpand's CSR holds at most one entry per input row, about 2
// input sizes in offsets, indices and values; groupedagg's weights have the target's shape, and
// its (groups, n) result, known only from the data, is counted as one more).
int64_t ParameterizedInstruction::device_bytes(ExecutionContext& ec) const {
  if (!has_gpu_impl()) return -1;
  const MatrixMeta& meta = ec.matrix_object_ref(params_.at("target"))->meta();
  const int64_t bytes = dense_device_bytes(ec.options().gpu.get(), meta.rows, meta.cols);
  if (bytes < 0) return -1;
  switch (kind_) {
    case Kind::kContains:
      return bytes;
    case Kind::kRmEmpty:
    case Kind::kRexpand:
      return 3 * bytes;
    case Kind::kGroupedAgg:
      return (params_.count("weights") ? 3 : 2) * bytes;
    default:
      return 2 * bytes;
  }
}

void ParameterizedInstruction::require(const char* name) const {
  DMLRT_REQUIRE(params_.count(name) != 0, ParseError,
                where() << ": " << opcode() << ": missing parameter '" << name << "'");
}

ScalarValue ParameterizedInstruction::value(ExecutionContext& ec, const std::string& name) const {
  const std::string& v = params_.at(name);
  if (ec.contains(v)) return ec.scalar(v);
  return ScalarValue::from_literal(v, ValueType::kString);
}

double ParameterizedInstruction::number(ExecutionContext& ec, const std::string& name) const {
  const ScalarValue v = value(ec, name);
  if (!v.is_string()) return v.to_double();
  try {
    return ScalarValue::from_literal(v.to_string(), ValueType::kFP64).to_double();
  } catch (const ParseError&) {
    DMLRT_FAIL(RuntimeError,
               opcode() << ": parameter " << name << "='" << v.to_string() << "' is not a number");
  }
}

bool ParameterizedInstruction::flag(ExecutionContext& ec, const std::string& name,
                                    bool dflt) const {
  if (!params_.count(name)) return dflt;
  const ScalarValue v = value(ec, name);
  return v.is_string() ? (v.to_string() == "true" || v.to_string() == "TRUE") : v.to_bool();
}

}  // namespace dmlrt::inst
