// GemmPlanner: the small dense products of ba+* through the fastest of cuBLAS's own routine and
// cuBLASLt's heuristic candidates, timed once per shape (host-clean: handles and streams are
// void*, as in blas.h).
//
// Note [Small GEMM plans]
// A product under ~1 GFLOP runs for a few microseconds on the H200, less than the host's cost of
// issuing it. cublas{S,D}gemm asks cuBLASLt's heuristic for an algorithm on every call, and some
// of its picks launch up to 4 kernels and memsets (split-K with a reduction), each a launch of
// ~4 us of host time. A one-off probe on the H200 (2026-11-30; back-to-back calls, host clock up
// to a stream synchronisation, best of 5 loops; not kept: the bench's gemm rows track the
// outcome) measured per call:
//
//   shape (m x k x n)   cublas{D,S}gemm          fastest cuBLASLt candidate, descriptors kept
//   64x512x10   FP64    14.4 us (1 launch)       8.0 us
//   64x512x10   FP32    13.1 us (4 launches)     10.6 us (2 launches)
//   64x3136x512 FP64    20.2 us (4 launches)     13.7 us
//   64x3136x512 FP32    16.5 us (4 launches)     25.9 us: none faster
//   t(A) 512x64x10 FP64  9.9 us                  6.0 us
//
// Which candidate wins varies by shape and is not the heuristic's first: some candidates cost more
// host time per launch than others at the same device time. So once per shape (below: at its third
// product) the planner times cuBLAS's routine and up to kMaxCandidates cuBLASLt heuristic results
// as the runtime issues them, back to back (host clock up to a synchronisation: the throughput of a
// stream of such calls, whichever of host or device limits it), and keeps the fastest; later
// products of that shape reuse its descriptors and algorithm. The cost is one timing of up to 9
// candidates, a few milliseconds, per shape and session. Candidates differ only in summation order
// (split-K), well within the contract's tolerance. FP32 uses CUBLAS_COMPUTE_32F: no TF32, as
// cublasSgemm in its default math mode. In bench/ (two H200 runs, 2026-11-30) ba+* then
// measured against cublas{D,S}gemm called directly: 64x512x10 0.62-0.63 (FP64) and 0.87-0.98
// (FP32), 64x3136x512 0.78-0.79 (FP64) and 1.00 (FP32, cuBLAS's routine kept).
//
// That cost is only worth paying for shapes that recur (a training loop), not for a loop whose
// shapes change every iteration (X[1:i,] %*% Y), where timing each would cost milliseconds per
// product. So a shape is timed at its kPlanAtCall-th product (cuBLAS's routine before), timing
// stops for the session once kMaxPlanningSeconds have gone into it, and at most kMaxShapes shapes
// are tracked; the rest run cuBLAS's routine as before (plan_due).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpu_context/cuda_types.h"

namespace dmlrt::gpu {
class TuningFile;
struct TuningStats;
}  // namespace dmlrt::gpu

namespace dmlrt::kernels::cuda {

class GemmPlanner {
 public:
  static constexpr int kMaxCandidates = 8;  // cuBLASLt heuristic results timed per shape
  static constexpr size_t kMaxWorkspaceBytes = size_t{4} << 20;  // as in the probe of the Note
  static constexpr int kPlanAtCall = 3;                          // a shape's product that times it
  static constexpr double kMaxPlanningSeconds = 1.0;             // per session
  static constexpr size_t kMaxShapes = 4096;                     // shapes tracked per session

  // Whether the `call`-th product (from 1) of a shape not yet timed times it now, after
  // `planning_seconds` of timing in this session (Note [Small GEMM plans]).
  static bool plan_due(int call, double planning_seconds) {
    return call >= kPlanAtCall && planning_seconds < kMaxPlanningSeconds;
  }

  // Where choices persist (Note [Persisted GEMM plans] in gpu_context/gemm_plan_cache.h) and
  // where their cost is counted for -stats; null members: neither.
  struct Persistence {
    gpu::TuningFile* file = nullptr;
    gpu::TuningStats* stats = nullptr;
    std::string device;  // name and compute capability, part of every key
  };

  // `cublas` is the session's handle, bound to `stream`, and `workspace` its workspace (the
  // planner's products share it: all run in order on that one stream); the planner owns a
  // cuBLASLt handle. Candidates use at most min(workspace_bytes, kMaxWorkspaceBytes). A shape
  // whose persisted plan still holds takes it at its first product, untimed.
  GemmPlanner(cublasHandle_t cublas, cudaStream_t stream, void* workspace, size_t workspace_bytes,
              const Persistence& persistence);
  // Nothing persisted or counted.
  GemmPlanner(cublasHandle_t cublas, cudaStream_t stream, void* workspace, size_t workspace_bytes);
  ~GemmPlanner();
  GemmPlanner(const GemmPlanner&) = delete;
  GemmPlanner& operator=(const GemmPlanner&) = delete;

  // Whether a product C (m, n) = op(A) op(B) with inner dimension k goes through the planner: a
  // matrix product (m, n > 1; vectors take gemv / dot) under 1 GFLOP, where the host's cost per
  // call is comparable to the device's.
  static bool applies(int64_t m, int64_t n, int64_t k) {
    return m > 1 && n > 1 && k > 0 && 2.0 * static_cast<double>(m) * n * k < 1e9;
  }

  // C (m, n) = op(A) op(B), row-major, as gemm_row_major in blas.h. The product of a shape
  // (precision, flags, m, n, k) that plan_due names synchronises the stream and times the
  // candidates on its operands.
  void run(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
           const double* b, double* c);
  void run(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
           const float* b, float* c);

  // Shapes timed so far, shapes whose plan came from the file, the seconds timing took, and the
  // choice for one ("cublas", "cublasLt #i", or "" when it has none yet).
  size_t planned_shapes() const;
  size_t shapes_from_file() const;
  double planning_seconds() const;
  std::string choice(bool fp64, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dmlrt::kernels::cuda
