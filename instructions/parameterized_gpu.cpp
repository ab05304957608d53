// Parameterized builtins: the GPU run of lowertri / uppertri (parameterized_instructions.h). A
// sparse input is densified into a temporary; its CSR row offsets still mark the empty rows that
// SystemDS's values=FALSE mask skips (Note [Triangle masks of empty rows]). The result is dense.
// rmempty: flag + scan + gather (Note [GPU rmempty] in kernels/cuda/rmempty.h); a CSR target
// stays CSR. contains reads back one flag; replace keeps a CSR target CSR unless the pattern is 0;
// rexpand builds its CSR one entry per row (Note [One entry per row] in
// kernels/cuda/parameterized.h); groupedagg (sum, count, mean) adds into per-group sums
// (Note [GPU grouped aggregates], same file).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>

#include "gpu_context/cuda_check.h"
#include "instructions/gpu_placement.h"
#include "instructions/parameterized_instructions.h"
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/parameterized.h"
#include "kernels/cuda/rmempty.h"
#include "kernels/cuda/triangle.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

Operand matrix_operand(const std::string& name) {
  Operand o;
  o.name = name;
  o.data_type = DataType::kMatrix;
  return o;
}

// removeEmpty(target, margin, select, empty.return) as kernels/cpu remove_empty computes it;
// `select` is null without one. A CSR target (int32 indices) gives a CSR result, a dense one (or
// an int64-index CSR, densified into a temporary) a dense result; a CSR select is densified (it
// is a vector).
void remove_empty_gpu(ExecutionContext& ec, mem::GpuSession& gpu, const std::string& target,
                      const std::string* select, bool rows, bool empty_return,
                      const std::string& out) {
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(target));
  const mem::DeviceMatrix& src = *x;
  const bool csr =
      src.is_sparse() && (src.is_empty_sparse() || src.index_width() == mem::IndexWidth::k32);
  const mem::DeviceMatrix& xd = csr ? src : x.dense(gpu);  // (m, n)
  const int64_t m = xd.rows(), n = xd.cols(), len = rows ? m : n;
  DeviceRead s;
  if (select != nullptr) s = gpu_read(ec, gpu, matrix_operand(*select));  // len cells: check()
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_rmempty");
  int64_t* keep = scratch.allocate_n<int64_t>(static_cast<size_t>(len + 1), "flags");
  const auto* rp = static_cast<const int32_t*>(xd.row_ptr());
  const auto* ci = static_cast<const int32_t*>(xd.col_idx());
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    if (select != nullptr)
      kernels::cuda::launch_rmempty_select_flags(s.dense(gpu).values_as<T>(), len, keep,
                                                 gpu.stream());
    else if (!csr)
      kernels::cuda::launch_rmempty_flags(xd.values_as<T>(), m, n, rows, keep, gpu.stream());
    else if (xd.is_empty_sparse())
      DMLRT_CHECK(cudaMemsetAsync(keep, 0, static_cast<size_t>(len + 1) * sizeof(int64_t),
                                  gpu.stream()));
    else
      kernels::cuda::launch_rmempty_csr_flags(rp, ci, xd.values_as<T>(), m, n, rows, keep,
                                              gpu.stream());
  });
  const size_t ws = kernels::cuda::rmempty_scan_workspace_bytes(len);
  void* work = scratch.allocate(ws, "scan workspace");
  kernels::cuda::launch_rmempty_scan(keep, len, work, ws, gpu.stream());
  // The output's shape depends on the data: a synchronisation.
  int64_t k = 0;
  DMLRT_CHECK(cudaMemcpyAsync(&k, keep + len, sizeof(k), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("rmempty count");
  const int64_t out_len = std::max<int64_t>(k, empty_return ? 1 : 0);
  const int64_t om = rows ? out_len : m, on = rows ? n : out_len;
  if (csr) {
    // Nothing kept or nothing stored: an empty CSR, which holds no device memory.
    if (k == 0 || xd.is_empty_sparse()) {
      set_gpu_output(ec, gpu, out,
                     mem::DeviceMatrix::csr(gpu.memory(), om, on, 0, gpu.dtype(),
                                            mem::IndexWidth::k32, gpu.stream(),
                                            "gpu_rmempty output"));
      return;
    }
    mem::DeviceAllocation out_rp = gpu.scratch(static_cast<size_t>(om + 1) * sizeof(int32_t),
                                               "gpu_rmempty output (csr row offsets)", true);
    auto* orp = static_cast<int32_t*>(out_rp.data());
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_rmempty_csr_counts(rp, ci, xd.values_as<T>(), m, rows, keep, orp,
                                               gpu.stream());
    });
    const size_t ows = kernels::cuda::rmempty_offsets_workspace_bytes(om);
    void* owork = scratch.allocate(ows, "offsets scan workspace");
    kernels::cuda::launch_rmempty_offsets_scan(orp, om, owork, ows, gpu.stream());
    int32_t nnz = 0;  // the output's entries: a second synchronisation
    DMLRT_CHECK(cudaMemcpyAsync(&nnz, orp + om, sizeof(nnz), cudaMemcpyDeviceToHost,
                                gpu.stream()));
    gpu.synchronize("rmempty nnz");
    if (nnz == 0) {
      set_gpu_output(ec, gpu, out,
                     mem::DeviceMatrix::csr(gpu.memory(), om, on, 0, gpu.dtype(),
                                            mem::IndexWidth::k32, gpu.stream(),
                                            "gpu_rmempty output"));
      return;
    }
    mem::DeviceAllocation out_ci = gpu.scratch(static_cast<size_t>(nnz) * sizeof(int32_t),
                                               "gpu_rmempty output (csr column indices)");
    mem::DeviceAllocation out_v = gpu.scratch(
        static_cast<size_t>(nnz) * mem::dtype_size(gpu.dtype()), "gpu_rmempty output (csr values)");
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_rmempty_csr_gather(rp, ci, xd.values_as<T>(), m, rows, keep, orp,
                                               static_cast<int32_t*>(out_ci.data()),
                                               static_cast<T*>(out_v.data()), gpu.stream());
    });
    set_gpu_output(ec, gpu, out,
                   mem::DeviceMatrix::adopt_csr(om, on, nnz, gpu.dtype(), mem::IndexWidth::k32,
                                                std::move(out_rp), std::move(out_ci),
                                                std::move(out_v)));
    return;
  }
  // An all-zero row (column) when nothing is kept and empty.return asks for one.
  mem::DeviceMatrix o = mem::DeviceMatrix::dense(gpu.memory(), om, on, gpu.dtype(), gpu.stream(),
                                                 "gpu_rmempty output", k == 0);
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_rmempty_gather(xd.values_as<T>(), m, n, rows, keep, k,
                                         o.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out, std::move(o));
}

