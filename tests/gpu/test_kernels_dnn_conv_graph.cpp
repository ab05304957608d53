// Device tests of the cuDNN graph-API convolution wrapper (kernels/cuda/dnn_conv_graph.h) against
// the CPU references kernels::cpu::conv2d / conv2d_backward_data / conv2d_backward_filter: every
// engine configuration the heuristics propose (not only the fastest) for each pass, FP64 (1e-9)
// and FP32 (1e-4 relative, scaled by the reduction length; no TF32 engine unless allowed; the
// instruction's own accuracy check is tested in test_gpu_dnn_conv.cpp), on small shapes with stride
// 2, padding, non-square images and filters, 1x1 filters, C = 1, N = 1; the timing (sorted,
// workspace within what was given); beta = 1 accumulation; pointers that are only element-aligned
// (batch-chunk offsets); the rebuild of plans from cache records (through the cache file's text, on
// a second context) and the plan memo; the filters (TF32, deterministic, workspace cap) and records
// that cannot be rebuilt; the timing rule every candidate shares (best_run_ms).
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gpu_context/conv_algo_cache.h"
#include "gpu_context/gpu_context.h"
#include "gpu_context/library_check.h"
#include "kernel_test_util.h"
#include "kernels/cpu/dnn_conv.h"
#include "kernels/cuda/dnn_conv_graph.h"

namespace {

using dmlrt::kernels::MatrixBlock;
using Pass = dmlrt::gpu::ConvPass;
namespace cuda = dmlrt::kernels::cuda;
namespace cpu = dmlrt::kernels::cpu;
namespace tg = dmlrt::test::gpu;

constexpr uint64_t kCap = uint64_t{256} << 20;  // workspace cap of the searches

struct Case {
  const char* name;
  int64_t n, c, h, w, k, r, s, stride_h, stride_w, pad_h, pad_w;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"plain-3x3", 3, 2, 5, 5, 4, 3, 3, 1, 1, 0, 0},
      {"stride2-pad-nonsquare", 2, 3, 7, 6, 5, 3, 2, 2, 2, 1, 1},
      {"C1-asymmetric", 4, 1, 9, 4, 3, 2, 3, 2, 1, 2, 0},
      {"1x1-N1", 1, 4, 6, 6, 8, 1, 1, 1, 1, 0, 0},
      {"1x1-wide", 2, 16, 8, 8, 32, 1, 1, 1, 1, 0, 0},
      {"odd-stride3", 5, 3, 17, 13, 6, 5, 4, 3, 2, 2, 1},
      {"lenet-5x5", 2, 8, 14, 14, 16, 5, 5, 1, 1, 2, 2},
      {"filter-as-large-as-image", 1, 1, 4, 4, 1, 4, 4, 1, 1, 0, 0},
  };
  return c;
}

const Pass kPasses[] = {Pass::kForward, Pass::kBackwardData, Pass::kBackwardFilter};

cpu::ConvShape shape_of(const Case& k) {
  cpu::ConvShape sh;
  sh.stride_h = k.stride_h, sh.stride_w = k.stride_w, sh.pad_h = k.pad_h, sh.pad_w = k.pad_w;
  sh.n = k.n, sh.c = k.c, sh.h = k.h, sh.w = k.w, sh.k = k.k, sh.r = k.r, sh.s = k.s;
  sh.derive_output_size();
  return sh;
}

cuda::ConvDims dims_of(const Case& k) {
  const cpu::ConvShape sh = shape_of(k);
  cuda::ConvDims d;
  d.n = k.n, d.c = k.c, d.h = k.h, d.w = k.w, d.k = k.k, d.r = k.r, d.s = k.s;
  d.p = sh.p, d.q = sh.q;
  d.stride_h = k.stride_h, d.stride_w = k.stride_w, d.pad_h = k.pad_h, d.pad_w = k.pad_w;
  return d;
}

std::string label_of(const Case& k, Pass pass, const char* prec, const std::string& extra = "") {
  std::ostringstream os;
  os << dmlrt::gpu::conv_pass_name(pass) << " " << k.name << " " << dims_of(k).to_string() << " "
     << prec << (extra.empty() ? "" : " ") << extra;
  return os.str();
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "\n  " + s;
  return out;
}

