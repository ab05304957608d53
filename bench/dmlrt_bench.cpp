// dmlrt_bench: times dmlrt's GPU instructions against the libraries underneath, called directly on
// the same device buffers: conv forward / backward-data / backward-filter against the fastest
// legacy cuDNN algorithm, GEMM / GEMV / tsmm / SpMV / SpMM against cuBLAS / cuSPARSE, cell-wise ops
// and reductions against the device-to-device copy bandwidth, the host cost per instruction, and
// the sparse-filter conv2d path against the dense one (calibrating its cost model).
// One JSON record per measurement; bench/README.md says what is measured and how.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>  // mkstemp, close

#include "dmlrt/api.h"
#include "gpu_context/cuda_check.h"
#include "gpu_context/cusparse_descriptors.h"
#include "gpu_context/device.h"
#include "gpu_context/error.h"
#include "gpu_context/gpu_context.h"
#include "gpu_context/library_check.h"
#include "instructions/dnn_conv_instructions.h"
#include "instructions/dnn_gpu_common.h"
#include "instructions/execution_context.h"
#include "instructions/instruction.h"
#include "instructions/opcode_table.h"
#include "kernels/cuda/dnn_conv.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/gemm_planner.h"
#include "chain_ceiling.h"
#include "launch_floor.h"
#include "memory/gpu_session.h"
#include "runtime/config.h"
#include "runtime/plan_parser.h"
#include "runtime/plan_rewrites.h"
#include "sampling_profiler.h"
#include "tests/gpu/op_registry.h"

namespace {

using namespace dmlrt;
using json = nlohmann::json;
using kernels::MatrixBlock;
using Clock = std::chrono::steady_clock;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The ten layer shapes of reference/peers-and-perf.md §4 (NCHW, symmetric stride and padding).
// torch_anchor.py holds the same list under the same names; report.py joins on them.
struct ConvCase {
  const char* name;
  int n, c, h, w, k, r, s, stride, pad;
  int p() const { return (h + 2 * pad - r) / stride + 1; }
  int q() const { return (w + 2 * pad - s) / stride + 1; }
  double gflop() const { return 2.0 * n * k * p() * q() * c * r * s * 1e-9; }
};
const std::vector<ConvCase> kConvCases = {
    {"lenet.conv1", 64, 1, 28, 28, 32, 5, 5, 1, 2},
    {"lenet.conv2", 64, 32, 14, 14, 64, 5, 5, 1, 2},
    {"r50.conv1", 64, 3, 224, 224, 64, 7, 7, 2, 3},
    {"r50.s2_3x3", 64, 64, 56, 56, 64, 3, 3, 1, 1},
    {"r50.s2_1x1", 64, 64, 56, 56, 256, 1, 1, 1, 0},
    {"r50.s3_3x3s2", 64, 128, 56, 56, 128, 3, 3, 2, 1},
    {"r50.s4_3x3", 64, 256, 14, 14, 256, 3, 3, 1, 1},
    {"r50.s5_1x1", 64, 2048, 7, 7, 512, 1, 1, 1, 0},
    {"vgg.conv1_2", 64, 64, 224, 224, 64, 3, 3, 1, 1},
    {"vgg.conv4_2", 64, 512, 28, 28, 512, 3, 3, 1, 1},
};

// ---- options ---------------------------------------------------------------------------------

struct BenchOptions {
  std::string out = "dmlrt_bench.json";
  std::set<std::string> sections = {"conv", "gemm", "cell", "overhead", "spconv"};
  std::vector<mem::DType> dtypes = {mem::DType::kFloat64, mem::DType::kFloat32};
  std::set<std::string> conv_only;  // conv shape names to run (empty = all ten)
  int reps = 5;                     // timed loops per measurement; the median is reported
  int warmup = 2;                   // untimed calls before the loops
  double target_ms = 20.0;          // each timed loop runs at least this long
  double budget_s = 240.0;          // measurements starting later than this are skipped
  int overhead_n = 20000;           // instructions in the host-overhead loop
  std::string profile;              // --profile PREFIX: sampled host stacks of the overhead loops
};

const char* kUsage =
    "usage: dmlrt_bench [OUT.json] [--sections conv,gemm,cell,overhead,spconv]\n"
    "                   [--dtypes fp64,fp32]\n"
    "                   [--conv-shapes NAME,...] [--reps N] [--warmup N] [--target-ms MS]\n"
    "                   [--budget-s S] [--overhead-n N] [--quick] [--profile PREFIX]\n"
    "Times dmlrt GPU instructions against cuDNN / cuBLAS / cuSPARSE and the copy bandwidth;\n"
    "writes one JSON record per measurement to OUT.json (default dmlrt_bench.json).\n"
    "Exits 77 when no CUDA device is usable.\n";

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Parses argv; throws std::invalid_argument with a message naming the bad option.
BenchOptions parse_options(int argc, char** argv) {
  BenchOptions o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  auto number = [&](int& i) -> double {
    const std::string opt = argv[i], v = value(i);
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(d > 0))
      throw std::invalid_argument(opt + " needs a positive number, got '" + v + "'");
    return d;
  };
  bool have_out = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sections") {
      o.sections.clear();
      for (const std::string& s : split_list(value(i))) {
        if (s != "conv" && s != "gemm" && s != "cell" && s != "overhead" && s != "spconv")
          throw std::invalid_argument("unknown section '" + s +
                                      "' (expected conv, gemm, cell, overhead, spconv)");
        o.sections.insert(s);
      }
    } else if (a == "--dtypes") {
      o.dtypes.clear();
      for (const std::string& s : split_list(value(i))) {
        if (s == "fp64")
          o.dtypes.push_back(mem::DType::kFloat64);
        else if (s == "fp32")
          o.dtypes.push_back(mem::DType::kFloat32);
        else
          throw std::invalid_argument("unknown dtype '" + s + "' (expected fp64, fp32)");
      }
    } else if (a == "--conv-shapes") {
      for (const std::string& s : split_list(value(i))) {
        bool known = false;
        for (const ConvCase& c : kConvCases) known = known || s == c.name;
        if (!known) throw std::invalid_argument("unknown conv shape '" + s + "'");
        o.conv_only.insert(s);
      }
    } else if (a == "--reps") {
      o.reps = static_cast<int>(number(i));
    } else if (a == "--warmup") {
      o.warmup = static_cast<int>(number(i));
    } else if (a == "--target-ms") {
      o.target_ms = number(i);
    } else if (a == "--budget-s") {
      o.budget_s = number(i);
    } else if (a == "--overhead-n") {
      o.overhead_n = static_cast<int>(number(i));
    } else if (a == "--profile") {
      o.profile = value(i);
    } else if (a == "--quick") {
      o.reps = 3;
      o.warmup = 1;
      o.target_ms = 5.0;
      o.overhead_n = 2000;
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (!a.empty() && a[0] != '-' && !have_out) {
      o.out = a;
      have_out = true;
    } else {
      throw std::invalid_argument("unknown argument '" + a + "'");
    }
  }
  if (o.dtypes.empty()) throw std::invalid_argument("--dtypes names no precision");
  return o;
}

// ---- results ---------------------------------------------------------------------------------

struct Record {
  std::string section, name, dtype;
  double dmlrt_ms = kNaN;
  double anchor_ms = kNaN;
  json extra = json::object();
};

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// Collects records, prints one progress line per record (stderr) and rewrites the JSON file after
// each, so a run stopped by its time limit still leaves what it measured.
class Results {
 public:
  Results(std::string path, json meta) : path_(std::move(path)), meta_(std::move(meta)) {}

  void add(Record r) {
    std::cerr << "[bench] " << r.section << " " << r.name << " " << r.dtype << ": dmlrt "
              << fmt(r.dmlrt_ms) << " ms, anchor " << fmt(r.anchor_ms) << " ms";
    for (const char* key : {"dmlrt_error", "anchor_error"})
      if (r.extra.contains(key))
        std::cerr << " [" << key << ": " << r.extra[key].get<std::string>() << "]";
    std::cerr << std::endl;
    records_.push_back(std::move(r));
    write();
  }
  void set_meta(const std::string& key, json v) {
    meta_[key] = std::move(v);
    write();
  }

  void write() const {
    json j = meta_;
    j["records"] = json::array();
    for (const Record& r : records_) {
      const double ratio =
          std::isfinite(r.dmlrt_ms) && std::isfinite(r.anchor_ms) && r.anchor_ms > 0
              ? r.dmlrt_ms / r.anchor_ms
              : kNaN;
      j["records"].push_back({{"section", r.section},
                              {"name", r.name},
                              {"dtype", r.dtype},
                              {"dmlrt_ms", number_or_null(r.dmlrt_ms)},
                              {"anchor_ms", number_or_null(r.anchor_ms)},
                              {"ratio", number_or_null(ratio)},
                              {"extra", r.extra}});
    }
    const std::string tmp = path_ + ".tmp";
    {
      std::ofstream f(tmp);
      f << j.dump(1) << "\n";
      if (!f) {
        std::cerr << "dmlrt_bench: cannot write " << tmp << "\n";
        return;
      }
    }
    std::rename(tmp.c_str(), path_.c_str());
  }

  // The short human table: one line per record.
  void print_table(std::ostream& os) const {
    os << std::left << std::setw(9) << "section" << std::setw(34) << "name" << std::setw(6)
       << "dtype" << std::right << std::setw(11) << "dmlrt_ms" << std::setw(11) << "anchor_ms"
       << std::setw(8) << "ratio"
       << "  note\n";
    for (const Record& r : records_) {
      const double ratio = r.dmlrt_ms / r.anchor_ms;
      std::string note;
      if (r.extra.contains("note")) note = r.extra["note"].get<std::string>();
      if (r.extra.contains("dmlrt_error"))
        note = "dmlrt: " + r.extra["dmlrt_error"].get<std::string>().substr(0, 60);
      else if (r.extra.contains("anchor_error"))
        note = "anchor: " + r.extra["anchor_error"].get<std::string>().substr(0, 60);
      os << std::left << std::setw(9) << r.section << std::setw(34) << r.name << std::setw(6)
         << r.dtype << std::right << std::setw(11) << fmt(r.dmlrt_ms) << std::setw(11)
         << fmt(r.anchor_ms) << std::setw(8) << fmt(ratio, 2) << "  " << note << "\n";
    }
  }

 private:
  static std::string fmt(double v, int prec = 4) {
    if (!std::isfinite(v)) return "-";
    std::ostringstream os;
    os << std::setprecision(prec) << v;
    return os.str();
  }
  std::string path_;
  json meta_;
  std::vector<Record> records_;
};

// ---- timing ----------------------------------------------------------------------------------

struct Timed {
  double median_ms = kNaN, min_ms = kNaN, max_ms = kNaN;
  int iters = 0;
};

json timed_json(const Timed& t) {
  return {{"min_ms", number_or_null(t.min_ms)},
          {"max_ms", number_or_null(t.max_ms)},
          {"iters_per_rep", t.iters}};
}

// The median, minimum and maximum of repeated measurements (in their own unit).
struct Spread {
  double median = kNaN, min = kNaN, max = kNaN;
};
Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  s.median = v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

// Event timing on one stream (METHOD.md): `warmup` untimed calls, one timed call to size the loop,
// then `reps` loops of `iters` calls, each loop at least target_ms long; the median per-call time.
class Timer {
 public:
  Timer(cudaStream_t stream, const BenchOptions& o)
      : stream_(stream), o_(o), start_(gpu::make_timing_event()), stop_(gpu::make_timing_event()) {}

  Timed time(const std::function<void()>& fn, int warmup) {
    for (int i = 0; i < warmup; ++i) fn();
    const double est = loop_ms(fn, 1);
    Timed t;
    t.iters =
        static_cast<int>(std::clamp(std::ceil(o_.target_ms / std::max(est, 1e-3)), 1.0, 20000.0));
    std::vector<double> ms;
    for (int r = 0; r < o_.reps; ++r) ms.push_back(loop_ms(fn, t.iters) / t.iters);
    const Spread s = spread_of(std::move(ms));
    t.median_ms = s.median;
    t.min_ms = s.min;
    t.max_ms = s.max;
    return t;
  }
  Timed time(const std::function<void()>& fn) { return time(fn, o_.warmup); }

 private:
  double loop_ms(const std::function<void()>& fn, int iters) {
    DMLRT_CHECK(cudaEventRecord(start_.get(), stream_));
    for (int i = 0; i < iters; ++i) fn();
    DMLRT_CHECK(cudaEventRecord(stop_.get(), stream_));
    DMLRT_CHECK(cudaEventSynchronize(stop_.get()));
    float ms = 0;
    DMLRT_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return ms;
  }
  cudaStream_t stream_;
  const BenchOptions& o_;
  gpu::UniqueEvent start_, stop_;
};

// ---- cuDNN descriptor owners: dmlrt's own (kernels/cuda/dnn_conv.h) ----------------------------

using kernels::cuda::UniqueConvDesc;
using kernels::cuda::UniqueFilterDesc;
using kernels::cuda::UniqueTensorDesc;

// ---- the dmlrt side: a session, an execution context, instruction lines ------------------------

// Services of a run that never touches files or functions.
class NoServices final : public inst::Services {
 public:
  std::ostringstream output;
  MatrixBlock read_matrix(const inst::MatrixObject& mo) override {
    DMLRT_FAIL(IoError, "dmlrt_bench: no file '" << mo.file_name() << "'");
  }
  void write_matrix(const MatrixBlock&, const inst::WriteRequest&) override {}
  void write_scalar(const inst::ScalarValue&, const std::string&) override {}
  inst::ScalarValue read_scalar(const std::string& p, inst::ValueType) override {
    DMLRT_FAIL(IoError, "dmlrt_bench: no file '" << p << "'");
  }
  std::vector<inst::Value> call_function(const std::string& k, const std::vector<std::string>&,
                                         std::vector<inst::Value>) override {
    DMLRT_FAIL(RuntimeError, "dmlrt_bench: no function " << k);
  }
  std::vector<std::string> function_outputs(const std::string&) override { return {}; }
  std::ostream& out() override { return output; }
};

