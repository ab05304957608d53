// cuDNN graph-API convolution engines; see dnn_conv_graph.h and Note [cuDNN graph engines].
#include "kernels/cuda/dnn_conv_graph.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "gpu_context/cuda_check.h"
#include "gpu_context/gpu_context.h"
#include "gpu_context/library_check.h"

namespace dmlrt::kernels::cuda {
namespace {

// The uids of the three tensors of every conv graph (the variant pack uses the same).
constexpr int64_t kUidX = 1, kUidW = 2, kUidY = 3;

// cuDNN's last error message (cuDNN 9 records one per thread), for skip reasons.
std::string last_cudnn_message() {
  char buf[512] = {0};
  cudnnGetLastErrorString(buf, sizeof buf);
  return buf;
}

std::string status_text(cudnnStatus_t st) {
  std::ostringstream os;
  os << cudnnGetErrorString(st) << " (" << static_cast<int>(st) << ")";
  const std::string msg = last_cudnn_message();
  if (!msg.empty()) os << ": " << msg;
  return os.str();
}

UniqueBackendDesc make_desc(cudnnBackendDescriptorType_t type, const std::string& ctx) {
  return UniqueBackendDesc::create([&](auto* d) {
    DMLRT_CHECK_CTX(cudnnBackendCreateDescriptor(type, d),
                    "descriptor type " << static_cast<int>(type) << " " << ctx);
  });
}

void set_attr(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
              cudnnBackendAttributeType_t type, int64_t count, const void* values,
              const std::string& ctx) {
  DMLRT_CHECK_CTX(
      cudnnBackendSetAttribute(d, name, type, count, values),
      "attribute " << static_cast<int>(name) << " " << ctx << ": " << last_cudnn_message());
}

void finalize(cudnnBackendDescriptor_t d, const char* what, const std::string& ctx) {
  DMLRT_CHECK_CTX(cudnnBackendFinalize(d), what << " " << ctx << ": " << last_cudnn_message());
}

// A set, finalize or get that may fail without throwing: false with `why` set.
bool ok(cudnnStatus_t st, const char* what, std::string* why) {
  if (st == CUDNN_STATUS_SUCCESS) return true;
  *why = std::string(what) + ": " + status_text(st);
  return false;
}

// A finalized NCHW tensor (d0, d1, d2, d3), packed.
UniqueBackendDesc make_tensor(int64_t uid, cudnnDataType_t dt, const std::array<int64_t, 4>& dims,
                              int64_t alignment, const std::string& ctx) {
  const std::array<int64_t, 4> strides = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3],
                                          1};
  UniqueBackendDesc t = make_desc(CUDNN_BACKEND_TENSOR_DESCRIPTOR, ctx);
  const std::string what = ctx + " tensor uid " + std::to_string(uid);
  set_attr(t.get(), CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt, what);
  set_attr(t.get(), CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data(), what);
  set_attr(t.get(), CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data(), what);
  set_attr(t.get(), CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, what);
  set_attr(t.get(), CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment, what);
  finalize(t.get(), "tensor", what);
  return t;
}

