// solve(A, b): A°b°out[°k], SystemDS layout (reference/systemds-format.md §3). A must be square
// (SystemDS: "The A matrix, in solve(A,b) should have squared dimensions."); b may have several
// columns. The CPU kernel factorises with LU and partial pivoting (kernels/cpu/solve), where
// SystemDS uses commons-math QR: both fail on an exactly singular factor, but a matrix that is
// singular only up to rounding may factorise in one and not the other. On the GPU the same LU
// runs through cuSOLVER (getrf + getrs, FP64 or FP32); see Note [GPU solve].
#include <limits>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/solve.h"

#ifdef DMLRT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/solver.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

class Solve final : public Instruction {
 public:
  explicit Solve(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 4);
    a_ = operand(0);
    b_ = operand(1);
    out_ = operand(2);
    for (const Operand* op : {&a_, &b_, &out_})
      DMLRT_REQUIRE(op->is_matrix(), ParseError,
                    where() << ": solve expects matrix operands, got " << op->to_string());
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu) {
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
    }
#endif
    auto a = ec.matrix(a_);
    auto b = ec.matrix(b_);
    check_shapes(a->rows(), a->cols(), b->rows(), b->cols());
    ec.set_matrix(out_.name, kernels::cpu::solve(*a, *b));
  }

 private:
  // The CPU kernel repeats the first two checks; the GPU path has only these.
  static void check_shapes(int64_t ar, int64_t ac, int64_t br, int64_t bc) {
    DMLRT_REQUIRE(ar == ac, ShapeError,
                  "solve: A must be square, got " << kernels::dims_string(ar, ac));
    DMLRT_REQUIRE(br == ar, ShapeError,
                  "solve: A is " << kernels::dims_string(ar, ac) << " but b is "
                                 << kernels::dims_string(br, bc) << " (row counts differ)");
    DMLRT_REQUIRE(ar <= std::numeric_limits<int>::max() && bc <= std::numeric_limits<int>::max() &&
                      ar * ar <= std::numeric_limits<int64_t>::max() / 8,
                  ShapeError,
                  "solve: " << kernels::dims_string(ar, ar) << " exceeds LAPACK's 32-bit sizes");
  }

  // Device bytes of A, b and the solution from the metadata (-1 when a shape is unknown); the
  // factorisation's column-major copies double that.
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& a = ec.matrix_object(a_.name)->meta();
    const MatrixMeta& b = ec.matrix_object(b_.name)->meta();
    const mem::GpuSession* gpu = ec.options().gpu.get();
    const int64_t ab = dense_device_bytes(gpu, a.rows, a.cols);
    const int64_t bb = dense_device_bytes(gpu, b.rows, b.cols);
    return ab < 0 || bb < 0 ? -1 : 2 * (ab + 2 * bb);
  }

