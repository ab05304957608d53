// Quaternary instructions: the GPU run (quaternary_instructions.h), Note [GPU quaternary ops] in
// kernels/cuda/quaternary.h: UV' by cuBLAS, one cell kernel, then the op's sum or product.
#include <utility>

#include "instructions/gpu_placement.h"
#include "instructions/quaternary_instructions.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/quaternary.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/unary.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

namespace {

namespace k = kernels::cpu;
using kernels::cuda::QuatCell;

QuatCell wsloss_cell(k::WslossType t) {
  switch (t) {
    case k::WslossType::kPost: return QuatCell::kWslossPost;
    case k::WslossType::kPostNz: return QuatCell::kWslossPostNz;
    case k::WslossType::kPre: return QuatCell::kWslossPre;
    case k::WslossType::kNone: break;
  }
  return QuatCell::kWslossNone;
}

QuatCell wsigmoid_cell(k::WsigmoidType t) {
  switch (t) {
    case k::WsigmoidType::kBasic: return QuatCell::kWsigmoid;
    case k::WsigmoidType::kLog: return QuatCell::kWsigmoidLog;
    case k::WsigmoidType::kMinus: return QuatCell::kWsigmoidMinus;
    case k::WsigmoidType::kLogMinus: break;
  }
  return QuatCell::kWsigmoidLogMinus;
}

QuatCell wdivmm_cell(k::WdivmmType t) {
  using T = k::WdivmmType;
  switch (t) {
    case T::kDivLeft:
    case T::kDivRight: return QuatCell::kWdivmmDiv;
    case T::kDivLeftEps:
    case T::kDivRightEps: return QuatCell::kWdivmmDivEps;
    case T::kMultBasic:
    case T::kMultLeft:
    case T::kMultRight: return QuatCell::kWdivmmMult;
    case T::kMultMinusLeft:
    case T::kMultMinusRight: return QuatCell::kWdivmmMinus;
    case T::kMultMinus4Left:
    case T::kMultMinus4Right: break;
  }
  return QuatCell::kWdivmmMinus4;
}

}  // namespace

void QuaternaryInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  namespace cuda = kernels::cuda;
  DeviceRead a = gpu_read(ec, gpu, in_[0]);
  DeviceRead u = gpu_read(ec, gpu, in_[1]);
  DeviceRead v = gpu_read(ec, gpu, in_[2]);
  DeviceRead fourth;
  double eps = 0.0;
  if (uses_fourth()) {
    if (fourth_is_matrix())
      fourth = gpu_read(ec, gpu, fourth_);
    else
      eps = ec.scalar(fourth_).to_double();
  }
  const mem::DeviceMatrix& ad = a.dense(gpu);
  const mem::DeviceMatrix& ud = u.dense(gpu);
  const mem::DeviceMatrix& vd = v.dense(gpu);
  const mem::DeviceMatrix* xd = uses_fourth() && fourth_is_matrix() ? &fourth.dense(gpu) : nullptr;
  const int64_t m = ad.rows(), n = ad.cols(), rank = ud.cols();

  // UV' (m, n); with rank 0 it is all zeros.
  mem::DeviceMatrix uv = mem::DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(), gpu.stream(),
                                                  "gpu_" + opcode() + " UV'", rank == 0);
  QuatCell cell = QuatCell::kWslossNone;
  switch (kind_) {
    case Kind::kWsloss: cell = wsloss_cell(wsloss_); break;
    case Kind::kWcemm: cell = QuatCell::kWcemm; break;
    case Kind::kWsigmoid: cell = wsigmoid_cell(wsigmoid_); break;
    case Kind::kWdivmm: cell = wdivmm_cell(wdivmm_); break;
    case Kind::kWumm:
      cell = wumm_ == k::WummType::kMult ? QuatCell::kWummMult : QuatCell::kWummDiv;
      break;
  }
  const bool left = kind_ == Kind::kWdivmm &&
                    (wdivmm_ == k::WdivmmType::kDivLeft || wdivmm_ == k::WdivmmType::kDivLeftEps ||
                     wdivmm_ == k::WdivmmType::kMultLeft ||
                     wdivmm_ == k::WdivmmType::kMultMinusLeft ||
                     wdivmm_ == k::WdivmmType::kMultMinus4Left);
  const bool product = kind_ == Kind::kWdivmm && wdivmm_ != k::WdivmmType::kMultBasic;
  const bool sum = kind_ == Kind::kWsloss || kind_ == Kind::kWcemm;
  mem::DeviceMatrix out;
  if (product)
    out = mem::DeviceMatrix::dense(gpu.memory(), left ? n : m, rank, gpu.dtype(), gpu.stream(),
                                   "gpu_" + opcode() + " output", m == 0 || n == 0);
  else if (sum)
    out = mem::DeviceMatrix::dense(gpu.memory(), 1, 1, gpu.dtype(), gpu.stream(),
                                   "gpu_" + opcode() + " sum");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    T* c = uv.values_as<T>();
    if (rank > 0 && m > 0 && n > 0)  // U (m, rank) x t(V), V stored (n, rank)
      cuda::gemm_row_major(gpu.context().cublas(), false, true, m, n, rank, ud.values_as<T>(),
                           vd.values_as<T>(), c);
    if (kind_ == Kind::kWumm) cuda::launch_unary(uop_, c, c, m * n, gpu.stream());
    // The weights drive the cells: W, the fourth input, for WSLOSS_POST (wsloss°X°U°V°W);
    // the first input everywhere else.
    const T* w = ad.values_as<T>();
    const T* x = xd ? xd->values_as<T>() : nullptr;
    if (cell == QuatCell::kWslossPost) std::swap(w, x);
    cuda::launch_quaternary_cells(cell, w, x, c, eps, m * n, c, gpu.stream());
    if (sum) {
      mem::DeviceAllocation ws = gpu.scratch(cuda::reduce_all_workspace_bytes(m * n),
                                             "gpu_" + opcode() + " partials");
      cuda::launch_reduce_all(k::AggOp::kSum, c, m * n, out.values_as<T>(), ws.data(),
                              gpu.stream());
    } else if (product && m > 0 && n > 0 && rank > 0) {
      if (left)  // t(C) (n, m) x U (m, rank)
        cuda::gemm_row_major(gpu.context().cublas(), true, false, n, rank, m, c,
                             ud.values_as<T>(), out.values_as<T>());
      else  // C (m, n) x V (n, rank)
        cuda::gemm_row_major(gpu.context().cublas(), false, false, m, rank, n, c,
                             vd.values_as<T>(), out.values_as<T>());
    }
  });
  if (sum) {
    ec.set_scalar(out_, ScalarValue::fp64(gpu.read_element(out, 0, 0)));
    return;
  }
  set_gpu_output(ec, gpu, out_.name, product ? std::move(out) : std::move(uv));
}

}  // namespace dmlrt::inst