// An empty (rows, cols) CSR, which holds no device memory.
mem::DeviceMatrix empty_csr(mem::GpuSession& gpu, int64_t rows, int64_t cols, const char* what) {
  return mem::DeviceMatrix::csr(gpu.memory(), rows, cols, 0, gpu.dtype(), mem::IndexWidth::k32,
                                gpu.stream(), what);
}

bool is_csr32(const mem::DeviceMatrix& m) {
  return m.is_sparse() && !m.is_empty_sparse() && m.index_width() == mem::IndexWidth::k32;
}

}  // namespace

void ParameterizedInstruction::contains_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const double pattern = number(ec, "pattern");
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(params_.at("target")));
  const mem::DeviceMatrix& src = *x;
  // As the CPU: an empty shape holds nothing; a CSR holds the pattern 0 wherever it has no entry,
  // else only its stored values can match.
  bool found = false;
  int64_t n = src.size();
  if (src.is_sparse()) {
    n = src.nnz();
    found = pattern == 0.0 && src.nnz() < src.size();
  }
  if (!found && src.size() > 0 && n > 0) {
    mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_contains");
    int32_t* hit = scratch.allocate_n<int32_t>(1, "flag");
    DMLRT_CHECK(cudaMemsetAsync(hit, 0, sizeof(int32_t), gpu.stream()));
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_contains(src.values_as<T>(), n, pattern, hit, gpu.stream());
    });
    int32_t h = 0;  // the one scalar read back
    DMLRT_CHECK(cudaMemcpyAsync(&h, hit, sizeof(h), cudaMemcpyDeviceToHost, gpu.stream()));
    gpu.synchronize("contains flag");
    found = h != 0;
  }
  ec.set_scalar(out_, ScalarValue::boolean(found));
}