// The length of the sums behind one output of `pass`.
int64_t reduction_length(const Case& k, Pass pass) {
  const cpu::ConvShape sh = shape_of(k);
  switch (pass) {
    case Pass::kForward:
      return k.c * k.r * k.s;
    case Pass::kBackwardData:
      return k.k * k.r * k.s;
    case Pass::kBackwardFilter:
      break;
  }
  return k.n * sh.p * sh.q;
}

// FP64: 1e-9 absolute + relative. FP32: tol * (1 + |ref|) + tol * rms(ref), tol = base *
// max(1, sqrt(L / 16)) for reductions of length L (the same rule as test_gpu_dnn_conv.cpp: FP32
// rounding grows with sqrt(L) and is relative to the size of the terms); base 1e-4, or 1e-2 for
// TF32.
template <typename T>
void check_close(const std::string& what, const MatrixBlock& got, const MatrixBlock& ref,
                 int64_t length, double base = 1e-4) {
  if (sizeof(T) == 8) {
    DMLRT_REQUIRE_KERNEL_CLOSE(what, got, ref, 1e-9);
    return;
  }
  const double tol =
      base * std::max(1.0, std::sqrt(static_cast<double>(std::max<int64_t>(length, 1)) / 16));
  double sq = 0;
  const std::vector<double> v = ref.to_dense().dense_values();
  for (double x : v) sq += x * x;
  const double rms = v.empty() ? 0.0 : std::sqrt(sq / static_cast<double>(v.size()));
  const auto cmp = dmlrt::test::compare(got, ref, tol * (1 + rms), tol);
  INFO(what << " tol=" << tol << " " << cmp.report << " max_abs_err=" << cmp.max_abs_err);
  CHECK(cmp.ok);
}

// Host inputs, the CPU reference and the device buffers of one pass. The device holds x (N, CHW),
// w (K, CRS) and y (N, KPQ), each `offset` elements past the start of its allocation (offset 1
// makes the pointers only element-aligned, as batch-chunk offsets can be); the pass's output is
// one of them.
template <typename T>
struct PassData {
  Case k;
  Pass pass;
  int64_t offset;
  MatrixBlock x, w, y, ref;
  int64_t out_rows = 0, out_cols = 0;
  tg::DeviceBlock dx, dw, dy;

  PassData(const Case& kc, Pass p, uint64_t seed, int64_t off = 0) : k(kc), pass(p), offset(off) {
    const cpu::ConvShape sh = shape_of(k);
    const int64_t chw = k.c * k.h * k.w, crs = k.c * k.r * k.s, kpq = k.k * sh.p * sh.q;
    x = tg::rounded<T>(tg::random_dense(k.n, chw, seed, -1, 1));
    w = tg::rounded<T>(tg::random_dense(k.k, crs, seed + 1, -1, 1));
    y = tg::rounded<T>(tg::random_dense(k.n, kpq, seed + 2, -1, 1));
    switch (pass) {
      case Pass::kForward:
        ref = cpu::conv2d(x, w, sh);
        out_rows = k.n, out_cols = kpq;
        break;
      case Pass::kBackwardData:
        ref = cpu::conv2d_backward_data(w, y, sh);
        out_rows = k.n, out_cols = chw;
        break;
      case Pass::kBackwardFilter:
        ref = cpu::conv2d_backward_filter(x, y, sh);
        out_rows = k.k, out_cols = crs;
        break;
    }
    dx = upload(x);
    dw = upload(w);
    dy = upload(y);
    tg::sync_device();
  }