// The attribute names of one pass's operation: its x (or dx), w (or dw), y (or dy), convolution,
// alpha and beta.
struct OpAttrs {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

OpAttrs op_attrs(gpu::ConvPass pass) {
  switch (pass) {
    case gpu::ConvPass::kForward:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
    case gpu::ConvPass::kBackwardData:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    case gpu::ConvPass::kBackwardFilter:
      break;
  }
  return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
}

bool has_note(const std::vector<int>& notes, int note) {
  return std::find(notes.begin(), notes.end(), note) != notes.end();
}

// Why an engine with these notes fails `filter` ("" when it passes).
std::string filter_reason(const std::vector<int>& numerical, const std::vector<int>& behavior,
                          bool fp64, const GraphEngineFilter& filter) {
  if (!filter.allow_runtime_compilation &&
      has_note(behavior, CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION))
    return "compiles at run time (NVRTC)";
  if (has_note(numerical, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS))
    return "down-converts its inputs";
  if (has_note(numerical, CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION))
    return "reduces in lower precision";
  if (!fp64 && !filter.allow_tf32 && has_note(numerical, CUDNN_NUMERICAL_NOTE_TENSOR_CORE))
    return "uses TF32 tensor cores (dmlrt.gpu.allow.tf32 is off)";
  if (filter.deterministic && has_note(numerical, CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC))
    return "is non-deterministic (dmlrt.gpu.cudnn.deterministic is on)";
  return "";
}

// The notes of a finalized engine; false with `why` when the query fails.
template <typename Note>
bool engine_notes(cudnnBackendDescriptor_t engine, cudnnBackendAttributeName_t name,
                  cudnnBackendAttributeType_t type, int max, std::vector<int>* out,
                  std::string* why) {
  std::vector<Note> notes(static_cast<size_t>(max));
  int64_t n = 0;
  if (!ok(cudnnBackendGetAttribute(engine, name, type, max, &n, notes.data()), "engine notes", why))
    return false;
  out->clear();
  for (int64_t i = 0; i < std::min<int64_t>(n, max); ++i)
    out->push_back(static_cast<int>(notes[static_cast<size_t>(i)]));
  return true;
}

// The global index and knob choices of an engine configuration the heuristics returned.
bool describe_config(cudnnBackendDescriptor_t config, gpu::ConvAlgoChoice* out, std::string* why) {
  UniqueBackendDesc engine = make_desc(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "heuristic result");
  cudnnBackendDescriptor_t engine_raw = engine.get();
  int64_t n = 0;
  if (!ok(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine_raw),
          "engine of a heuristic result", why))
    return false;
  int64_t index = -1;
  if (!ok(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64,
                                   1, &n, &index),
          "engine global index", why))
    return false;
  if (index < 0 || index > std::numeric_limits<int>::max()) {
    *why = "engine global index " + std::to_string(index) + " out of range";
    return false;
  }
  std::vector<UniqueBackendDesc> knobs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
    knobs.push_back(make_desc(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, "heuristic result knob"));
    raw.push_back(knobs.back().get());
  }
  int64_t count = 0;
  if (!ok(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS, &count,
                                   raw.data()),
          "knob choices of a heuristic result", why))
    return false;
  out->kind = gpu::ConvAlgoKind::kEngine;
  out->algo = static_cast<int>(index);
  out->knobs.clear();
  for (int64_t i = 0; i < std::min<int64_t>(count, CUDNN_KNOB_TYPE_COUNTS); ++i) {
    cudnnBackendKnobType_t type = CUDNN_KNOB_TYPE_COUNTS;
    int64_t value = 0;
    if (!ok(cudnnBackendGetAttribute(raw[static_cast<size_t>(i)], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                     CUDNN_TYPE_KNOB_TYPE, 1, &n, &type),
            "knob type", why) ||
        !ok(cudnnBackendGetAttribute(raw[static_cast<size_t>(i)], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
                                     CUDNN_TYPE_INT64, 1, &n, &value),
            "knob value", why))
      return false;
    out->knobs.push_back({static_cast<int64_t>(type), value});
  }
  return true;
}

}  // namespace

std::string GraphConvSpec::to_string() const {
  std::ostringstream os;
  os << gpu::conv_pass_name(pass) << " " << dims.to_string() << (fp64 ? " fp64" : " fp32")
     << " beta=" << beta << " align=" << alignment;
  return os.str();
}

int64_t tensor_alignment(const ConvTensors& t, bool fp64) {
  const int64_t element = fp64 ? 8 : 4;
  uintptr_t bits = 0;
  for (const void* p : {t.x, t.w, t.y})
    if (p != nullptr) bits |= reinterpret_cast<uintptr_t>(p);
  int64_t a = 16;
  while (a > element && (bits & static_cast<uintptr_t>(a - 1)) != 0) a /= 2;
  return a;
}