std::string mat(const std::string& name) { return name + "·MATRIX·FP64"; }
std::string lit(int64_t v) { return std::to_string(v) + "·SCALAR·INT64·true"; }
// A plain number field, every digit kept.
std::string bare(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v;
  return os.str();
}

// One GPU session of one precision, as the interpreter runs it (no per-instruction sync), plus the
// bench's own cuBLAS / cuSPARSE / cuDNN handles on the session's stream for the anchors.
class Env {
 public:
  explicit Env(mem::DType dt) : dtype_(dt) {
    mem::GpuSessionOptions o;
    o.dtype = dt;
    o.cudnn_cache_dir = "none";  // autotune afresh: the first call is timed apart, not cached
    gpu_ = std::make_shared<mem::GpuSession>(o, 0);
    inst::RunOptions ro;
    ro.gpu = gpu_;
    ro.gpu_mode = inst::GpuMode::kOff;  // GPU° lines run on the GPU in every mode
    ec_ = std::make_unique<inst::ExecutionContext>(services_, ro);
    // The bench's own handles, on the session's stream: dmlrt's keep their settings.
    cublas_ = gpu::make_cublas(stream());
    cusparse_ = gpu::make_cusparse(stream());
  }
  ~Env() {
    ec_.reset();  // matrix objects go before the session
  }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  mem::DType dtype() const { return dtype_; }
  bool fp64() const { return dtype_ == mem::DType::kFloat64; }
  const char* dtype_name() const { return fp64() ? "fp64" : "fp32"; }
  size_t elem() const { return mem::dtype_size(dtype_); }
  cudaDataType cuda_type() const { return fp64() ? CUDA_R_64F : CUDA_R_32F; }
  cudnnDataType_t cudnn_type() const { return fp64() ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }
  // alpha = 1 and beta = 0 in the element type (the libraries read them by the data type).
  const void* one() const { return fp64() ? static_cast<const void*>(&one_d_) : &one_f_; }
  const void* zero() const { return fp64() ? static_cast<const void*>(&zero_d_) : &zero_f_; }

  mem::GpuSession& gpu() { return *gpu_; }
  inst::ExecutionContext& ec() { return *ec_; }
  cudaStream_t stream() const { return gpu_->stream(); }
  cublasHandle_t cublas() const { return cublas_.get(); }
  cusparseHandle_t cusparse() const { return cusparse_.get(); }
  cudnnHandle_t cudnn() {
    if (!cudnn_) cudnn_ = gpu::make_cudnn(stream());
    return cudnn_.get();
  }

  inst::InstructionPtr parse(const std::string& line) {
    return inst::make_instruction(inst::InstructionText::parse(line));
  }
  // Runs one instruction as the interpreter does (its GPU bookkeeping included); returns whether
  // it ran on the GPU.
  bool exec(inst::Instruction& i) {
    const inst::Ran ran = i.run(*ec_);
    if (ran == inst::Ran::kParts)
      for (const auto& p : *i.parts()) p->execute(*ec_);
    // As Interpreter::record_gpu_instruction: finished event timings are collected now and then.
    if (ran == inst::Ran::kGpu && gpu_->pending_timings() >= 64)
      gpu_->collect_timings([](const std::string&, double) {}, false);
    return ran == inst::Ran::kGpu;
  }
  bool run(const std::string& line) {
    inst::InstructionPtr i = parse(line);
    return exec(*i);
  }
  // A (rows, cols) uniform [lo, hi] dense matrix generated on the device.
  void rand(const std::string& name, int64_t rows, int64_t cols, int64_t seed, double lo = -1,
            double hi = 1) {
    const bool on_gpu =
        run("GPU°rand°" + lit(rows) + "°" + lit(cols) + "°1000°" + bare(lo) + "°" + bare(hi) +
            "°1.0°" + std::to_string(seed) + "°uniform°1.0°1°" + mat(name));
    DMLRT_REQUIRE(on_gpu, RuntimeError,
                  "dmlrt_bench: rand of " << name << " did not run on the GPU");
  }
  void bind(const std::string& name, MatrixBlock b) { ec_->set_matrix(name, std::move(b)); }
  // The device copy of `name` (uploaded first when only the host holds it).
  const mem::DeviceMatrix& device(const std::string& name) {
    std::shared_ptr<inst::MatrixObject> mo = ec_->matrix_object(name);
    if (!mo->has_device_copy()) {
      mo->acquire_device_read(*gpu_, name);
      mo->release_device_read();
    }
    const mem::DeviceMatrix* d = mo->device_copy();
    DMLRT_REQUIRE(d != nullptr, RuntimeError, "dmlrt_bench: " << name << " has no device copy");
    return *d;
  }
  // The dense device values of an instruction's output, or null when it has none on the device
  // or it is CSR (the reason goes to `why`).
  const void* dense_output(const std::string& name, std::string* why) {
    std::shared_ptr<inst::MatrixObject> mo = ec_->matrix_object(name);
    const mem::DeviceMatrix* d = mo->device_copy();
    if (d == nullptr) {
      *why = "no device copy";
      return nullptr;
    }
    if (d->is_sparse()) {
      *why = "output is CSR";
      return nullptr;
    }
    return d->values();
  }
  void drop(std::initializer_list<const char*> names) {
    for (const char* n : names) ec_->remove(n);
  }
  // An op registry case's operands: its matrices dense on the device, uniform over the case's
  // range (seeds seed, seed + 1, ...), and its scalars.
  void bind_case(const test::gpu::OpCase& c, int64_t seed) {
    for (const test::gpu::OpInput& in : c.inputs) {
      DMLRT_REQUIRE(!in.dominant, RuntimeError,
                    "dmlrt_bench: dominant registry inputs are not generated (" << in.name << ")");
      rand(in.name, in.rows, in.cols, seed++, in.lo, in.hi);
    }
    for (const test::gpu::OpScalar& sc : c.scalars)
      ec_->set_scalar(sc.name, inst::ScalarValue::fp64(sc.value));
  }
  void drop_case(const test::gpu::OpCase& c) {
    for (const test::gpu::OpInput& in : c.inputs) ec_->remove(in.name);
    for (const test::gpu::OpScalar& sc : c.scalars) ec_->remove(sc.name);
    for (const test::gpu::OpOutput& o : c.outputs) ec_->remove(o.name);
  }
  void sync() { gpu_->synchronize("dmlrt_bench"); }

  // ||got - ref|| / ||ref|| over n dense elements (ref is overwritten with the difference).
  double rel_err(const void* got, void* ref, int64_t n) {
    cublasHandle_t h = cublas();
    if (fp64()) {
      double nr = 0, nd = 0, m1 = -1.0;
      DMLRT_CHECK(cublasDnrm2_64(h, n, static_cast<double*>(ref), 1, &nr));
      DMLRT_CHECK(cublasDaxpy_64(h, n, &m1, static_cast<const double*>(got), 1,
                                 static_cast<double*>(ref), 1));
      DMLRT_CHECK(cublasDnrm2_64(h, n, static_cast<double*>(ref), 1, &nd));
      return nr > 0 ? nd / nr : nd;
    }
    float nr = 0, nd = 0, m1 = -1.0f;
    DMLRT_CHECK(cublasSnrm2_64(h, n, static_cast<float*>(ref), 1, &nr));
    DMLRT_CHECK(
        cublasSaxpy_64(h, n, &m1, static_cast<const float*>(got), 1, static_cast<float*>(ref), 1));
    DMLRT_CHECK(cublasSnrm2_64(h, n, static_cast<float*>(ref), 1, &nd));
    return nr > 0 ? static_cast<double>(nd) / nr : nd;
  }
  // Norm-wise relative-error bound of a correct result in this precision (sums of up to ~6e4
  // terms, FFT and Winograd algorithms included); a wrong result is off by O(1).
  double err_bound() const { return fp64() ? 1e-10 : 1e-3; }

 private:
  mem::DType dtype_;
  NoServices services_;
  std::shared_ptr<mem::GpuSession> gpu_;
  std::unique_ptr<inst::ExecutionContext> ec_;
  gpu::UniqueCublas cublas_;
  gpu::UniqueCusparse cusparse_;
  gpu::UniqueCudnn cudnn_;
  double one_d_ = 1.0, zero_d_ = 0.0;
  float one_f_ = 1.0f, zero_f_ = 0.0f;
};

// The whole run: options, results and the time budget (the run's, and a section's share of it).
struct Bench {
  const BenchOptions& o;
  Results& results;
  Clock::time_point t0 = Clock::now();
  double section_deadline_s = std::numeric_limits<double>::infinity();  // since t0
  bool over_budget() const {
    const double t = seconds_since(t0);
    return t > o.budget_s || t > section_deadline_s;
  }
};

// A measurement that cannot run (the time budget is spent, or its set-up failed) is recorded with
// the reason on both sides; true when `r` went into the results that way.
bool skipped(Bench& b, Record& r, const std::string& setup_error) {
  if (b.over_budget())
    r.extra["dmlrt_error"] = r.extra["anchor_error"] = "skipped: time budget spent";
  else if (!setup_error.empty())
    r.extra["dmlrt_error"] = r.extra["anchor_error"] = "setup: " + setup_error;
  else
    return false;
  b.results.add(std::move(r));
  return true;
}

// Times an instruction line through dmlrt into r (dmlrt_ms, first_call_ms, on_gpu); errors go to
// r.extra.dmlrt_error. Returns whether a GPU result is there to compare.
bool time_instruction(Env& env, Timer& timer, inst::Instruction& i, Record& r);

bool time_dmlrt(Env& env, Timer& timer, const std::string& line, Record& r) {
  try {
    inst::InstructionPtr i = env.parse(line);
    return time_instruction(env, timer, *i, r);
  } catch (const std::exception& e) {
    r.extra["dmlrt_error"] = e.what();
    return false;
  }
}

// Times one parsed instruction (the first call apart) into r.dmlrt_ms.
bool time_instruction(Env& env, Timer& timer, inst::Instruction& i, Record& r) {
  try {
    if (!i.has_gpu_impl()) {
      r.extra["dmlrt_error"] = "no GPU implementation of " + i.opcode() + " yet (not run)";
      return false;
    }
    const Clock::time_point t = Clock::now();
    const bool on_gpu = env.exec(i);
    env.sync();
    r.extra["first_call_ms"] = seconds_since(t) * 1e3;
    if (!on_gpu) {
      r.extra["dmlrt_error"] = "ran on the CPU";
      return false;
    }
    const Timed tm = timer.time([&] { env.exec(i); });
    r.dmlrt_ms = tm.median_ms;
    r.extra["dmlrt_timing"] = timed_json(tm);
    return true;
  } catch (const std::exception& e) {
    r.extra["dmlrt_error"] = e.what();
    return false;
  }
}

// Compares dmlrt's output `out` with the anchor's result `ref` (n elements, overwritten) into r.
void check_result(Env& env, const std::string& out, void* ref, int64_t n, Record& r) {
  try {
    std::string why;
    const void* got = env.dense_output(out, &why);
    if (got == nullptr) {
      r.extra["check"] = "skipped: " + why;
      return;
    }
    const double e = env.rel_err(got, ref, n);
    r.extra["rel_err"] = e;
    if (!(e <= env.err_bound())) {
      r.extra["check"] = "MISMATCH";
      r.extra["note"] = "result differs from the anchor (rel err " + std::to_string(e) + ")";
    } else {
      r.extra["check"] = "ok";
    }
  } catch (const std::exception& e) {
    r.extra["check"] = std::string("failed: ") + e.what();
  }
}

// ---- (a) convolutions --------------------------------------------------------------------------

enum class ConvPass { kFwd, kBwdData, kBwdFilter };
const char* pass_name(ConvPass p) {
  return p == ConvPass::kFwd ? "fwd" : p == ConvPass::kBwdData ? "bwd_data" : "bwd_filter";
}

const char* const kFwdAlgos[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
    "WINOGRAD",      "WINOGRAD_NONFUSED"};