  tg::DeviceBlock upload(const MatrixBlock& b) const {
    std::vector<double> v(static_cast<size_t>(offset), 0.0);
    const std::vector<double> vals = tg::values_of(b);
    v.insert(v.end(), vals.begin(), vals.end());
    return tg::to_device<T>(v);
  }
  T* at(const tg::DeviceBlock& b) const { return tg::ptr<T>(b) + offset; }
  cuda::ConvTensors tensors() const {
    cuda::ConvTensors t;
    t.x = at(dx);
    t.w = at(dw);
    t.y = at(dy);
    return t;
  }
  const tg::DeviceBlock& out() const {
    return pass == Pass::kForward ? dy : pass == Pass::kBackwardData ? dx : dw;
  }
  tg::DeviceBlock& out() {
    return pass == Pass::kForward ? dy : pass == Pass::kBackwardData ? dx : dw;
  }
  // Overwrites the output with `values` (row-major), or with a garbage pattern.
  void set_output(const std::vector<double>* values) {
    std::vector<double> v(static_cast<size_t>(offset), 0.0);
    if (values != nullptr)
      v.insert(v.end(), values->begin(), values->end());
    else
      v.resize(static_cast<size_t>(offset + out_rows * out_cols), -12345.678);
    std::vector<T> t(v.begin(), v.end());
    out().copy_from_host(t.data(), t.size() * sizeof(T));
    // A pageable cudaMemcpy may return before its DMA lands, and the context's stream does not
    // wait for the legacy stream.
    tg::sync_device();
  }
  MatrixBlock result() const {
    std::vector<double> all = tg::from_device<T>(out(), offset + out_rows * out_cols);
    return MatrixBlock::dense(out_rows, out_cols,
                              std::vector<double>(all.begin() + offset, all.end()));
  }
  bool fp64() const { return sizeof(T) == 8; }
  cuda::GraphConvSpec spec(double beta = 0.0) const {
    cuda::GraphConvSpec s;
    s.pass = pass;
    s.dims = dims_of(k);
    s.fp64 = fp64();
    s.beta = beta;
    s.alignment = cuda::tensor_alignment(tensors(), fp64());
    return s;
  }
};

cuda::GraphEngineFilter filter_of(int max_candidates = 64) {
  cuda::GraphEngineFilter f;
  f.workspace_cap = kCap;
  f.max_candidates = max_candidates;
  return f;
}

// Runs `plan` on d's buffers with a fresh workspace and returns the output.
template <typename T>
MatrixBlock run_plan(cudnnHandle_t h, const cuda::GraphConvPlan& plan, PassData<T>& d,
                     const std::vector<double>* prior = nullptr) {
  d.set_output(prior);
  tg::DeviceBlock ws(std::max<uint64_t>(plan.workspace_bytes(), 16));
  plan.execute(h, d.tensors(), ws.data());
  return d.result();
}

bool has_note(const cuda::GraphConvPlan& p, int note) {
  return std::find(p.numerical_notes().begin(), p.numerical_notes().end(), note) !=
         p.numerical_notes().end();
}

}  // namespace

TEMPLATE_TEST_CASE("graph conv: every candidate engine of every pass matches the CPU",
                   "[gpu][kernel][dnn][cudnn]", double) {
  using T = TestType;
  dmlrt::gpu::GpuContext ctx(0);
  cudnnHandle_t h = ctx.cudnn();
  const uint64_t seed = dmlrt::test::seed_from("graph-conv-candidates");
  for (const Pass pass : kPasses) {
    for (const Case& k : cases()) {
      PassData<T> d(k, pass, seed + static_cast<uint64_t>(k.h * 131 + k.c));
      const std::string what = label_of(k, pass, tg::precision_name<T>());
      auto graph = std::make_shared<const cuda::ConvGraph>(h, d.spec());
      CHECK(graph->engine_count() > 0);
      std::vector<std::string> skipped;
      auto plans = cuda::graph_engine_plans(h, graph, filter_of(), &skipped);
      INFO(what << ": " << plans.size() << " plans; skipped:" << joined(skipped));
      CHECK_FALSE(plans.empty());
      if (plans.empty()) continue;
      uint64_t max_ws = 0;
      for (const auto& p : plans) {
        const std::string pw = what + " " + p->choice().to_string();
        CHECK(p->choice().kind == dmlrt::gpu::ConvAlgoKind::kEngine);
        CHECK(p->workspace_bytes() <= kCap);
        if (sizeof(T) == 4) CHECK_FALSE(has_note(*p, CUDNN_NUMERICAL_NOTE_TENSOR_CORE));
        check_close<T>(pw, run_plan(h, *p, d), d.ref, reduction_length(k, pass));
        max_ws = std::max(max_ws, p->workspace_bytes());
      }
      // Timing: every plan fits the workspace given, so all come back, fastest first.
      const size_t count = plans.size();
      tg::DeviceBlock ws(std::max<uint64_t>(max_ws, 16));
      d.set_output(nullptr);
      skipped.clear();
      const dmlrt::gpu::ConvAlgoList timed = cuda::time_graph_plans(
          h, ctx.stream(), &plans, d.tensors(), ws.data(), max_ws, 2, &skipped);
      INFO("timing skipped:" << joined(skipped));
      CHECK(timed.size() == count);
      REQUIRE(plans.size() == timed.size());
      for (size_t i = 0; i < timed.size(); ++i) {
        CHECK(timed[i].time_ms > 0.0);
        CHECK(timed[i].same_algorithm(plans[i]->choice()));
        if (i > 0) CHECK(timed[i - 1].time_ms <= timed[i].time_ms);
      }
      // The fastest plan, run again after the timing, still matches.
      check_close<T>(what + " fastest", run_plan(h, *plans.front(), d), d.ref,
                     reduction_length(k, pass));
    }
  }
}

