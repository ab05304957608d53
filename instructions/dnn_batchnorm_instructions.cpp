// The batch-norm sub-family of the DNN ops (layouts: reference/systemds-format.md §3 and
// systemds-gpu.md §2.6; outputs may be bare names or typed operands, a trailing k is optional):
//   batch_norm2d          X°scale°bias°runMean°runVar°mode°eps°mu°out°retRunMean°retRunVar°
//                         saveMean°saveInvVar[°k]   (mode "train" or "test", any case)
//   batch_norm2d_train    X°scale°bias°runMean°runVar°eps°mu°the same 5 outputs[°k]
//   batch_norm2d_test     X°scale°bias°runMean°runVar°eps°out[°k]
//   batch_norm2d_backward X°dout°scale°eps°saveMean°saveInvVar°dX°dScale°dBias[°k]
// X is N x (C*HW) and the per-channel operands are C x 1, C = rows of scale. Semantics: Note
// [Batch-norm semantics] (kernels/cpu/dnn_batchnorm.cpp); the GPU path runs custom kernels
// (Note [Batch norm without cuDNN] in kernels/cuda/dnn_batchnorm.cu). Shape and mode errors are
// raised before the work starts, with the same text on both backends.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/dnn_families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/dnn_batchnorm.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/dnn_batchnorm.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

struct Dims {
  int64_t rows = 0, cols = 0;
};

// Checks the image-batch operand (N x C*HW) and the C x 1 operands; C is the row count of the
// first per-channel operand (scale). `names` name the per-channel operands in messages.
void check_shapes(const std::string& op, const char* image_name, Dims x,
                  const std::vector<std::pair<const char*, Dims>>& per_channel) {
  const auto& [scale_name, s] = per_channel.front();
  DMLRT_REQUIRE(s.cols == 1 && s.rows > 0 && x.cols % s.rows == 0, ShapeError,
                op << ": " << scale_name << " must be C x 1 with C > 0 dividing the columns of "
                   << image_name << " (N x C*HW): " << image_name << " is "
                   << kernels::dims_string(x.rows, x.cols) << ", " << scale_name << " is "
                   << kernels::dims_string(s.rows, s.cols));
  for (size_t i = 1; i < per_channel.size(); ++i) {
    const auto& [name, d] = per_channel[i];
    DMLRT_REQUIRE(d.rows == s.rows && d.cols == 1, ShapeError,
                  op << ": " << name << " is " << kernels::dims_string(d.rows, d.cols)
                     << ", expected C x 1 = " << kernels::dims_string(s.rows, 1) << " (C from "
                     << scale_name << ", " << kernels::dims_string(s.rows, s.cols) << "; "
                     << image_name << " is " << kernels::dims_string(x.rows, x.cols) << ")");
  }
}

Dims dims_of(const kernels::MatrixBlock& b) { return {b.rows(), b.cols()}; }

// The name an output field binds: a bare name (the CP multi-return layout) or a typed operand.
std::string output_name(const std::string& field) { return Operand::parse(field).name; }

