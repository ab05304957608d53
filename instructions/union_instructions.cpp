// union_distinct: parsing, shape rule and CPU run (union_instructions.h).
#include "instructions/union_instructions.h"

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

// Java's Double.doubleToLongBits: the bits, with every NaN as the one canonical NaN.
uint64_t java_bits(double v) {
  if (std::isnan(v)) return 0x7ff8000000000000ULL;
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

}  // namespace

UnionDistinctInstruction::UnionDistinctInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 4);
  a_ = operand(0);
  b_ = operand(1);
  out_ = operand(2);
  DMLRT_REQUIRE(a_.is_matrix() && b_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": union_distinct needs matrix inputs and output");
}

void UnionDistinctInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(a_), b = shapes.dims(b_);
  DMLRT_REQUIRE(a.cols < 0 || b.cols < 0 || a.cols == b.cols, ShapeError,
                "union_distinct: inputs need the same number of columns, got "
                    << kernels::dims_string(a.rows, a.cols) << " and "
                    << kernels::dims_string(b.rows, b.cols));
}

// A and B, and an output of at most their rows.
int64_t UnionDistinctInstruction::device_bytes(ExecutionContext& ec) const {
  const MatrixMeta& a = ec.matrix_object(a_.name)->meta();
  const MatrixMeta& b = ec.matrix_object(b_.name)->meta();
  const int64_t da = dense_device_bytes(ec.options().gpu.get(), a.rows, a.cols);
  const int64_t db = dense_device_bytes(ec.options().gpu.get(), b.rows, b.cols);
  return da < 0 || db < 0 ? -1 : 2 * (da + db);
}

void UnionDistinctInstruction::run_cpu(ExecutionContext& ec) {
  const auto a = ec.matrix(a_);
  const auto b = ec.matrix(b_);
  const int64_t n = a->cols();
  std::set<std::vector<uint64_t>> seen;
  std::vector<double> out;  // (kept rows, n) row-major
  std::vector<uint64_t> key(static_cast<size_t>(n));
  for (const kernels::MatrixBlock* m : {a.get(), b.get()}) {
    for (int64_t i = 0; i < m->rows(); ++i) {
      for (int64_t j = 0; j < n; ++j) key[j] = java_bits(m->get(i, j));
      if (!seen.insert(key).second) continue;
      for (int64_t j = 0; j < n; ++j) out.push_back(m->get(i, j));
    }
  }
  const auto rows = static_cast<int64_t>(seen.size());
  ec.set_matrix(out_.name, kernels::MatrixBlock::dense(rows, n, std::move(out)));
}

}  // namespace dmlrt::inst