TEMPLATE_TEST_CASE("graph conv: beta = 1 adds the convolution to the output",
                   "[gpu][kernel][dnn][cudnn]", double) {
  using T = TestType;
  dmlrt::gpu::GpuContext ctx(0);
  cudnnHandle_t h = ctx.cudnn();
  const uint64_t seed = dmlrt::test::seed_from("graph-conv-beta");
  for (const Pass pass : kPasses) {
    for (const Case& k : {cases()[1], cases()[4], cases()[6]}) {
      PassData<T> d(k, pass, seed + static_cast<uint64_t>(k.w));
      const std::string what = label_of(k, pass, tg::precision_name<T>(), "beta=1");
      const MatrixBlock prior =
          tg::rounded<T>(tg::random_dense(d.out_rows, d.out_cols, seed + 7, -2, 2));
      const std::vector<double> prior_values = tg::values_of(prior);
      std::vector<double> expected = tg::values_of(d.ref);
      for (size_t i = 0; i < expected.size(); ++i) expected[i] += prior_values[i];
      const MatrixBlock ref = MatrixBlock::dense(d.out_rows, d.out_cols, expected);

      // Plans searched on the beta-1 graph.
      auto graph1 = std::make_shared<const cuda::ConvGraph>(h, d.spec(1.0));
      std::vector<std::string> skipped;
      auto plans = cuda::graph_engine_plans(h, graph1, filter_of(16), &skipped);
      INFO(what << " skipped:" << joined(skipped));
      CHECK_FALSE(plans.empty());
      for (const auto& p : plans)
        check_close<T>(what + " " + p->choice().to_string(), run_plan(h, *p, d, &prior_values), ref,
                       reduction_length(k, pass));

      // The configurations of a beta-0 search rebuilt on the beta-1 graph (what a cached choice
      // does for the second batch chunk of a backward filter); at least one must build.
      auto graph0 = std::make_shared<const cuda::ConvGraph>(h, d.spec(0.0));
      auto plans0 = cuda::graph_engine_plans(h, graph0, filter_of(16));
      int rebuilt = 0;
      for (const auto& p0 : plans0) {
        std::string why;
        auto p1 = cuda::build_graph_plan(h, graph1, p0->choice(), filter_of(), &why);
        if (p1 == nullptr) continue;
        ++rebuilt;
        CHECK(p1->choice().same_algorithm(p0->choice()));
        check_close<T>(what + " rebuilt " + p1->choice().to_string(),
                       run_plan(h, *p1, d, &prior_values), ref, reduction_length(k, pass));
      }
      CHECK(rebuilt > 0);
    }
  }
}

