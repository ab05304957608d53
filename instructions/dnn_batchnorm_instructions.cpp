// The batch-norm sub-family of the DNN ops: parsing, shape rules and CPU runs
// (dnn_batchnorm_instructions.h).
#include "instructions/dnn_batchnorm_instructions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/dnn_batchnorm.h"

namespace dmlrt::inst {
namespace {

namespace cpu = kernels::cpu;

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

// The dims of the five matrix operands; false when one is unknown (every rule passes then).
bool dims_of(Shapes& shapes, const Operand (&in)[5], std::array<Dims, 5>& d) {
  for (size_t i = 0; i < 5; ++i) {
    d[i] = shapes.dims(in[i]);
    if (!d[i].known()) return false;
  }
  return true;
}

// The name an output field binds: a bare name (the CP multi-return layout) or a typed operand.
std::string output_name(const std::string& field) { return Operand::parse(field).name; }

bool iequals(const std::string& a, const char* b) {
  const std::string bs(b);
  return a.size() == bs.size() && std::equal(a.begin(), a.end(), bs.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

// ---- BatchNormForwardInstruction ----------------------------------------------------------------

BatchNormForwardInstruction::BatchNormForwardInstruction(InstructionText t)
    : Instruction(std::move(t)) {
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

void BatchNormForwardInstruction::check(Shapes& shapes) const {
  std::array<Dims, 5> d;
  if (!dims_of(shapes, in_, d)) return;
  check_shapes(opcode(), "X", d[0],
               {{"scale", d[1]}, {"bias", d[2]}, {"runMean", d[3]}, {"runVar", d[4]}});
}

BatchNormForwardInstruction::Params BatchNormForwardInstruction::params(
    ExecutionContext& ec) const {
  Params p;
  p.train = fixed_train_;
  if (!fixed_train_ && !fixed_test_) {
    const std::string mode = ec.scalar(mode_).to_string();
    p.train = iequals(mode, "train");
    DMLRT_REQUIRE(p.train || iequals(mode, "test"), RuntimeError,
                  opcode() << ": incorrect mode '" << mode << "': expected either train or test");
  }
  p.eps = ec.scalar(eps_).to_double();
  p.mu = fixed_test_ ? 0.0 : ec.scalar(mu_).to_double();
  return p;
}

void BatchNormForwardInstruction::run_cpu(ExecutionContext& ec) {
  const Params p = params(ec);
  std::array<std::shared_ptr<const kernels::MatrixBlock>, 5> in;
  for (size_t i = 0; i < 5; ++i) in[i] = ec.matrix(in_[i]);
  cpu::BatchNormForward r =
      p.train ? cpu::batch_norm2d_train(*in[0], *in[1], *in[2], *in[3], *in[4], p.eps, p.mu)
              : cpu::batch_norm2d_test(*in[0], *in[1], *in[2], *in[3], *in[4], p.eps);
  in = {};
  ec.set_matrix(outs_[0], std::move(r.out));
  if (outs_.size() == 1) return;
  ec.set_matrix(outs_[1], std::move(r.run_mean));
  ec.set_matrix(outs_[2], std::move(r.run_var));
  ec.set_matrix(outs_[3], std::move(r.save_mean));
  ec.set_matrix(outs_[4], std::move(r.save_inv_var));
}

// X and out dominate; the C x 1 operands are negligible (-1 when X's shape is unknown).
int64_t BatchNormForwardInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object_ref(in_[0].name)->meta();
  const int64_t x = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
  return x < 0 ? -1 : 2 * x;
}

// ---- BatchNormBackwardInstruction ---------------------------------------------------------------

BatchNormBackwardInstruction::BatchNormBackwardInstruction(InstructionText t)
    : Instruction(std::move(t)) {
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

void BatchNormBackwardInstruction::check(Shapes& shapes) const {
  std::array<Dims, 5> d;  // X, dout, scale, saveMean, saveInvVar
  if (!dims_of(shapes, in_, d)) return;
  DMLRT_REQUIRE(d[0].rows == d[1].rows && d[0].cols == d[1].cols, ShapeError,
                opcode() << ": dout is " << kernels::dims_string(d[1].rows, d[1].cols)
                         << ", expected the shape of X, "
                         << kernels::dims_string(d[0].rows, d[0].cols));
  check_shapes(opcode(), "X", d[0], {{"scale", d[2]}, {"saveMean", d[3]}, {"saveInvVar", d[4]}});
}

void BatchNormBackwardInstruction::run_cpu(ExecutionContext& ec) {
  ec.scalar(eps_).to_double();  // unused by the formula (as in SystemDS), but must be a number
  std::array<std::shared_ptr<const kernels::MatrixBlock>, 5> in;
  for (size_t i = 0; i < 5; ++i) in[i] = ec.matrix(in_[i]);
  cpu::BatchNormBackward r = cpu::batch_norm2d_backward(*in[0], *in[1], *in[2], *in[3], *in[4]);
  in = {};
  ec.set_matrix(outs_[0], std::move(r.dx));
  ec.set_matrix(outs_[1], std::move(r.dscale));
  ec.set_matrix(outs_[2], std::move(r.dbias));
}

// X, dout and dX dominate (-1 when X's shape is unknown).
int64_t BatchNormBackwardInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& m = ec.matrix_object_ref(in_[0].name)->meta();
  const int64_t x = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
  return x < 0 ? -1 : 3 * x;
}

}  // namespace dmlrt::inst
