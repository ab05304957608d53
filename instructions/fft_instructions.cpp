// fft, ifft, fft_linearized, ifft_linearized, stft and rcm: parsing, shape rules and the CPU run
// (fft_instructions.h).
//
// Note [FFT size rules]
// SystemDS 3.4 (LibCommonsMath.computeFFT & co., LibMatrixFourier) transforms only power-of-two
// sizes: fft/ifft need both dims to be powers of two, the _linearized forms the columns. Its
// compiler rejects any other size, unknown (-1) ones too, so its plans always satisfy the rule;
// its run time, which hand-written plans reach, answers an all-zero input (both parts, for ifft)
// with zeros before any check and fails a nonzero one of other sizes ("false dimensions").
// dmlrt checks at run time the same way (on the GPU the nonzeros are counted only when the dims
// fail the rule). ifft without an imaginary part treats it as zero. stft is LibMatrixSTFT's
// transform (frames of `window` columns every window - overlap columns, zero-padded at the row's
// end, each transformed); the compiler requires a power-of-two window and overlap < window.
// SystemDS 3.4's CP instruction itself never computes it (it looks the opcode up where stft is
// missing and fails with a NullPointerException), so dmlrt runs what LibMatrixSTFT defines instead
// of failing.
#include "instructions/fft_instructions.h"

#include <algorithm>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/fft.h"
#include "kernels/cpu/row_class_meet.h"

namespace dmlrt::inst {

namespace {

FftInstruction::Op op_of(const std::string& opcode) {
  using Op = FftInstruction::Op;
  if (opcode == "fft") return Op::kFft;
  if (opcode == "ifft") return Op::kIfft;
  if (opcode == "fft_linearized") return Op::kFftLinearized;
  if (opcode == "ifft_linearized") return Op::kIfftLinearized;
  return Op::kStft;
}

}  // namespace

FftInstruction::FftInstruction(InstructionText t) : Instruction(std::move(t)) {
  op_ = op_of(opcode());
  // Inputs come typed (X·MATRIX·FP64), outputs as bare names, a thread count may follow.
  const bool may_have_im = op_ != Op::kFft && op_ != Op::kFftLinearized;
  const bool two = may_have_im && num_fields() > 1 && operand(1).is_matrix();
  const size_t inputs = (two ? 2 : 1) + (op_ == Op::kStft ? 2 : 0);
  expect_fields(inputs + 2, inputs + 3);
  re_ = operand(0);
  DMLRT_REQUIRE(re_.is_matrix(), ParseError,
                where() << ": " << opcode() << " expects a matrix input, got " << re_.to_string());
  if (two) im_ = operand(1);
  if (op_ == Op::kStft) {
    window_ = operand(inputs - 2);
    overlap_ = operand(inputs - 1);
    DMLRT_REQUIRE(window_.is_scalar() && overlap_.is_scalar(), ParseError,
                  where() << ": stft expects scalar window size and overlap, got "
                          << window_.to_string() << " and " << overlap_.to_string());
  }
  out_re_ = Operand::parse(field(inputs)).name;
  out_im_ = Operand::parse(field(inputs + 1)).name;
}

void FftInstruction::check(Shapes& shapes) const {
  if (im_.name.empty()) return;
  const Dims r = shapes.dims(re_), i = shapes.dims(im_);
  if (!r.known() || !i.known()) return;
  DMLRT_REQUIRE(r.rows == i.rows && r.cols == i.cols, ShapeError,
                opcode() << ": the real part is " << kernels::dims_string(r.rows, r.cols)
                         << " but the imaginary part " << kernels::dims_string(i.rows, i.cols)
                         << "; they must have the same dims");
}

bool FftInstruction::transform_needed(int64_t rows, int64_t cols,
                                      const std::function<int64_t()>& nnz) const {
  const bool ok = op_ == Op::kStft || (kernels::cpu::is_power_of_two(cols) &&
                                       (rows_only() || kernels::cpu::is_power_of_two(rows)));
  if (ok) return true;
  if (nnz() == 0) return false;  // SystemDS's all-zero shortcut, Note [FFT size rules]
  DMLRT_FAIL(RuntimeError, opcode() << ": SystemDS's FFT transforms only power-of-two sizes: "
                                    << (rows_only() ? "the number of columns" : "both dims")
                                    << " must be a power of two, got a nonzero "
                                    << kernels::dims_string(rows, cols) << " input");
}

void FftInstruction::stft_args(ExecutionContext& ec, int64_t cols, int64_t* window,
                               int64_t* overlap) const {
  *window = ec.scalar(window_).to_int();
  *overlap = ec.scalar(overlap_).to_int();
  DMLRT_REQUIRE(kernels::cpu::is_power_of_two(*window), RuntimeError,
                "stft: the window size must be a power of two, got " << *window);
  DMLRT_REQUIRE(*overlap < *window, RuntimeError,
                "stft: the overlap (" << *overlap << ") must be smaller than the window size ("
                                      << *window << ")");
  DMLRT_REQUIRE(
      kernels::cpu::stft_frames(cols, *window, *overlap) >= 0, RuntimeError,
      "stft: rows of " << cols << " columns are shorter than the overlap (" << *overlap << ")");
}

// Inputs, both outputs and the interleaved complex buffer (two values a cell).
int64_t FftInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object(re_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t in = dense_device_bytes(gpu, a.rows, a.cols);
  if (in < 0) return -1;
  int64_t out = in;
  if (op_ == Op::kStft) {
    if (!window_.literal || !overlap_.literal) return -1;
    const int64_t w = ec.scalar(window_).to_int(), o = ec.scalar(overlap_).to_int();
    if (!kernels::cpu::is_power_of_two(w) || o >= w) return -1;
    out = dense_device_bytes(gpu, a.rows, kernels::cpu::stft_frames(a.cols, w, o) * w);
    if (out < 0) return -1;
  }
  return in * (im_.name.empty() ? 1 : 2) + 4 * out;
}

void FftInstruction::run_cpu(ExecutionContext& ec) {
  auto re = ec.matrix(re_);
  std::shared_ptr<const kernels::MatrixBlock> im;
  if (!im_.name.empty()) im = ec.matrix(im_);
  kernels::cpu::ComplexBlocks out;
  if (op_ == Op::kStft) {
    int64_t window = 0, overlap = 0;
    stft_args(ec, re->cols(), &window, &overlap);
    out = kernels::cpu::stft(*re, im.get(), window, overlap);
  } else if (transform_needed(re->rows(), re->cols(),
                              [&] { return re->nnz() + (im ? im->nnz() : 0); })) {
    out = kernels::cpu::fft(*re, im.get(), rows_only(), inverse());
  } else {
    out = {kernels::MatrixBlock::empty_sparse(re->rows(), re->cols()),
           kernels::MatrixBlock::empty_sparse(re->rows(), re->cols())};
  }
  ec.set_matrix(out_re_, std::move(out.re));
  ec.set_matrix(out_im_, std::move(out.im));
}

RowClassMeetInstruction::RowClassMeetInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(4, 5);
  a_ = operand(0);
  b_ = operand(1);
  DMLRT_REQUIRE(a_.is_matrix() && b_.is_matrix(), ParseError,
                where() << ": rcm expects two matrix inputs, got " << a_.to_string() << " and "
                        << b_.to_string());
  out_c_ = Operand::parse(field(2)).name;
  out_n_ = Operand::parse(field(3)).name;
}