TEMPLATE_TEST_CASE("graph conv: plans rebuilt from cache records on another context match",
                   "[gpu][kernel][dnn][cudnn]", double) {
  using T = TestType;
  using dmlrt::gpu::ConvAlgoChoice;
  using dmlrt::gpu::ConvAlgoList;
  const uint64_t seed = dmlrt::test::seed_from("graph-conv-rebuild");
  for (const Pass pass : kPasses) {
    const Case& k = cases()[1];
    PassData<T> d(k, pass, seed);
    const std::string what = label_of(k, pass, tg::precision_name<T>(), "rebuilt");
    // Search and time on a first context, then store the choices as a cache file would.
    dmlrt::gpu::ConvAlgoKey key;
    key.pass = pass;
    key.n = k.n, key.c = k.c, key.h = k.h, key.w = k.w, key.k = k.k, key.r = k.r, key.s = k.s;
    key.stride_h = k.stride_h, key.stride_w = k.stride_w, key.pad_h = k.pad_h, key.pad_w = k.pad_w;
    key.dtype = sizeof(T) == 8 ? "fp64" : "fp32";
    key.cudnn_version = static_cast<int64_t>(cudnnGetVersion());
    std::string text;
    {
      dmlrt::gpu::GpuContext first(0);
      auto graph = std::make_shared<const cuda::ConvGraph>(first.cudnn(), d.spec());
      auto plans = cuda::graph_engine_plans(first.cudnn(), graph, filter_of(16));
      REQUIRE_FALSE(plans.empty());
      uint64_t max_ws = 0;
      for (const auto& p : plans) max_ws = std::max(max_ws, p->workspace_bytes());
      tg::DeviceBlock ws(std::max<uint64_t>(max_ws, 16));
      const ConvAlgoList timed = cuda::time_graph_plans(first.cudnn(), first.stream(), &plans,
                                                        d.tensors(), ws.data(), max_ws);
      REQUIRE_FALSE(timed.empty());
      dmlrt::gpu::ConvAlgoMap entries;
      entries[key.to_string()] = timed;
      text = dmlrt::gpu::serialize_conv_algo_cache(entries, key.cudnn_version);
    }
    dmlrt::gpu::ConvAlgoMap back;
    std::string why;
    REQUIRE(dmlrt::gpu::parse_conv_algo_cache(text, key.cudnn_version, &back, &why));
    const ConvAlgoList& records = back[key.to_string()];
    REQUIRE_FALSE(records.empty());

    // A later run: a new context rebuilds each record through the memo, without a search.
    dmlrt::gpu::GpuContext second(0);
    cudnnHandle_t h = second.cudnn();
    cuda::GraphPlanMemo memo;
    const cuda::GraphConvSpec spec = d.spec();
    for (const ConvAlgoChoice& c : records) {
      INFO(what << " record " << c.to_string());
      const auto p = memo.plan(h, key.to_string(), spec, c, filter_of(), &why);
      INFO("why: " << why);
      REQUIRE(p != nullptr);
      CHECK(p->choice().same_algorithm(c));
      CHECK(p->workspace_bytes() == c.workspace_bytes);
      check_close<T>(what + " " + c.to_string(), run_plan(h, *p, d), d.ref,
                     reduction_length(k, pass));
      // The second lookup is a hit and returns the same plan.
      const int64_t hits = memo.hits();
      CHECK(memo.plan(h, key.to_string(), spec, c, filter_of(), &why) == p);
      CHECK(memo.hits() == hits + 1);
    }
    CHECK(memo.size() == records.size());
    CHECK(memo.misses() == static_cast<int64_t>(records.size()));

    // Records that cannot be rebuilt give null with a reason, never an exception; the failure
    // is memoised too.
    auto graph = memo.graph(h, key.to_string(), spec);
    ConvAlgoChoice bad = records.front();
    bad.algo = static_cast<int>(graph->engine_count());
    CHECK(memo.plan(h, key.to_string(), spec, bad, filter_of(), &why) == nullptr);
    CHECK(why.find("out of range") != std::string::npos);
    const int64_t misses = memo.misses();
    CHECK(memo.plan(h, key.to_string(), spec, bad, filter_of(), &why) == nullptr);
    CHECK(memo.misses() == misses);
    bad = records.front();
    bad.knobs.push_back({999, 1});
    CHECK(memo.plan(h, key.to_string(), spec, bad, filter_of(), &why) == nullptr);
    CHECK(why.find("knob") != std::string::npos);
    bad = records.front();
    bad.kind = dmlrt::gpu::ConvAlgoKind::kLegacy;
    CHECK(cuda::build_graph_plan(h, graph, bad, filter_of(), &why) == nullptr);
    CHECK(why.find("not an engine") != std::string::npos);
    // A plan over a smaller cap is refused by the memo, without forgetting it.
    const ConvAlgoChoice& big = *std::max_element(
        records.begin(), records.end(),
        [](const auto& a, const auto& b) { return a.workspace_bytes < b.workspace_bytes; });
    if (big.workspace_bytes > 0) {
      cuda::GraphEngineFilter small = filter_of();
      small.workspace_cap = big.workspace_bytes - 1;
      CHECK(memo.plan(h, key.to_string(), spec, big, small, &why) == nullptr);
      CHECK(why.find("workspace") != std::string::npos);
      CHECK(memo.plan(h, key.to_string(), spec, big, filter_of(), &why) != nullptr);
    }
  }
}

