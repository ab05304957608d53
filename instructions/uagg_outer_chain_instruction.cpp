// uaggouterchain: parsing, shape check and the CPU run (uagg_outer_chain_instruction.h).
#include "instructions/uagg_outer_chain_instruction.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "gpu_context/error.h"
#include "gpu_context/string_util.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {

namespace cpu = kernels::cpu;

namespace {

struct OuterAgg {
  cpu::OuterAggKind kind;
  cpu::OuterAggDir dir;
  cpu::AggOp agg;
};

// The aggregates SystemDS's UaggOuterChainCPInstruction takes: the sums it fuses, rowIndexMax /
// rowIndexMin, and the max / min its generic path also runs.
const std::map<std::string, OuterAgg>& aggregates() {
  using K = cpu::OuterAggKind;
  using D = cpu::OuterAggDir;
  using A = cpu::AggOp;
  static const std::map<std::string, OuterAgg> m = {
      {"uak+", {K::kAggregate, D::kAll, A::kSum}},   {"ua+", {K::kAggregate, D::kAll, A::kSum}},
      {"uark+", {K::kAggregate, D::kRow, A::kSum}},  {"uar+", {K::kAggregate, D::kRow, A::kSum}},
      {"uack+", {K::kAggregate, D::kCol, A::kSum}},  {"uac+", {K::kAggregate, D::kCol, A::kSum}},
      {"uamax", {K::kAggregate, D::kAll, A::kMax}},  {"uarmax", {K::kAggregate, D::kRow, A::kMax}},
      {"uacmax", {K::kAggregate, D::kCol, A::kMax}}, {"uamin", {K::kAggregate, D::kAll, A::kMin}},
      {"uarmin", {K::kAggregate, D::kRow, A::kMin}}, {"uacmin", {K::kAggregate, D::kCol, A::kMin}},
      {"uarimax", {K::kIndexMax, D::kRow, A::kMax}}, {"uarimin", {K::kIndexMin, D::kRow, A::kMin}},
  };
  return m;
}

}  // namespace

UaggOuterChainInstruction::UaggOuterChainInstruction(InstructionText t)
    : Instruction(std::move(t)) {
  expect_fields(5, 6);
  const auto it = aggregates().find(to_lower(field(0)));
  DMLRT_REQUIRE(it != aggregates().end(), ParseError,
                where() << ": uaggouterchain: unsupported aggregate '" << field(0)
                        << "' (expected a sum, max, min, rowIndexMax or rowIndexMin opcode)");
  kind_ = it->second.kind;
  dir_ = it->second.dir;
  agg_ = it->second.agg;
  DMLRT_REQUIRE(cpu::binary_op_from_opcode(field(1), &op_), ParseError,
                where() << ": uaggouterchain: unknown binary operator '" << field(1) << "'");
  x_ = operand(2);
  y_ = operand(3);
  out_ = operand(4);
  DMLRT_REQUIRE(x_.is_matrix() && y_.is_matrix() && out_.is_matrix(), ParseError,
                where() << ": uaggouterchain needs matrix operands and a matrix output");
}

void UaggOuterChainInstruction::check(Shapes& shapes) const {
  const Dims x = shapes.dims(x_), y = shapes.dims(y_);
  DMLRT_REQUIRE((x.cols < 0 || x.cols == 1) && (y.rows < 0 || y.rows == 1), ShapeError,
                "uaggouterchain: expects a column vector and a row vector, got "
                    << kernels::dims_string(x.rows, x.cols) << " and "
                    << kernels::dims_string(y.rows, y.cols));
}

// The two vectors, the output and one outer chunk (up to 16 Mi cells; uagg_outer_chain_gpu.cpp).
int64_t UaggOuterChainInstruction::device_bytes(ExecutionContext& ec) const {
  const mem::GpuSession* gpu = ec.options().gpu.get();
  const MatrixMeta& x = ec.matrix_object_ref(x_.name)->meta();
  const MatrixMeta& y = ec.matrix_object_ref(y_.name)->meta();
  if (x.rows < 0 || y.cols < 0) return -1;
  const int64_t out_rows = kind_ != kernels::cpu::OuterAggKind::kAggregate ||
                                   dir_ == kernels::cpu::OuterAggDir::kRow
                               ? x.rows
                               : 1;
  const int64_t out_cols = dir_ == kernels::cpu::OuterAggDir::kCol ? y.cols : 1;
  const int64_t chunk = std::min(x.rows * y.cols, int64_t{1} << 24);
  return dense_device_bytes(gpu, x.rows, 1) + dense_device_bytes(gpu, 1, y.cols) +
         dense_device_bytes(gpu, out_rows, out_cols) + dense_device_bytes(gpu, chunk, 1);
}

void UaggOuterChainInstruction::run_cpu(ExecutionContext& ec) {
  ec.set_matrix(out_.name,
                cpu::outer_aggregate(*ec.matrix(x_), *ec.matrix(y_), op_, kind_, dir_, agg_));
}

}  // namespace dmlrt::inst
