// GemmPlanner; see gemm_planner.h and Note [Small GEMM plans] there.
#include "kernels/cuda/gemm_planner.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "gpu_context/gemm_plan_cache.h"
#include "gpu_context/handles.h"
#include "gpu_context/host_sync_hook.h"
#include "gpu_context/library_check.h"
#include "gpu_context/log.h"
#include "kernels/cuda/blas.h"

namespace dmlrt::kernels::cuda {
namespace {

struct LtHandleDestroy {
  void operator()(cublasLtHandle_t h) const { cublasLtDestroy(h); }
};
struct LtDescDestroy {
  void operator()(cublasLtMatmulDesc_t d) const { cublasLtMatmulDescDestroy(d); }
};
struct LtLayoutDestroy {
  void operator()(cublasLtMatrixLayout_t l) const { cublasLtMatrixLayoutDestroy(l); }
};
struct LtPreferenceDestroy {
  void operator()(cublasLtMatmulPreference_t p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using UniqueLt = gpu::UniqueHandle<cublasLtHandle_t, LtHandleDestroy>;
using UniqueLtDesc = gpu::UniqueHandle<cublasLtMatmulDesc_t, LtDescDestroy>;
using UniqueLtLayout = gpu::UniqueHandle<cublasLtMatrixLayout_t, LtLayoutDestroy>;
using UniqueLtPreference = gpu::UniqueHandle<cublasLtMatmulPreference_t, LtPreferenceDestroy>;

struct Key {
  bool fp64, ta, tb;
  int64_t m, n, k;
  bool operator==(const Key& o) const {
    return fp64 == o.fp64 && ta == o.ta && tb == o.tb && m == o.m && n == o.n && k == o.k;
  }
};
struct KeyHash {
  size_t operator()(const Key& key) const {
    size_t h = (key.fp64 ? 1u : 0u) | (key.ta ? 2u : 0u) | (key.tb ? 4u : 0u);
    for (int64_t v : {key.m, key.n, key.k}) h = h * 1000003u ^ std::hash<int64_t>{}(v);
    return h;
  }
};

std::string describe(const Key& key) {
  std::ostringstream os;
  os << (key.fp64 ? "FP64" : "FP32") << " gemm m=" << key.m << " n=" << key.n << " k=" << key.k
     << " transA=" << key.ta << " transB=" << key.tb;
  return os.str();
}

// One shape's choice. The cuBLASLt descriptors state Note [Row-major through column-major cuBLAS]
// (blas.h): C^T (n, m) = op(B)^T op(A)^T column-major, so Lt's first operand is the stored B.
struct Plan {
  int calls = 0;       // products of the shape so far, counted up to kPlanAtCall
  bool timed = false;  // until then, and when timing chose it, cuBLAS's routine runs
  int choice = -1;     // -1: cuBLAS's routine; i >= 0: cuBLASLt heuristic result i
  UniqueLtDesc desc;
  UniqueLtLayout first, second, out;  // stored B, stored A, C (all column-major views)
  cublasLtMatmulAlgo_t algo{};
  size_t workspace_bytes = 0;
  double us_per_call = 0.0;  // the chosen routine's, as timed
};
static_assert(sizeof(cublasLtMatmulAlgo_t) == sizeof(gpu::GemmPlanChoice::algo),
              "cublasLtMatmulAlgo_t is persisted as its 64 bytes");

using Seconds = std::chrono::duration<double>;

}  // namespace

struct GemmPlanner::Impl {
  cublasHandle_t cublas;
  cudaStream_t stream;
  void* workspace;
  size_t max_workspace_bytes;  // the most a candidate may use
  UniqueLt lt;
  std::unordered_map<Key, Plan, KeyHash> plans;
  size_t timed_shapes = 0;
  double planning_seconds = 0.0;
  gpu::TuningFile* file = nullptr;    // Note [Persisted GEMM plans]; null: memory only
  gpu::TuningStats* stats = nullptr;  // -stats' autotuning counters, or null
  std::string device;
  size_t from_file = 0;

