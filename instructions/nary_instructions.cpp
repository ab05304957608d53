// N-ary instructions n+ n* nmin nmax (`in1°in2°…°inN°out`, N >= 2, no thread count), which
// SystemDS's compiler emits for chains of +, * and for min/max with three or more arguments.
// Matrix form: every matrix shares one shape, scalars fold into every cell (kernels/cpu/nary).
// Scalar form: n+ concatenates when any input or the output is a STRING; otherwise the fold is
// done in INT64 when the output is INT64 (SystemDS keeps integer chains integral), else in FP64.
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "kernels/cpu/nary.h"

namespace dmlrt::inst {
namespace {

using kernels::cpu::NaryOp;

class NaryInstruction final : public Instruction {
 public:
  explicit NaryInstruction(InstructionText t) : Instruction(std::move(t)) {
    if (opcode() == "n+")
      op_ = NaryOp::kPlus;
    else if (opcode() == "n*")
      op_ = NaryOp::kMult;
    else if (opcode() == "nmin")
      op_ = NaryOp::kMin;
    else if (opcode() == "nmax")
      op_ = NaryOp::kMax;
    else
      DMLRT_FAIL(NotSupported, "opcode '" << opcode() << "' is not an n-ary op");
    expect_fields(3, 10000);
    for (size_t i = 0; i + 1 < num_fields(); ++i) {
      in_.push_back(operand(i));
      DMLRT_REQUIRE(in_.back().is_matrix() || in_.back().is_scalar(), NotSupported,
                    where() << ": " << opcode() << " of a " << name_of(in_.back().data_type)
                            << " operand is not supported");
      any_matrix_ = any_matrix_ || in_.back().is_matrix();
    }
    out_ = operand(num_fields() - 1);
    DMLRT_REQUIRE(any_matrix_ == out_.is_matrix(), ParseError,
                  where() << ": " << opcode() << " output '" << out_.name << "' must be a "
                          << (any_matrix_ ? "MATRIX" : "SCALAR"));
  }

  void execute(ExecutionContext& ec) override {
    if (any_matrix_)
      execute_matrix(ec);
    else
      execute_scalar(ec);
  }

 private:
  void execute_matrix(ExecutionContext& ec) {
    std::vector<std::shared_ptr<const kernels::MatrixBlock>> holders;
    std::vector<const kernels::MatrixBlock*> mats;
    std::vector<double> scalars;
    for (const Operand& op : in_) {
      if (op.is_matrix()) {
        holders.push_back(ec.matrix(op));
        mats.push_back(holders.back().get());
      } else {
        const ScalarValue v = ec.scalar(op);
        DMLRT_REQUIRE(!v.is_string(), RuntimeError,
                      opcode() << ": string scalar '" << v.to_string()
                               << "' cannot be combined with a matrix");
        scalars.push_back(v.to_double());
      }
    }
    for (const auto* m : mats)
      DMLRT_REQUIRE(m->rows() == mats[0]->rows() && m->cols() == mats[0]->cols(), ShapeError,
                    opcode() << ": matrix operands differ in shape: " << shape_of(*mats[0])
                             << " and " << shape_of(*m));
    ec.set_matrix(out_.name, kernels::cpu::nary(op_, mats, scalars));
  }

  void execute_scalar(ExecutionContext& ec) {
    std::vector<ScalarValue> vals;
    bool any_string = out_.value_type == ValueType::kString;
    bool all_integral = true;
    for (const Operand& op : in_) {
      vals.push_back(ec.scalar(op));
      any_string = any_string || vals.back().is_string();
      const ValueType vt = vals.back().type();
      all_integral = all_integral && (vt == ValueType::kINT64 || vt == ValueType::kBoolean);
    }
    if (any_string) {
      DMLRT_REQUIRE(op_ == NaryOp::kPlus, RuntimeError,
                    opcode() << ": string operands are only supported by n+");
      std::string s;
      for (const auto& v : vals) s += v.to_string();
      ec.set_scalar(out_, ScalarValue::string(std::move(s)));
      return;
    }
    if (all_integral && out_.value_type == ValueType::kINT64) {
      int64_t acc = vals[0].to_int();
      for (size_t i = 1; i < vals.size(); ++i) {
        const int64_t x = vals[i].to_int();
        switch (op_) {
          case NaryOp::kPlus:
            acc += x;
            break;
          case NaryOp::kMult:
            acc *= x;
            break;
          case NaryOp::kMin:
            acc = x < acc ? x : acc;
            break;
          case NaryOp::kMax:
            acc = x > acc ? x : acc;
            break;
        }
      }
      ec.set_scalar(out_, ScalarValue::int64(acc));
      return;
    }
    double acc = kernels::cpu::nary_init(op_);
    for (const auto& v : vals) acc = kernels::cpu::nary_apply(op_, acc, v.to_double());
    ec.set_scalar(out_, ScalarValue::fp64(acc));
  }

  NaryOp op_ = NaryOp::kPlus;
  std::vector<Operand> in_;
  Operand out_;
  bool any_matrix_ = false;
};

}  // namespace

InstructionPtr make_nary(InstructionText text) {
  return std::make_unique<NaryInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