// replace(target, pattern, replacement) as kernels/cpu replace: a CSR (int32) target and a
// nonzero pattern give a CSR (entries replaced by 0 dropped); otherwise the dense result.
void ParameterizedInstruction::replace_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const double pattern = number(ec, "pattern"), replacement = number(ec, "replacement");
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(params_.at("target")));
  const mem::DeviceMatrix& src = *x;
  const int64_t m = src.rows(), n = src.cols();
  const bool nonzero_pattern = pattern != 0.0;  // NaN too
  if (nonzero_pattern && src.is_empty_sparse()) {
    set_gpu_output(ec, gpu, out_.name, empty_csr(gpu, m, n, "gpu_replace output"));
    return;
  }
  if (nonzero_pattern && is_csr32(src)) {
    const int64_t nnz = src.nnz();
    const auto* rp = static_cast<const int32_t*>(src.row_ptr());
    const auto* ci = static_cast<const int32_t*>(src.col_idx());
    if (replacement != 0.0) {  // the same entries, values replaced
      mem::DeviceMatrix o = mem::DeviceMatrix::csr(gpu.memory(), m, n, nnz, gpu.dtype(),
                                                   mem::IndexWidth::k32, gpu.stream(),
                                                   "gpu_replace output");
      DMLRT_CHECK(cudaMemcpyAsync(o.row_ptr(), rp, static_cast<size_t>(m + 1) * sizeof(int32_t),
                                  cudaMemcpyDeviceToDevice, gpu.stream()));
      DMLRT_CHECK(cudaMemcpyAsync(o.col_idx(), ci, static_cast<size_t>(nnz) * sizeof(int32_t),
                                  cudaMemcpyDeviceToDevice, gpu.stream()));
      mem::with_dtype(gpu.dtype(), [&](auto t) {
        using T = decltype(t);
        kernels::cuda::launch_replace(src.values_as<T>(), nnz, pattern, replacement,
                                      o.values_as<T>(), gpu.stream());
      });
      set_gpu_output(ec, gpu, out_.name, std::move(o));
      return;
    }
    // Replaced by 0: the matching entries go (counts, scan, fill).
    mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_replace");
    mem::DeviceAllocation out_rp = gpu.scratch(static_cast<size_t>(m + 1) * sizeof(int32_t),
                                               "gpu_replace output (csr row offsets)");
    auto* orp = static_cast<int32_t*>(out_rp.data());
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_replace_csr_counts(rp, src.values_as<T>(), m, pattern, orp,
                                               gpu.stream());
    });
    const size_t ws = kernels::cuda::csr_scan_workspace_bytes(m);
    void* work = scratch.allocate(ws, "scan workspace");
    kernels::cuda::launch_csr_scan(orp + 1, m, work, ws, gpu.stream());
    int32_t out_nnz = 0;  // the result's entries: a synchronisation
    DMLRT_CHECK(cudaMemcpyAsync(&out_nnz, orp + m, sizeof(out_nnz), cudaMemcpyDeviceToHost,
                                gpu.stream()));
    gpu.synchronize("replace nnz");
    if (out_nnz == 0) {
      set_gpu_output(ec, gpu, out_.name, empty_csr(gpu, m, n, "gpu_replace output"));
      return;
    }
    mem::DeviceAllocation out_ci = gpu.scratch(static_cast<size_t>(out_nnz) * sizeof(int32_t),
                                               "gpu_replace output (csr column indices)");
    mem::DeviceAllocation out_v =
        gpu.scratch(static_cast<size_t>(out_nnz) * mem::dtype_size(gpu.dtype()),
                    "gpu_replace output (csr values)");
    mem::with_dtype(gpu.dtype(), [&](auto t) {
      using T = decltype(t);
      kernels::cuda::launch_replace_csr_fill(rp, ci, src.values_as<T>(), m, pattern, orp,
                                             static_cast<int32_t*>(out_ci.data()),
                                             static_cast<T*>(out_v.data()), gpu.stream());
    });
    set_gpu_output(ec, gpu, out_.name,
                   mem::DeviceMatrix::adopt_csr(m, n, out_nnz, gpu.dtype(), mem::IndexWidth::k32,
                                                std::move(out_rp), std::move(out_ci),
                                                std::move(out_v)));
    return;
  }
  // Dense (or int64 CSR, or the pattern 0, which every absent entry matches): cell by cell.
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
  mem::DeviceMatrix o = mem::DeviceMatrix::dense(gpu.memory(), m, n, gpu.dtype(), gpu.stream(),
                                                 "gpu_replace output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_replace(xd.values_as<T>(), m * n, pattern, replacement,
                                  o.values_as<T>(), gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(o));
}