TEMPLATE_TEST_CASE("graph conv: element-aligned pointers (batch-chunk offsets)",
                   "[gpu][kernel][dnn][cudnn]", double) {
  using T = TestType;
  dmlrt::gpu::GpuContext ctx(0);
  cudnnHandle_t h = ctx.cudnn();
  const uint64_t seed = dmlrt::test::seed_from("graph-conv-aligned");
  for (const Pass pass : kPasses) {
    const Case& k = cases()[6];
    PassData<T> aligned(k, pass, seed), offset(k, pass, seed, 1);
    const std::string what = label_of(k, pass, tg::precision_name<T>(), "offset 1 element");
    CHECK(cuda::tensor_alignment(aligned.tensors(), sizeof(T) == 8) == 16);
    CHECK(cuda::tensor_alignment(offset.tensors(), sizeof(T) == 8) ==
          static_cast<int64_t>(sizeof(T)));
    auto graph = std::make_shared<const cuda::ConvGraph>(h, offset.spec());
    std::vector<std::string> skipped;
    auto plans = cuda::graph_engine_plans(h, graph, filter_of(16), &skipped);
    INFO(what << " skipped:" << joined(skipped));
    REQUIRE_FALSE(plans.empty());
    for (const auto& p : plans)
      check_close<T>(what + " " + p->choice().to_string(), run_plan(h, *p, offset), offset.ref,
                     reduction_length(k, pass));
    // A plan built for 16-byte alignment refuses the offset pointers before cuDNN sees them.
    auto graph16 = std::make_shared<const cuda::ConvGraph>(h, aligned.spec());
    auto plans16 = cuda::graph_engine_plans(h, graph16, filter_of(1));
    REQUIRE_FALSE(plans16.empty());
    tg::DeviceBlock ws(std::max<uint64_t>(plans16.front()->workspace_bytes(), 16));
    try {
      plans16.front()->execute(h, offset.tensors(), ws.data());
      FAIL("a misaligned execute did not throw");
    } catch (const dmlrt::CudnnError& e) {
      CHECK(e.status() == CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER);
      CHECK(std::string(e.what()).find("aligned to") != std::string::npos);
    }
  }
}