const char* const kBwdDataAlgos[] = {"ALGO_0",     "ALGO_1",   "FFT",
                                     "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
const char* const kBwdFilterAlgos[] = {
    "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};

std::string algo_name(ConvPass p, int algo) {
  const char* const* names = p == ConvPass::kFwd       ? kFwdAlgos
                             : p == ConvPass::kBwdData ? kBwdDataAlgos
                                                       : kBwdFilterAlgos;
  const int count = p == ConvPass::kFwd ? 8 : p == ConvPass::kBwdData ? 6 : 7;
  return algo >= 0 && algo < count ? names[algo] : "algo_" + std::to_string(algo);
}

// One candidate of cudnnFind*AlgorithmEx, whatever the pass.
struct AlgoPerf {
  int algo;
  float find_ms;
  size_t memory;
  cudnnMathType_t math;
};

template <typename Perf>
std::vector<AlgoPerf> successful(const Perf* perf, int n, size_t ws_bytes) {
  std::vector<AlgoPerf> out;
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= ws_bytes && perf[i].time >= 0)
      out.push_back(
          {static_cast<int>(perf[i].algo), perf[i].time, perf[i].memory, perf[i].mathType});
  return out;  // cuDNN sorts by time
}

// The best legacy cuDNN algorithm for one pass on the given device buffers: cudnnFind*Ex over a
// generous workspace, then the two fastest re-timed with the bench's timer; FP32 runs with
// CUDNN_FMA_MATH (no TF32), as dmlrt's default and torch_anchor.py do.
class CudnnAnchor {
 public:
  CudnnAnchor(Env& env, const ConvCase& cs) : env_(env), cs_(cs) {
    const cudnnDataType_t dt = env.cudnn_type();
    x_ = tensor(cs.n, cs.c, cs.h, cs.w, dt);
    y_ = tensor(cs.n, cs.k, cs.p(), cs.q(), dt);
    w_ = kernels::cuda::make_filter_descriptor();
    DMLRT_CHECK(
        cudnnSetFilter4dDescriptor(w_.get(), dt, CUDNN_TENSOR_NCHW, cs.k, cs.c, cs.r, cs.s));
    conv_ = kernels::cuda::make_conv_descriptor();
    cudnnConvolutionDescriptor_t c = conv_.get();
    // SystemDS's conv2d is a cross-correlation, as cuDNN's CUDNN_CROSS_CORRELATION.
    DMLRT_CHECK(cudnnSetConvolution2dDescriptor(c, cs.pad, cs.pad, cs.stride, cs.stride, 1, 1,
                                                CUDNN_CROSS_CORRELATION, dt));
    DMLRT_CHECK(cudnnSetConvolutionMathType(c, default_math()));
    int n = 0, k = 0, p = 0, q = 0;
    DMLRT_CHECK(cudnnGetConvolution2dForwardOutputDim(c, x_.get(), w_.get(), &n, &k, &p, &q));
    DMLRT_REQUIRE(n == cs.n && k == cs.k && p == cs.p() && q == cs.q(), RuntimeError,
                  "dmlrt_bench: cuDNN output dims " << n << "x" << k << "x" << p << "x" << q
                                                    << " differ from N x K x P x Q of " << cs.name);
  }

  // Finds and times the best algorithm for `pass`; `x`, `w`, `dy` are the inputs, `out` the output
  // buffer (y, dx or dw) of `out_elems` elements, left holding the check's reference (see
  // leave_reference). Fills r.anchor_ms and r.extra.
  void run(ConvPass pass, const void* x, const void* w, const void* dy, void* out,
           int64_t out_elems, void* ws, size_t ws_bytes, Timer& timer, Record& r) {
    cudnnHandle_t h = env_.cudnn();
    DMLRT_CHECK(cudnnSetConvolutionMathType(conv_.get(), default_math()));
    std::vector<AlgoPerf> cands;
    const Clock::time_point t = Clock::now();
    if (pass == ConvPass::kFwd) {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      int got = 0;
      DMLRT_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
          h, x_.get(), x, w_.get(), w, conv_.get(), y_.get(), out, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
          &got, perf, ws, ws_bytes));
      cands = successful(perf, got, ws_bytes);
    } else if (pass == ConvPass::kBwdData) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      int got = 0;
      DMLRT_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
          h, w_.get(), w, y_.get(), dy, conv_.get(), x_.get(), out,
          CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, perf, ws, ws_bytes));
      cands = successful(perf, got, ws_bytes);
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      int got = 0;
      DMLRT_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
          h, x_.get(), x, y_.get(), dy, conv_.get(), w_.get(), out,
          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, perf, ws, ws_bytes));
      cands = successful(perf, got, ws_bytes);
    }
    env_.sync();
    r.extra["cudnn_find_ms"] = seconds_since(t) * 1e3;
    DMLRT_REQUIRE(!cands.empty(), RuntimeError,
                  "cudnnFind found no usable algorithm for " << cs_.name << " " << pass_name(pass));
    double best = kNaN;
    size_t winner = 0;
    json tried = json::array();
    for (size_t i = 0; i < cands.size() && i < 2; ++i) {
      const AlgoPerf& a = cands[i];
      const std::string name = algo_name(pass, a.algo);
      try {
        // FP64 runs with the math type the find reported; FP32 stays on FMA math (no TF32).
        DMLRT_CHECK(
            cudnnSetConvolutionMathType(conv_.get(), env_.fp64() ? a.math : CUDNN_FMA_MATH));
        const Timed tm = timer.time([&] { launch(pass, a.algo, x, w, dy, out, ws, a.memory); }, 1);
        tried.push_back({{"algo", name},
                         {"ms", tm.median_ms},
                         {"find_ms", a.find_ms},
                         {"workspace_bytes", a.memory}});
        if (!(tm.median_ms >= best)) {
          best = tm.median_ms;
          winner = i;
          r.extra["cudnn_algo"] = name;
          r.extra["cudnn_workspace_bytes"] = a.memory;
          r.extra["anchor_timing"] = timed_json(tm);
        }
      } catch (const std::exception& e) {
        tried.push_back({{"algo", name}, {"error", e.what()}});
      }
    }
    r.extra["cudnn_tried"] = tried;
    DMLRT_REQUIRE(std::isfinite(best), RuntimeError,
                  "no cuDNN algorithm ran for " << cs_.name << " " << pass_name(pass));
    const AlgoPerf& a = cands[winner];
    DMLRT_CHECK(cudnnSetConvolutionMathType(conv_.get(), env_.fp64() ? a.math : CUDNN_FMA_MATH));
    launch(pass, a.algo, x, w, dy, out, ws, a.memory);
    r.anchor_ms = best;
    leave_reference(pass, x, w, dy, out, out_elems, ws, ws_bytes, r);
  }

 private:
  cudnnMathType_t default_math() const { return env_.fp64() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH; }

  // `out` holds the fastest algorithm's result. dmlrt's result is checked against a GEMM-ordered
  // one instead (IMPLICIT_GEMM forward, ALGO_1 backward), which this leaves in `out`: in FP32 the
  // fastest may be an FFT or Winograd algorithm about 1e-3 away (lenet.conv2 backward filter's
  // WINOGRAD_NONFUSED: 1.4e-3 on the H200, 2026-11-30), which dmlrt leaves out by design (Note
  // [FP32 algorithm accuracy] in kernels/cuda/dnn_conv_op.cpp), so the fastest one's
  // output would flag dmlrt's accurate result as wrong. The fastest one's own distance from the
  // reference is recorded as anchor_rel_err. Where the reference algorithm cannot run, `out`
  // keeps the fastest one's result.
  void leave_reference(ConvPass pass, const void* x, const void* w, const void* dy, void* out,
                       int64_t out_elems, void* ws, size_t ws_bytes, Record& r) {
    const int ref_algo = pass == ConvPass::kFwd ? 0 : 1;
    const size_t bytes = static_cast<size_t>(out_elems) * env_.elem();
    try {
      mem::DeviceAllocation ref = env_.gpu().scratch(bytes, "bench cuDNN reference output");
      mem::DeviceAllocation diff = env_.gpu().scratch(bytes, "bench cuDNN reference difference");
      DMLRT_CHECK(cudnnSetConvolutionMathType(conv_.get(), default_math()));
      launch(pass, ref_algo, x, w, dy, ref.data(), ws, ws_bytes);
      cudaStream_t st = env_.gpu().stream();
      DMLRT_CHECK(cudaMemcpyAsync(diff.data(), ref.data(), bytes, cudaMemcpyDeviceToDevice, st));
      r.extra["anchor_rel_err"] = env_.rel_err(out, diff.data(), out_elems);
      DMLRT_CHECK(cudaMemcpyAsync(out, ref.data(), bytes, cudaMemcpyDeviceToDevice, st));
      env_.sync();
      r.extra["check_reference"] = algo_name(pass, ref_algo);
    } catch (const std::exception& e) {
      r.extra["check_reference"] = std::string("the fastest algorithm (") +
                                   algo_name(pass, ref_algo) + " failed: " + e.what() + ")";
    }
  }

  static UniqueTensorDesc tensor(int n, int c, int h, int w, cudnnDataType_t dt) {
    UniqueTensorDesc u = kernels::cuda::make_tensor_descriptor();
    DMLRT_CHECK(cudnnSetTensor4dDescriptor(u.get(), CUDNN_TENSOR_NCHW, dt, n, c, h, w));
    return u;
  }

  void launch(ConvPass pass, int algo, const void* x, const void* w, const void* dy, void* out,
              void* ws, size_t ws_bytes) {
    cudnnHandle_t h = env_.cudnn();
    if (pass == ConvPass::kFwd)
      DMLRT_CHECK(cudnnConvolutionForward(h, env_.one(), x_.get(), x, w_.get(), w, conv_.get(),
                                          static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws,
                                          ws_bytes, env_.zero(), y_.get(), out));
    else if (pass == ConvPass::kBwdData)
      DMLRT_CHECK(cudnnConvolutionBackwardData(h, env_.one(), w_.get(), w, y_.get(), dy,
                                               conv_.get(),
                                               static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws,
                                               ws_bytes, env_.zero(), x_.get(), out));
    else
      DMLRT_CHECK(cudnnConvolutionBackwardFilter(h, env_.one(), x_.get(), x, y_.get(), dy,
                                                 conv_.get(),
                                                 static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                                                 ws, ws_bytes, env_.zero(), w_.get(), out));
  }

  Env& env_;
  const ConvCase& cs_;
  UniqueTensorDesc x_, y_;
  UniqueFilterDesc w_;
  UniqueConvDesc conv_;
};

// A cuDNN workspace from the memory manager: up to 8 GiB, halved on out-of-memory down to 64 MiB.
mem::DeviceAllocation conv_workspace(Env& env) {
  for (size_t bytes = size_t{8} << 30; bytes >= (size_t{64} << 20); bytes /= 2) {
    try {
      return env.gpu().scratch(bytes, "bench cuDNN workspace");
    } catch (const OutOfMemory&) {
    }
  }
  DMLRT_FAIL(OutOfMemory, "dmlrt_bench: no room for a 64 MiB cuDNN workspace");
}

void bench_conv_case(Bench& b, Env& env, Timer& timer, const ConvCase& cs, int64_t seed) {
  const int64_t chw = int64_t{cs.c} * cs.h * cs.w, crs = int64_t{cs.c} * cs.r * cs.s,
                kpq = int64_t{cs.k} * cs.p() * cs.q();
  const std::string scalars = lit(cs.stride) + "°" + lit(cs.stride) + "°" + lit(cs.pad) + "°" +
                              lit(cs.pad) + "°" + lit(cs.n) + "°" + lit(cs.c) + "°" + lit(cs.h) +
                              "°" + lit(cs.w) + "°" + lit(cs.k) + "°" + lit(cs.c) + "°" +
                              lit(cs.r) + "°" + lit(cs.s);
  const json shape = {{"N", cs.n}, {"C", cs.c}, {"H", cs.h},           {"W", cs.w},    {"K", cs.k},
                      {"R", cs.r}, {"S", cs.s}, {"stride", cs.stride}, {"pad", cs.pad}};
  std::string setup_error;
  std::unique_ptr<CudnnAnchor> anchor;
  mem::DeviceAllocation ws;
  try {
    env.rand("X", cs.n, chw, seed);
    env.rand("W", cs.k, crs, seed + 1);
    env.rand("D", cs.n, kpq, seed + 2);
    anchor = std::make_unique<CudnnAnchor>(env, cs);
    ws = conv_workspace(env);
  } catch (const std::exception& e) {
    setup_error = e.what();
  }
  for (ConvPass pass : {ConvPass::kFwd, ConvPass::kBwdData, ConvPass::kBwdFilter}) {
    Record r{"conv", std::string(cs.name) + "." + pass_name(pass), env.dtype_name()};
    r.extra["shape"] = shape;
    r.extra["gflop"] = cs.gflop();
    if (skipped(b, r, setup_error)) continue;
    std::string line;
    int64_t out_elems = 0;
    switch (pass) {
      case ConvPass::kFwd:
        line =
            "GPU°conv2d°" + mat("X") + "°" + mat("W") + "°" + scalars + "°" + mat("OUT") + "°1°0";
        out_elems = cs.n * kpq;
        break;
      case ConvPass::kBwdData:
        line = "GPU°conv2d_backward_data°" + mat("W") + "°" + mat("D") + "°" + scalars + "°" +
               mat("OUT") + "°1°0";
        out_elems = cs.n * chw;
        break;
      case ConvPass::kBwdFilter:
        line = "GPU°conv2d_backward_filter°" + mat("X") + "°" + mat("D") + "°" + scalars + "°" +
               mat("OUT") + "°1°0";
        out_elems = cs.k * crs;
        break;
    }
    const bool have_out = time_dmlrt(env, timer, line, r);
    if (std::isfinite(r.dmlrt_ms)) r.extra["dmlrt_tflops"] = cs.gflop() / r.dmlrt_ms * 1e-6;
    try {
      mem::DeviceAllocation out = env.gpu().scratch(out_elems * env.elem(), "bench cuDNN output");
      anchor->run(pass, env.device("X").values(), env.device("W").values(),
                  env.device("D").values(), out.data(), out_elems, ws.data(), ws.bytes(), timer, r);
      if (have_out) check_result(env, "OUT", out.data(), out_elems, r);
      env.sync();
    } catch (const std::exception& e) {
      r.extra["anchor_error"] = e.what();
    }
    env.drop({"OUT"});
    b.results.add(std::move(r));
  }
  ws.reset();
  env.drop({"X", "W", "D"});
}

void bench_conv(Bench& b, Env& env, Timer& timer) {
  int64_t seed = 1000;
  for (const ConvCase& cs : kConvCases) {
    seed += 10;
    if (!b.o.conv_only.empty() && b.o.conv_only.count(cs.name) == 0) continue;
    bench_conv_case(b, env, timer, cs, seed);
  }
}