  std::string file_key(const Key& key) const {
    return gpu::GemmPlanKey{key.fp64, key.ta, key.tb, key.m, key.n, key.k, max_workspace_bytes,
                            device}
        .to_string();
  }

  template <typename T>
  void lt_matmul(const Plan& p, const T* a, const T* b, T* c, const cublasLtMatmulAlgo_t& algo,
                 size_t ws_bytes) {
    const T one = 1, zero = 0;
    DMLRT_CHECK(cublasLtMatmul(lt.get(), p.desc.get(), &one, b, p.first.get(), a, p.second.get(),
                               &zero, c, p.out.get(), c, p.out.get(), &algo, workspace, ws_bytes,
                               stream));
  }

  // Microseconds per call of `call` issued back to back: two warm-up calls, then the best of 3
  // loops of 10, each timed on the host up to a synchronisation (Note [Small GEMM plans]).
  template <typename F>
  double per_call_us(const F& call) {
    gpu::before_host_sync("GEMM plan timing");
    call();
    call();
    DMLRT_CHECK(cudaStreamSynchronize(stream));
    double best = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 10; ++i) call();
      DMLRT_CHECK(cudaStreamSynchronize(stream));
      best = std::min(best, Seconds(std::chrono::steady_clock::now() - t0).count() * 1e5);
    }
    return best;
  }

  // The cuBLASLt descriptors of key's product (Note [Row-major through column-major cuBLAS]).
  template <typename T>
  void make_descriptors(const Key& key, Plan& p) {
    constexpr bool kFp64 = std::is_same_v<T, double>;
    const cudaDataType type = kFp64 ? CUDA_R_64F : CUDA_R_32F;
    const cublasComputeType_t compute = kFp64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    p.desc = UniqueLtDesc::create(
        [&](auto* d) { DMLRT_CHECK(cublasLtMatmulDescCreate(d, compute, type)); });
    const cublasOperation_t op_first = key.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_second = key.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    DMLRT_CHECK(cublasLtMatmulDescSetAttribute(p.desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, &op_first,
                                               sizeof(op_first)));
    DMLRT_CHECK(cublasLtMatmulDescSetAttribute(p.desc.get(), CUBLASLT_MATMUL_DESC_TRANSB,
                                               &op_second, sizeof(op_second)));
    const auto layout = [&](uint64_t rows, uint64_t cols) {
      // Column-major (rows, cols) with ld = rows: the stored row-major (cols, rows) matrix.
      return UniqueLtLayout::create(
          [&](auto* l) { DMLRT_CHECK(cublasLtMatrixLayoutCreate(l, type, rows, cols, rows)); });
    };
    p.first = key.tb ? layout(key.k, key.n) : layout(key.n, key.k);   // B stored (n, k) / (k, n)
    p.second = key.ta ? layout(key.m, key.k) : layout(key.k, key.m);  // A stored (k, m) / (m, k)
    p.out = layout(key.n, key.m);
  }

