// Data-generation kernel family: rand over Philox cell streams and seq over exact linear runs
// (see Note [Parallel seq]); see datagen.h.
#include <cmath>

#include "gpu_context/cuda_check.h"
#include "kernels/cuda/datagen.h"
#include "kernels/cuda/kernel_utils.cuh"
#include "kernels/philox.h"
#include "kernels/scalar_ops.h"

namespace dmlrt::kernels::cuda {
namespace {

using cpu::RandPdf;
namespace ops = kernels::ops;

// Cell i draws exactly as kernels/cpu/random.cpp does: word 0 against the sparsity, then the
// distribution; the uniform's min + (max-min)*u is rounded twice as on the host (Note [No FMA
// contraction]).
template <typename T>
__global__ void rand_kernel(T* __restrict__ out, int64_t n, uint64_t seed, double sparsity,
                            RandPdf pdf, double min, double max, double lambda, bool constant) {
  for (int64_t i = detail::global_thread(); i < n; i += detail::grid_stride()) {
    PhiloxCellStream s(seed, static_cast<uint64_t>(i));
    double v = 0.0;
    if (philox_bernoulli(s.next_u32(), sparsity)) {
      if (constant)
        v = min;
      else if (pdf == RandPdf::kUniform)
        v = ops::add_rn(min, ops::mul_rn(max - min, s.next_double()));
      else if (pdf == RandPdf::kNormal)
        v = philox_normal(s);
      else
        v = philox_poisson(s, lambda);
    }
    out[i] = static_cast<T>(v);
  }
}

// Runs per launch: passed by value as a kernel parameter (under the classic 4 KiB limit).
constexpr int kRunsPerLaunch = 128;
struct SeqBatch {
  SeqRun runs[kRunsPerLaunch];
  int count;
  int64_t end;  // one past the last index of the batch
};

template <typename T>
__global__ void seq_kernel(const SeqBatch batch, T* __restrict__ out) {
  const int64_t begin = batch.runs[0].start;
  for (int64_t i = begin + detail::global_thread(); i < batch.end; i += detail::grid_stride()) {
    int lo = 0, hi = batch.count - 1;  // the last run with start <= i
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (batch.runs[mid].start <= i)
        lo = mid;
      else
        hi = mid - 1;
    }
    const SeqRun& r = batch.runs[lo];
    out[i] =
        static_cast<T>(ops::add_rn(r.x0, ops::mul_rn(static_cast<double>(i - r.start), r.delta)));
  }
}

// The number K of consecutive steps j = 0, 1, ... from x for which fl(x_j + incr) = x_j + delta
// holds provably (x_j = x + j*delta), at most `limit`; 0 when not even the first one does. See
// Note [Parallel seq].
int64_t linear_steps(double x, double incr, int64_t limit, double* delta_out) {
  *delta_out = 0.0;
  if (!std::isfinite(x) || !std::isfinite(incr) || x == 0.0) return 0;
  const int e = std::ilogb(x);
  if (e < -1000 || e > 1000) return 0;  // keep clear of subnormals and overflow
  const double lo = std::ldexp(1.0, e), hi = std::ldexp(1.0, e + 1), u = std::ldexp(1.0, e - 52);
  const double s = x > 0 ? 1.0 : -1.0;
  const double x1 = x + incr;
  if (!(s * x1 >= lo && s * x1 < hi)) return 0;
  const double delta = x1 - x;  // exact: both are multiples of u in one binade
  // A tie when rounding incr to a multiple of u makes the step depend on parity; accept it only
  // when the second step repeats the first (it then repeats forever inside the binade).
  const double r = incr / u;
  if (std::isfinite(r) && r - std::floor(r) == 0.5) {
    const double x2 = x1 + incr;
    if (!(s * x2 >= lo && s * x2 < hi) || x2 - x1 != delta) return 0;
  }
  // Step j is safe when x_j and the exact x_j + incr lie inside the binade with a margin of 4 ulps
  // (the double evaluation of the test errs by at most one ulp).
  auto ok = [&](int64_t j) {
    const double xj = x + static_cast<double>(j) * delta;
    const double m = s * xj + s * incr;
    return s * xj >= lo && s * xj < hi && m >= lo + 4 * u && m <= hi - 4 * u;
  };
  if (!ok(0)) return 0;
  *delta_out = delta;
  int64_t k;
  if (delta == 0.0) {
    k = limit;
  } else {
    const double slope = s * delta;
    const double room = slope > 0 ? (hi - 4 * u - s * x - s * incr) / slope
                                  : (s * x + s * incr - lo - 4 * u) / -slope;
    k = room >= static_cast<double>(limit) ? limit : static_cast<int64_t>(std::floor(room)) + 1;
    if (k < 1) k = 1;
  }
  while (k > 1 && !ok(k - 1)) --k;
  return k;
}

template <typename T>
void rand(const cpu::RandSpec& spec, T* out, cudaStream_t stream) {
  DMLRT_REQUIRE(spec.rows >= 0 && spec.cols >= 0, ShapeError,
                "rand: invalid dimensions " << spec.rows << "x" << spec.cols);
  const int64_t n = spec.rows * spec.cols;
  if (n == 0) return;
  const bool constant = spec.pdf == RandPdf::kUniform && spec.min == spec.max;
  rand_kernel<T><<<detail::grid_for(n), detail::kThreads, 0, stream>>>(
      out, n, spec.seed, spec.sparsity, spec.pdf, spec.min, spec.max, spec.lambda, constant);
  DMLRT_CHECK_CTX(cudaGetLastError(), "rand " << spec.rows << "x" << spec.cols
                                              << " pdf=" << static_cast<int>(spec.pdf));
}

template <typename T>
void seq(double from, double incr, int64_t n, T* out, cudaStream_t stream) {
  if (n <= 0) return;
  const std::vector<SeqRun> runs = seq_runs(from, incr, n);
  for (size_t b = 0; b < runs.size(); b += kRunsPerLaunch) {
    SeqBatch batch{};
    batch.count =
        static_cast<int>(runs.size() - b < kRunsPerLaunch ? runs.size() - b : kRunsPerLaunch);
    for (int k = 0; k < batch.count; ++k) batch.runs[k] = runs[b + k];
    batch.end = b + kRunsPerLaunch < runs.size() ? runs[b + kRunsPerLaunch].start : n;
    seq_kernel<T>
        <<<detail::grid_for(batch.end - batch.runs[0].start), detail::kThreads, 0, stream>>>(batch,
                                                                                             out);
    DMLRT_CHECK_CTX(cudaGetLastError(), "seq from=" << from << " incr=" << incr << " n=" << n
                                                    << " runs=" << runs.size());
  }
}

}  // namespace

std::vector<SeqRun> seq_runs(double from, double incr, int64_t n) {
  std::vector<SeqRun> runs;
  double x = from;
  int64_t i = 0;
  while (i < n) {
    double delta = 0.0;
    const int64_t k = linear_steps(x, incr, n - i, &delta);
    if (k == 0) {
      runs.push_back({i, x, 0.0});
      x += incr;  // the host's own addition, as cpu::seq_column does
      i += 1;
    } else {
      runs.push_back({i, x, delta});
      x = x + static_cast<double>(k) * delta;  // exact (Note [Parallel seq])
      i += k;
    }
  }
  return runs;
}

void launch_rand(const cpu::RandSpec& spec, double* out, cudaStream_t stream) {
  rand(spec, out, stream);
}
void launch_rand(const cpu::RandSpec& spec, float* out, cudaStream_t stream) {
  rand(spec, out, stream);
}
void launch_seq(double from, double incr, int64_t n, double* out, cudaStream_t stream) {
  seq(from, incr, n, out, stream);
}
void launch_seq(double from, double incr, int64_t n, float* out, cudaStream_t stream) {
  seq(from, incr, n, out, stream);
}
}  // namespace dmlrt::kernels::cuda