// rexpand(target, max, dir, cast, ignore) as kernels/cpu rexpand: the (m, max) CSR with at most
// one entry per row (Note [One entry per row]), transposed for dir=rows. The errors are the
// CPU's, in its order (max, zeros, the first invalid value).
bool ParameterizedInstruction::rexpand_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const double max_v = number(ec, "max");
  const bool rows_dir = params_.at("dir") == "rows";
  const bool cast = flag(ec, "cast", true), ignore = flag(ec, "ignore", true);
  const int64_t lmax = kernels::cpu::java_to_long(max_v);
  DMLRT_REQUIRE(lmax >= 0, RuntimeError, "rexpand: max must be >= 0, got " << max_v);
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(params_.at("target")));
  const int64_t m = x->rows();  // (m, 1): check()
  // int32 CSR offsets and columns; larger results (and their errors) are the CPU's.
  if (lmax > INT32_MAX || m >= INT32_MAX) return false;
  if (!ignore) {
    const int64_t nnz = gpu.count_nnz(*x);
    DMLRT_REQUIRE(nnz >= m, RuntimeError,
                  "rexpand: invalid input w/ zeros for rexpand ignore=false (rlen="
                      << m << ", nnz=" << nnz << ")");
  }
  const int64_t om = rows_dir ? lmax : m, on = rows_dir ? m : lmax;
  if (m == 0 || x->is_empty_sparse()) {  // nothing valid (zeros: ignored, else raised above)
    set_gpu_output(ec, gpu, out_.name, empty_csr(gpu, om, on, "gpu_rexpand output"));
    return true;
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, 1)
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_rexpand");
  auto* stats = scratch.allocate_n<unsigned long long>(2, "stats");
  DMLRT_CHECK(cudaMemsetAsync(stats, 0xFF, sizeof(unsigned long long), gpu.stream()));
  DMLRT_CHECK(cudaMemsetAsync(stats + 1, 0, sizeof(unsigned long long), gpu.stream()));
  mem::DeviceAllocation out_rp = gpu.scratch(static_cast<size_t>(m + 1) * sizeof(int32_t),
                                             "gpu_rexpand output (csr row offsets)");
  auto* orp = static_cast<int32_t*>(out_rp.data());
  kernels::cuda::OneHotArgs args;
  args.mode = cast ? kernels::cuda::OneHotMode::kRexpandCast
                   : kernels::cuda::OneHotMode::kRexpandTrunc;
  args.m = m;
  args.limit = lmax;
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_onehot_flags<T>(xd.values_as<T>(), nullptr, args, orp, stats,
                                          gpu.stream());
  });
  const size_t ws = kernels::cuda::csr_scan_workspace_bytes(m);
  void* work = scratch.allocate(ws, "scan workspace");
  kernels::cuda::launch_csr_scan(orp + 1, m, work, ws, gpu.stream());
  // The entries and the first invalid row: one synchronisation.
  int32_t nnz = 0;
  unsigned long long first_bad = 0;
  DMLRT_CHECK(
      cudaMemcpyAsync(&nnz, orp + m, sizeof(nnz), cudaMemcpyDeviceToHost, gpu.stream()));
  DMLRT_CHECK(cudaMemcpyAsync(&first_bad, stats, sizeof(first_bad), cudaMemcpyDeviceToHost,
                              gpu.stream()));
  gpu.synchronize("rexpand nnz");
  if (!ignore && first_bad < static_cast<unsigned long long>(m)) {
    const int64_t row = static_cast<int64_t>(first_bad);
    DMLRT_FAIL(RuntimeError, "rexpand: invalid input value "
                                 << gpu.read_element(xd, row, 0) << " (<= 0) at row " << (row + 1)
                                 << " with ignore=false");
  }
  if (nnz == 0) {
    set_gpu_output(ec, gpu, out_.name, empty_csr(gpu, om, on, "gpu_rexpand output"));
    return true;
  }
  mem::DeviceAllocation out_ci = gpu.scratch(static_cast<size_t>(nnz) * sizeof(int32_t),
                                             "gpu_rexpand output (csr column indices)");
  mem::DeviceAllocation out_v = gpu.scratch(
      static_cast<size_t>(nnz) * mem::dtype_size(gpu.dtype()), "gpu_rexpand output (csr values)");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_onehot_fill<T>(xd.values_as<T>(), nullptr, args, orp,
                                         static_cast<int32_t*>(out_ci.data()),
                                         static_cast<T*>(out_v.data()), gpu.stream());
  });
  mem::DeviceMatrix o =
      mem::DeviceMatrix::adopt_csr(m, lmax, nnz, gpu.dtype(), mem::IndexWidth::k32,
                                   std::move(out_rp), std::move(out_ci), std::move(out_v));
  if (rows_dir) o = gpu.transpose(o, "gpu_rexpand output");  // (lmax, m), columns sorted
  set_gpu_output(ec, gpu, out_.name, std::move(o));
  return true;
}