ConvGraph::ConvGraph(cudnnHandle_t h, const GraphConvSpec& spec) : spec_(spec) {
  const ConvDims& d = spec.dims;
  const std::string ctx = spec.to_string();
  DMLRT_REQUIRE(d.n >= 1 && d.c >= 1 && d.h >= 1 && d.w >= 1 && d.k >= 1 && d.r >= 1 && d.s >= 1 &&
                    d.p >= 1 && d.q >= 1 && d.stride_h >= 1 && d.stride_w >= 1 && d.pad_h >= 0 &&
                    d.pad_w >= 0,
                NotSupported, "cuDNN graph convolution: every dim must be >= 1 (" << ctx << ")");
  DMLRT_REQUIRE(d.p == (d.h + 2 * d.pad_h - d.r) / d.stride_h + 1 &&
                    d.q == (d.w + 2 * d.pad_w - d.s) / d.stride_w + 1,
                RuntimeError,
                "cuDNN graph convolution: P x Q does not follow from the shape (" << ctx << ")");
  DMLRT_REQUIRE(spec.beta == 0.0 || spec.beta == 1.0, RuntimeError,
                "cuDNN graph convolution: beta must be 0 or 1 (" << ctx << ")");
  const cudnnDataType_t dt = spec.fp64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  x_ = make_tensor(kUidX, dt, {d.n, d.c, d.h, d.w}, spec.alignment, ctx);
  w_ = make_tensor(kUidW, dt, {d.k, d.c, d.r, d.s}, spec.alignment, ctx);
  y_ = make_tensor(kUidY, dt, {d.n, d.k, d.p, d.q}, spec.alignment, ctx);

  conv_ = make_desc(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, ctx);
  const int64_t spatial = 2;
  const std::array<int64_t, 2> dilation = {1, 1}, stride = {d.stride_h, d.stride_w},
                               pad = {d.pad_h, d.pad_w};
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  set_attr(conv_.get(), CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt, ctx);
  set_attr(conv_.get(), CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode,
           ctx);
  set_attr(conv_.get(), CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial, ctx);
  set_attr(conv_.get(), CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilation.data(),
           ctx);
  set_attr(conv_.get(), CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride.data(),
           ctx);
  set_attr(conv_.get(), CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data(), ctx);
  set_attr(conv_.get(), CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data(), ctx);
  finalize(conv_.get(), "convolution", ctx);

  const OpAttrs a = op_attrs(spec.pass);
  op_ = make_desc(a.type, ctx);
  cudnnBackendDescriptor_t x = x_.get(), w = w_.get(), y = y_.get(), conv = conv_.get();
  // alpha and beta in the compute type: an FP64 graph reads them as doubles (given as floats,
  // cuDNN read 4 bytes of garbage with them: outputs ~1e-309 on the H200).
  const float alpha_f = 1.0f, beta_f = static_cast<float>(spec.beta);
  const double alpha_d = 1.0, beta_d = spec.beta;
  const cudnnBackendAttributeType_t scalar_type = spec.fp64 ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT;
  const void* alpha = spec.fp64 ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = spec.fp64 ? static_cast<const void*>(&beta_d) : &beta_f;
  set_attr(op_.get(), a.x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, ctx);
  set_attr(op_.get(), a.w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w, ctx);
  set_attr(op_.get(), a.y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, ctx);
  set_attr(op_.get(), a.conv, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv, ctx);
  set_attr(op_.get(), a.alpha, scalar_type, 1, alpha, ctx);
  set_attr(op_.get(), a.beta, scalar_type, 1, beta, ctx);
  finalize(op_.get(), "convolution operation", ctx);

  graph_ = make_desc(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, ctx);
  cudnnBackendDescriptor_t op = op_.get();
  set_attr(graph_.get(), CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h, ctx);
  set_attr(graph_.get(), CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op, ctx);
  finalize(graph_.get(), "operation graph", ctx);
  int64_t n = 0;
  DMLRT_CHECK_CTX(
      cudnnBackendGetAttribute(graph_.get(), CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                               CUDNN_TYPE_INT64, 1, &n, &engine_count_),
      ctx);
}

void GraphConvPlan::execute(cudnnHandle_t h, const ConvTensors& t, void* workspace) const {
  const GraphConvSpec& s = spec();
  if (tensor_alignment(t, s.fp64) < s.alignment) {
    std::ostringstream os;
    os << "cuDNN graph convolution: data pointers aligned to " << tensor_alignment(t, s.fp64)
       << " bytes, the plan needs " << s.alignment << " (" << s.to_string() << ")";
    throw CudnnError(os.str(), CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER);
  }
  const std::string ctx = s.to_string() + " " + choice_.to_string();
  UniqueBackendDesc pack = make_desc(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, ctx);
  const std::array<int64_t, 3> uids = {kUidX, kUidW, kUidY};
  std::array<void*, 3> ptrs = {t.x, t.w, t.y};
  set_attr(pack.get(), CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids.data(), ctx);
  set_attr(pack.get(), CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs.data(),
           ctx);
  set_attr(pack.get(), CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace, ctx);
  finalize(pack.get(), "variant pack", ctx);
  DMLRT_CHECK_CTX(cudnnBackendExecute(h, plan_.get(), pack.get()),
                  ctx << ": " << last_cudnn_message());
}