// ---- (b) GEMM family ---------------------------------------------------------------------------

// Row-major C(m, n) = A(m, k) B(k, n) through column-major cuBLAS: C^T = B^T A^T.
void gemm_row_major(Env& env, int64_t m, int64_t n, int64_t k, const void* a, const void* b,
                    void* c) {
  if (env.fp64())
    DMLRT_CHECK(cublasDgemm_64(env.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                               static_cast<const double*>(env.one()), static_cast<const double*>(b),
                               n, static_cast<const double*>(a), k,
                               static_cast<const double*>(env.zero()), static_cast<double*>(c), n));
  else
    DMLRT_CHECK(cublasSgemm_64(env.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                               static_cast<const float*>(env.one()), static_cast<const float*>(b),
                               n, static_cast<const float*>(a), k,
                               static_cast<const float*>(env.zero()), static_cast<float*>(c), n));
}

// y = op(X) v for a row-major (m, k) X: X is column-major (k, m) to cuBLAS, so X v is its
// transpose times v (CUBLAS_OP_T) and t(X) v is CUBLAS_OP_N.
void gemv_row_major(Env& env, bool transposed, int64_t m, int64_t k, const void* x, const void* v,
                    void* y) {
  const cublasOperation_t op = transposed ? CUBLAS_OP_N : CUBLAS_OP_T;
  if (env.fp64())
    DMLRT_CHECK(cublasDgemv_64(env.cublas(), op, k, m, static_cast<const double*>(env.one()),
                               static_cast<const double*>(x), k, static_cast<const double*>(v), 1,
                               static_cast<const double*>(env.zero()), static_cast<double*>(y), 1));
  else
    DMLRT_CHECK(cublasSgemv_64(env.cublas(), op, k, m, static_cast<const float*>(env.one()),
                               static_cast<const float*>(x), k, static_cast<const float*>(v), 1,
                               static_cast<const float*>(env.zero()), static_cast<float*>(y), 1));
}

// C(n, n) = t(X) X for a row-major (m, n) X, the column-major (n, m) matrix A' to cuBLAS:
// C = A' A'^T, by GEMM (full C) or SYRK (lower triangle of the column-major C only).
void tsmm_gemm(Env& env, int64_t m, int64_t n, const void* x, void* c) {
  if (env.fp64())
    DMLRT_CHECK(cublasDgemm_64(env.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, n, n, m,
                               static_cast<const double*>(env.one()), static_cast<const double*>(x),
                               n, static_cast<const double*>(x), n,
                               static_cast<const double*>(env.zero()), static_cast<double*>(c), n));
  else
    DMLRT_CHECK(cublasSgemm_64(env.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, n, n, m,
                               static_cast<const float*>(env.one()), static_cast<const float*>(x),
                               n, static_cast<const float*>(x), n,
                               static_cast<const float*>(env.zero()), static_cast<float*>(c), n));
}
void tsmm_syrk(Env& env, int64_t m, int64_t n, const void* x, void* c) {
  if (env.fp64())
    DMLRT_CHECK(cublasDsyrk_64(env.cublas(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, m,
                               static_cast<const double*>(env.one()), static_cast<const double*>(x),
                               n, static_cast<const double*>(env.zero()), static_cast<double*>(c),
                               n));
  else
    DMLRT_CHECK(cublasSsyrk_64(env.cublas(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, m,
                               static_cast<const float*>(env.one()), static_cast<const float*>(x),
                               n, static_cast<const float*>(env.zero()), static_cast<float*>(c),
                               n));
}

// A (rows, cols) CSR with exactly nnz_per_row entries per row at distinct random sorted columns,
// values uniform in [-1, 1] (host block; the first GPU read uploads it as CSR).
MatrixBlock random_csr(int64_t rows, int64_t cols, int nnz_per_row, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> col(0, static_cast<int32_t>(cols - 1));
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<int64_t> row_ptr(rows + 1, 0);
  std::vector<int32_t> col_idx;
  std::vector<double> values;
  col_idx.reserve(rows * nnz_per_row);
  values.reserve(rows * nnz_per_row);
  std::vector<int32_t> cs;
  for (int64_t i = 0; i < rows; ++i) {
    cs.clear();
    while (static_cast<int>(cs.size()) < nnz_per_row) {
      const int32_t c = col(rng);
      if (std::find(cs.begin(), cs.end(), c) == cs.end()) cs.push_back(c);
    }
    std::sort(cs.begin(), cs.end());
    for (int32_t c : cs) {
      col_idx.push_back(c);
      values.push_back(val(rng));
    }
    row_ptr[i + 1] = static_cast<int64_t>(col_idx.size());
  }
  return MatrixBlock::csr(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
}

// The fastest of several anchor variants (name, call): each timed, the minimum kept; fills
// r.anchor_ms, r.extra.anchor_algo and the variants tried (anchor_error when none ran).
void time_variants(Timer& timer,
                   const std::vector<std::pair<std::string, std::function<void()>>>& vs,
                   Record& r) {
  json tried = json::array();
  for (const auto& [name, fn] : vs) {
    try {
      const Timed tm = timer.time(fn, 1);
      tried.push_back({{"variant", name}, {"ms", tm.median_ms}});
      if (!(tm.median_ms >= r.anchor_ms)) {
        r.anchor_ms = tm.median_ms;
        r.extra["anchor_algo"] = name;
        r.extra["anchor_timing"] = timed_json(tm);
      }
    } catch (const std::exception& e) {
      tried.push_back({{"variant", name}, {"error", e.what()}});
    }
  }
  if (vs.size() > 1) r.extra["anchor_variants"] = tried;
  if (!std::isfinite(r.anchor_ms))
    r.extra["anchor_error"] = "no anchor variant ran: " + tried.dump();
}

struct GraphDestroy {
  void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
};
struct GraphExecDestroy {
  void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
};

struct GraphTiming {
  double ms_per_call = kNaN;
  double nodes_per_call = kNaN;  // the work items (kernels, memsets) one call enqueues
};

// Device time per call of fn without the host's launch gaps: `calls` calls captured into one CUDA
// graph, replayed; the best of 5 replays over `calls`. For small calls whose host loop is
// launch-bound (bench/README.md, "Host-bound rows").
GraphTiming graph_time_per_call(Env& env, const std::function<void()>& fn, int calls) {
  DMLRT_CHECK(cudaStreamBeginCapture(env.stream(), cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < calls; ++i) fn();
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(env.stream(), &broken);  // the stream leaves capture mode
    gpu::UniqueHandle<cudaGraph_t, GraphDestroy> drop(broken);
    throw;
  }
  cudaGraph_t raw = nullptr;
  DMLRT_CHECK(cudaStreamEndCapture(env.stream(), &raw));
  const gpu::UniqueHandle<cudaGraph_t, GraphDestroy> graph(raw);
  GraphTiming out;
  size_t nodes = 0;
  DMLRT_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &nodes));
  out.nodes_per_call = static_cast<double>(nodes) / calls;
  cudaGraphExec_t raw_exec = nullptr;
  DMLRT_CHECK(cudaGraphInstantiate(&raw_exec, graph.get(), 0));
  const gpu::UniqueHandle<cudaGraphExec_t, GraphExecDestroy> exec(raw_exec);
  gpu::UniqueEvent e0 = gpu::make_timing_event(), e1 = gpu::make_timing_event();
  DMLRT_CHECK(cudaGraphLaunch(exec.get(), env.stream()));  // warm
  for (int rep = 0; rep < 5; ++rep) {
    DMLRT_CHECK(cudaEventRecord(e0.get(), env.stream()));
    DMLRT_CHECK(cudaGraphLaunch(exec.get(), env.stream()));
    DMLRT_CHECK(cudaEventRecord(e1.get(), env.stream()));
    DMLRT_CHECK(cudaEventSynchronize(e1.get()));
    float ms = 0;
    DMLRT_CHECK(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
    if (!(ms / calls >= out.ms_per_call)) out.ms_per_call = ms / calls;
  }
  return out;
}

struct SpAlgo {
  const char* name;
  int alg;
};

// cuSPARSE SpMV / SpMM on a device CSR (int32 indices): y = S v (nb == 0) or C = S B with B, C
// row-major (nb columns), for each algorithm given; buffers and preprocessing outside the timing.
void cusparse_variants(Env& env, Timer& timer, const mem::DeviceMatrix& s, const void* dense,
                       void* out, int64_t nb, Record& r) {
  DMLRT_REQUIRE(s.is_sparse() && s.index_width() == mem::IndexWidth::k32, RuntimeError,
                "dmlrt_bench: expected an int32 device CSR, got " << s.describe());
  const cudaDataType vt = env.cuda_type();
  cusparseHandle_t h = env.cusparse();
  gpu::UniqueSpMat a =
      gpu::make_csr(s.rows(), s.cols(), s.nnz(), s.row_ptr(), s.col_idx(), s.values(), false, vt);
  std::vector<std::pair<std::string, std::function<void()>>> variants;
  if (nb == 0) {
    auto x = std::make_shared<gpu::UniqueDnVec>(
        gpu::make_vector(s.cols(), const_cast<void*>(dense), vt));
    auto y = std::make_shared<gpu::UniqueDnVec>(gpu::make_vector(s.rows(), out, vt));
    for (SpAlgo al : {SpAlgo{"SPMV_ALG_DEFAULT", CUSPARSE_SPMV_ALG_DEFAULT},
                      SpAlgo{"SPMV_CSR_ALG1", CUSPARSE_SPMV_CSR_ALG1},
                      SpAlgo{"SPMV_CSR_ALG2", CUSPARSE_SPMV_CSR_ALG2}}) {
      const auto alg = static_cast<cusparseSpMVAlg_t>(al.alg);
      try {
        size_t bytes = 0;
        DMLRT_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, env.one(), a.get(),
                                            x->get(), env.zero(), y->get(), vt, alg, &bytes));
        auto buf = std::make_shared<mem::DeviceAllocation>(
            env.gpu().scratch(std::max<size_t>(bytes, 256), "bench cuSPARSE buffer"));
        // Preprocessing is optional; an algorithm without it still runs.
        const cusparseStatus_t pre =
            cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, env.one(), a.get(),
                                    x->get(), env.zero(), y->get(), vt, alg, buf->data());
        if (pre != CUSPARSE_STATUS_SUCCESS)
          r.extra[std::string("anchor_no_preprocess_") + al.name] = cusparseGetErrorName(pre);
        variants.emplace_back(al.name, [&env, h, &a, x, y, vt, alg, buf] {
          DMLRT_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, env.one(), a.get(),
                                   x->get(), env.zero(), y->get(), vt, alg, buf->data()));
        });
      } catch (const std::exception& e) {
        r.extra[std::string("anchor_skipped_") + al.name] = e.what();
      }
    }
  } else {
    auto bm = std::make_shared<gpu::UniqueDnMat>(
        gpu::make_dense(s.cols(), nb, nb, const_cast<void*>(dense), vt, CUSPARSE_ORDER_ROW));
    auto cm = std::make_shared<gpu::UniqueDnMat>(
        gpu::make_dense(s.rows(), nb, nb, out, vt, CUSPARSE_ORDER_ROW));
    for (SpAlgo al : {SpAlgo{"SPMM_ALG_DEFAULT", CUSPARSE_SPMM_ALG_DEFAULT},
                      SpAlgo{"SPMM_CSR_ALG1", CUSPARSE_SPMM_CSR_ALG1},
                      SpAlgo{"SPMM_CSR_ALG2", CUSPARSE_SPMM_CSR_ALG2},
                      SpAlgo{"SPMM_CSR_ALG3", CUSPARSE_SPMM_CSR_ALG3}}) {
      const auto alg = static_cast<cusparseSpMMAlg_t>(al.alg);
      try {
        size_t bytes = 0;
        DMLRT_CHECK(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            CUSPARSE_OPERATION_NON_TRANSPOSE, env.one(), a.get(),
                                            bm->get(), env.zero(), cm->get(), vt, alg, &bytes));
        auto buf = std::make_shared<mem::DeviceAllocation>(
            env.gpu().scratch(std::max<size_t>(bytes, 256), "bench cuSPARSE buffer"));
        const cusparseStatus_t pre = cusparseSpMM_preprocess(
            h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, env.one(),
            a.get(), bm->get(), env.zero(), cm->get(), vt, alg, buf->data());
        if (pre != CUSPARSE_STATUS_SUCCESS)
          r.extra[std::string("anchor_no_preprocess_") + al.name] = cusparseGetErrorName(pre);
        variants.emplace_back(al.name, [&env, h, &a, bm, cm, vt, alg, buf] {
          DMLRT_CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                   CUSPARSE_OPERATION_NON_TRANSPOSE, env.one(), a.get(), bm->get(),
                                   env.zero(), cm->get(), vt, alg, buf->data()));
        });
      } catch (const std::exception& e) {
        r.extra[std::string("anchor_skipped_") + al.name] = e.what();
      }
    }
  }
  time_variants(timer, variants, r);
  // Leave the fastest variant's result in `out` for the check.
  for (const auto& [name, fn] : variants)
    if (r.extra.contains("anchor_algo") && r.extra["anchor_algo"] == name) fn();
  env.sync();
}

// With --profile: `calls` calls of fn under the sampling profiler, its stacks written to
// PREFIX.<tag>.<dtype>.txt (a separate loop: the profiler perturbs timing).
void profile_calls(Bench& b, Env& env, Record& r, const std::string& tag, int calls,
                   const std::function<void()>& fn) {
  if (b.o.profile.empty()) return;
  dmlrt_bench::SamplingProfiler prof;
  prof.start();
  for (int i = 0; i < calls; ++i) fn();
  env.sync();
  const std::string path = b.o.profile + "." + tag + "." + env.dtype_name() + ".txt";
  r.extra["profile_samples"] = prof.stop(path);
  r.extra["profile_file"] = path;
}

