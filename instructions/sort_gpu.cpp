// Sorting and order statistics: the GPU runs (sort_instructions.h) on kernels/cuda/sort (CUB radix
// sorts; Note [GPU sort keys] for the order). CSR inputs are densified (a temporary): every op
// here reads whole columns. Results equal the CPU's (kernels/cpu/sort.cpp) and its errors carry
// the same messages; qpick's scalar results are read back (one synchronisation per value).
#include <cuda_runtime_api.h>

#include <cmath>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "instructions/sort_instructions.h"
#include "kernels/cuda/sort.h"
#include "memory/gpu_session.h"
#include "memory/scratch.h"

namespace dmlrt::inst {
namespace {

namespace kc = kernels::cuda;

// One value computed on the device, read back synchronously.
template <typename V>
V read_back(mem::GpuSession& gpu, const V* d, const char* what) {
  V v{};
  DMLRT_CHECK(cudaMemcpyAsync(&v, d, sizeof(V), cudaMemcpyDeviceToHost, gpu.stream()));
  gpu.synchronize(what);
  return v;
}

void require_column(const mem::DeviceMatrix& x) {
  DMLRT_REQUIRE(x.cols() == 1, ShapeError,
                "qsort: invalid input dimensions (" << x.rows() << "x" << x.cols()
                                                    << ") to sort operation, expected a column "
                                                       "vector");
}

}  // namespace

// --- rsort ---

void RsortInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const std::vector<int64_t> by = sort_columns(ec);
  const bool decreasing = ec.scalar(decreasing_).to_bool();
  const bool index_return = ec.scalar(index_return_).to_bool();
  DeviceRead x = gpu_read(ec, gpu, in_);
  const int64_t m = x->rows(), n = x->cols();
  // kernels/cpu/sort.cpp order's checks, word for word.
  DMLRT_REQUIRE(!by.empty(), RuntimeError, "rsort: no sort column given");
  std::vector<int64_t> by0;
  for (int64_t c : by) {
    DMLRT_REQUIRE(c >= 1 && c <= n, RuntimeError,
                  "rsort: sort column " << c << " is out of range [1, " << n << "] of a "
                                        << kernels::dims_string(m, n) << " input");
    by0.push_back(c - 1);
  }
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, n) row-major
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_rsort");
  int64_t* perm = scratch.allocate_n<int64_t>(static_cast<size_t>(m), "permutation");
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), m, index_return ? 1 : n,
                                                   gpu.dtype(), gpu.stream(), "gpu_rsort output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::sort_rows_permutation<T>(xd.values_as<T>(), m, n, by0, decreasing, perm, scratch,
                                 gpu.stream());
    if (index_return)
      kc::launch_one_based<T>(perm, m, out.values_as<T>(), gpu.stream());
    else
      kc::launch_gather_rows<T>(xd.values_as<T>(), m, n, perm, out.values_as<T>(), gpu.stream());
  });
  out.set_nnz(index_return ? m : x->nnz());
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// --- qsort ---

void QsortInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead x = gpu_read(ec, gpu, in_);
  require_column(*x);
  const int64_t m = x->rows();
  const mem::DeviceMatrix& xd = x.dense(gpu);  // (m, 1)
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_qsort");
  if (weights_.name.empty()) {
    mem::DeviceMatrix out =
        mem::DeviceMatrix::dense(gpu.memory(), m, 1, gpu.dtype(), gpu.stream(), "gpu_qsort output");
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      kc::sort_values<T>(xd.values_as<T>(), m, out.values_as<T>(), scratch, gpu.stream());
    });
    out.set_nnz(x->nnz());
    set_gpu_output(ec, gpu, out_.name, std::move(out));
    return;
  }
  DeviceRead w = gpu_read(ec, gpu, weights_);
  DMLRT_REQUIRE(w->cols() == 1 && w->rows() == m, ShapeError,
                "qsort: invalid weight dimensions (" << w->rows() << "x" << w->cols() << ") for "
                                                     << kernels::dims_string(m, 1)
                                                     << " values, expected " << m << "x1");
  const mem::DeviceMatrix& wd = w.dense(gpu);  // (m, 1)
  // The table's length (one row per nonzero value, one for the zeros) is read back first.
  auto* count = scratch.allocate_n<unsigned long long>(1, "nonzero count");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::launch_count_nonzero<T>(xd.values_as<T>(), m, count, gpu.stream());
  });
  const auto nonzeros = static_cast<int64_t>(read_back(gpu, count, "qsort nonzero count"));
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), nonzeros + 1, 2, gpu.dtype(),
                                                   gpu.stream(), "gpu_qsort output");
  mem::with_dtype(gpu.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kc::sort_weighted<T>(xd.values_as<T>(), wd.values_as<T>(), m, nonzeros, out.values_as<T>(),
                         scratch, gpu.stream());
  });
  set_gpu_output(ec, gpu, out_.name, std::move(out));
}

// --- qpick ---

