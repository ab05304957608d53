// The persisted form of GemmPlanner's choices (kernels/cuda/gemm_planner.h, Note [Small GEMM
// plans]): what a product's plan is keyed by and what is kept of the choice, as text for a
// TuningFile (Note [Tuning cache files]). Device-free (compiled in every build, unit-tested).
//
// Note [Persisted GEMM plans]
// <dir>/gemm_plans.txt beside conv_algos.txt, header cublaslt=<cublasLtGetVersion()>. Key: the
// precision, transpose flags, m, n, k, the workspace a candidate may use, and the device (name and
// compute capability), all of which the timing depends on. Value: "cublas", or "lt <i> <64 hex
// bytes of the cublasLtMatmulAlgo_t> <workspace bytes>" for cuBLASLt heuristic result i, plus the
// measured microseconds per call (informative). A cuBLASLt choice is used only when the
// heuristic, asked again for the same descriptors in the new process, returns the same algorithm
// bytes at index i: the algorithm is then one cuBLASLt itself offers for this shape, never a
// stale blob. Anything else (no such index, other bytes, a value that does not parse) times the
// shape again as if it were new, and the new choice replaces the entry.
// dmlrt.gpu.gemm.plans.persist=false keeps the plans in memory only.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "gpu_context/tuning_file.h"

namespace dmlrt::gpu {

struct GemmPlanKey {
  bool fp64 = true, trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  uint64_t max_workspace = 0;
  std::string device;  // name and compute capability
  std::string to_string() const;
};

struct GemmPlanChoice {
  bool cublaslt = false;  // false: cuBLAS's own routine
  int index = -1;         // the heuristic result's position
  std::array<uint64_t, 8> algo{};  // cublasLtMatmulAlgo_t's bytes
  uint64_t workspace_bytes = 0;
  double us_per_call = 0.0;
  std::string to_string() const;
  // Parses to_string's form; false when malformed.
  static bool parse(const std::string& text, GemmPlanChoice* out);
};

constexpr int kGemmPlanCacheFormat = 1;
constexpr const char* kGemmPlanFileName = "gemm_plans.txt";
TuningFileFormat gemm_plan_file_format(int64_t cublaslt_version);

}  // namespace dmlrt::gpu
