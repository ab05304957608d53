// table(): ctable `A°B°W°dim1°dim2°out°ignoreZeros[°k]` and ctableexpand (the same fields with a
// `seq(1, m)·SCALAR·STRING·true` literal for the sequence side). A, B and W are matrices or
// scalars; dim1/dim2 are `value·isLiteral` pairs (`-1·true` = from the data, `N·false` = scalar
// variable N), split by hand as SystemDS does. Kernels: kernels/cpu/ctable.
#include <cstdlib>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/ctable.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

bool is_seq_literal(const Operand& op) {
  return op.is_scalar() && op.literal && op.value_type == ValueType::kString &&
         op.name.rfind("seq(", 0) == 0;
}

class CtableInstruction final : public Instruction {
 public:
  explicit CtableInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(7, 8);
    for (size_t i = 0; i < 3; ++i) in_[i] = operand(i);
    dim_[0] = split_dim(field(3));
    dim_[1] = split_dim(field(4));
    out_ = operand(5);
    ignore_zeros_ = field(6) == "true";
    DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " output must be a MATRIX");
    if (opcode() == "ctableexpand") {
      DMLRT_REQUIRE(is_seq_literal(in_[0]) != is_seq_literal(in_[1]), ParseError,
                    where() << ": ctableexpand needs exactly one seq(1, m) literal input");
      seq_left_ = is_seq_literal(in_[0]);
      const Operand& seq = seq_left_ ? in_[0] : in_[1];
      // "seq(1, 5)": the sequence must start at 1 with step 1 (the only form SystemDS fuses).
      const std::string body = seq.name.substr(4);
      char* end = nullptr;
      const double from = std::strtod(body.c_str(), &end);
      DMLRT_REQUIRE(from == 1.0 && end && *end == ',', ParseError,
                    where() << ": ctableexpand: unsupported sequence '" << seq.name << "'");
      seq_len_ = std::strtoll(end + 1, &end, 10);
      DMLRT_REQUIRE(end && *end == ')', ParseError,
                    where() << ": ctableexpand: unsupported sequence '" << seq.name << "'");
      DMLRT_REQUIRE((seq_left_ ? in_[1] : in_[0]).is_matrix(), ParseError,
                    where() << ": ctableexpand: the non-sequence input must be a matrix");
    }
  }

  void execute(ExecutionContext& ec) override {
    const int64_t d1 = dim_value(ec, dim_[0]), d2 = dim_value(ec, dim_[1]);
    std::shared_ptr<const kernels::MatrixBlock> held[3];
    cpu::CtableArg args[3];
    for (int i = 0; i < 3; ++i) {
      if (opcode() == "ctableexpand" && i < 2 && is_seq_literal(in_[i])) continue;
      if (in_[i].is_matrix()) {
        held[i] = ec.matrix(in_[i]);
        args[i].matrix = held[i].get();
      } else {
        args[i].scalar = ec.scalar(in_[i]).to_double();
      }
    }
    if (opcode() == "ctableexpand") {
      const kernels::MatrixBlock& v = *(seq_left_ ? held[1] : held[0]);
      DMLRT_REQUIRE(v.rows() == seq_len_, ShapeError,
                    "ctableexpand: invalid input sizes for table(seq(1, " << seq_len_
                        << "), v): v is " << shape_of(v));
      ec.set_matrix(out_.name, cpu::ctable_expand(v, args[2], seq_left_ ? d2 : d1, seq_left_));
      return;
    }
    ec.set_matrix(out_.name, cpu::ctable(args[0], args[1], args[2], d1, d2, ignore_zeros_));
  }

 private:
  struct Dim {
    std::string value;
    bool literal = true;
  };
  Dim split_dim(const std::string& f) const {
    const std::string sep = kTypeDelim;
    const size_t p = f.rfind(sep);
    DMLRT_REQUIRE(p != std::string::npos, ParseError,
                  where() << ": " << opcode() << ": dimension field '" << f
                          << "' is not value" << sep << "isLiteral");
    return Dim{f.substr(0, p), f.substr(p + sep.size()) == "true"};
  }
  int64_t dim_value(ExecutionContext& ec, const Dim& d) const {
    const ScalarValue v = d.literal ? ScalarValue::from_literal(d.value, ValueType::kFP64)
                                    : ec.scalar(d.value);
    // Java's (long) cast, which saturates (a static_cast of 1e300 would be undefined); the
    // kernel checks the resulting size before allocating (kernels/host_memory.h).
    return ScalarValue::fp64(v.to_double()).to_int();
  }

  Operand in_[3];
  Dim dim_[2];
  Operand out_;
  bool ignore_zeros_ = false;
  bool seq_left_ = true;
  int64_t seq_len_ = 0;
};

}  // namespace

InstructionPtr make_ctable(InstructionText text) {
  DMLRT_REQUIRE(text.opcode == "ctable" || text.opcode == "ctableexpand", NotSupported,
                "ctable: unknown opcode '" << text.opcode << "'");
  return std::make_unique<CtableInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
