// Shared helpers of the differential GPU instruction tests: a CPU-backend environment to compare
// against, instruction-line builders ("OUT" placeholders, INT64 literals), the CPU-vs-GPU check
// of one instruction, identical-error checks and float-rounded random inputs per format.
#pragma once

#include <catch2/catch.hpp>

#include <exception>
#include <functional>
#include <string>
#include <utility>

#include "gpu_env.h"

namespace dmlrt::test::gpu {

// The CPU backend in the same process: the reference every GPU result is compared against.
struct CpuEnv {
  NoServices services;
  inst::ExecutionContext ec{services, inst::RunOptions{}};
  void bind(const std::string& name, MatrixBlock b) { ec.set_matrix(name, std::move(b)); }
  void run(const std::string& raw) {
    inst::make_instruction(inst::InstructionText::parse(raw))->execute(ec);
  }
  MatrixBlock host(const std::string& name) { return *ec.matrix(name); }
};

// An INT64 scalar literal operand.
inline std::string lit(int64_t v) { return std::to_string(v) + "·SCALAR·INT64·true"; }

// `fields` with its "OUT" placeholder replaced by `out`.
inline std::string with_out(std::string fields, const std::string& out) {
  const size_t p = fields.find("OUT");
  return fields.replace(p, 3, out);
}

// Runs opcode with `fields` ("OUT" marks the output) on the CPU into R and on the GPU into G,
// checks that G ran on the GPU (and, when expect_sparse is 0/1, its device format) and matches R.
inline void check_vs_cpu(GpuEnv& env, mem::DType dt, const std::string& opcode,
                         const std::string& fields, const std::string& label,
                         int expect_sparse = -1) {
  INFO(label << " " << prec_name(dt));
  try {
    env.run("CP°" + opcode + "°" + with_out(fields, "R·MATRIX·FP64"));
    const bool on_gpu = env.run("GPU°" + opcode + "°" + with_out(fields, "G·MATRIX·FP64"));
    CHECK(on_gpu);
    if (!on_gpu) return;
    if (expect_sparse >= 0) {
      const mem::DeviceMatrix* d = env.object("G")->device_copy();
      CHECK(d != nullptr);
      if (d != nullptr) {
        INFO("device result " << d->describe());
        CHECK(d->is_sparse() == (expect_sparse == 1));
      }
    }
    const auto cmp = test::compare(env.host("G"), env.host("R"), tol_of(dt), tol_of(dt));
    INFO(cmp.report << " max_abs_err=" << cmp.max_abs_err);
    CHECK(cmp.ok);
  } catch (const std::exception& e) {
    FAIL_CHECK("threw: " << e.what());
  }
}

// The message `f` throws, or `none` when it does not throw.
inline std::string error_of(const std::function<void()>& f, const std::string& none = "") {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return none;
}

// The message running `line` throws, or "<no error>".
inline std::string error_of(GpuEnv& env, const std::string& line) {
  return error_of([&] { env.run(line); }, "<no error>");
}

// opcode with `fields` ("OUT" marks the output, of type out_type) fails on the CPU, and on the
// GPU with the same message.
inline void check_same_error(GpuEnv& env, const std::string& opcode, const std::string& fields,
                             const char* out_type = "MATRIX") {
  const std::string o = std::string("·") + out_type + "·FP64";
  const std::string cpu = error_of(env, "CP°" + opcode + "°" + with_out(fields, "R" + o));
  const std::string gpu = error_of(env, "GPU°" + opcode + "°" + with_out(fields, "G" + o));
  INFO(opcode << " " << fields);
  CHECK(cpu != "<no error>");
  CHECK(gpu == cpu);
}

// An (r, c) input in [-2, 2] of format f; rounded through float for an FP32 device.
inline MatrixBlock input(int64_t r, int64_t c, const Format& f, uint64_t seed, mem::DType dt) {
  MatrixBlock a = test::random_block(r, c, f.sparsity, seed, -2, 2, f.sparse);
  return dt == mem::DType::kFloat32 ? rounded_f32(a) : a;
}

}  // namespace dmlrt::test::gpu