std::unique_ptr<GraphConvPlan> build_graph_plan(cudnnHandle_t h,
                                                std::shared_ptr<const ConvGraph> graph,
                                                const gpu::ConvAlgoChoice& c,
                                                const GraphEngineFilter& filter, std::string* why) {
  const std::string ctx = graph->spec().to_string();
  const std::string tag = GraphPlanMemo::config_tag(c);
  auto fail = [&](const std::string& reason) {
    *why = tag + " " + reason;
    return std::unique_ptr<GraphConvPlan>();
  };
  if (c.kind != gpu::ConvAlgoKind::kEngine) return fail("is not an engine configuration");
  if (c.algo < 0 || c.algo >= graph->engine_count())
    return fail("is out of range (the graph has " + std::to_string(graph->engine_count()) +
                " engines)");
  std::unique_ptr<GraphConvPlan> plan(new GraphConvPlan());
  plan->graph_ = graph;
  std::string reason;

  plan->engine_ = make_desc(CUDNN_BACKEND_ENGINE_DESCRIPTOR, ctx);
  cudnnBackendDescriptor_t engine = plan->engine_.get(), g = graph->get();
  const int64_t index = c.algo;
  if (!ok(cudnnBackendSetAttribute(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g),
          "engine graph", &reason) ||
      !ok(cudnnBackendSetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                   &index),
          "engine index", &reason) ||
      !ok(cudnnBackendFinalize(engine), "engine finalize", &reason))
    return fail(reason);
  std::vector<int> behavior;
  if (!engine_notes<cudnnBackendNumericalNote_t>(
          engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
          CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &plan->numerical_notes_, &reason) ||
      !engine_notes<cudnnBackendBehaviorNote_t>(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                                CUDNN_TYPE_BEHAVIOR_NOTE,
                                                CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &behavior, &reason))
    return fail(reason);
  reason = filter_reason(plan->numerical_notes_, behavior, graph->spec().fp64, filter);
  if (!reason.empty()) return fail(reason);

  std::vector<cudnnBackendDescriptor_t> knob_raw;
  for (const gpu::ConvKnob& k : c.knobs) {
    if (k.type < 0 || k.type >= CUDNN_KNOB_TYPE_COUNTS)
      return fail("has an unknown knob type " + std::to_string(k.type));
    plan->knobs_.push_back(make_desc(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, ctx));
    cudnnBackendDescriptor_t knob = plan->knobs_.back().get();
    const cudnnBackendKnobType_t type = static_cast<cudnnBackendKnobType_t>(k.type);
    const int64_t value = k.value;
    if (!ok(cudnnBackendSetAttribute(knob, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE,
                                     1, &type),
            "knob type", &reason) ||
        !ok(cudnnBackendSetAttribute(knob, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1,
                                     &value),
            "knob value", &reason) ||
        !ok(cudnnBackendFinalize(knob), "knob finalize", &reason))
      return fail(reason);
    knob_raw.push_back(knob);
  }

  plan->config_ = make_desc(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, ctx);
  cudnnBackendDescriptor_t config = plan->config_.get();
  if (!ok(cudnnBackendSetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &engine),
          "engine config engine", &reason) ||
      (!knob_raw.empty() &&
       !ok(cudnnBackendSetAttribute(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                    static_cast<int64_t>(knob_raw.size()), knob_raw.data()),
           "engine config knobs", &reason)) ||
      !ok(cudnnBackendFinalize(config), "engine config finalize", &reason))
    return fail(reason);

  plan->plan_ = make_desc(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, ctx);
  cudnnBackendDescriptor_t p = plan->plan_.get();
  // The plan's handle attribute is deprecated in cuDNN 9 (the graph carries the handle and
  // cudnnBackendExecute takes one); setting it is harmless where it is still accepted.
  (void)cudnnBackendSetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
  int64_t workspace = 0, n = 0;
  if (!ok(cudnnBackendSetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config),
          "plan engine config", &reason) ||
      !ok(cudnnBackendFinalize(p), "plan finalize", &reason) ||
      !ok(cudnnBackendGetAttribute(p, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                   &n, &workspace),
          "plan workspace size", &reason))
    return fail(reason);
  if (workspace < 0) return fail("reports a negative workspace");
  if (static_cast<uint64_t>(workspace) > filter.workspace_cap)
    return fail("needs " + std::to_string(workspace) + " bytes of workspace, over the cap of " +
                std::to_string(filter.workspace_cap));
  plan->choice_ = c;
  plan->choice_.math_type =
      has_note(plan->numerical_notes_, CUDNN_NUMERICAL_NOTE_TENSOR_CORE) ? 1 : 0;
  plan->choice_.workspace_bytes = static_cast<uint64_t>(workspace);
  return plan;
}