  // cuBLASLt's heuristic results for p's descriptors within the workspace cap; their count.
  int heuristic(const Plan& p, cublasLtMatmulHeuristicResult_t (&found)[kMaxCandidates]) {
    const auto pref =
        UniqueLtPreference::create([](auto* q) { DMLRT_CHECK(cublasLtMatmulPreferenceCreate(q)); });
    const size_t max_ws = max_workspace_bytes;
    DMLRT_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof(max_ws)));
    int n_found = 0;
    // No candidate (CUBLAS_STATUS_NOT_SUPPORTED) leaves cuBLAS's routine, the safe default.
    if (cublasLtMatmulAlgoGetHeuristic(lt.get(), p.desc.get(), p.first.get(), p.second.get(),
                                       p.out.get(), p.out.get(), pref.get(), kMaxCandidates, found,
                                       &n_found) != CUBLAS_STATUS_SUCCESS)
      n_found = 0;
    return n_found;
  }

  // key's plan as the file has it, checked against this process's heuristic (Note [Persisted
  // GEMM plans]); false when there is none that still holds.
  template <typename T>
  bool plan_from_file(const Key& key, Plan& p) {
    if (file == nullptr) return false;
    const std::string* text = file->find(file_key(key));
    gpu::GemmPlanChoice c;
    if (text == nullptr || !gpu::GemmPlanChoice::parse(*text, &c)) return false;
    if (c.cublaslt) {
      Plan q;
      make_descriptors<T>(key, q);
      cublasLtMatmulHeuristicResult_t found[kMaxCandidates] = {};
      const int n_found = heuristic(q, found);
      if (c.index >= n_found || found[c.index].state != CUBLAS_STATUS_SUCCESS ||
          found[c.index].workspaceSize != c.workspace_bytes ||
          c.workspace_bytes > max_workspace_bytes ||
          std::memcmp(&found[c.index].algo, c.algo.data(), sizeof(c.algo)) != 0)
        return false;
      q.choice = c.index;
      q.algo = found[c.index].algo;
      q.workspace_bytes = c.workspace_bytes;
      p = std::move(q);
    } else {
      p.choice = -1;
    }
    p.us_per_call = c.us_per_call;
    p.calls = kPlanAtCall;
    p.timed = true;
    ++from_file;
    if (stats != nullptr) ++stats->from_file;
    return true;
  }

  void save_plan(const Key& key, const Plan& p) {
    if (file == nullptr) return;
    gpu::GemmPlanChoice c;
    c.cublaslt = p.choice >= 0;
    c.index = p.choice;
    if (c.cublaslt) std::memcpy(c.algo.data(), &p.algo, sizeof(c.algo));
    c.workspace_bytes = p.workspace_bytes;
    c.us_per_call = p.us_per_call;
    file->put(file_key(key), c.to_string());
  }

  template <typename T>
  Plan make_plan(const Key& key, const T* a, const T* b, T* c) {
    Plan p;
    make_descriptors<T>(key, p);
    cublasLtMatmulHeuristicResult_t found[kMaxCandidates] = {};
    const int n_found = heuristic(p, found);
    std::vector<int> usable;
    for (int i = 0; i < n_found; ++i)
      if (found[i].state == CUBLAS_STATUS_SUCCESS && found[i].workspaceSize <= max_workspace_bytes)
        usable.push_back(i);
    if (usable.empty()) return p;

    gpu::before_host_sync("GEMM plan timing");
    DMLRT_CHECK(cudaStreamSynchronize(stream));  // earlier work stays out of the timing
    std::ostringstream log;
    double best =
        per_call_us([&] { gemm_row_major(cublas, key.ta, key.tb, key.m, key.n, key.k, a, b, c); });
    log << "cublas " << best << " us";
    for (int i : usable) {
      double us = 0;
      try {
        us = per_call_us([&] { lt_matmul(p, a, b, c, found[i].algo, found[i].workspaceSize); });
      } catch (const CublasError& e) {
        log << ", #" << i << " failed (" << e.what() << ")";  // not a candidate after all
        continue;
      }
      log << ", #" << i << " " << us << " us";
      if (us < best) {
        best = us;
        p.choice = i;
      }
    }
    if (p.choice >= 0) {
      p.algo = found[p.choice].algo;
      p.workspace_bytes = found[p.choice].workspaceSize;
    }
    p.us_per_call = best;
    DMLRT_DEBUG(
        describe(key) << ": per call " << log.str() << "; picked "
                      << (p.choice < 0 ? "cublas" : "cuBLASLt #" + std::to_string(p.choice)));
    return p;
  }

  template <typename T>
  void run(const Key& key, const T* a, const T* b, T* c) {
    // cuBLASLt's heuristic assumes 256-byte aligned operands (its preference's default); every
    // allocation is (cudaMalloc), a view into one need not be: cuBLAS's routine handles any.
    const auto aligned = [](const void* ptr) {
      return reinterpret_cast<uintptr_t>(ptr) % 256 == 0;
    };
    if (!aligned(a) || !aligned(b) || !aligned(c)) {
      gemm_row_major(cublas, key.ta, key.tb, key.m, key.n, key.k, a, b, c);
      return;
    }
    auto it = plans.find(key);
    if (it == plans.end()) {
      if (plans.size() >= kMaxShapes) {  // untracked: as if never due
        gemm_row_major(cublas, key.ta, key.tb, key.m, key.n, key.k, a, b, c);
        return;
      }
      it = plans.emplace(key, Plan{}).first;
      plan_from_file<T>(key, it->second);
    }
    Plan& p = it->second;
    if (!p.timed) {
      p.calls = std::min(p.calls + 1, kPlanAtCall);
      if (plan_due(p.calls, planning_seconds)) {
        const auto t0 = std::chrono::steady_clock::now();
        p = make_plan(key, a, b, c);
        p.calls = kPlanAtCall;
        p.timed = true;
        ++timed_shapes;
        const double dt = Seconds(std::chrono::steady_clock::now() - t0).count();
        planning_seconds += dt;
        if (stats != nullptr) {
          stats->seconds += dt;
          ++stats->timed;
        }
        save_plan(key, p);
      }
    }
    if (!p.timed || p.choice < 0) {
      gemm_row_major(cublas, key.ta, key.tb, key.m, key.n, key.k, a, b, c);
      return;
    }
    lt_matmul(p, a, b, c, p.algo, p.workspace_bytes);
  }
};

