// Append instructions: the 2-input `append` (M°M°offset°out°true=cbind|false=rbind) and the n-ary
// `cbind` / `rbind` (M°M°...°out), SystemDS layouts (reference/systemds-format.md §3). Inputs must
// be matrices (DML rejects scalars in cbind/rbind); shapes are checked exactly as SystemDS's
// runtime does, so an empty input needs the matching row (cbind) or column (rbind) count. On the
// GPU the result is assembled with block copies (kernels/cuda/indexing), or, for an rbind of CSR
// inputs, by concatenating them into a CSR (kernels/cuda/csr_ops): exact, and never densified.
#include <vector>

#include "gpu_context/error.h"
#include "instructions/families.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/append.h"

#ifdef DMLRT_WITH_CUDA
#include "kernels/cuda/csr_ops.h"
#include "kernels/cuda/indexing.h"
#include "memory/gpu_session.h"
#endif

namespace dmlrt::inst {
namespace {

class AppendInstruction final : public Instruction {
 public:
  explicit AppendInstruction(InstructionText t) : Instruction(std::move(t)) {
    if (opcode() == "append") {
      // The offset operand (the first input's column or row count) is informational.
      expect_fields(5);
      inputs_ = {operand(0), operand(1)};
      out_ = operand(3);
      const std::string& flag = field(4);
      if (flag == "true" || flag == "TRUE")
        cbind_ = true;
      else if (flag == "false" || flag == "FALSE")
        cbind_ = false;
      else
        DMLRT_FAIL(ParseError, where() << ": append expects true (cbind) or false (rbind) as its "
                                          "last field, got '"
                                       << flag << "'");
      name_ = cbind_ ? "append (cbind)" : "append (rbind)";
    } else {
      expect_fields(2, static_cast<size_t>(-1));
      cbind_ = opcode() == "cbind";
      for (size_t i = 0; i + 1 < num_fields(); ++i) inputs_.push_back(operand(i));
      out_ = operand(num_fields() - 1);
      name_ = opcode();
    }
    for (size_t i = 0; i < inputs_.size(); ++i)
      DMLRT_REQUIRE(inputs_[i].is_matrix(), ParseError,
                    where() << ": " << name_ << " input " << i + 1 << " (" << inputs_[i].to_string()
                            << ") is not a matrix; " << (cbind_ ? "cbind" : "rbind")
                            << " takes matrices");
    DMLRT_REQUIRE(out_.is_matrix(), ParseError,
                  where() << ": " << name_ << " expects a matrix output, got " << out_.to_string());
  }

  bool has_gpu_impl() const override { return true; }

  void execute(ExecutionContext& ec) override {
#ifdef DMLRT_WITH_CUDA
    if (ec.options().gpu)
      if (mem::GpuSession* gpu = ec.gpu_for(*this, operand_bytes(ec))) return execute_gpu(ec, *gpu);
#endif
    std::vector<std::shared_ptr<const kernels::MatrixBlock>> held;
    std::vector<const kernels::MatrixBlock*> blocks;
    for (const auto& op : inputs_) {
      held.push_back(ec.matrix(op));
      blocks.push_back(held.back().get());
    }
    for (size_t i = 1; i < blocks.size(); ++i) {
      const bool ok =
          cbind_ ? blocks[i]->rows() == blocks[0]->rows() : blocks[i]->cols() == blocks[0]->cols();
      DMLRT_REQUIRE(ok, ShapeError,
                    name_ << ": " << (cbind_ ? "row" : "column") << " counts differ: input 1 is "
                          << shape_of(*blocks[0]) << ", input " << i + 1 << " is "
                          << shape_of(*blocks[i]));
    }
    ec.set_matrix(out_.name, cbind_ ? kernels::cpu::cbind(blocks) : kernels::cpu::rbind(blocks));
  }