void bench_gemm(Bench& b, Env& env, Timer& timer) {
  const std::string dt = env.dtype_name();
  auto skip = [&](Record& r) {
    if (!b.over_budget()) return false;
    r.extra["dmlrt_error"] = r.extra["anchor_error"] = "skipped: time budget spent";
    b.results.add(std::move(r));
    return true;
  };
  // Dense GEMM: C(m, n) = A(m, k) B(k, n).
  struct Mm {
    const char* name;
    int64_t m, k, n;
  };
  for (const Mm& g :
       {Mm{"gemm_4096x4096x4096", 4096, 4096, 4096}, Mm{"gemm_8192x1024x1024", 8192, 1024, 1024},
        Mm{"gemm_1024x8192x1024", 1024, 8192, 1024}, Mm{"lenet_affine1_64x3136x512", 64, 3136, 512},
        Mm{"lenet_affine2_64x512x10", 64, 512, 10}}) {
    Record r{"gemm", g.name, dt};
    if (skip(r)) continue;
    const double flop = 2.0 * g.m * g.n * g.k;
    try {
      env.rand("A", g.m, g.k, 11);
      env.rand("B", g.k, g.n, 12);
      const std::string line =
          "GPU°ba+*°" + mat("A") + "°" + mat("B") + "°" + mat("OUT") + "°1°false°false";
      const bool have = time_dmlrt(env, timer, line, r);
      if (have && kernels::cuda::GemmPlanner::applies(g.m, g.n, g.k))  // Note [Small GEMM plans]
        r.extra["dmlrt_plan"] =
            env.gpu().gemm_planner().choice(env.fp64(), false, false, g.m, g.n, g.k);
      if (have && flop < 1e9) {  // where the host's cost per instruction shows
        const inst::InstructionPtr i = env.parse(line);
        profile_calls(b, env, r, g.name, 20000, [&] { env.exec(*i); });
      }
      mem::DeviceAllocation c = env.gpu().scratch(g.m * g.n * env.elem(), "bench cuBLAS output");
      const void* a = env.device("A").values();
      const void* bb = env.device("B").values();
      const auto call = [&] { gemm_row_major(env, g.m, g.n, g.k, a, bb, c.data()); };
      time_variants(timer, {{"cublas_gemm", call}}, r);
      if (flop < 1e9) {  // small enough for the host loop to be launch-bound
        try {
          const GraphTiming gt = graph_time_per_call(env, call, 200);
          r.extra["anchor_graph_ms"] = gt.ms_per_call;
          r.extra["anchor_graph_nodes_per_call"] = gt.nodes_per_call;
        } catch (const std::exception& e) {
          r.extra["anchor_graph_error"] = e.what();
        }
      }
      if (have) check_result(env, "OUT", c.data(), g.m * g.n, r);
      env.sync();
    } catch (const std::exception& e) {
      r.extra["anchor_error"] = e.what();
    }
    if (std::isfinite(r.dmlrt_ms)) r.extra["dmlrt_tflops"] = flop / r.dmlrt_ms * 1e-9;
    if (std::isfinite(r.anchor_ms)) r.extra["anchor_tflops"] = flop / r.anchor_ms * 1e-9;
    env.drop({"A", "B", "OUT"});
    b.results.add(std::move(r));
  }
  // GEMV: X(m, k) %*% w(k, 1) and t(X) %*% v(m, 1).
  const int64_t gm = 131072, gk = 1024;
  for (bool transposed : {false, true}) {
    Record r{"gemm", transposed ? "gemv_t_131072x1024" : "gemv_131072x1024", dt};
    if (skip(r)) continue;
    try {
      env.rand("X", gm, gk, 21);
      env.rand("V", transposed ? gm : gk, 1, 22);
      const bool have = time_dmlrt(env, timer,
                                   "GPU°ba+*°" + mat("X") + "°" + mat("V") + "°" + mat("OUT") +
                                       "°1°" + (transposed ? "true" : "false") + "°false",
                                   r);
      const int64_t out_n = transposed ? gk : gm;
      mem::DeviceAllocation y = env.gpu().scratch(out_n * env.elem(), "bench cuBLAS output");
      const void* x = env.device("X").values();
      const void* v = env.device("V").values();
      time_variants(
          timer,
          {{"cublas_gemv", [&] { gemv_row_major(env, transposed, gm, gk, x, v, y.data()); }}}, r);
      if (have) check_result(env, "OUT", y.data(), out_n, r);
      env.sync();
    } catch (const std::exception& e) {
      r.extra["anchor_error"] = e.what();
    }
    const double bytes = static_cast<double>(gm) * gk * env.elem();
    if (std::isfinite(r.dmlrt_ms)) r.extra["dmlrt_gbps"] = bytes / r.dmlrt_ms * 1e-6;
    if (std::isfinite(r.anchor_ms)) r.extra["anchor_gbps"] = bytes / r.anchor_ms * 1e-6;
    env.drop({"X", "V", "OUT"});
    b.results.add(std::move(r));
  }
  // tsmm: t(X) %*% X, X(65536, 1024).
  {
    const int64_t m = 65536, n = 1024;
    Record r{"gemm", "tsmm_left_65536x1024", dt};
    if (!skip(r)) {
      try {
        env.rand("X", m, n, 31);
        const bool have =
            time_dmlrt(env, timer, "GPU°tsmm°" + mat("X") + "°" + mat("OUT") + "°LEFT°1", r);
        mem::DeviceAllocation c = env.gpu().scratch(n * n * env.elem(), "bench cuBLAS output");
        const void* x = env.device("X").values();
        time_variants(timer,
                      {{"cublas_syrk", [&] { tsmm_syrk(env, m, n, x, c.data()); }},
                       {"cublas_gemm", [&] { tsmm_gemm(env, m, n, x, c.data()); }}},
                      r);
        tsmm_gemm(env, m, n, x, c.data());  // the full product for the check
        if (have) check_result(env, "OUT", c.data(), n * n, r);
        env.sync();
      } catch (const std::exception& e) {
        r.extra["anchor_error"] = e.what();
      }
      const double flop = 2.0 * m * n * n;
      if (std::isfinite(r.dmlrt_ms)) r.extra["dmlrt_tflops"] = flop / r.dmlrt_ms * 1e-9;
      if (std::isfinite(r.anchor_ms)) r.extra["anchor_tflops"] = flop / r.anchor_ms * 1e-9;
      env.drop({"X", "OUT"});
      b.results.add(std::move(r));
    }
  }
  // SpMV / SpMM: S(1e6, 1000) CSR at 1% and 0.1% times a dense vector or a (1000, 128) matrix.
  const int64_t sm = 1000000, sk = 1000, snb = 128;
  for (int per_row : {10, 1}) {
    const std::string dens = per_row == 10 ? "1pct" : "0.1pct";
    bool have_s = false;
    std::string s_error;
    try {
      env.bind("S", random_csr(sm, sk, per_row, 41 + per_row));
      env.rand("V", sk, 1, 42);
      env.rand("B", sk, snb, 43);
      have_s = true;
    } catch (const std::exception& e) {
      s_error = e.what();
    }
    for (int64_t nb : {int64_t{0}, snb}) {
      Record r{"gemm", (nb == 0 ? "spmv_1e6x1000_" : "spmm_1e6x1000x128_") + dens, dt};
      r.extra["nnz"] = sm * per_row;
      if (skip(r)) continue;
      if (!have_s) {
        r.extra["dmlrt_error"] = r.extra["anchor_error"] = "setup: " + s_error;
        b.results.add(std::move(r));
        continue;
      }
      const std::string rhs = nb == 0 ? "V" : "B";
      const bool have = time_dmlrt(
          env, timer, "GPU°ba+*°" + mat("S") + "°" + mat(rhs) + "°" + mat("OUT") + "°1°false°false",
          r);
      try {
        const int64_t out_n = sm * std::max<int64_t>(nb, 1);
        mem::DeviceAllocation y = env.gpu().scratch(out_n * env.elem(), "bench cuSPARSE output");
        cusparse_variants(env, timer, env.device("S"), env.device(rhs).values(), y.data(), nb, r);
        if (have) check_result(env, "OUT", y.data(), out_n, r);
        env.sync();
      } catch (const std::exception& e) {
        r.extra["anchor_error"] = e.what();
      }
      // Bytes of values + column indices + row offsets + dense input + output, each once.
      const double bytes = static_cast<double>(sm) * per_row * (env.elem() + 4) + (sm + 1) * 4.0 +
                           (sk * env.elem() + sm * env.elem()) * std::max<int64_t>(nb, 1);
      if (std::isfinite(r.dmlrt_ms)) r.extra["dmlrt_gbps"] = bytes / r.dmlrt_ms * 1e-6;
      if (std::isfinite(r.anchor_ms)) r.extra["anchor_gbps"] = bytes / r.anchor_ms * 1e-6;
      env.drop({"OUT"});
      b.results.add(std::move(r));
    }
    env.drop({"S", "V", "B"});
  }
}

// ---- (c) cell-wise ops and reductions vs the copy bandwidth ------------------------------------

// The ceiling of the fused chain's access pattern (4 streams read, 2 written): the same chain
// written by hand (chain_ceiling.cu), timed on the same inputs. Its time, bandwidth and share of
// the copy bandwidth go into r.extra (by_hand_*), with dmlrt's share of it and the distance of
// dmlrt's OUT from its out (0: the same roundings). Whether the copy anchor's 85% is reachable
// for this pattern at all is what this tells.
void time_chain_by_hand(Env& env, Timer& timer, double bytes, double copy_gbps, Record& r) {
  try {
    const int64_t n = int64_t{8192} * 16384;
    mem::DeviceAllocation t2 = env.gpu().scratch(n * env.elem(), "bench chain by hand t2");
    mem::DeviceAllocation out = env.gpu().scratch(n * env.elem(), "bench chain by hand out");
    const void* in[4] = {env.device("X").values(), env.device("Y").values(),
                         env.device("Z").values(), env.device("W").values()};
    const auto run = [&] {
      if (env.fp64())
        DMLRT_CHECK(dmlrt_bench::launch_sgd_chain_by_hand(
            static_cast<const double*>(in[0]), static_cast<const double*>(in[1]),
            static_cast<const double*>(in[2]), static_cast<const double*>(in[3]),
            static_cast<double*>(t2.data()), static_cast<double*>(out.data()), n, env.stream()));
      else
        DMLRT_CHECK(dmlrt_bench::launch_sgd_chain_by_hand(
            static_cast<const float*>(in[0]), static_cast<const float*>(in[1]),
            static_cast<const float*>(in[2]), static_cast<const float*>(in[3]),
            static_cast<float*>(t2.data()), static_cast<float*>(out.data()), n, env.stream()));
    };
    const Timed tm = timer.time(run);
    const double gbps = bytes / tm.median_ms * 1e-6;
    r.extra["by_hand_ms"] = tm.median_ms;
    r.extra["by_hand_gbps"] = gbps;
    if (std::isfinite(copy_gbps)) r.extra["by_hand_fraction_of_copy"] = gbps / copy_gbps;
    if (std::isfinite(r.dmlrt_ms)) r.extra["fraction_of_by_hand"] = tm.median_ms / r.dmlrt_ms;
    std::string why;
    const void* got = env.dense_output("OUT", &why);
    if (got != nullptr) r.extra["by_hand_rel_err"] = env.rel_err(got, out.data(), n);
    env.sync();
  } catch (const std::exception& e) {
    r.extra["by_hand_error"] = e.what();
  }
}

// A fused cell-wise chain (Note [Fusing cell-wise chains]): the SGD-Nesterov update of the LeNet
// plan, three +* / -* lines over four inputs, as the plan rewrite fuses it (T1 dead, T2 and OUT
// written): 4 reads + 2 writes of n cells against the copy bandwidth. The extra holds the three
// lines run unfused (3 + 3 + 3 reads and 3 writes) and the chain written by hand.
void bench_fused_chain(Bench& b, Env& env, Timer& timer, double copy_gbps, double bytes1) {
  Record r{"cell", "fused_sgd_chain_2^27", env.dtype_name()};
  if (b.over_budget()) {
    r.extra["dmlrt_error"] = "skipped: time budget spent";
    b.results.add(std::move(r));
    return;
  }
  const double bytes = 6 * bytes1;
  r.extra["bytes"] = bytes;
  if (std::isfinite(copy_gbps)) {
    r.anchor_ms = bytes / (copy_gbps * 1e6);
    r.extra["copy_gbps"] = copy_gbps;
  } else {
    r.extra["anchor_error"] = "no copy bandwidth measured";
  }
  try {
    env.rand("Z", 8192, 16384, 53);
    env.rand("W", 8192, 16384, 54);
    const std::vector<std::string> lines = {
        "GPU°+*°" + mat("X") + "°5.0E-4·SCALAR·FP64·true°" + mat("Y") + "°" + mat("T1"),
        "GPU°-*°" + mat("Z") + "°0.01·SCALAR·FP64·true°" + mat("T1") + "°" + mat("T2"),
        "CP°rmvar°T1",
        "GPU°+*°" + mat("W") + "°1.9·SCALAR·FP64·true°" + mat("T2") + "°" + mat("OUT")};
    std::string plan = "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-4) [recompile=false]\n";
    for (const std::string& l : lines) plan += "------" + l + "\n";
    runtime::Program p = runtime::parse_plan(plan, "bench");
    const runtime::RuntimeConfig config;  // the default rewrites
    runtime::apply_plan_rewrites(p, config);
    const runtime::InstructionList& list = p.main.at(0)->instructions;
    DMLRT_REQUIRE(list.size() == 1 && list[0]->parts() != nullptr, RuntimeError,
                  "dmlrt_bench: the SGD chain was not fused");
    if (time_instruction(env, timer, *list[0], r) && std::isfinite(r.dmlrt_ms)) {
      const double gbps = bytes / r.dmlrt_ms * 1e-6;
      r.extra["dmlrt_gbps"] = gbps;
      if (std::isfinite(copy_gbps)) r.extra["fraction_of_copy"] = gbps / copy_gbps;
    }
    time_chain_by_hand(env, timer, bytes, copy_gbps, r);
    double unfused_ms = 0;
    for (const std::string& l : lines) {
      if (l.rfind("GPU", 0) != 0) continue;
      Record part{"cell", "part", env.dtype_name()};
      if (time_dmlrt(env, timer, l, part)) unfused_ms += part.dmlrt_ms;
    }
    r.extra["unfused_ms"] = unfused_ms;
    r.extra["note"] = "fused chain of 3 lines; unfused " + std::to_string(unfused_ms) + " ms";
  } catch (const std::exception& e) {
    r.extra["dmlrt_error"] = e.what();
  }
  env.drop({"Z", "W", "T1", "T2", "OUT"});
  b.results.add(std::move(r));
}

