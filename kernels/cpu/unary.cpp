// Cell-wise unary functions, log with a base, cumulative column scans and softmax on the host.
#include "kernels/cpu/unary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/csr_map.h"
#include "kernels/cpu/java_math.h"
#include "kernels/cpu/parallel.h"

namespace dmlrt::kernels::cpu {
namespace {

struct OpName {
  const char* opcode;
  UnaryOp op;
};

constexpr OpName kOps[] = {
#define DMLRT_UNARY_NAME(name, opcode, sparse_safe) {opcode, UnaryOp::name},
    DMLRT_UNARY_OPS(DMLRT_UNARY_NAME)
#undef DMLRT_UNARY_NAME
};

// (rows, cols) row-major copy of any block, for ops that read every cell.
std::vector<double> dense_copy(const MatrixBlock& b) {
  if (!b.is_sparse()) return b.dense_values();
  return b.to_dense().dense_values();
}

}  // namespace

bool unary_op_from_opcode(const std::string& opcode, UnaryOp* op) {
  for (const auto& e : kOps) {
    if (opcode == e.opcode) {
      *op = e.op;
      return true;
    }
  }
  return false;
}

const char* opcode_of(UnaryOp op) {
  for (const auto& e : kOps)
    if (e.op == op) return e.opcode;
  return "?";
}

bool is_sparse_safe(UnaryOp op) {
  switch (op) {
#define DMLRT_UNARY_SAFE(name, opcode, sparse_safe) \
  case UnaryOp::name:                               \
    return sparse_safe;
    DMLRT_UNARY_OPS(DMLRT_UNARY_SAFE)
#undef DMLRT_UNARY_SAFE
  }
  return false;
}

double apply_unary(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::kExp: return std::exp(x);
    case UnaryOp::kLog: return std::log(x);
    case UnaryOp::kAbs: return std::fabs(x);
    case UnaryOp::kSqrt: return std::sqrt(x);
    case UnaryOp::kRound: return java_round(x);
    case UnaryOp::kFloor: return std::floor(x);
    case UnaryOp::kCeil: return std::ceil(x);
    case UnaryOp::kSin: return std::sin(x);
    case UnaryOp::kCos: return std::cos(x);
    case UnaryOp::kTan: return std::tan(x);
    case UnaryOp::kSinh: return std::sinh(x);
    case UnaryOp::kCosh: return std::cosh(x);
    case UnaryOp::kTanh: return std::tanh(x);
    case UnaryOp::kAsin: return std::asin(x);
    case UnaryOp::kAcos: return std::acos(x);
    case UnaryOp::kAtan: return std::atan(x);
    case UnaryOp::kSign: return java_signum(x);
    case UnaryOp::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
    case UnaryOp::kNot: return x == 0.0 ? 1.0 : 0.0;  // NaN != 0, so !NaN is 0 as in Java
    case UnaryOp::kSquare: return x * x;
    case UnaryOp::kTimes2: return x + x;
    case UnaryOp::kIsNan: return std::isnan(x) ? 1.0 : 0.0;
    case UnaryOp::kIsInf: return std::isinf(x) ? 1.0 : 0.0;
    // SystemDS's is.na is its isNaN (Builtin ISNA): a matrix holds no other kind of NA.
    case UnaryOp::kIsNa:
      return std::isnan(x) ? 1.0 : 0.0;
    // SystemDS's optimizer fuses X * (1 - X) into sprop (Builtin SPROP, the sample proportion).
    case UnaryOp::kSprop: return x * (1.0 - x);
    // 0 * log(0) and log(0) are taken as 0 (SystemDS Builtin PLOGP / LOG_NZ), keeping sparsity
    case UnaryOp::kPlogp: return x == 0.0 ? 0.0 : x * std::log(x);
    case UnaryOp::kLogNz: return x == 0.0 ? 0.0 : std::log(x);
  }
  return x;
}

MatrixBlock unary(const MatrixBlock& in, UnaryOp op) {
  const int64_t m = in.rows(), n = in.cols();
  if (in.is_sparse() && is_sparse_safe(op)) {
    // Only the stored values change; results that became zero (round(0.3)) are dropped.
    MatrixBlock out = csr_map_values(in, [op](double x) { return apply_unary(op, x); });
    out.examine_format();
    return out;
  }
  std::vector<double> out_values;  // (m, n) row-major
  if (in.is_sparse()) {
    // Sparse-unsafe: every implicit zero maps to f(0).
    out_values.assign(static_cast<size_t>(m * n), apply_unary(op, 0.0));
    const auto& rp = in.row_ptr();
    const auto& ci = in.col_idx();
    const auto& v = in.csr_values();
    parallel_for(0, m, row_grain(n), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t k = rp[r]; k < rp[r + 1]; ++k)
          out_values[static_cast<size_t>(r * n + ci[k])] = apply_unary(op, v[k]);
    });
  } else {
    const auto& a = in.dense_values();
    out_values.resize(a.size());
    parallel_for(0, static_cast<int64_t>(a.size()), kParallelGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) out_values[i] = apply_unary(op, a[i]);
    });
  }
  MatrixBlock out = MatrixBlock::dense(m, n, std::move(out_values));
  out.examine_format();
  return out;
}

// SystemDS's Builtin LOG with two arguments: Math.log(x) / Math.log(base).
double log_base(double x, double base) { return std::log(x) / std::log(base); }

