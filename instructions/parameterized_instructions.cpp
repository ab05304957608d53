// Parameterized builtins over matrices in SystemDS's `name=value°...°out` layout
// (reference/systemds-format.md §3): replace (target, pattern, replacement), contains (target,
// pattern -> BOOLEAN), rexpand (target, max, dir, cast, ignore) and groupedagg (target, groups,
// fn, [weights], [order], [ngroups]) — aggregate() — and toString (target, rows, cols, decimal,
// sparse, sep, linesep -> STRING). `k=` is accepted and ignored. A value names
// a variable when one of that name is bound, else it is a literal (SystemDS's getScalarInput);
// `¶v¶` placeholders are patched before this runs. Kernels: kernels/cpu/parameterized.
#include <map>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/parameterized.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

class ParameterizedInstruction final : public Instruction {
 public:
  explicit ParameterizedInstruction(InstructionText t) : Instruction(std::move(t)) {
    DMLRT_REQUIRE(num_fields() >= 2, ParseError,
                  where() << ": " << opcode() << " expects name=value fields and an output");
    for (size_t i = 0; i + 1 < num_fields(); ++i) {
      const std::string& f = field(i);
      const size_t eq = f.find('=');
      DMLRT_REQUIRE(eq != std::string::npos && eq > 0, ParseError,
                    where() << ": " << opcode() << ": field '" << f << "' is not name=value");
      params_[f.substr(0, eq)] = f.substr(eq + 1);
    }
    out_ = operand(num_fields() - 1);
    require("target");
    if (opcode() == "replace") {
      require("pattern");
      require("replacement");
    } else if (opcode() == "contains") {
      require("pattern");
    } else if (opcode() == "rexpand") {
      require("max");
      require("dir");
      const std::string& dir = params_.at("dir");
      DMLRT_REQUIRE(dir == "rows" || dir == "cols", ParseError,
                    where() << ": rexpand: dir must be 'rows' or 'cols', got '" << dir << "'");
    } else if (opcode() == "groupedagg") {
      require("groups");
      require("fn");
      DMLRT_REQUIRE(cpu::group_agg_fn_from_name(params_.at("fn"), &fn_), NotSupported,
                    where() << ": groupedagg: unsupported fn '" << params_.at("fn")
                            << "' (sum, count, mean, variance, centralmoment)");
      if (fn_ == cpu::GroupAggFn::kCentralMoment) require("order");
    }
    const bool scalar_out = opcode() == "contains" || opcode() == "tostring";
    DMLRT_REQUIRE(scalar_out ? out_.is_scalar() : out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " output must be a "
                          << (scalar_out ? "SCALAR" : "MATRIX") << ", got "
                          << name_of(out_.data_type));
  }

  void execute(ExecutionContext& ec) override {
    auto target = ec.matrix(params_.at("target"));
    if (opcode() == "replace") {
      ec.set_matrix(out_.name, cpu::replace(*target, number(ec, "pattern"),
                                            number(ec, "replacement")));
    } else if (opcode() == "contains") {
      ec.set_scalar(out_, ScalarValue::boolean(cpu::contains(*target, number(ec, "pattern"))));
    } else if (opcode() == "rexpand") {
      ec.set_matrix(out_.name,
                    cpu::rexpand(*target, number(ec, "max"), params_.at("dir") == "rows",
                                 flag(ec, "cast", true), flag(ec, "ignore", true)));
    } else if (opcode() == "tostring") {
      const int64_t rows = params_.count("rows") ? value(ec, "rows").to_int() : 100;
      const int64_t cols = params_.count("cols") ? value(ec, "cols").to_int() : 100;
      const int decimal =
          params_.count("decimal") ? static_cast<int>(value(ec, "decimal").to_int()) : 3;
      const std::string sep = params_.count("sep") ? params_.at("sep") : " ";
      const std::string linesep = params_.count("linesep") ? params_.at("linesep") : "\n";
      ec.set_scalar(out_.name, ScalarValue::string(cpu::to_string(
                                   *target, rows, cols, decimal, flag(ec, "sparse", false), sep,
                                   linesep)));
    } else {  // groupedagg
      auto groups = ec.matrix(params_.at("groups"));
      std::shared_ptr<const kernels::MatrixBlock> weights;
      if (params_.count("weights")) weights = ec.matrix(params_.at("weights"));
      const int order = fn_ == cpu::GroupAggFn::kCentralMoment
                            ? static_cast<int>(value(ec, "order").to_int())
                            : 0;
      const int64_t ngroups = params_.count("ngroups") ? value(ec, "ngroups").to_int() : -1;
      ec.set_matrix(out_.name, cpu::grouped_aggregate(*target, *groups, weights.get(), fn_, order,
                                                      ngroups));
    }
  }

 private:
  void require(const char* name) const {
    DMLRT_REQUIRE(params_.count(name) != 0, ParseError,
                  where() << ": " << opcode() << ": missing parameter '" << name << "'");
  }
  ScalarValue value(ExecutionContext& ec, const std::string& name) const {
    const std::string& v = params_.at(name);
    if (ec.contains(v)) return ec.scalar(v);
    return ScalarValue::from_literal(v, ValueType::kString);
  }
  double number(ExecutionContext& ec, const std::string& name) const {
    const ScalarValue v = value(ec, name);
    if (!v.is_string()) return v.to_double();
    try {
      return ScalarValue::from_literal(v.to_string(), ValueType::kFP64).to_double();
    } catch (const ParseError&) {
      DMLRT_FAIL(RuntimeError, opcode() << ": parameter " << name << "='" << v.to_string()
                                        << "' is not a number");
    }
  }
  bool flag(ExecutionContext& ec, const std::string& name, bool dflt) const {
    if (!params_.count(name)) return dflt;
    const ScalarValue v = value(ec, name);
    return v.is_string() ? (v.to_string() == "true" || v.to_string() == "TRUE") : v.to_bool();
  }

  std::map<std::string, std::string> params_;
  Operand out_;
  cpu::GroupAggFn fn_ = cpu::GroupAggFn::kSum;
};

}  // namespace

InstructionPtr make_parameterized(InstructionText text) {
  const std::string& op = text.opcode;
  DMLRT_REQUIRE(op == "replace" || op == "contains" || op == "rexpand" || op == "groupedagg" ||
                    op == "tostring",
                NotSupported, "parameterized builtin '" << op << "' is not supported");
  return std::make_unique<ParameterizedInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