// SystemDS reads B's row i for A's row i unless B has one row (its index fails otherwise).
void RowClassMeetInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(a_), b = shapes.dims(b_);
  if (!a.known() || !b.known()) return;
  DMLRT_REQUIRE(b.rows == 1 || b.rows >= a.rows, ShapeError,
                "rcm: B is " << kernels::dims_string(b.rows, b.cols) << " and A "
                             << kernels::dims_string(a.rows, a.cols)
                             << "; B must have one row or at least as many rows as A");
}

// A, B and the two (max rows, max cols) outputs.
int64_t RowClassMeetInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object(a_.name)->meta();
  const MatrixMeta& b = ec.matrix_object(b_.name)->meta();
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const int64_t da = dense_device_bytes(gpu, a.rows, a.cols);
  const int64_t db = dense_device_bytes(gpu, b.rows, b.cols);
  const int64_t out = dense_device_bytes(gpu, std::max(a.rows, b.rows), std::max(a.cols, b.cols));
  return da < 0 || db < 0 || out < 0 ? -1 : da + db + 2 * out;
}

void RowClassMeetInstruction::run_cpu(ExecutionContext& ec) {
  auto a = ec.matrix(a_);
  auto b = ec.matrix(b_);
  kernels::cpu::ClassMeet r = kernels::cpu::row_class_meet(*a, *b);
  ec.set_matrix(out_c_, std::move(r.c));
  ec.set_matrix(out_n_, std::move(r.n));
}

}  // namespace dmlrt::inst