std::vector<std::unique_ptr<GraphConvPlan>> graph_engine_plans(
    cudnnHandle_t h, const std::shared_ptr<const ConvGraph>& graph, const GraphEngineFilter& filter,
    std::vector<std::string>* skipped) {
  std::vector<std::unique_ptr<GraphConvPlan>> plans;
  std::set<std::string> seen;
  const std::string ctx = graph->spec().to_string();
  auto skip = [&](const std::string& why) {
    if (skipped != nullptr) skipped->push_back(why);
  };
  for (const cudnnBackendHeurMode_t mode :
       {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK}) {
    const std::string mode_name = mode == CUDNN_HEUR_MODE_A   ? "heuristics A"
                                  : mode == CUDNN_HEUR_MODE_B ? "heuristics B"
                                                              : "fallback heuristics";
    UniqueBackendDesc heur = make_desc(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, ctx);
    cudnnBackendDescriptor_t g = graph->get();
    std::string why;
    int64_t count = 0;
    if (!ok(cudnnBackendSetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g),
            "graph", &why) ||
        !ok(cudnnBackendSetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE,
                                     1, &mode),
            "mode", &why) ||
        !ok(cudnnBackendFinalize(heur.get()), "finalize", &why) ||
        !ok(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
            "result count", &why)) {
      skip(mode_name + " " + why);
      continue;
    }
    if (count <= 0) continue;
    std::vector<UniqueBackendDesc> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
      configs.push_back(make_desc(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, ctx));
      raw.push_back(configs.back().get());
    }
    int64_t got = 0;
    if (!ok(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data()),
            "results", &why)) {
      skip(mode_name + " " + why);
      continue;
    }
    for (int64_t i = 0; i < std::min(got, count); ++i) {
      gpu::ConvAlgoChoice c;
      if (!describe_config(raw[static_cast<size_t>(i)], &c, &why)) {
        skip(mode_name + " result " + std::to_string(i) + ": " + why);
        continue;
      }
      if (!seen.insert(GraphPlanMemo::config_tag(c)).second) continue;
      std::unique_ptr<GraphConvPlan> plan = build_graph_plan(h, graph, c, filter, &why);
      if (plan == nullptr) {
        skip(mode_name + ": " + why);
        continue;
      }
      plans.push_back(std::move(plan));
      if (static_cast<int>(plans.size()) >= filter.max_candidates) return plans;
    }
  }
  return plans;
}

gpu::ConvAlgoList time_graph_plans(cudnnHandle_t h, cudaStream_t stream,
                                   std::vector<std::unique_ptr<GraphConvPlan>>* plans,
                                   const ConvTensors& t, void* workspace, uint64_t workspace_bytes,
                                   int repetitions, std::vector<std::string>* skipped) {
  std::vector<std::unique_ptr<GraphConvPlan>> timed;
  double best = std::numeric_limits<double>::infinity();
  for (std::unique_ptr<GraphConvPlan>& p : *plans) {
    const std::string tag = GraphPlanMemo::config_tag(p->choice());
    if (p->workspace_bytes() > workspace_bytes) {
      if (skipped != nullptr)
        skipped->push_back(tag + " needs " + std::to_string(p->workspace_bytes()) +
                           " bytes of workspace, " + std::to_string(workspace_bytes) + " given");
      continue;
    }
    try {
      const double ms = best_run_ms(
          stream, [&] { p->execute(h, t, workspace); }, repetitions, best);
      p->choice().time_ms = ms;
      best = std::min(best, ms);
      timed.push_back(std::move(p));
    } catch (const CudnnError& err) {
      if (skipped != nullptr) skipped->push_back(tag + " failed to run: " + err.what());
    }
  }
  std::stable_sort(
      timed.begin(), timed.end(),
      [](const std::unique_ptr<GraphConvPlan>& a, const std::unique_ptr<GraphConvPlan>& b) {
        return a->choice().time_ms < b->choice().time_ms;
      });
  *plans = std::move(timed);
  gpu::ConvAlgoList out;
  for (const std::unique_ptr<GraphConvPlan>& p : *plans) out.push_back(p->choice());
  return out;
}