// The op registry's sample `name` of `opcode` (tests/gpu/op_registry.h): the bench times the
// instructions that the registry test checks against the CPU.
const test::gpu::OpSample& registry_sample(const std::string& opcode, const std::string& name) {
  for (const test::gpu::OpSample& s : test::gpu::op_samples())
    if (opcode == s.opcode && name == s.name) return s;
  DMLRT_FAIL(RuntimeError,
             "dmlrt_bench: the op registry has no sample '" << name << "' of " << opcode);
}

void bench_cell(Bench& b, Env& env, Timer& timer) {
  const int64_t rows = 8192, cols = 16384, n = rows * cols;  // 2^27 cells
  const double bytes1 = static_cast<double>(n) * env.elem();
  const std::string dt = env.dtype_name();
  // The ceiling: a device-to-device copy of one such matrix (bytes read + bytes written).
  double copy_gbps = kNaN;
  {
    Record r{"cell", "d2d_copy_2^27", dt};
    try {
      env.rand("X", rows, cols, 51);
      env.rand("Y", rows, cols, 52);
      mem::DeviceAllocation dst = env.gpu().scratch(n * env.elem(), "bench copy target");
      const void* x = env.device("X").values();
      const Timed tm = timer.time([&] {
        DMLRT_CHECK(
            cudaMemcpyAsync(dst.data(), x, n * env.elem(), cudaMemcpyDeviceToDevice, env.stream()));
      });
      r.anchor_ms = tm.median_ms;
      copy_gbps = 2 * bytes1 / tm.median_ms * 1e-6;
      r.extra["copy_gbps"] = copy_gbps;
      r.extra["anchor_timing"] = timed_json(tm);
      r.extra["note"] = "copy bandwidth " + std::to_string(static_cast<int>(copy_gbps)) + " GB/s";
    } catch (const std::exception& e) {
      r.extra["anchor_error"] = e.what();
    }
    b.results.add(std::move(r));
  }
  // Single instructions: op registry samples built at (rows, cols), the main input's shape.
  struct CellOp {
    const char* name;    // the row's name, kept across runs (RESULTS.md)
    const char* opcode;  // the registry sample: its opcode and name
    const char* sample;
    double passes;  // matrices of n cells read or written
  };
  const CellOp ops[] = {
      {"plus_XY", "+", "+ matrix-matrix", 3},
      {"mult_XY", "*", "* matrix-matrix", 3},
      {"exp_X", "exp", "exp", 2},
      {"max_X_0", "max", "max matrix-scalar", 2},
      {"sum_X", "uak+", "uak+", 1},
      {"rowSums_X", "uark+", "uark+", 1},
      {"colSums_X", "uack+", "uack+", 1},
  };
  for (const CellOp& op : ops) {
    Record r{"cell", std::string(op.name) + "_2^27", dt};
    if (b.over_budget()) {
      r.extra["dmlrt_error"] = "skipped: time budget spent";
      b.results.add(std::move(r));
      continue;
    }
    const double bytes = op.passes * bytes1;
    r.extra["bytes"] = bytes;
    if (std::isfinite(copy_gbps)) {
      r.anchor_ms = bytes / (copy_gbps * 1e6);  // the copy's time for these bytes
      r.extra["copy_gbps"] = copy_gbps;
    } else {
      r.extra["anchor_error"] = "no copy bandwidth measured";
    }
    test::gpu::OpCase c;
    try {
      c = registry_sample(op.opcode, op.sample).make(rows, cols);
      env.bind_case(c, 55);
    } catch (const std::exception& e) {
      r.extra["dmlrt_error"] = e.what();
      env.drop_case(c);
      b.results.add(std::move(r));
      continue;
    }
    time_dmlrt(env, timer, c.gpu_line, r);
    if (std::isfinite(r.dmlrt_ms)) {
      const double gbps = bytes / r.dmlrt_ms * 1e-6;
      r.extra["dmlrt_gbps"] = gbps;
      if (std::isfinite(copy_gbps)) r.extra["fraction_of_copy"] = gbps / copy_gbps;
    }
    env.drop_case(c);
    b.results.add(std::move(r));
  }
  bench_fused_chain(b, env, timer, copy_gbps, bytes1);
  env.drop({"X", "Y"});
}

// ---- (d) host overhead per instruction --------------------------------------------------------

// A loop of tiny GPU instructions (1x1 + scalar, alternating A -> B -> A) executed as the
// interpreter does, timed on the host up to the final synchronisation; the anchor is the same
// number of bare cudaMemsetAsync calls of 8 bytes (the floor of one stream-ordered call). Every
// loop here runs b.o.reps times and the median counts (METHOD.md: in the run of 2026-11-30 a single
// loop of 20000 gave 5.05 us per instruction in FP64 and 3.76 in FP32 over the same 3.54 us
// launch floor).
void bench_overhead_loop(Bench& b, Env& env) {
  Record r{"overhead", "instr_loop_1x1_plus_scalar", env.dtype_name()};
  const int n = std::max(2, b.o.overhead_n / 2 * 2);  // even: each loop ends back in A
  const int reps = std::max(1, b.o.reps);
  r.extra["instructions"] = n;
  r.extra["loops"] = reps;
  // Microseconds per call of `call`: 200 warm-up calls, then `reps` loops of n calls, each timed
  // on the host up to a synchronisation.
  const auto per_call_us = [&](const std::function<void()>& call) {
    for (int i = 0; i < 200; ++i) call();
    env.sync();
    std::vector<double> us;
    for (int rep = 0; rep < reps; ++rep) {
      const Clock::time_point t = Clock::now();
      for (int i = 0; i < n; ++i) call();
      env.sync();
      us.push_back(seconds_since(t) * 1e6 / n);
    }
    return spread_of(std::move(us));
  };
  const auto put = [&](const std::string& key, const Spread& s) {
    r.extra[key] = s.median;
    r.extra[key + "_min"] = s.min;
    r.extra[key + "_max"] = s.max;
  };
  try {
    env.rand("A", 1, 1, 61);
    const double a0 = env.ec().matrix("A")->get(0, 0);  // the device copy stays valid
    inst::InstructionPtr ab = env.parse("GPU°+°" + mat("A") + "°1·SCALAR·FP64·true°" + mat("B"));
    inst::InstructionPtr ba = env.parse("GPU°+°" + mat("B") + "°1·SCALAR·FP64·true°" + mat("A"));
    bool to_b = true;
    const Spread s = per_call_us([&] {
      env.exec(to_b ? *ab : *ba);
      to_b = !to_b;
    });
    r.dmlrt_ms = s.median * 1e-3;
    put("us_per_instruction", s);
    const double got = env.ec().matrix("A")->get(0, 0);
    const double want = a0 + 200 + static_cast<double>(reps) * n;
    profile_calls(b, env, r, "instr_loop", 5 * n, [&] {
      env.exec(to_b ? *ab : *ba);
      to_b = !to_b;
    });
    r.extra["check"] = std::abs(got - want) <= 1e-6 * std::abs(want) + (env.fp64() ? 1e-9 : 1e-2)
                           ? "ok"
                           : "MISMATCH";
  } catch (const std::exception& e) {
    r.extra["dmlrt_error"] = e.what();
  }
  try {
    mem::DeviceAllocation p = env.gpu().scratch(8, "bench memset target");
    const Spread memset =
        per_call_us([&] { DMLRT_CHECK(cudaMemsetAsync(p.data(), 0, 8, env.stream())); });
    r.anchor_ms = memset.median * 1e-3;
    r.extra["anchor_algo"] = "cudaMemsetAsync 8 bytes";
    put("anchor_us", memset);
    // The floor of an instruction that launches one kernel: the same cell-wise kernel launched
    // bare, alternating between two 1-cell buffers as the loop does.
    mem::DeviceAllocation q = env.gpu().scratch(8, "bench launch target");
    bool forward = true;
    const Spread bare = per_call_us([&] {
      void* from = forward ? p.data() : q.data();
      void* to = forward ? q.data() : p.data();
      forward = !forward;
      if (env.fp64())
        kernels::cuda::launch_binary_matrix_scalar(kernels::cpu::BinaryOp::kPlus,
                                                   static_cast<const double*>(from), 1.0, false,
                                                   static_cast<double*>(to), 1, env.stream());
      else
        kernels::cuda::launch_binary_matrix_scalar(kernels::cpu::BinaryOp::kPlus,
                                                   static_cast<const float*>(from), 1.0, false,
                                                   static_cast<float*>(to), 1, env.stream());
    });
    put("bare_kernel_launch_us", bare);
    // Any kernel: an empty one, and one with a cell-wise kernel's parameter block.
    put("empty_kernel_launch_us",
        per_call_us([&] { DMLRT_CHECK(dmlrt_bench::launch_empty(env.stream())); }));
    if (env.fp64())
      put("params96_kernel_launch_us", per_call_us([&] {
            DMLRT_CHECK(dmlrt_bench::launch_params96(static_cast<const double*>(p.data()),
                                                     static_cast<double*>(q.data()), env.stream()));
          }));
    if (r.extra.contains("us_per_instruction"))
      r.extra["dmlrt_above_launch_us"] = r.extra["us_per_instruction"].get<double>() - bare.median;
  } catch (const std::exception& e) {
    r.extra["anchor_error"] = e.what();
  }
  env.drop({"A", "B"});
  b.results.add(std::move(r));
}

// The same through the public API and the interpreter: a FOR loop whose body holds 10 GPU
// instructions (CP lines under -gpu force), its trip count an input scalar. One prepared script
// keeps its GPU session across runs; the per-instruction cost is the difference between a long
// and a short run (best of two each) over the difference in instructions, so the final D2H and
// the per-run set-up cancel. Runs after the bench's own session is gone. With `graphs` the body
// runs as a CUDA graph (dmlrt.gpu.graphs on, issue #19): the host time per instruction is that of
// a replay's walk.
void bench_overhead_api(Bench& b, mem::DType dtype, bool graphs) {
  Record r{"overhead",
           graphs ? "api_for_loop_1x1_plus_scalar_graphs" : "api_for_loop_1x1_plus_scalar",
           dtype == mem::DType::kFloat64 ? "fp64" : "fp32"};
  std::string config_path;
  try {
    std::string plan =
        "PROGRAM\n--MAIN PROGRAM\n----FOR (lines 1-7) [iter=i]\n------FROM\n"
        "------CP°assignvar°1·SCALAR·INT64·true°__pred·SCALAR·INT64\n------TO\n"
        "------CP°assignvar°n·SCALAR·INT64·false°__pred·SCALAR·INT64\n------INCR\n"
        "------GENERIC (lines 2-6) [recompile=false]\n";
    for (int k = 0; k < 5; ++k)
      plan +=
          "--------CP°+°A·MATRIX·FP64°1·SCALAR·FP64·true°B·MATRIX·FP64\n"
          "--------CP°+°B·MATRIX·FP64°1·SCALAR·FP64·true°A·MATRIX·FP64\n";
    dmlrt::Options opt;
    if (graphs) {
      char tmpl[] = "/tmp/dmlrt_bench_graphs_XXXXXX";
      const int fd = mkstemp(tmpl);
      DMLRT_REQUIRE(fd >= 0, RuntimeError, "dmlrt_bench: cannot create a config file in /tmp");
      close(fd);
      config_path = tmpl;
      std::ofstream(config_path) << "<root><dmlrt.gpu.graphs>on</dmlrt.gpu.graphs></root>\n";
      opt.config_file = config_path;
    }
    opt.gpu = dmlrt::GpuMode::kForce;
    opt.precision =
        dtype == mem::DType::kFloat64 ? dmlrt::Precision::kDouble : dmlrt::Precision::kSingle;
    dmlrt::Connection conn(opt);
    dmlrt::PreparedScript script = conn.prepare_script(plan, {"A", "n"}, {"A"});
    const double a0 = 0.5;
    script.set_matrix("A", 1, 1, &a0);
    const int n_short = 20, n_long = std::max(n_short + 10, b.o.overhead_n / 2);
    auto run = [&](int iters) {
      script.set_scalar("n", static_cast<int64_t>(iters));
      const Clock::time_point t = Clock::now();
      dmlrt::ResultVariables res = script.execute();
      const double sec = seconds_since(t);
      const double got = res.get_matrix("A").at(0, 0);
      DMLRT_REQUIRE(std::abs(got - (a0 + 10.0 * iters)) <= 1e-3 * (1 + 10.0 * iters), RuntimeError,
                    "dmlrt_bench: API loop gave " << got << ", expected " << a0 + 10.0 * iters);
      return sec;
    };
    run(n_short);  // warm-up: the session, library handles, memory pools
    const double t_short = std::min(run(n_short), run(n_short));
    const double t_long = std::min(run(n_long), run(n_long));
    if (!b.o.profile.empty()) {
      dmlrt_bench::SamplingProfiler prof;
      prof.start();
      for (int k = 0; k < 5; ++k) run(n_long);
      const std::string path = b.o.profile + ".api_loop." + r.dtype + ".txt";
      r.extra["profile_samples"] = prof.stop(path);
    }
    const double instrs = 10.0 * (n_long - n_short);
    r.dmlrt_ms = (t_long - t_short) * 1e3 / instrs;
    r.extra["us_per_instruction"] = (t_long - t_short) * 1e6 / instrs;
    r.extra["iterations"] = {n_short, n_long};
    r.extra["seconds"] = {t_short, t_long};
    r.extra["note"] = "FOR-loop bookkeeping included";
    r.extra["graphs"] = graphs;
  } catch (const std::exception& e) {
    r.extra["dmlrt_error"] = e.what();
  }
  if (!config_path.empty()) std::remove(config_path.c_str());
  b.results.add(std::move(r));
}