// aggregate(target, groups, fn=sum|count|mean, [weights], [ngroups]) as kernels/cpu
// grouped_aggregate (Note [GPU grouped aggregates] in kernels/cuda/parameterized.h): the dense
// (k, n) result. False for a k x n past any device's size (the CPU raises it).
bool ParameterizedInstruction::grouped_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const int64_t ngroups = params_.count("ngroups") ? value(ec, "ngroups").to_int() : -1;
  const bool weighted = params_.count("weights") != 0;
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(params_.at("target")));
  DeviceRead g = gpu_read(ec, gpu, matrix_operand(params_.at("groups")));
  DeviceRead w;
  if (weighted) w = gpu_read(ec, gpu, matrix_operand(params_.at("weights")));
  const int64_t m = x->rows(), n = x->cols();  // groups (m, 1), weights (m, n): check()
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_groupedagg");
  auto* stats = scratch.allocate_n<unsigned long long>(2, "stats");
  DMLRT_CHECK(cudaMemsetAsync(stats, 0xFF, sizeof(unsigned long long), gpu.stream()));
  DMLRT_CHECK(cudaMemsetAsync(stats + 1, 0, sizeof(unsigned long long), gpu.stream()));
  const mem::DeviceMatrix& gd = g.dense(gpu);  // (m, 1)
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_group_ids_scan<T>(gd.values_as<T>(), m, stats, gpu.stream());
  });
  unsigned long long st[2] = {~0ull, 0};  // the first invalid row, the largest id
  DMLRT_CHECK(cudaMemcpyAsync(st, stats, sizeof(st), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize("groupedagg ids");
  if (st[0] < static_cast<unsigned long long>(m)) {
    const int64_t row = static_cast<int64_t>(st[0]);
    DMLRT_FAIL(RuntimeError, "groupedagg: invalid value (" << gpu.read_element(gd, row, 0)
                                                           << ") encountered in 'groups' at row "
                                                           << (row + 1)
                                                           << " (group ids start at 1)");
  }
  const int64_t k = ngroups < 0 ? static_cast<int64_t>(st[1]) : ngroups;
  if (k == 0 || n == 0) {
    set_gpu_output(ec, gpu, out_.name, empty_csr(gpu, k, n, "gpu_groupedagg output"));
    return true;
  }
  if (k > (INT64_MAX / 16) / n) return false;
  const int64_t cells = k * n;
  const bool need_wsum = fn_ != kernels::cpu::GroupAggFn::kSum;
  auto* sum = scratch.allocate_n<double>(static_cast<size_t>(cells), "sums");
  double* wsum =
      need_wsum ? scratch.allocate_n<double>(static_cast<size_t>(cells), "weight sums") : nullptr;
  DMLRT_CHECK(cudaMemsetAsync(sum, 0, static_cast<size_t>(cells) * sizeof(double), gpu.stream()));
  if (wsum != nullptr)
    DMLRT_CHECK(
        cudaMemsetAsync(wsum, 0, static_cast<size_t>(cells) * sizeof(double), gpu.stream()));
  const mem::DeviceMatrix& xd = x.dense(gpu);                          // (m, n)
  const mem::DeviceMatrix* wd = weighted ? &w.dense(gpu) : nullptr;  // (m, n)
  mem::DeviceMatrix o = mem::DeviceMatrix::dense(gpu.memory(), k, n, gpu.dtype(), gpu.stream(),
                                                 "gpu_groupedagg output");
  const kernels::cuda::GroupFinish finish =
      fn_ == kernels::cpu::GroupAggFn::kSum     ? kernels::cuda::GroupFinish::kSum
      : fn_ == kernels::cpu::GroupAggFn::kCount ? kernels::cuda::GroupFinish::kCount
                                                : kernels::cuda::GroupFinish::kMean;
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    kernels::cuda::launch_grouped_sums<T>(xd.values_as<T>(), wd ? wd->values_as<T>() : nullptr,
                                          gd.values_as<T>(), m, n, k, sum, wsum, gpu.stream());
    kernels::cuda::launch_grouped_finish<T>(sum, wsum, cells, finish, o.values_as<T>(),
                                            gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(o));
  return true;
}

void ParameterizedInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  switch (kind_) {
    case Kind::kGroupedAgg:
      if (!grouped_gpu(ec, gpu)) run_cpu(ec);
      return;
    case Kind::kContains:
      contains_gpu(ec, gpu);
      return;
    case Kind::kReplace:
      replace_gpu(ec, gpu);
      return;
    case Kind::kRexpand:
      if (!rexpand_gpu(ec, gpu)) run_cpu(ec);
      return;
    default:
      break;
  }
  if (kind_ == Kind::kRmEmpty) {
    const std::string* select = params_.count("select") ? &params_.at("select") : nullptr;
    remove_empty_gpu(ec, gpu, params_.at("target"), select, params_.at("margin") == "rows",
                     flag(ec, "empty.return", true), out_.name);
    return;
  }
  DeviceRead x = gpu_read(ec, gpu, matrix_operand(params_.at("target")));
  kernels::cuda::TriangleSpec spec;
  spec.lower = opcode() == "lowertri";
  spec.diag = flag(ec, "diag", false);
  spec.values = flag(ec, "values", false);
  const mem::DeviceMatrix& src = *x;
  if (!spec.values) {
    // Only the ones need the count: values of an all-zero input are zeros anyway.
    const int64_t nnz = src.nnz() >= 0 ? src.nnz() : gpu.count_nnz(src);
    spec.any_nonzero = nnz > 0;
    if (src.is_sparse() && nnz > 0) {
      spec.row_ptr = src.row_ptr();
      spec.row_ptr64 = src.index_width() == mem::IndexWidth::k64;
    }
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);
  const int64_t rows = xd.rows(), cols = xd.cols();
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_" + opcode() + " output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    // (rows, cols) row-major in and out
    kernels::cuda::launch_extract_triangular(xd.values_as<T>(), out.values_as<T>(), rows, cols,
                                             spec, gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
