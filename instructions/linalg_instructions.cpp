// inverse, cholesky, det, lu, qr and svd: parsing, shape rules and CPU run (linalg_instructions.h).
#include "instructions/linalg_instructions.h"

#include <algorithm>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/linalg.h"

namespace dmlrt::inst {

namespace {

LinalgInstruction::Op op_of(const std::string& opcode) {
  using Op = LinalgInstruction::Op;
  if (opcode == "inverse") return Op::kInverse;
  if (opcode == "cholesky") return Op::kCholesky;
  if (opcode == "det") return Op::kDet;
  if (opcode == "qr") return Op::kQr;
  if (opcode == "svd") return Op::kSvd;
  return Op::kLu;
}

}  // namespace

LinalgInstruction::LinalgInstruction(InstructionText t) : Instruction(std::move(t)) {
  op_ = op_of(opcode());
  if (op_ == Op::kLu || op_ == Op::kSvd) {
    expect_fields(4, 5);
  } else if (op_ == Op::kQr) {
    expect_fields(3, 4);
  } else {
    expect_fields(2, 3);
  }
  in_ = operand(0);
  DMLRT_REQUIRE(in_.is_matrix(), ParseError,
                where() << ": " << opcode() << " expects a matrix input, got " << in_.to_string());
  if (op_ == Op::kLu || op_ == Op::kQr || op_ == Op::kSvd) {
    p_ = Operand::parse(field(1)).name;
    l_ = Operand::parse(field(2)).name;
    if (op_ != Op::kQr) u_ = Operand::parse(field(3)).name;
    return;
  }
  out_ = operand(1);
  const bool scalar_out = op_ == Op::kDet;
  DMLRT_REQUIRE(scalar_out ? out_.is_scalar() : out_.is_matrix(), ParseError,
                where() << ": " << opcode() << " expects a " << (scalar_out ? "scalar" : "matrix")
                        << " output, got " << out_.to_string());
}

// The kernels repeat these (they are library functions).
void LinalgInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(in_);
  if (!a.known()) return;
  if (op_ == Op::kQr || op_ == Op::kSvd) {
    DMLRT_REQUIRE(a.rows > 0 && a.cols > 0, ShapeError,
                  opcode() << ": input is " << kernels::dims_string(a.rows, a.cols)
                           << "; SystemDS needs a matrix with at least one row and column");
    return;
  }
  DMLRT_REQUIRE(
      a.rows == a.cols, ShapeError,
      opcode() << ": input must be a square matrix, got " << kernels::dims_string(a.rows, a.cols));
  DMLRT_REQUIRE(a.rows > 0, ShapeError,
                opcode() << ": input is " << kernels::dims_string(a.rows, a.cols)
                         << "; SystemDS needs a matrix with at least one row");
}

// The input and every output, dense: inverse and cholesky (n, n), lu three (n, n), qr two
// (m, n), svd (m, p), (p, p) and (n, p) with p = min(m, n); det a scalar.
int64_t LinalgInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object(in_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t in = dense_device_bytes(gpu, a.rows, a.cols);
  if (in < 0) return -1;
  const int64_t p = std::min(a.rows, a.cols);
  switch (op_) {
    case Op::kInverse:
    case Op::kCholesky:
      return 2 * in;
    case Op::kDet:
      return in;
    case Op::kLu:
      return 4 * in;
    case Op::kQr:
      return 3 * in;
    case Op::kSvd:
      return in + dense_device_bytes(gpu, a.rows, p) + dense_device_bytes(gpu, p, p) +
             dense_device_bytes(gpu, a.cols, p);
  }
  return -1;
}

void LinalgInstruction::run_cpu(ExecutionContext& ec) {
  auto a = ec.matrix(in_);
  switch (op_) {
    case Op::kInverse:
      ec.set_matrix(out_.name, kernels::cpu::inverse(*a));
      return;
    case Op::kCholesky:
      ec.set_matrix(out_.name, kernels::cpu::cholesky(*a));
      return;
    case Op::kDet:
      ec.set_scalar(out_, ScalarValue::fp64(kernels::cpu::det(*a)));
      return;
    case Op::kLu: {
      kernels::cpu::LuFactors r = kernels::cpu::lu(*a);
      ec.set_matrix(p_, std::move(r.p));
      ec.set_matrix(l_, std::move(r.l));
      ec.set_matrix(u_, std::move(r.u));
      return;
    }
    case Op::kQr: {
      kernels::cpu::QrFactors r = kernels::cpu::qr(*a);
      ec.set_matrix(p_, std::move(r.h));
      ec.set_matrix(l_, std::move(r.r));
      return;
    }
    case Op::kSvd: {
      kernels::cpu::SvdFactors r = kernels::cpu::svd(*a);
      ec.set_matrix(p_, std::move(r.u));
      ec.set_matrix(l_, std::move(r.sigma));
      ec.set_matrix(u_, std::move(r.v));
      return;
    }
  }
}

}  // namespace dmlrt::inst