GemmPlanner::GemmPlanner(cublasHandle_t cublas, cudaStream_t stream, void* workspace,
                         size_t workspace_bytes, const Persistence& persistence)
    : impl_(std::make_unique<Impl>()) {
  impl_->file = persistence.file;
  impl_->stats = persistence.stats;
  impl_->device = persistence.device;
  impl_->cublas = cublas;
  impl_->stream = stream;
  impl_->workspace = workspace;
  impl_->max_workspace_bytes =
      workspace == nullptr ? 0 : std::min(workspace_bytes, kMaxWorkspaceBytes);
  impl_->lt = UniqueLt::create([](auto* lt) { DMLRT_CHECK(cublasLtCreate(lt)); });
}

GemmPlanner::GemmPlanner(cublasHandle_t cublas, cudaStream_t stream, void* workspace,
                         size_t workspace_bytes)
    : GemmPlanner(cublas, stream, workspace, workspace_bytes, Persistence{}) {}

GemmPlanner::~GemmPlanner() = default;

void GemmPlanner::run(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a,
                      const double* b, double* c) {
  impl_->run(Key{true, trans_a, trans_b, m, n, k}, a, b, c);
}

void GemmPlanner::run(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                      const float* b, float* c) {
  impl_->run(Key{false, trans_a, trans_b, m, n, k}, a, b, c);
}

size_t GemmPlanner::planned_shapes() const { return impl_->timed_shapes; }

size_t GemmPlanner::shapes_from_file() const { return impl_->from_file; }

double GemmPlanner::planning_seconds() const { return impl_->planning_seconds; }

std::string GemmPlanner::choice(bool fp64, bool trans_a, bool trans_b, int64_t m, int64_t n,
                                int64_t k) const {
  const auto it = impl_->plans.find(Key{fp64, trans_a, trans_b, m, n, k});
  if (it == impl_->plans.end() || !it->second.timed) return "";
  return it->second.choice < 0 ? "cublas" : "cublasLt #" + std::to_string(it->second.choice);
}

}  // namespace dmlrt::kernels::cuda