bool iequals(const std::string& a, const char* b) {
  const std::string bs(b);
  return a.size() == bs.size() && std::equal(a.begin(), a.end(), bs.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// batch_norm2d, batch_norm2d_train, batch_norm2d_test.
class BatchNormForwardInstruction final : public Instruction {
 public:
  explicit BatchNormForwardInstruction(InstructionText t) : Instruction(std::move(t)) {
    // Fields after the five inputs: [mode°]eps[°mu]°outputs.
    const bool generic = opcode() == "batch_norm2d";
    const bool test_only = opcode() == "batch_norm2d_test";
    const size_t n_out = test_only ? 1 : 5;
    const size_t n_scalars = generic ? 3 : (test_only ? 1 : 2);
    const size_t n = 5 + n_scalars + n_out;
    expect_fields(n, n + 1);
    static const char* const kInputNames[5] = {"X", "scale", "bias", "runMean", "runVar"};
    for (size_t i = 0; i < 5; ++i) {
      in_[i] = operand(i);
      DMLRT_REQUIRE(in_[i].is_matrix(), ParseError,
                    where() << ": " << opcode() << " expects a matrix " << kInputNames[i]
                            << " as operand " << i + 1 << ", got " << in_[i].to_string());
    }
    size_t at = 5;
    if (generic) mode_ = operand(at++);
    eps_ = operand(at++);
    if (!test_only) mu_ = operand(at++);
    for (const Operand* s : {generic ? &mode_ : nullptr, &eps_, test_only ? nullptr : &mu_})
      DMLRT_REQUIRE(s == nullptr || s->is_scalar(), ParseError,
                    where() << ": " << opcode() << " expects scalar mode, eps and mu operands, got "
                            << s->to_string());
    for (size_t i = 0; i < n_out; ++i) outs_.push_back(output_name(field(at + i)));
    fixed_train_ = opcode() == "batch_norm2d_train";
    fixed_test_ = test_only;
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
    bool train = fixed_train_;
    if (!fixed_train_ && !fixed_test_) {
      const std::string mode = ec.scalar(mode_).to_string();
      train = iequals(mode, "train");
      DMLRT_REQUIRE(train || iequals(mode, "test"), RuntimeError,
                    opcode() << ": incorrect mode '" << mode << "': expected either train or test");
    }
    const double eps = ec.scalar(eps_).to_double();
    const double mu = fixed_test_ ? 0.0 : ec.scalar(mu_).to_double();
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec)))
        return execute_gpu(ec, *gpu, train, eps, mu);
#endif
    std::array<std::shared_ptr<const kernels::MatrixBlock>, 5> in;
    for (size_t i = 0; i < 5; ++i) in[i] = ec.matrix(in_[i]);
    check(dims_of(*in[0]), dims_of(*in[1]), dims_of(*in[2]), dims_of(*in[3]), dims_of(*in[4]));
    cpu::BatchNormForward r =
        train ? cpu::batch_norm2d_train(*in[0], *in[1], *in[2], *in[3], *in[4], eps, mu)
              : cpu::batch_norm2d_test(*in[0], *in[1], *in[2], *in[3], *in[4], eps);
    in = {};
    ec.set_matrix(outs_[0], std::move(r.out));
    if (outs_.size() == 1) return;
    ec.set_matrix(outs_[1], std::move(r.run_mean));
    ec.set_matrix(outs_[2], std::move(r.run_var));
    ec.set_matrix(outs_[3], std::move(r.save_mean));
    ec.set_matrix(outs_[4], std::move(r.save_inv_var));
  }

 private:
  void check(Dims x, Dims scale, Dims bias, Dims run_mean, Dims run_var) const {
    check_shapes(opcode(), "X", x,
                 {{"scale", scale}, {"bias", bias}, {"runMean", run_mean}, {"runVar", run_var}});
  }

  // X and out dominate; the C x 1 operands are negligible (-1 when X's shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& m = ec.matrix_object(in_[0].name)->meta();
    const int64_t x = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
    return x < 0 ? -1 : 2 * x;
  }

#ifdef DMLRT_WITH_CUDA
  // Sparse inputs are read through dense temporaries; every output is dense. The results are
  // bound after the inputs are released (an output may rebind an input's name).
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu, bool train, double eps, double mu) {
    std::vector<mem::DeviceMatrix> res;
    {
      std::array<DeviceRead, 5> in;
      for (size_t i = 0; i < 5; ++i) in[i] = gpu_read(ec, gpu, in_[i]);
      auto dims = [&](size_t i) { return Dims{in[i]->rows(), in[i]->cols()}; };
      check(dims(0), dims(1), dims(2), dims(3), dims(4));
      const int64_t n = in[0]->rows(), c = in[1]->rows(), hw = in[0]->cols() / c;
      std::array<const mem::DeviceMatrix*, 5> d;
      for (size_t i = 0; i < 5; ++i) d[i] = &in[i].dense(gpu);
      const std::string what = "gpu_" + opcode() + " output";
      res.push_back(
          mem::DeviceMatrix::dense(gpu.memory(), n, c * hw, gpu.dtype(), gpu.stream(), what));
      for (size_t i = 1; i < outs_.size(); ++i)
        res.push_back(
            mem::DeviceMatrix::dense(gpu.memory(), c, 1, gpu.dtype(), gpu.stream(), what));
      mem::DeviceAllocation ws = gpu.scratch(kernels::cuda::batch_norm_workspace_bytes(n, c, hw),
                                             "gpu_" + opcode() + " workspace");
      with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        auto out = [&](size_t i) { return i < res.size() ? res[i].values_as<T>() : nullptr; };
        if (train)
          kernels::cuda::launch_batch_norm_train(
              d[0]->values_as<T>(), d[1]->values_as<T>(), d[2]->values_as<T>(),
              d[3]->values_as<T>(), d[4]->values_as<T>(), out(0), out(1), out(2), out(3), out(4), n,
              c, hw, eps, mu, ws.data(), gpu.stream());
        else
          kernels::cuda::launch_batch_norm_test(
              d[0]->values_as<T>(), d[1]->values_as<T>(), d[2]->values_as<T>(),
              d[3]->values_as<T>(), d[4]->values_as<T>(), out(0), out(1), out(2), out(3), out(4), n,
              c, hw, eps, ws.data(), gpu.stream());
      });
    }
    for (size_t i = 0; i < outs_.size(); ++i) set_gpu_output(ec, gpu, outs_[i], std::move(res[i]));
  }
#endif

  Operand in_[5];
  Operand mode_, eps_, mu_;
  std::vector<std::string> outs_;
  bool fixed_train_ = false, fixed_test_ = false;
};