// ---- (e) the sparse-filter conv2d path against the dense one (cost-model calibration) ----------

// Shapes bracketing the models' layers at batch sizes where a sparse filter is plausible (names
// as in kConvCases, the batch in the record name), cheapest first so the time budget skips the
// costliest. Filter densities from ultra-sparse to past every break-even point.
const std::vector<ConvCase> kSpconvCases = {
    {"lenet.conv2", 64, 32, 14, 14, 64, 5, 5, 1, 2},
    {"r50.s2_1x1", 8, 64, 56, 56, 256, 1, 1, 1, 0},
    {"r50.s2_3x3", 8, 64, 56, 56, 64, 3, 3, 1, 1},
    {"r50.s4_3x3", 16, 256, 14, 14, 256, 3, 3, 1, 1},
    {"vgg.conv4_2", 4, 512, 28, 28, 512, 3, 3, 1, 1},
};
constexpr double kSpconvDensities[] = {0.001, 0.01, 0.03, 0.1, 0.3};
// The whole section's time (all precisions together); --budget-s can only shorten it.
constexpr double kSpconvBudgetS = 30.0;

kernels::cpu::ConvShape conv_shape_of(const ConvCase& cs) {
  kernels::cpu::ConvShape sh;
  sh.n = cs.n, sh.c = cs.c, sh.h = cs.h, sh.w = cs.w, sh.k = cs.k, sh.r = cs.r, sh.s = cs.s;
  sh.stride_h = sh.stride_w = cs.stride;
  sh.pad_h = sh.pad_w = cs.pad;
  sh.derive_output_size();
  return sh;
}

// A (k, crs) filter with round(density * k * crs) nonzeros (at least one) at distinct random
// positions, values uniform in [-1, 1] (never 0): as CSR and as the same values in a dense block.
std::pair<MatrixBlock, MatrixBlock> random_filter(int64_t k, int64_t crs, double density,
                                                  uint64_t seed) {
  const int64_t cells = k * crs;
  const int64_t nnz =
      std::clamp<int64_t>(std::llround(density * static_cast<double>(cells)), 1, cells);
  std::mt19937_64 rng(seed);
  // Rejection sampling of the positions (or of the zeros, past half full).
  const bool complement = nnz > cells / 2;
  std::vector<char> hit(cells, complement ? 1 : 0);
  std::uniform_int_distribution<int64_t> pos(0, cells - 1);
  for (int64_t flipped = 0; flipped < (complement ? cells - nnz : nnz);) {
    char& h = hit[pos(rng)];
    if (h == (complement ? 1 : 0)) {
      h = complement ? 0 : 1;
      ++flipped;
    }
  }
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<double> dense(cells, 0.0), values;
  std::vector<int64_t> row_ptr(k + 1, 0);
  std::vector<int32_t> col_idx;
  values.reserve(nnz);
  col_idx.reserve(nnz);
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < crs; ++j) {
      if (!hit[i * crs + j]) continue;
      double v = val(rng);
      if (v == 0.0) v = 0.5;
      dense[i * crs + j] = v;
      col_idx.push_back(static_cast<int32_t>(j));
      values.push_back(v);
    }
    row_ptr[i + 1] = static_cast<int64_t>(col_idx.size());
  }
  return {MatrixBlock::csr(k, crs, std::move(row_ptr), std::move(col_idx), std::move(values)),
          MatrixBlock::dense(k, crs, std::move(dense))};
}

std::string ms_text(double ms) {
  std::ostringstream os;
  os << std::setprecision(3) << ms << " ms";
  return os.str();
}

// One measured (shape, density) of a precision: the fit's input.
struct SpconvPoint {
  std::string name;
  kernels::cpu::ConvShape sh;
  int64_t nnz = 0;
  double sparse_ms = kNaN, dense_ms = kNaN;
  bool current_picks_sparse = false;
};

// The sparse path (inst::sparse_filter_conv2d on a CSR device filter, no bias, the budget the
// conv2d instruction would give it) against the dense path (the same filter densified on the
// device, as the instruction's dense view does, plus the conv2d instruction on the dense filter,
// its autotuning done by the untimed first call), for every density; one record each, the
// current cost model's decision included.
void bench_spconv_case(Bench& b, Env& env, Timer& timer, const ConvCase& cs, uint64_t seed,
                       std::vector<SpconvPoint>& points) {
  const kernels::cpu::ConvShape sh = conv_shape_of(cs);
  const int64_t chw = sh.c * sh.h * sh.w, crs = sh.c * sh.r * sh.s, kpq = sh.k * sh.p * sh.q;
  const std::string scalars = lit(cs.stride) + "°" + lit(cs.stride) + "°" + lit(cs.pad) + "°" +
                              lit(cs.pad) + "°" + lit(cs.n) + "°" + lit(cs.c) + "°" + lit(cs.h) +
                              "°" + lit(cs.w) + "°" + lit(cs.k) + "°" + lit(cs.c) + "°" +
                              lit(cs.r) + "°" + lit(cs.s);
  const std::string dense_line =
      "GPU°conv2d°" + mat("X") + "°" + mat("WD") + "°" + scalars + "°" + mat("OUT") + "°1°0";
  const json shape = {{"N", cs.n}, {"C", cs.c}, {"H", cs.h},           {"W", cs.w},    {"K", cs.k},
                      {"R", cs.r}, {"S", cs.s}, {"stride", cs.stride}, {"pad", cs.pad}};
  const std::string base = std::string(cs.name) + ".b" + std::to_string(cs.n);
  std::string setup_error;
  std::unique_ptr<mem::DeviceMatrix> out;  // (N, KPQ) dense: the sparse path's output
  try {
    env.rand("X", cs.n, chw, static_cast<int64_t>(seed));
    out = std::make_unique<mem::DeviceMatrix>(
        mem::DeviceMatrix::dense(env.gpu().memory(), sh.n, kpq, env.dtype(), env.gpu().stream(),
                                 "bench sparse-filter conv2d output"));
  } catch (const std::exception& e) {
    setup_error = e.what();
  }
  for (size_t di = 0; di < std::size(kSpconvDensities); ++di) {
    const double density = kSpconvDensities[di];
    std::ostringstream dname;
    dname << density;
    Record r{"spconv", base + ".d" + dname.str(), env.dtype_name()};
    r.extra["shape"] = shape;
    r.extra["density"] = density;
    if (skipped(b, r, setup_error)) continue;
    SpconvPoint pt{r.name, sh};
    try {
      auto [w_csr, w_dense] = random_filter(sh.k, crs, density, seed + 1 + di);
      pt.nnz = w_csr.nnz();
      env.bind("WS", std::move(w_csr));
      env.bind("WD", std::move(w_dense));
      const mem::DeviceMatrix& x = env.device("X");
      const mem::DeviceMatrix& ws = env.device("WS");
      DMLRT_REQUIRE(ws.is_sparse() && !env.device("WD").is_sparse(), RuntimeError,
                    "dmlrt_bench: expected a CSR and a dense device filter, got "
                        << ws.describe() << " and " << env.device("WD").describe());
      const int64_t budget = inst::dnn_intermediate_budget(env.gpu());
      const double sparse_cost = inst::sparse_filter_conv2d_sparse_cost(pt.nnz, sh, env.fp64());
      const double dense_cost = inst::sparse_filter_conv2d_dense_cost(sh, env.fp64());
      pt.current_picks_sparse = inst::sparse_filter_conv2d_cheaper(pt.nnz, sh, env.fp64());
      r.extra["nnz"] = pt.nnz;
      r.extra["model_sparse_cost"] = sparse_cost;
      r.extra["model_dense_cost"] = dense_cost;
      r.extra["model_cost_ratio"] = sparse_cost / dense_cost;
      r.extra["model_picks"] = pt.current_picks_sparse ? "sparse" : "dense";
      // What the conv2d instruction would do with the CSR filter (the model and the budget).
      r.extra["instruction_takes_sparse_path"] =
          inst::sparse_filter_conv2d_applies(env.gpu(), ws, sh, budget);
      r.extra["chunk_images"] =
          inst::sparse_filter_conv2d_chunk_rows(sh, static_cast<int64_t>(env.elem()), budget);
      // (a) the sparse-filter path.
      try {
        const auto sparse = [&] {
          inst::sparse_filter_conv2d(env.gpu(), x, ws, nullptr, sh, budget, *out);
        };
        const Clock::time_point t = Clock::now();
        sparse();
        env.sync();
        r.extra["first_call_ms"] = seconds_since(t) * 1e3;
        const Timed tm = timer.time(sparse, 1);
        r.dmlrt_ms = pt.sparse_ms = tm.median_ms;
        r.extra["sparse_ms"] = tm.median_ms;
        r.extra["dmlrt_timing"] = timed_json(tm);
      } catch (const std::exception& e) {
        r.extra["dmlrt_error"] = e.what();
      }
      // (b) the dense path: densify the CSR filter + conv2d on the dense filter.
      Record d{"spconv", r.name, r.dtype};
      const bool have_dense = time_dmlrt(env, timer, dense_line, d);
      if (have_dense) {
        const Timed td = timer.time(
            [&] { mem::DeviceMatrix t = env.gpu().to_dense(ws, "bench densified filter"); }, 1);
        r.anchor_ms = pt.dense_ms = d.dmlrt_ms + td.median_ms;
        r.extra["dense_ms"] = r.anchor_ms;
        r.extra["dense_conv_ms"] = d.dmlrt_ms;
        r.extra["densify_ms"] = td.median_ms;
        r.extra["dense_first_call_ms"] = d.extra["first_call_ms"];
        r.extra["anchor_timing"] = d.extra["dmlrt_timing"];
        r.extra["anchor_algo"] = "densify + GPU conv2d (dense filter)";
      } else {
        r.extra["anchor_error"] = d.extra.value("dmlrt_error", std::string("dense path not run"));
      }
      // The two paths' outputs agree (the sparse one is overwritten with the difference).
      if (have_dense && std::isfinite(r.dmlrt_ms)) {
        std::string why;
        const void* got = env.dense_output("OUT", &why);
        if (got == nullptr) {
          r.extra["check"] = "skipped: " + why;
        } else {
          const double e = env.rel_err(got, out->values(), sh.n * kpq);
          r.extra["rel_err"] = e;
          r.extra["check"] = e <= env.err_bound() ? "ok" : "MISMATCH";
        }
      }
    } catch (const std::exception& e) {
      if (!r.extra.contains("dmlrt_error")) r.extra["dmlrt_error"] = e.what();
      if (!r.extra.contains("anchor_error")) r.extra["anchor_error"] = e.what();
    }
    if (std::isfinite(pt.sparse_ms) && std::isfinite(pt.dense_ms)) {
      const bool sparse_faster = pt.sparse_ms < pt.dense_ms;
      const bool right = sparse_faster == pt.current_picks_sparse;
      r.extra["ratio_sparse_dense"] = pt.sparse_ms / pt.dense_ms;
      r.extra["faster"] = sparse_faster ? "sparse" : "dense";
      r.extra["model_right"] = right;
      r.extra["note"] = "sparse " + ms_text(pt.sparse_ms) + " vs dense " + ms_text(pt.dense_ms) +
                        ", model picks " + (pt.current_picks_sparse ? "sparse" : "dense") + ": " +
                        (right ? "right" : "wrong");
      if (r.extra.value("check", std::string()) == "MISMATCH")
        r.extra["note"] = "sparse and dense outputs differ (rel err " +
                          std::to_string(r.extra["rel_err"].get<double>()) + ")";
      else
        points.push_back(pt);
    }
    env.drop({"OUT", "WS", "WD"});
    b.results.add(std::move(r));
  }
  out.reset();
  env.drop({"X"});
}

