// cdf / invcdf: parsing, parameter checks and CPU run (distribution_instructions.h). The checks
// and their wording follow SystemDS's ParameterizedBuiltin.computeFromDistribution.
#include "instructions/distribution_instructions.h"

#include <cctype>
#include <cmath>

#include "gpu_context/error.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

DistributionInstruction::DistributionInstruction(InstructionText t) : Instruction(std::move(t)) {
  inverse_ = opcode() == "invcdf";
  DMLRT_REQUIRE(num_fields() >= 3, ParseError,
                where() << ": " << opcode() << " expects dist=, target= and an output");
  params_ = named_fields(0, num_fields() - 1);
  out_ = operand(num_fields() - 1);
  DMLRT_REQUIRE(out_.is_scalar(), ParseError,
                where() << ": " << opcode() << ": the output must be a scalar");
  for (const char* p : {"dist", "target"})
    DMLRT_REQUIRE(params_.count(p), ParseError,
                  where() << ": " << opcode() << ": missing parameter '" << p << "'");
  DMLRT_REQUIRE(cpu::distribution_from_name(params_.at("dist"), &dist_), ParseError,
                where() << ": " << opcode() << ": unsupported distribution '"
                        << params_.at("dist") << "' (normal, exp, chisq, f, t)");
}

double DistributionInstruction::number(ExecutionContext& ec, const std::string& name) const {
  const std::string& v = params_.at(name);
  if (ec.contains(v)) {
    const ScalarValue s = ec.scalar(v);
    if (!s.is_string()) return s.to_double();
    return number_text(s.to_string(), name);
  }
  return number_text(v, name);
}

double DistributionInstruction::number_text(const std::string& text,
                                            const std::string& name) const {
  try {
    return ScalarValue::from_literal(text, ValueType::kFP64).to_double();
  } catch (const ParseError&) {
    DMLRT_FAIL(RuntimeError,
               opcode() << ": parameter " << name << "='" << text << "' is not a number");
  }
}

int64_t DistributionInstruction::integer(ExecutionContext& ec, const std::string& name) const {
  // floor(v + 2^-53), SystemDS's UtilFunctions.toInt.
  return static_cast<int64_t>(std::floor(number(ec, name) + 0x1p-53));
}

void DistributionInstruction::run_cpu(ExecutionContext& ec) {
  const double x = number(ec, "target");
  cpu::DistributionParams p;
  const auto has = [&](const char* n) { return params_.count(n) != 0; };
  switch (dist_) {
    case cpu::Distribution::kNormal:
      if (has("mean")) p.mean = number(ec, "mean");
      if (has("sd")) p.sd = number(ec, "sd");
      DMLRT_REQUIRE(p.sd > 0, RuntimeError,
                    opcode() << ": standard deviation for the normal distribution must be positive ("
                            << p.sd << ")");
      break;
    case cpu::Distribution::kExp:
      if (has("rate")) p.rate = number(ec, "rate");
      DMLRT_REQUIRE(p.rate > 0, RuntimeError,
                    opcode() << ": rate for the exponential distribution must be positive ("
                            << p.rate << ")");
      break;
    case cpu::Distribution::kChisq:
    case cpu::Distribution::kT: {
      const char* dname = dist_ == cpu::Distribution::kT ? "t" : "chi-squared";
      DMLRT_REQUIRE(has("df"), RuntimeError,
                    opcode() << ": degrees of freedom (df) must be given for the " << dname
                            << " distribution");
      p.df = integer(ec, "df");
      DMLRT_REQUIRE(p.df > 0, RuntimeError,
                    opcode() << ": degrees of freedom for the " << dname
                            << " distribution must be positive (" << p.df << ")");
      break;
    }
    case cpu::Distribution::kF:
      DMLRT_REQUIRE(has("df1") && has("df2"), RuntimeError,
                    opcode() << ": degrees of freedom (df1, df2) must be given for the F "
                               "distribution");
      p.df1 = integer(ec, "df1");
      p.df2 = integer(ec, "df2");
      DMLRT_REQUIRE(p.df1 > 0 && p.df2 > 0, RuntimeError,
                    opcode() << ": degrees of freedom for the F distribution must be positive ("
                            << p.df1 << "," << p.df2 << ")");
      break;
  }
  double r = 0;
  if (inverse_) {
    // Commons Math's OutOfRangeException; NaN passes, as there.
    DMLRT_REQUIRE(!(x < 0 || x > 1), RuntimeError,
                  opcode() << ": probability " << x << " is out of [0, 1]");
    r = cpu::distribution_invcdf(dist_, p, x);
  } else {
    // lower.tail as Java's Boolean.parseBoolean reads the value's text.
    bool lower = true;
    if (has("lower.tail")) {
      const std::string& v = params_.at("lower.tail");
      std::string s = ec.contains(v) ? ec.scalar(v).to_string() : v;
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      lower = s == "true";
    }
    r = cpu::distribution_cdf(dist_, p, x, lower);
  }
  ec.set_scalar(out_, ScalarValue::fp64(r));
}

}  // namespace dmlrt::inst