// batch_norm2d_backward X°dout°scale°eps°saveMean°saveInvVar°dX°dScale°dBias[°k]
class BatchNormBackwardInstruction final : public Instruction {
 public:
  explicit BatchNormBackwardInstruction(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(9, 10);
    static const char* const kNames[6] = {"X", "dout", "scale", "eps", "saveMean", "saveInvVar"};
    for (size_t i = 0; i < 6; ++i) {
      const Operand o = operand(i);
      DMLRT_REQUIRE(i == 3 ? o.is_scalar() : o.is_matrix(), ParseError,
                    where() << ": " << opcode() << " expects a " << (i == 3 ? "scalar" : "matrix")
                            << " " << kNames[i] << " as operand " << i + 1 << ", got "
                            << o.to_string());
      if (i == 3)
        eps_ = o;
      else
        in_[i < 3 ? i : i - 1] = o;
    }
    for (size_t i = 0; i < 3; ++i) outs_[i] = output_name(field(6 + i));
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
    ec.scalar(eps_).to_double();  // unused by the formula (as in SystemDS), but must be a number
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
#endif
    std::array<std::shared_ptr<const kernels::MatrixBlock>, 5> in;
    for (size_t i = 0; i < 5; ++i) in[i] = ec.matrix(in_[i]);
    check(dims_of(*in[0]), dims_of(*in[1]), dims_of(*in[2]), dims_of(*in[3]), dims_of(*in[4]));
    cpu::BatchNormBackward r = cpu::batch_norm2d_backward(*in[0], *in[1], *in[2], *in[3], *in[4]);
    in = {};
    ec.set_matrix(outs_[0], std::move(r.dx));
    ec.set_matrix(outs_[1], std::move(r.dscale));
    ec.set_matrix(outs_[2], std::move(r.dbias));
  }

 private:
  // in_ = X, dout, scale, saveMean, saveInvVar.
  void check(Dims x, Dims dout, Dims scale, Dims mean, Dims inv_var) const {
    DMLRT_REQUIRE(x.rows == dout.rows && x.cols == dout.cols, ShapeError,
                  opcode() << ": dout is " << kernels::dims_string(dout.rows, dout.cols)
                           << ", expected the shape of X, "
                           << kernels::dims_string(x.rows, x.cols));
    check_shapes(opcode(), "X", x, {{"scale", scale}, {"saveMean", mean}, {"saveInvVar", inv_var}});
  }

  // X, dout and dX dominate (-1 when X's shape is unknown).
  int64_t operand_bytes(ExecutionContext& ec) const {
    const MatrixMeta& m = ec.matrix_object(in_[0].name)->meta();
    const int64_t x = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
    return x < 0 ? -1 : 3 * x;
  }

#ifdef DMLRT_WITH_CUDA
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    std::vector<mem::DeviceMatrix> res;
    {
      std::array<DeviceRead, 5> in;
      for (size_t i = 0; i < 5; ++i) in[i] = gpu_read(ec, gpu, in_[i]);
      auto dims = [&](size_t i) { return Dims{in[i]->rows(), in[i]->cols()}; };
      check(dims(0), dims(1), dims(2), dims(3), dims(4));
      const int64_t n = in[0]->rows(), c = in[2]->rows(), hw = in[0]->cols() / c;
      std::array<const mem::DeviceMatrix*, 5> d;
      for (size_t i = 0; i < 5; ++i) d[i] = &in[i].dense(gpu);
      const std::string what = "gpu_" + opcode() + " output";
      res.push_back(
          mem::DeviceMatrix::dense(gpu.memory(), n, c * hw, gpu.dtype(), gpu.stream(), what));
      for (int i = 0; i < 2; ++i)
        res.push_back(
            mem::DeviceMatrix::dense(gpu.memory(), c, 1, gpu.dtype(), gpu.stream(), what));
      mem::DeviceAllocation ws = gpu.scratch(kernels::cuda::batch_norm_workspace_bytes(n, c, hw),
                                             "gpu_" + opcode() + " workspace");
      with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cuda::launch_batch_norm_backward(
            d[0]->values_as<T>(), d[1]->values_as<T>(), d[2]->values_as<T>(), d[3]->values_as<T>(),
            d[4]->values_as<T>(), res[0].values_as<T>(), res[1].values_as<T>(),
            res[2].values_as<T>(), n, c, hw, ws.data(), gpu.stream());
      });
    }
    for (size_t i = 0; i < 3; ++i) set_gpu_output(ec, gpu, outs_[i], std::move(res[i]));
  }
#endif

  Operand in_[5];
  Operand eps_;
  std::string outs_[3];
};

}  // namespace

InstructionPtr make_dnn_batchnorm(InstructionText text) {
  if (text.opcode == "batch_norm2d_backward")
    return std::make_unique<BatchNormBackwardInstruction>(std::move(text));
  return std::make_unique<BatchNormForwardInstruction>(std::move(text));
}

}  // namespace dmlrt::inst
