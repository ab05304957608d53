// A GPU session plus an execution context bound to it, for device tests of GPU instructions and of
// the memory layer: bind host matrices, run instruction lines, read results back (D2H), and label
// each case with op, shapes, formats and precision.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/compare.h"
#include "gpu_context/error.h"
#include "instructions/execution_context.h"
#include "instructions/opcode_table.h"
#include "memory/gpu_session.h"

namespace dmlrt::test::gpu {

using kernels::MatrixBlock;

// Services for tests that never touch files or functions.
class NoServices final : public inst::Services {
 public:
  std::ostringstream output;
  MatrixBlock read_matrix(const inst::MatrixObject& mo) override {
    DMLRT_FAIL(IoError, "test: no file '" << mo.file_name() << "'");
  }
  void write_matrix(const MatrixBlock&, const inst::WriteRequest&) override {}
  void write_scalar(const inst::ScalarValue&, const std::string&) override {}
  inst::ScalarValue read_scalar(const std::string& p, inst::ValueType) override {
    DMLRT_FAIL(IoError, "test: no file '" << p << "'");
  }
  std::vector<inst::Value> call_function(const std::string& k, const std::vector<std::string>&,
                                         std::vector<inst::Value>) override {
    DMLRT_FAIL(RuntimeError, "test: no function " << k);
  }
  std::vector<std::string> function_outputs(const std::string&) override { return {}; }
  std::ostream& out() override { return output; }
};

struct GpuEnv {
  NoServices services;
  std::shared_ptr<mem::GpuSession> gpu;
  std::unique_ptr<inst::ExecutionContext> ec;

  explicit GpuEnv(mem::DType dtype = mem::DType::kFloat64, long long budget_bytes = -1,
                  mem::EvictionPolicy policy = mem::EvictionPolicy::kLru,
                  inst::GpuMode mode = inst::GpuMode::kOff)
      : GpuEnv(options(dtype, budget_bytes, policy), mode) {}
  // A session with any options (DNN budget, deterministic cuDNN, TF32, ...); sync_each_instruction
  // is forced on so that a faulting kernel is reported at its instruction.
  explicit GpuEnv(mem::GpuSessionOptions o, inst::GpuMode mode = inst::GpuMode::kOff) {
    o.sync_each_instruction = true;
    gpu = std::make_shared<mem::GpuSession>(o, 0);
    inst::RunOptions ro;
    ro.gpu = gpu;
    ro.gpu_mode = mode;
    ec = std::make_unique<inst::ExecutionContext>(services, ro);
  }
  static mem::GpuSessionOptions options(mem::DType dtype, long long budget_bytes = -1,
                                        mem::EvictionPolicy policy = mem::EvictionPolicy::kLru) {
    mem::GpuSessionOptions o;
    o.dtype = dtype;
    o.budget_bytes = budget_bytes;
    o.policy = policy;
    // Each test's planner starts fresh: plans another test (or run) persisted would skip the
    // timing the planner tests watch. The persistence test turns it back on in a folder of its own.
    o.persist_gemm_plans = false;
    return o;
  }
  ~GpuEnv() { ec.reset(); }  // matrix objects go before the session

  void bind(const std::string& name, MatrixBlock b) { ec->set_matrix(name, std::move(b)); }
  // Runs one instruction line; returns whether it ran on the GPU.
  bool run(const std::string& raw) {
    inst::InstructionPtr i = inst::make_instruction(inst::InstructionText::parse(raw));
    const inst::Ran ran = i->run(*ec);
    if (ran == inst::Ran::kParts)
      for (const auto& p : *i->parts()) p->execute(*ec);
    return ran == inst::Ran::kGpu;
  }
  // The host block of `name` (copies device results back).
  MatrixBlock host(const std::string& name) { return *ec->matrix(name); }
  std::shared_ptr<inst::MatrixObject> object(const std::string& name) {
    return ec->matrix_object(name);
  }
};

inline const char* prec_name(mem::DType t) { return t == mem::DType::kFloat64 ? "FP64" : "FP32"; }
inline double tol_of(mem::DType t) { return t == mem::DType::kFloat64 ? 1e-9 : 1e-4; }

// Input formats of the differential tests.
struct Format {
  const char* name;
  double sparsity;
  bool sparse;
};
inline const std::vector<Format>& formats() {
  static const std::vector<Format> f = {{"dense", 1.0, false},
                                        {"sparse0.1", 0.1, true},
                                        {"ultrasparse0.001", 0.001, true},
                                        {"empty", 0.0, true}};
  return f;
}

// The block with every value rounded through float (what an FP32 device holds).
inline MatrixBlock rounded_f32(const MatrixBlock& m) {
  MatrixBlock d = m.to_dense();
  std::vector<double> v = d.dense_values();
  for (double& x : v) x = static_cast<double>(static_cast<float>(x));
  MatrixBlock out = MatrixBlock::dense(m.rows(), m.cols(), std::move(v));
  if (m.is_sparse()) out = out.to_sparse();
  return out;
}

}  // namespace dmlrt::test::gpu
