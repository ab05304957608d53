// einsum: the GPU run (einsum_instruction.h). The operands are read dense on the device (a CSR
// copy through a dense temporary); one kernel computes every output cell in the CPU's summation
// order (Note [GPU einsum order] in kernels/cuda/einsum.cu). gpu_applicable has checked that the
// equation parses, fits the kernel's limits and gives the output's kind; the shapes are checked
// here by the CPU kernel's own einsum_layout, so a mismatch fails with the CPU's message.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "instructions/einsum_instruction.h"
#include "instructions/gpu_placement.h"
#include "kernels/cpu/einsum.h"
#include "kernels/cuda/einsum.h"
#include "memory/gpu_session.h"

namespace dmlrt::inst {

namespace kc = kernels::cuda;

void EinsumInstruction::run_gpu(ExecutionContext& ec, mem::GpuSession& gpu) {
  const kernels::cpu::EinsumSpec spec =
      kernels::cpu::parse_einsum(ec.scalar(eq_).to_string(), in_.size());
  std::vector<DeviceRead> reads;
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (const Operand& o : in_) {
    reads.push_back(gpu_read(ec, gpu, o));
    dims.emplace_back(reads.back()->rows(), reads.back()->cols());
  }
  const kernels::cpu::EinsumLayout lay = kernels::cpu::einsum_layout(spec, dims);
  auto letter = [&](char c) { return static_cast<int>(lay.letters.find(c)); };
  kc::EinsumParams p;
  p.operands = static_cast<int>(in_.size());
  for (size_t k = 0; k < in_.size(); ++k) {
    const std::string& t = spec.terms[k];
    if (t.size() == 2) {  // (rows, cols) row-major; a repeated letter adds both strides
      p.stride[k][letter(t[0])] += dims[k].second;
      p.stride[k][letter(t[1])] += 1;
    } else {  // a vector's cells are contiguous either way
      p.stride[k][letter(t[0])] += 1;
    }
  }
  if (!spec.out.empty()) p.row_letter = letter(spec.out[0]);
  if (spec.out.size() == 2) p.col_letter = letter(spec.out[1]);
  p.rows = lay.rows;
  p.cols = lay.cols;
  for (int l = 0; l < static_cast<int>(lay.letters.size()); ++l) {
    if (spec.out.find(lay.letters[l]) != std::string::npos) continue;
    p.sum_letter[p.sum_letters] = l;
    p.sum_range[p.sum_letters] = lay.range[l];
    ++p.sum_letters;
  }
  // A (0, n) or (n, 0) operand has no cells to read: its range 0 empties the output or the sum.
  const bool any_empty =
      std::any_of(lay.range.begin(), lay.range.end(), [](int64_t r) { return r == 0; });
  std::vector<const mem::DeviceMatrix*> data;
  for (DeviceRead& r : reads) data.push_back(any_empty ? nullptr : &r.dense(gpu));
  mem::DeviceMatrix out = mem::DeviceMatrix::dense(gpu.memory(), lay.rows, lay.cols, gpu.dtype(),
                                                   gpu.stream(), "gpu_einsum output");
  mem::with_dtype(gpu.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* in[kc::kEinsumMaxOperands] = {};
    for (size_t k = 0; k < data.size(); ++k) in[k] = data[k] ? data[k]->values_as<T>() : nullptr;
    kc::launch_einsum(p, in, out.values_as<T>(), gpu.stream());
  });
  if (out_.is_scalar())
    ec.set_scalar(out_, ScalarValue::fp64(gpu.read_element(out, 0, 0)));
  else
    set_gpu_output(ec, gpu, out_.name, std::move(out));
}

}  // namespace dmlrt::inst