TEMPLATE_TEST_CASE("graph conv: filters (workspace cap, deterministic) and a short workspace",
                   "[gpu][kernel][dnn][cudnn]", double) {
  using T = TestType;
  dmlrt::gpu::GpuContext ctx(0);
  cudnnHandle_t h = ctx.cudnn();
  const uint64_t seed = dmlrt::test::seed_from("graph-conv-filters");
  for (const Pass pass : kPasses) {
    const Case& k = cases()[6];
    PassData<T> d(k, pass, seed);
    const std::string what = label_of(k, pass, tg::precision_name<T>());
    auto graph = std::make_shared<const cuda::ConvGraph>(h, d.spec());
    // Deterministic mode: no engine noted non-deterministic, and the results still match.
    cuda::GraphEngineFilter det = filter_of(16);
    det.deterministic = true;
    auto plans = cuda::graph_engine_plans(h, graph, det);
    INFO(what << " deterministic");
    REQUIRE_FALSE(plans.empty());
    for (const auto& p : plans) {
      CHECK_FALSE(has_note(*p, CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC));
      const MatrixBlock a = run_plan(h, *p, d), b = run_plan(h, *p, d);
      CHECK(tg::values_of(a) == tg::values_of(b));  // bitwise: run twice, same bits
      check_close<T>(what + " deterministic " + p->choice().to_string(), a, d.ref,
                     reduction_length(k, pass));
    }
    // Workspace cap 0: every plan kept needs none.
    cuda::GraphEngineFilter none = filter_of(64);
    none.workspace_cap = 0;
    for (const auto& p : cuda::graph_engine_plans(h, graph, none)) CHECK(p->workspace_bytes() == 0);
    // Timing with no workspace drops exactly the plans that need some.
    auto all = cuda::graph_engine_plans(h, graph, filter_of(64));
    const size_t total = all.size();
    const size_t zero = static_cast<size_t>(std::count_if(
        all.begin(), all.end(), [](const auto& p) { return p->workspace_bytes() == 0; }));
    d.set_output(nullptr);
    std::vector<std::string> skipped;
    const dmlrt::gpu::ConvAlgoList timed =
        cuda::time_graph_plans(h, ctx.stream(), &all, d.tensors(), nullptr, 0, 1, &skipped);
    CHECK(timed.size() == zero);
    CHECK(skipped.size() == total - zero);
    for (const auto& c : timed) CHECK(c.workspace_bytes == 0);
  }
}

TEST_CASE("graph conv: FP32 with TF32 allowed stays within 1e-2", "[gpu][kernel][dnn][cudnn]") {
  dmlrt::gpu::GpuContext ctx(0);
  cudnnHandle_t h = ctx.cudnn();
  const uint64_t seed = dmlrt::test::seed_from("graph-conv-tf32");
  for (const Pass pass : kPasses) {
    const Case& k = cases()[4];
    PassData<float> d(k, pass, seed);
    auto graph = std::make_shared<const cuda::ConvGraph>(h, d.spec());
    cuda::GraphEngineFilter f = filter_of(32);
    f.allow_tf32 = true;
    auto plans = cuda::graph_engine_plans(h, graph, f);
    REQUIRE_FALSE(plans.empty());
    for (const auto& p : plans)
      check_close<float>(label_of(k, pass, "TF32", p->choice().to_string()), run_plan(h, *p, d),
                         d.ref, reduction_length(k, pass), 1e-2);
  }
}

namespace {
// A host function on the stream that sleeps `ms` milliseconds: a run of known length.
void CUDART_CB sleep_on_stream(void* ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms)));
}
}  // namespace

TEST_CASE("best_run_ms: a warm-up is repeated only within kRepeatFactor of the best so far",
          "[gpu][kernel][dnn][cudnn]") {
  dmlrt::gpu::GpuContext ctx(0);
  int sleep_ms = 5;
  int runs = 0;
  const auto run = [&] {
    ++runs;
    REQUIRE(cudaLaunchHostFunc(ctx.stream(), sleep_on_stream, &sleep_ms) == cudaSuccess);
  };
  SECTION("the first candidate (best so far: none) is repeated") {
    const double ms =
        cuda::best_run_ms(ctx.stream(), run, 3, std::numeric_limits<double>::infinity());
    CHECK(runs == 5);  // warm-up, pre-roll, three timed
    CHECK(ms >= 4.5);
  }
  SECTION("within the factor: repeated") {
    const double ms = cuda::best_run_ms(ctx.stream(), run, 2, sleep_ms / cuda::kRepeatFactor * 2);
    CHECK(runs == 4);
    CHECK(ms >= 4.5);
  }
  SECTION("slower than the factor allows: one run, its time") {
    const double ms = cuda::best_run_ms(ctx.stream(), run, 3, 1.0 / cuda::kRepeatFactor);
    CHECK(runs == 1);
    CHECK(ms >= 4.5);
  }
  SECTION("a failing run propagates its error") {
    const auto failing = [] {
      throw dmlrt::CudnnError("cudnn failed", CUDNN_STATUS_NOT_SUPPORTED);
    };
    CHECK_THROWS_WITH(cuda::best_run_ms(ctx.stream(), failing, 3, 1.0), "cudnn failed");
  }
}