std::string GraphPlanMemo::config_tag(const gpu::ConvAlgoChoice& c) {
  std::ostringstream os;
  os << (c.kind == gpu::ConvAlgoKind::kEngine ? "E" : "L") << c.algo << "[";
  for (size_t i = 0; i < c.knobs.size(); ++i)
    os << (i > 0 ? "," : "") << c.knobs[i].type << "=" << c.knobs[i].value;
  os << "]";
  return os.str();
}

std::string GraphPlanMemo::graph_key(const std::string& key, const GraphConvSpec& spec) {
  std::ostringstream os;
  os << key << " | " << spec.to_string();
  return os.str();
}

std::shared_ptr<const ConvGraph> GraphPlanMemo::graph(cudnnHandle_t h, const std::string& key,
                                                      const GraphConvSpec& spec) {
  const std::string gk = graph_key(key, spec);
  auto it = graphs_.find(gk);
  if (it != graphs_.end()) return it->second;
  auto g = std::make_shared<const ConvGraph>(h, spec);
  graphs_[gk] = g;
  return g;
}

void GraphPlanMemo::touch(const std::string& plan_key) {
  lru_.remove(plan_key);
  lru_.push_front(plan_key);
}

void GraphPlanMemo::trim() {
  while (plans_.size() > capacity_ && !lru_.empty()) {
    plans_.erase(lru_.back());
    lru_.pop_back();
  }
  // Graphs no plan holds any more go too (a plan keeps its graph alive by itself).
  for (auto it = graphs_.begin(); it != graphs_.end();) {
    if (it->second.use_count() == 1 && graphs_.size() > capacity_)
      it = graphs_.erase(it);
    else
      ++it;
  }
}

std::shared_ptr<const GraphConvPlan> GraphPlanMemo::plan(cudnnHandle_t h, const std::string& key,
                                                         const GraphConvSpec& spec,
                                                         const gpu::ConvAlgoChoice& c,
                                                         const GraphEngineFilter& filter,
                                                         std::string* why) {
  const std::string pk = graph_key(key, spec) + " " + config_tag(c);
  auto it = plans_.find(pk);
  if (it != plans_.end()) {
    ++hits_;
    touch(pk);
    const std::shared_ptr<const GraphConvPlan>& p = it->second.plan;
    if (p == nullptr) {
      *why = it->second.why;
      return nullptr;
    }
    if (p->workspace_bytes() > filter.workspace_cap) {
      *why = config_tag(c) + " needs " + std::to_string(p->workspace_bytes()) +
             " bytes of workspace, over the cap of " + std::to_string(filter.workspace_cap);
      return nullptr;
    }
    return p;
  }
  ++misses_;
  Entry e;
  e.plan = build_graph_plan(h, graph(h, key, spec), c, filter, &e.why);
  // A plan over the cap now may fit a later, larger cap: only remember lasting failures.
  const bool lasting = e.plan != nullptr || e.why.find("workspace") == std::string::npos;
  *why = e.why;
  const std::shared_ptr<const GraphConvPlan> out = e.plan;
  if (lasting) {
    plans_[pk] = std::move(e);
    touch(pk);
    trim();
    return out;
  }
  return nullptr;
}

void GraphPlanMemo::insert(const std::string& key, std::unique_ptr<GraphConvPlan> plan) {
  const std::string gk = graph_key(key, plan->spec());
  const std::string pk = gk + " " + config_tag(plan->choice());
  if (graphs_.find(gk) == graphs_.end()) graphs_[gk] = plan->graph();
  Entry e;
  e.plan = std::move(plan);
  plans_[pk] = std::move(e);
  touch(pk);
  trim();
}

}  // namespace dmlrt::kernels::cuda