MatrixBlock log_base(const MatrixBlock& x, double base) {
  std::vector<double> v = dense_copy(x);  // (m, n) row-major; log(0) = -Inf, so never sparse-safe
  const double lb = std::log(base);
  for (double& e : v) e = std::log(e) / lb;
  MatrixBlock out = MatrixBlock::dense(x.rows(), x.cols(), std::move(v));
  out.examine_format();
  return out;
}

MatrixBlock log_base(double x, const MatrixBlock& base) {
  std::vector<double> v = dense_copy(base);  // (m, n) row-major
  const double lx = std::log(x);
  for (double& e : v) e = lx / std::log(e);
  MatrixBlock out = MatrixBlock::dense(base.rows(), base.cols(), std::move(v));
  out.examine_format();
  return out;
}

MatrixBlock log_base(const MatrixBlock& x, const MatrixBlock& base) {
  const int64_t m = x.rows(), n = x.cols();
  DMLRT_REQUIRE((base.rows() == m || base.rows() == 1) && (base.cols() == n || base.cols() == 1),
                ShapeError,
                "log: base of shape " << dims_string(base.rows(), base.cols())
                                      << " does not fit x of shape " << dims_string(m, n));
  std::vector<double> v = dense_copy(x);         // (m, n) row-major
  const std::vector<double> b = dense_copy(base);  // (m|1, n|1) row-major
  const int64_t bn = base.cols();
  for (int64_t i = 0; i < m; ++i) {
    const int64_t bi = base.rows() == 1 ? 0 : i;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t bj = bn == 1 ? 0 : j;
      double& e = v[static_cast<size_t>(i * n + j)];
      e = std::log(e) / std::log(b[static_cast<size_t>(bi * bn + bj)]);
    }
  }
  MatrixBlock out = MatrixBlock::dense(m, n, std::move(v));
  out.examine_format();
  return out;
}

MatrixBlock cumulative(const MatrixBlock& in, CumOp op) {
  const int64_t m = in.rows(), n = in.cols();
  std::vector<double> out_values(static_cast<size_t>(m * n));  // (m, n) row-major
  // The input row i, densified into `row` when sparse.
  std::vector<double> row(static_cast<size_t>(n), 0.0);
  std::vector<KahanSum> sums(op == CumOp::kSum ? static_cast<size_t>(n) : 0);
  for (int64_t i = 0; i < m; ++i) {
    const double* a;
    if (in.is_sparse()) {
      std::fill(row.begin(), row.end(), 0.0);
      const auto& rp = in.row_ptr();
      for (int64_t k = rp[i]; k < rp[i + 1]; ++k) row[in.col_idx()[k]] = in.csr_values()[k];
      a = row.data();
    } else {
      a = in.dense_data() + i * n;
    }
    double* c = out_values.data() + i * n;
    const double* prev = c - n;
    for (int64_t j = 0; j < n; ++j) {
      if (op == CumOp::kSum) {
        sums[j].add(a[j]);
        c[j] = sums[j].sum;
      } else if (i == 0) {
        c[j] = a[j];
      } else if (op == CumOp::kProd) {
        c[j] = prev[j] * a[j];
      } else if (op == CumOp::kMin) {
        c[j] = java_min(prev[j], a[j]);
      } else {
        c[j] = java_max(prev[j], a[j]);
      }
    }
  }
  MatrixBlock out = MatrixBlock::dense(m, n, std::move(out_values));
  out.examine_format();
  return out;
}

MatrixBlock row_cumsum(const MatrixBlock& in) {
  const int64_t m = in.rows(), n = in.cols();
  std::vector<double> v = dense_copy(in);  // (m, n) row-major, scanned in place
  for (int64_t i = 0; i < m; ++i) {
    KahanSum s;
    for (int64_t j = 0; j < n; ++j) {
      s.add(v[i * n + j]);
      v[i * n + j] = s.sum;
    }
  }
  MatrixBlock out = MatrixBlock::dense(m, n, std::move(v));
  out.examine_format();
  return out;
}

MatrixBlock cumsumprod(const MatrixBlock& in) {
  DMLRT_REQUIRE(in.cols() == 2, ShapeError,
                "ucumk+*: cumsumprod needs a 2-column input [a, b], got "
                    << dims_string(in.rows(), in.cols()));
  const int64_t m = in.rows();
  std::vector<double> out_values(static_cast<size_t>(m));  // (m, 1)
  double prev = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    prev = in.get(i, 0) + in.get(i, 1) * prev;
    out_values[static_cast<size_t>(i)] = prev;
  }
  MatrixBlock out = MatrixBlock::dense(m, 1, std::move(out_values));
  out.examine_format();
  return out;
}

MatrixBlock softmax(const MatrixBlock& in) {
  const int64_t m = in.rows(), n = in.cols();
  std::vector<double> v = dense_copy(in);  // (m, n) row-major
  for (int64_t i = 0; i < m; ++i) {
    double* r = v.data() + i * n;
    // Subtracting the row max keeps exp from overflowing; NaN propagates through java_max.
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < n; ++j) mx = java_max(mx, r[j]);
    KahanSum s;
    for (int64_t j = 0; j < n; ++j) {
      r[j] = std::exp(r[j] - mx);
      s.add(r[j]);
    }
    for (int64_t j = 0; j < n; ++j) r[j] /= s.sum;
  }
  MatrixBlock out = MatrixBlock::dense(m, n, std::move(v));
  out.examine_format();
  return out;
}

}  // namespace dmlrt::kernels::cpu