#ifdef DMLRT_WITH_CUDA
  // Note [GPU solve]
  // cuSOLVER is column-major. The column-major copy of row-major A is A's transpose, so A is
  // transposed explicitly (cuBLAS geam into scratch) rather than solving with A^T's factors and
  // getrs(TRANS): factoring A itself takes the pivots LAPACK's dgesv takes on the CPU, so an
  // exactly singular A reports the same U(i,i) in the same error text. b (n, k) is transposed
  // likewise (not for k == 1: a column is the same data in both layouts) and the solution
  // transposed back. getrf's devInfo is read after getrs: the only synchronisation of the op.
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    DeviceRead a = gpu_read(ec, gpu, a_);
    DeviceRead b = gpu_read(ec, gpu, b_);
    const int64_t n = a->rows(), k = b->cols();
    check_shapes(a->rows(), a->cols(), b->rows(), b->cols());
    // (n, k) row-major solution; zeros for an empty system, as on the CPU.
    if (n == 0 || k == 0) {
      set_gpu_output(ec, gpu, out_.name,
                     mem::DeviceMatrix::dense(gpu.memory(), n, k, gpu.dtype(), gpu.stream(),
                                              "gpu_solve output", true));
      return;
    }
    if (gpu.dtype() == mem::DType::kFloat64)
      solve_on_device<double>(ec, gpu, a.dense(gpu), b.dense(gpu), n, k);
    else
      solve_on_device<float>(ec, gpu, a.dense(gpu), b.dense(gpu), n, k);
  }

  template <typename T>
  void solve_on_device(ExecutionContext& ec, mem::GpuSession& gpu, const mem::DeviceMatrix& ad,
                       const mem::DeviceMatrix& bd, int64_t n, int64_t k) {
    void* blas = gpu.context().cublas();
    void* solver = gpu.context().cusolver();
    const size_t es = sizeof(T);
    mem::DeviceAllocation lu = gpu.scratch(static_cast<size_t>(n * n) * es, "gpu_solve LU of A");
    T* lu_p = static_cast<T*>(lu.data());  // (n, n) column-major = A
    kernels::cuda::transpose_row_major(blas, n, n, ad.values_as<T>(), lu_p);
    mem::DeviceMatrix x = mem::DeviceMatrix::dense(gpu.memory(), n, k, gpu.dtype(), gpu.stream(),
                                                   "gpu_solve output");  // (n, k) row-major
    mem::DeviceAllocation rhs;  // (n, k) column-major, when k > 1
    T* rhs_p = x.values_as<T>();
    if (k == 1) {
      DMLRT_CUDA_CHECK(cudaMemcpyAsync(rhs_p, bd.values(), static_cast<size_t>(n) * es,
                                       cudaMemcpyDeviceToDevice, gpu.cuda_stream()));
    } else {
      rhs = gpu.scratch(static_cast<size_t>(n * k) * es, "gpu_solve right-hand sides");
      rhs_p = static_cast<T*>(rhs.data());
      kernels::cuda::transpose_row_major(blas, n, k, bd.values_as<T>(), rhs_p);
    }
    const int64_t lwork = kernels::cuda::getrf_workspace(solver, n, lu_p);
    mem::DeviceAllocation work =
        gpu.scratch(static_cast<size_t>(lwork > 0 ? lwork : 1) * es, "cusolver getrf workspace");
    mem::DeviceAllocation pivots =
        gpu.scratch(static_cast<size_t>(n) * sizeof(int), "gpu_solve pivots");
    // info[0] from getrf, info[1] from getrs.
    mem::DeviceAllocation info = gpu.scratch(2 * sizeof(int), "gpu_solve devInfo", true);
    int* info_p = static_cast<int*>(info.data());
    int* piv_p = static_cast<int*>(pivots.data());
    kernels::cuda::getrf(solver, n, lu_p, static_cast<T*>(work.data()), piv_p, info_p);
    kernels::cuda::getrs(solver, false, n, k, lu_p, piv_p, rhs_p, info_p + 1);
    int host_info[2] = {0, 0};
    DMLRT_CUDA_CHECK(cudaMemcpyAsync(host_info, info_p, sizeof(host_info), cudaMemcpyDeviceToHost,
                                     gpu.cuda_stream()));
    gpu.synchronize("solve devInfo");
    // The CPU kernel's messages (kernels/cpu/solve.cpp).
    DMLRT_REQUIRE(host_info[0] <= 0, RuntimeError,
                  "solve: matrix is singular: U("
                      << host_info[0] << "," << host_info[0] << ") of the LU factorisation of the "
                      << kernels::dims_string(n, n) << " A is exactly zero");
    DMLRT_REQUIRE(host_info[0] == 0 && host_info[1] == 0, Error,
                  "solve: cusolver getrf/getrs rejected argument "
                      << -(host_info[0] != 0 ? host_info[0] : host_info[1]));
    if (k > 1) kernels::cuda::transpose_row_major(blas, k, n, rhs_p, x.values_as<T>());
    set_gpu_output(ec, gpu, out_.name, std::move(x));
  }
#endif

  Operand a_, b_, out_;
};

}  // namespace

InstructionPtr make_solve(InstructionText text) {
  DMLRT_REQUIRE(text.opcode == "solve", ParseError,
                "solve: unknown opcode '" << text.opcode << "'");
  return std::make_unique<Solve>(std::move(text));
}

}  // namespace dmlrt::inst