// The CPU's pick_value / pick_weighted_value / inter_quartile_mean on a device table: the table
// (with pick_value's zero row for an unweighted input), its running weights, then each pick in
// one device thread. Checks run in the CPU's order, with its messages.
void QpickInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  DeviceRead s = gpu_read(ec, gpu, in_);
  const mem::DeviceMatrix& sd = s.dense(gpu);  // (m, 1) sorted values or (k, 2) table
  const int64_t m = sd.rows();
  const bool weighted = sd.cols() == 2;
  const bool iqm = type_ == "IQM";
  const char* op = iqm ? "qpick IQM" : "qpick";
  mem::ScopedScratch scratch(gpu.memory(), gpu.stream(), "gpu_qpick");
  auto* d_double = scratch.allocate_n<double>(1, "result");

  // Total weight of a weighted table after the CPU's integer check (weight_sum).
  auto weighted_total = [&](const kc::PickTable& t) {
    auto* first = scratch.allocate_n<unsigned long long>(1, "first non-integer weight");
    kc::launch_first_noninteger(t, first, gpu.stream());
    const unsigned long long bad = read_back(gpu, first, "qpick weight check");
    if (bad != ~0ULL) {
      const auto row = static_cast<int64_t>(bad);
      const double wv = gpu.read_element(sd, row, 1);
      DMLRT_REQUIRE(false, RuntimeError,
                    op << ": weights must be integers, got " << wv << " in row " << row + 1);
    }
    kc::sum_weights(t, d_double, scratch, gpu.stream());
    return read_back(gpu, d_double, "qpick weight sum");
  };

  if (iqm) {
    kc::PickTable t = kc::alloc_pick_table(m, scratch);
    mem::with_dtype(gpu.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (weighted)
        kc::build_weighted_table<T>(sd.values_as<T>(), t, gpu.stream());
      else
        kc::build_unit_table<T>(sd.values_as<T>(), t, gpu.stream());
    });
    const double W = weighted ? weighted_total(t) : static_cast<double>(m);
    DMLRT_REQUIRE(m > 0, RuntimeError, "qpick IQM: interquartile mean of an empty vector");
    DMLRT_REQUIRE(W >= 1, RuntimeError,
                  "qpick IQM: interquartile mean of a table with total weight " << W);
    kc::scan_weights(t, scratch, gpu.stream());
    auto* bounds = scratch.allocate_n<int64_t>(2, "IQM bounds");
    kc::launch_iqm_bounds(t, W, bounds, gpu.stream());
    int64_t b[2];
    DMLRT_CHECK(cudaMemcpyAsync(b, bounds, sizeof(b), cudaMemcpyDeviceToHost, gpu.stream()));
    gpu.synchronize("qpick IQM bounds");
    kc::iqm_finish(t, W, b[0], b[1], d_double, scratch, gpu.stream());
    ec.set_scalar(out_.name, ScalarValue::fp64(read_back(gpu, d_double, "qpick IQM")));
    return;
  }

  // The pick table, built at the first pick (after that pick's checks, as the CPU).
  kc::PickTable table;
  double W = 0;
  bool built = false;
  auto ensure_table = [&] {
    if (built) return;
    built = true;
    if (weighted) {
      table = kc::alloc_pick_table(m, scratch);
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kc::build_weighted_table<T>(sd.values_as<T>(), table, gpu.stream());
      });
      W = weighted_total(table);
    } else {
      auto* count = scratch.allocate_n<unsigned long long>(1, "nonzero count");
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kc::launch_count_nonzero<T>(sd.values_as<T>(), m, count, gpu.stream());
      });
      const auto nonzeros = static_cast<int64_t>(read_back(gpu, count, "qpick nonzero count"));
      table = kc::alloc_pick_table(nonzeros + 1, scratch);
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kc::build_zero_row_table<T>(sd.values_as<T>(), m, nonzeros, table, scratch, gpu.stream());
      });
      W = static_cast<double>(m);  // nonzeros of weight 1 and the zero row's m - nonzeros
    }
    DMLRT_REQUIRE(W >= 1, RuntimeError, "qpick: quantile of a table with total weight " << W);
    kc::scan_weights(table, scratch, gpu.stream());
  };
  auto check_q = [&](double q) {
    if (!weighted) DMLRT_REQUIRE(m > 0, RuntimeError, "qpick: quantile of an empty vector");
    DMLRT_REQUIRE(q >= 0.0 && q <= 1.0, RuntimeError,
                  "qpick: quantile must be in [0, 1], got " << q);
    ensure_table();
  };
  // SystemDS averages for the median and a scalar quantile, not for a vector of quantiles.
  auto pick_scalar = [&](double q) {
    check_q(q);
    const bool average = std::fmod(W, 2.0) == 0;
    kc::launch_pick<double>(table, W, q, average, d_double, gpu.stream());
    return read_back(gpu, d_double, "qpick");
  };
  if (type_ == "MEDIAN") {
    ec.set_scalar(out_.name, ScalarValue::fp64(pick_scalar(0.5)));
  } else if (q_.is_matrix()) {
    // The quantiles are a few parameters: read on the host; the picks land on the device.
    auto q = ec.matrix(q_);
    const int64_t nq = q->rows();
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), nq, 1, gpu.dtype(), gpu.stream(),
                                                     "gpu_qpick output");
    for (int64_t i = 0; i < nq; ++i) {
      check_q(q->get(i, 0));
      mem::with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kc::launch_pick<T>(table, W, q->get(i, 0), false, out.values_as<T>() + i, gpu.stream());
      });
    }
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  } else {
    ec.set_scalar(out_.name, ScalarValue::fp64(pick_scalar(ec.scalar(q_).to_double())));
  }
}

}  // namespace dmlrt::inst