 private:
  // Device bytes of the inputs and the output (their total) from the metadata; -1 when unknown.
  int64_t operand_bytes(ExecutionContext& ec) const {
    int64_t total = 0;
    for (const auto& op : inputs_) {
      const MatrixMeta& m = ec.matrix_object(op.name)->meta();
      const int64_t b = dense_device_bytes(ec.options().gpu.get(), m.rows, m.cols);
      if (b < 0) return -1;
      total += 2 * b;
    }
    return total;
  }

#ifdef DMLRT_WITH_CUDA
  void execute_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
    std::vector<DeviceRead> xs;
    xs.reserve(inputs_.size());
    for (const auto& op : inputs_) xs.push_back(gpu_read(ec, gpu, op));
    for (size_t i = 1; i < xs.size(); ++i) {
      const bool ok = cbind_ ? xs[i]->rows() == xs[0]->rows() : xs[i]->cols() == xs[0]->cols();
      DMLRT_REQUIRE(ok, ShapeError,
                    name_ << ": " << (cbind_ ? "row" : "column") << " counts differ: input 1 is "
                          << kernels::dims_string(xs[0]->rows(), xs[0]->cols()) << ", input "
                          << i + 1 << " is " << kernels::dims_string(xs[i]->rows(), xs[i]->cols()));
    }
    int64_t rows = cbind_ ? xs[0]->rows() : 0, cols = cbind_ ? 0 : xs[0]->cols();
    int64_t nnz = 0;
    bool all_empty = true, all_csr32 = true;
    for (const DeviceRead& x : xs) {
      if (cbind_)
        cols += x->cols();
      else
        rows += x->rows();
      const bool empty = x->is_empty_sparse() || x->size() == 0;
      all_empty = all_empty && empty;
      all_csr32 =
          all_csr32 && (empty || (x->is_sparse() && x->index_width() == mem::IndexWidth::k32));
      if (!empty) nnz += x->nnz();
    }
    const std::string what = "gpu_" + opcode() + " output";
    if (all_empty) {
      set_gpu_output(ec, gpu, out_.name,
                     mem::DeviceMatrix::csr(gpu.memory(), rows, cols, 0, gpu.dtype(),
                                            mem::IndexWidth::k32, gpu.stream(), what));
      return;
    }
    if (!cbind_ && all_csr32 &&
        mem::DeviceMatrix::width_for(rows, cols, nnz) == mem::IndexWidth::k32) {
      set_gpu_output(ec, gpu, out_.name, rbind_csr(gpu, xs, rows, cols, nnz, what));
      return;
    }
    // Dense: every input's block is copied to its place (the blocks tile the result); CSR inputs
    // are densified into temporaries, empty ones are zero fills.
    mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), rows, cols, gpu.dtype(),
                                                     gpu.stream(), what);  // (rows, cols)
    int64_t off = 0;
    for (DeviceRead& x : xs) {
      const int64_t r0 = cbind_ ? 0 : off, c0 = cbind_ ? off : 0;
      const int64_t xr = x->rows(), xc = x->cols();
      off += cbind_ ? xc : xr;
      if (xr == 0 || xc == 0) continue;
      const mem::DeviceMatrix* xd = x->is_empty_sparse() ? nullptr : &x.dense(gpu);
      with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if (xd == nullptr)
          kernels::cuda::launch_fill_block(out.values_as<T>(), cols, r0, r0 + xr, c0, c0 + xc, T(0),
                                           gpu.stream());
        else
          kernels::cuda::launch_copy_block(xd->values_as<T>(), xr, xc, out.values_as<T>(), cols, r0,
                                           c0, gpu.stream());
      });
    }
    set_gpu_output(ec, gpu, out_.name, std::move(out));
  }

  // rbind of int32 CSRs: offsets shifted by the preceding nnz, columns and values concatenated.
  static mem::DeviceMatrix rbind_csr(mem::GpuSession& gpu, const std::vector<DeviceRead>& xs,
                                     int64_t rows, int64_t cols, int64_t nnz,
                                     const std::string& what) {
    mem::DeviceMatrix out = mem::DeviceMatrix::csr(gpu.memory(), rows, cols, nnz, gpu.dtype(),
                                                   mem::IndexWidth::k32, gpu.stream(), what);
    if (nnz == 0) return out;
    int64_t row_off = 0, nnz_off = 0;
    for (const DeviceRead& x : xs) {
      // Empty inputs (an empty CSR, or a dense one without cells) contribute offsets only.
      const bool empty = x->is_empty_sparse() || x->size() == 0;
      const int64_t x_nnz = empty ? 0 : x->nnz();
      with_dtype(gpu.dtype(), [&](auto tag) {
        using T = decltype(tag);
        kernels::cuda::launch_csr_rbind_part(
            empty ? nullptr : static_cast<const int32_t*>(x->row_ptr()),
            empty ? nullptr : static_cast<const int32_t*>(x->col_idx()),
            empty ? nullptr : x->values_as<T>(), x->rows(), x_nnz, row_off, nnz_off,
            static_cast<int32_t*>(out.row_ptr()), static_cast<int32_t*>(out.col_idx()),
            out.values_as<T>(), gpu.stream());
      });
      row_off += x->rows();
      nnz_off += x_nnz;
    }
    return out;
  }
#endif

  std::vector<Operand> inputs_;
  Operand out_;
  bool cbind_ = true;
  std::string name_;
};

}  // namespace

InstructionPtr make_append(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "append" || op == "cbind" || op == "rbind")
    return std::make_unique<AppendInstruction>(std::move(text));
  DMLRT_FAIL(ParseError, "append: unknown opcode '" << op << "'");
}

}  // namespace dmlrt::inst