// Note [Fitting the sparse-filter cost model]
// The model (Note [Sparse-filter conv2d cost model], instructions/dnn_conv_instructions.h) costs
// both paths in MACs of the dense convolution, with s = kSpmmCost and m = kMoveCost:
//   dense = KCRS*NPQ + m*KCRS,   sparse = s*nnz*NPQ + m*(CRS + 3K)*NPQ.
// If the dense path ran at a fixed time per MAC, the measured rho = t_sparse / t_dense would be
// sparse / dense. Divided through by KCRS*NPQ, with d = nnz / KCRS and u = (CRS + 3K) / KCRS:
//   rho * (1 + m/NPQ) = s*d + m*u   <=>   rho = s*d + m*(u - rho/NPQ),
// linear in (s, m). The fit minimises the relative residuals sum_i ((s*x1_i + m*x2_i) / rho_i -
// 1)^2 with x1 = d, x2 = u - rho/NPQ (relative, since rho spans orders of magnitude and the
// decision is rho < 1) through the 2x2 normal equations. When that optimum has a negative constant,
// the better of the two one-constant fits (the other at 0) is taken: the optimum under s, m >= 0.
// The dense path's time per MAC differs between shapes (cuDNN's algorithm) and the sparse path has
// fixed launch costs; the model has neither, so the fit averages over them, and its decisions are
// scored against the measured faster path (points where the paths' outputs differ are left out).
struct SpconvFit {
  double spmm = kNaN, move = kNaN, rms_rel = kNaN;
};

SpconvFit fit_spconv(const std::vector<SpconvPoint>& pts) {
  // Rows of the weighted problem: a_i = x1_i / rho_i, c_i = x2_i / rho_i, target 1.
  std::vector<std::pair<double, double>> rows;
  for (const SpconvPoint& p : pts) {
    const double npq = static_cast<double>(p.sh.n) * p.sh.p * p.sh.q;
    const double crs = static_cast<double>(p.sh.c) * p.sh.r * p.sh.s;
    const double kcrs = static_cast<double>(p.sh.k) * crs;
    const double rho = p.sparse_ms / p.dense_ms;
    if (!(rho > 0) || !std::isfinite(rho)) continue;
    const double x1 = static_cast<double>(p.nnz) / kcrs;
    const double x2 = (crs + 3.0 * p.sh.k) / kcrs - rho / npq;
    rows.emplace_back(x1 / rho, x2 / rho);
  }
  SpconvFit best;
  if (rows.empty()) return best;
  double aa = 0, ac = 0, cc = 0, a1 = 0, c1 = 0;
  for (const auto& [a, c] : rows) {
    aa += a * a, ac += a * c, cc += c * c, a1 += a, c1 += c;
  }
  const auto objective = [&](double s, double m) {
    double sum = 0;
    for (const auto& [a, c] : rows) sum += (s * a + m * c - 1) * (s * a + m * c - 1);
    return sum;
  };
  std::vector<std::pair<double, double>> cands;
  const double det = aa * cc - ac * ac;
  if (std::abs(det) > 1e-12 * std::max(aa * cc, 1e-300)) {
    const double s = (a1 * cc - c1 * ac) / det, m = (aa * c1 - ac * a1) / det;
    if (s >= 0 && m >= 0) cands.emplace_back(s, m);
  }
  if (cands.empty()) {
    if (aa > 0) cands.emplace_back(std::max(a1 / aa, 0.0), 0.0);
    if (cc > 0) cands.emplace_back(0.0, std::max(c1 / cc, 0.0));
  }
  double best_obj = std::numeric_limits<double>::infinity();
  for (const auto& [s, m] : cands) {
    const double o = objective(s, m);
    if (o < best_obj) {
      best_obj = o;
      best.spmm = s;
      best.move = m;
    }
  }
  if (std::isfinite(best_obj))
    best.rms_rel = std::sqrt(best_obj / static_cast<double>(rows.size()));
  return best;
}

// The model's decision with constants (s, m): the sparse path when its cost is lower.
bool spconv_picks_sparse(const kernels::cpu::ConvShape& sh, int64_t nnz, double s, double m) {
  if (nnz == 0) return true;
  const double npq = static_cast<double>(sh.n) * sh.p * sh.q;
  const double crs = static_cast<double>(sh.c) * sh.r * sh.s, kcrs = sh.k * crs;
  return s * static_cast<double>(nnz) * npq + m * (crs + 3.0 * sh.k) * npq < kcrs * npq + m * kcrs;
}

// The filter density at which the model with constants (s, m) rates both paths equal.
double spconv_break_even(const kernels::cpu::ConvShape& sh, double s, double m) {
  const double npq = static_cast<double>(sh.n) * sh.p * sh.q;
  const double crs = static_cast<double>(sh.c) * sh.r * sh.s, kcrs = sh.k * crs;
  return s > 0 ? (1.0 + m / npq - m * (crs + 3.0 * sh.k) / kcrs) / s : kNaN;
}

// The whole section for one precision: every shape and density, then one "fit" record with the
// fitted kSpmmCost and kMoveCost (also in the JSON's meta as spconv_fit_<dtype>) and the model's
// decision accuracy with the current and the fitted constants.
void bench_spconv(Bench& b, Env& env, Timer& /*unused: the section's own, shorter loops*/) {
  // Modest loops (at most 3 of >= 10 ms): the section must stay within kSpconvBudgetS.
  BenchOptions lo = b.o;
  lo.reps = std::min(lo.reps, 3);
  lo.target_ms = std::min(lo.target_ms, 10.0);
  Timer timer(env.stream(), lo);
  std::vector<SpconvPoint> points;
  uint64_t seed = 7000;
  for (const ConvCase& cs : kSpconvCases) {
    seed += 100;
    bench_spconv_case(b, env, timer, cs, seed, points);
  }
  Record r{"spconv", "fit", env.dtype_name()};
  // The current constants, read back from the exported cost functions (linear in nnz).
  const kernels::cpu::ConvShape ref = conv_shape_of(kSpconvCases.front());
  const double ref_npq = static_cast<double>(ref.n) * ref.p * ref.q;
  const double ref_crs = static_cast<double>(ref.c) * ref.r * ref.s;
  const double s_now = (inst::sparse_filter_conv2d_sparse_cost(1, ref, env.fp64()) -
                        inst::sparse_filter_conv2d_sparse_cost(0, ref, env.fp64())) /
                       ref_npq;
  const double m_now = inst::sparse_filter_conv2d_sparse_cost(0, ref, env.fp64()) /
                       ((ref_crs + 3.0 * ref.k) * ref_npq);
  const SpconvFit fit = fit_spconv(points);
  int right_now = 0, right_fit = 0;
  double lost_now = 0, lost_fit = 0;
  json per_point = json::array();
  for (const SpconvPoint& p : points) {
    const bool sparse_faster = p.sparse_ms < p.dense_ms;
    const bool fit_sparse =
        std::isfinite(fit.spmm) && spconv_picks_sparse(p.sh, p.nnz, fit.spmm, fit.move);
    const double gap = std::abs(p.sparse_ms - p.dense_ms);
    if (p.current_picks_sparse == sparse_faster)
      ++right_now;
    else
      lost_now += gap;
    if (fit_sparse == sparse_faster)
      ++right_fit;
    else
      lost_fit += gap;
    per_point.push_back({{"name", p.name},
                         {"ratio_sparse_dense", p.sparse_ms / p.dense_ms},
                         {"current_picks", p.current_picks_sparse ? "sparse" : "dense"},
                         {"fitted_picks", fit_sparse ? "sparse" : "dense"},
                         {"faster", sparse_faster ? "sparse" : "dense"}});
  }
  json break_even = json::object();
  for (const ConvCase& cs : kSpconvCases) {
    const kernels::cpu::ConvShape sh = conv_shape_of(cs);
    break_even[std::string(cs.name) + ".b" + std::to_string(cs.n)] = {
        {"current", number_or_null(spconv_break_even(sh, s_now, m_now))},
        {"fitted", number_or_null(spconv_break_even(sh, fit.spmm, fit.move))}};
  }
  const double n = static_cast<double>(points.size());
  json f = {{"k_spmm_cost_fitted", number_or_null(fit.spmm)},
            {"k_move_cost_fitted", number_or_null(fit.move)},
            {"k_spmm_cost_current", s_now},
            {"k_move_cost_current", m_now},
            {"points", points.size()},
            {"right_current", right_now},
            {"right_fitted", right_fit},
            {"accuracy_current", number_or_null(right_now / n)},
            {"accuracy_fitted", number_or_null(right_fit / n)},
            {"ms_lost_current", lost_now},
            {"ms_lost_fitted", lost_fit},
            {"fit_rms_rel_err", number_or_null(fit.rms_rel)},
            {"break_even_density", break_even},
            {"method",
             "least squares of relative residuals of t_sparse/t_dense against the model's terms, "
             "constants >= 0 (dmlrt_bench.cpp, Note [Fitting the sparse-filter cost model])"}};
  r.extra = f;
  r.extra["decisions"] = per_point;
  std::ostringstream note;
  note << std::setprecision(3) << "kSpmmCost " << s_now << " -> " << fit.spmm << ", kMoveCost "
       << m_now << " -> " << fit.move << "; model right " << right_now << "/" << points.size()
       << " now, " << right_fit << "/" << points.size() << " fitted";
  r.extra["note"] = note.str();
  if (points.empty()) r.extra["dmlrt_error"] = "no point measured on both paths: nothing to fit";
  b.results.set_meta(std::string("spconv_fit_") + env.dtype_name(), f);
  b.results.add(std::move(r));
}

// Brings the clocks up (METHOD.md: measure a warm card) with ~0.3 s of GEMMs on the bench's handle.
void warm_up_clocks(Env& env) {
  const int64_t n = 4096;
  mem::DeviceAllocation a = env.gpu().scratch(n * n * env.elem(), "bench warm-up", true);
  mem::DeviceAllocation c = env.gpu().scratch(n * n * env.elem(), "bench warm-up");
  const Clock::time_point t = Clock::now();
  while (seconds_since(t) < 0.3) {
    for (int i = 0; i < 10; ++i) gemm_row_major(env, n, n, n, a.data(), a.data(), c.data());
    env.sync();
  }
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions o;
  try {
    o = parse_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dmlrt_bench: " << e.what() << "\n" << kUsage;
    return 2;
  }
  json meta = {{"tool", "dmlrt_bench"}, {"started", now_utc()}, {"device", gpu::device_summary()}};
  Results results(o.out, meta);
  if (gpu::usable_device_count() == 0) {
    const std::string why = gpu::device_summary();
    std::cerr << "dmlrt_bench: " << why << "; nothing measured\n";
    results.set_meta("error", why);
    return 77;
  }
  results.set_meta("cudnn_version", static_cast<int64_t>(cudnnGetVersion()));
  int cublas_version = 0;
  if (cublasGetProperty(MAJOR_VERSION, &cublas_version) == CUBLAS_STATUS_SUCCESS) {
    int minor = 0, patch = 0;
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    results.set_meta("cublas_version", std::to_string(cublas_version) + "." +
                                           std::to_string(minor) + "." + std::to_string(patch));
  }
  results.set_meta("options", {{"reps", o.reps},
                               {"warmup", o.warmup},
                               {"target_ms", o.target_ms},
                               {"budget_s", o.budget_s}});
  Bench b{o, results};
  // Cheap sections first, for every precision; then the convolutions, each precision with an
  // equal share of the time left, so a slow FP64 pass cannot starve FP32; then the sparse-filter
  // convolutions, likewise within at most kSpconvBudgetS. Each (section, precision) gets a fresh
  // session, as a run of dmlrt would.
  using Section = void (*)(Bench&, Env&, Timer&);
  const std::vector<std::pair<std::string, Section>> sections = {{"gemm", bench_gemm},
                                                                 {"cell", bench_cell},
                                                                 {"overhead", nullptr},
                                                                 {"conv", bench_conv},
                                                                 {"spconv", bench_spconv}};
  double spconv_end_s = 0;  // since t0: where the sparse-filter section's time ends
  for (const auto& [name, fn] : sections) {
    if (o.sections.count(name) == 0) continue;
    for (size_t d = 0; d < o.dtypes.size(); ++d) {
      const mem::DType dt = o.dtypes[d];
      const char* dname = dt == mem::DType::kFloat64 ? "fp64" : "fp32";
      const double now = seconds_since(b.t0);
      const double shares = static_cast<double>(o.dtypes.size() - d);
      // conv leaves spconv its time when both run in this process.
      const double conv_end_s = o.budget_s - (o.sections.count("spconv") ? kSpconvBudgetS : 0.0);
      if (name == "spconv" && d == 0) spconv_end_s = std::min(o.budget_s, now + kSpconvBudgetS);
      b.section_deadline_s = name == "conv"     ? now + (conv_end_s - now) / shares
                             : name == "spconv" ? now + (spconv_end_s - now) / shares
                                                : std::numeric_limits<double>::infinity();
      std::cerr << "[bench] == " << name << " " << dname << " (t=" << std::fixed
                << std::setprecision(1) << now << " s) ==" << std::defaultfloat
                << std::setprecision(6) << std::endl;
      try {
        Env env(dt);
        Timer timer(env.stream(), o);
        warm_up_clocks(env);
        if (fn != nullptr)
          fn(b, env, timer);
        else
          bench_overhead_loop(b, env);
      } catch (const std::exception& e) {
        Record r{name, "section", dname};
        r.extra["dmlrt_error"] = std::string("section failed: ") + e.what();
        results.add(std::move(r));
      }
      // After the bench's session is gone: the same loop through the public API.
      if (fn == nullptr) {
        bench_overhead_api(b, dt, /*graphs=*/false);
        bench_overhead_api(b, dt, /*graphs=*/true);
      }
    }
  }
  results.set_meta("finished", now_utc());
  results.set_meta("seconds", seconds_since(b.t0));
  std::cout << "\n== dmlrt_bench (" << gpu::device_summary() << ") ==\n";
  results.print_table(std::cout);
  return 0;
}
