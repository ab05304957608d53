// Cell-wise binary kernels; see binary.h. Cell semantics follow SystemDS's Java function objects
// (functionobjects/*.java), which differ from C in a few places noted below.
#include "kernels/cpu/binary.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/cpu/csr_map.h"
#include "kernels/cpu/parallel.h"
#include "kernels/host_memory.h"

namespace dmlrt::kernels::cpu {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// UtilFunctions.DOUBLE_EPS, added before truncating integer-division quotients.
constexpr double kDoubleEps = 0x1p-53;

// Java's (long) cast of a double: truncates, saturates at the int64 range, NaN -> 0.
int64_t java_long_cast(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Java's Math.max/min: NaN if either is NaN, and +0.0 > -0.0 (std::fmax ignores NaN instead).
double java_max(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == 0.0 && y == 0.0) return std::signbit(x) ? y : x;
  return x >= y ? x : y;
}
double java_min(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == 0.0 && y == 0.0) return std::signbit(x) ? x : y;
  return x <= y ? x : y;
}

// Java's Math.pow: pow(x, NaN) is NaN and pow(+-1, +-Inf) is NaN, where C's pow gives 1.
double java_pow(double x, double y) {
  if (std::isnan(y)) return kNaN;
  if (std::isinf(y) && std::fabs(x) == 1.0) return kNaN;
  return std::pow(x, y);
}

// UtilFunctions.toInt, which SystemDS's Bitw* ops apply to double operands: truncation toward zero
// after an epsilon nudge of |v|, then Java's (int) cast (saturating, NaN -> 0). The ops compute
// in 32 bits; a shift count is taken mod 32 as Java's int shifts do.
int32_t java_to_int(double v) {
  const double t = (v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0)) * std::floor(std::fabs(v) + kDoubleEps);
  if (std::isnan(t)) return 0;
  if (t >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (t <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(t);
}
double java_int_shl(double x, double y) {
  return static_cast<int32_t>(static_cast<uint32_t>(java_to_int(x)) << (java_to_int(y) & 31));
}
double java_int_shr(double x, double y) { return java_to_int(x) >> (java_to_int(y) & 31); }

bool truthy(double v) { return v != 0.0; }  // NaN counts as true, as in Java's `v != 0`

// One cell of Op; a template so that the dense loops below are instantiated per op instead of
// switching on every cell.
template <BinaryOp Op>
inline double cell(double x, double y) {
  if constexpr (Op == BinaryOp::kPlus)
    return x + y;
  else if constexpr (Op == BinaryOp::kMinus)
    return x - y;
  else if constexpr (Op == BinaryOp::kMult)
    return x * y;
  else if constexpr (Op == BinaryOp::kDiv)
    return x / y;
  else if constexpr (Op == BinaryOp::kPow)
    return java_pow(x, y);
  else if constexpr (Op == BinaryOp::kMod)
    return modulus(x, y);
  else if constexpr (Op == BinaryOp::kIntDiv)
    return int_divide(x, y);
  else if constexpr (Op == BinaryOp::kEq)
    return x == y ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kNeq)
    return x != y ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kLt)
    return x < y ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kGt)
    return x > y ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kLe)
    return x <= y ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kGe)
    return x >= y ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kAnd)
    return truthy(x) && truthy(y) ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kOr)
    return truthy(x) || truthy(y) ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kMin)
    return java_min(x, y);
  else if constexpr (Op == BinaryOp::kMax)
    return java_max(x, y);
  else if constexpr (Op == BinaryOp::kMinus1Mult)
    return 1.0 - x * y;
  else if constexpr (Op == BinaryOp::kXor)
    return truthy(x) != truthy(y) ? 1.0 : 0.0;
  else if constexpr (Op == BinaryOp::kBitwAnd)
    return java_to_int(x) & java_to_int(y);
  else if constexpr (Op == BinaryOp::kBitwOr)
    return java_to_int(x) | java_to_int(y);
  else if constexpr (Op == BinaryOp::kBitwXor)
    return java_to_int(x) ^ java_to_int(y);
  else if constexpr (Op == BinaryOp::kBitwShiftL)
    return java_int_shl(x, y);
  else if constexpr (Op == BinaryOp::kBitwShiftR)
    return java_int_shr(x, y);
  else
    return x != 0.0 ? x - y : 0.0;  // kMinusNz
}

template <BinaryOp Op>
using OpTag = std::integral_constant<BinaryOp, Op>;

// Calls f(OpTag<op>{}): the one switch over ops.
template <typename F>
decltype(auto) with_op(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::kPlus:
      return f(OpTag<BinaryOp::kPlus>{});
    case BinaryOp::kMinus:
      return f(OpTag<BinaryOp::kMinus>{});
    case BinaryOp::kMult:
      return f(OpTag<BinaryOp::kMult>{});
    case BinaryOp::kDiv:
      return f(OpTag<BinaryOp::kDiv>{});
    case BinaryOp::kPow:
      return f(OpTag<BinaryOp::kPow>{});
    case BinaryOp::kMod:
      return f(OpTag<BinaryOp::kMod>{});
    case BinaryOp::kIntDiv:
      return f(OpTag<BinaryOp::kIntDiv>{});
    case BinaryOp::kEq:
      return f(OpTag<BinaryOp::kEq>{});
    case BinaryOp::kNeq:
      return f(OpTag<BinaryOp::kNeq>{});
    case BinaryOp::kLt:
      return f(OpTag<BinaryOp::kLt>{});
    case BinaryOp::kGt:
      return f(OpTag<BinaryOp::kGt>{});
    case BinaryOp::kLe:
      return f(OpTag<BinaryOp::kLe>{});
    case BinaryOp::kGe:
      return f(OpTag<BinaryOp::kGe>{});
    case BinaryOp::kAnd:
      return f(OpTag<BinaryOp::kAnd>{});
    case BinaryOp::kOr:
      return f(OpTag<BinaryOp::kOr>{});
    case BinaryOp::kMin:
      return f(OpTag<BinaryOp::kMin>{});
    case BinaryOp::kMax:
      return f(OpTag<BinaryOp::kMax>{});
    case BinaryOp::kMinus1Mult:
      return f(OpTag<BinaryOp::kMinus1Mult>{});
    case BinaryOp::kXor:
      return f(OpTag<BinaryOp::kXor>{});
    case BinaryOp::kBitwAnd:
      return f(OpTag<BinaryOp::kBitwAnd>{});
    case BinaryOp::kBitwOr:
      return f(OpTag<BinaryOp::kBitwOr>{});
    case BinaryOp::kBitwXor:
      return f(OpTag<BinaryOp::kBitwXor>{});
    case BinaryOp::kBitwShiftL:
      return f(OpTag<BinaryOp::kBitwShiftL>{});
    case BinaryOp::kBitwShiftR:
      return f(OpTag<BinaryOp::kBitwShiftR>{});
    case BinaryOp::kMinusNz:
      break;
  }
  return f(OpTag<BinaryOp::kMinusNz>{});
}

// True when op(0, y) == 0 (op(y, 0) when zero_left is false) for every y in `values`, plus y = 0
// when `with_zero` — i.e. the zero cells of the other operand stay zero in the output.
bool zero_preserving(BinaryOp op, const std::vector<double>& values, bool with_zero,
                     bool zero_left) {
  auto ok = [&](double y) {
    return (zero_left ? binary_apply(op, 0.0, y) : binary_apply(op, y, 0.0)) == 0.0;
  };
  if (with_zero && !ok(0.0)) return false;
  for (double y : values)
    if (!ok(y)) return false;
  return true;
}

const std::vector<double>& stored_values(const MatrixBlock& m) {
  return m.is_sparse() ? m.csr_values() : m.dense_values();
}

// Builds a CSR block row by row, dropping zeros.
class CsrBuilder {
 public:
  CsrBuilder(int64_t rows, int64_t cols) : rows_(rows), cols_(cols) {
    row_ptr_.reserve(static_cast<size_t>(rows + 1));
    row_ptr_.push_back(0);
  }
  void add(int64_t c, double v) {
    if (v == 0.0) return;
    col_idx_.push_back(static_cast<int32_t>(c));
    values_.push_back(v);
  }
  void end_row() { row_ptr_.push_back(static_cast<int64_t>(values_.size())); }
  MatrixBlock finish() {
    return MatrixBlock::csr(rows_, cols_, std::move(row_ptr_), std::move(col_idx_),
                            std::move(values_));
  }

 private:
  int64_t rows_, cols_;
  std::vector<int64_t> row_ptr_;
  std::vector<int32_t> col_idx_;
  std::vector<double> values_;
};

// Dense values of a (small) vector operand, in storage order.
std::vector<double> vector_values(const MatrixBlock& v) {
  MatrixBlock d = v.to_dense();
  return d.dense_values();
}

// The value of the broadcast right operand at output cell (r, c); `row_buf` holds the current
// row of a sparse same-shape operand (scattered), `vec` the values of a vector operand.
struct RightAccess {
  Broadcast bc;
  const MatrixBlock* b;
  const std::vector<double>* vec;
  const std::vector<double>* row_buf;
  double at(int64_t r, int64_t c) const {
    switch (bc) {
      case Broadcast::kColVector:
        return (*vec)[static_cast<size_t>(r)];
      case Broadcast::kRowVector:
        return (*vec)[static_cast<size_t>(c)];
      case Broadcast::kOuter:
        return (*vec)[static_cast<size_t>(c)];
      default:
        return b->is_sparse() ? (*row_buf)[static_cast<size_t>(c)]
                              : b->dense_data()[r * b->cols() + c];
    }
  }
};

void scatter_row(const MatrixBlock& m, int64_t r, std::vector<double>& buf) {
  const auto& rp = m.row_ptr();
  for (int64_t k = rp[r]; k < rp[r + 1]; ++k)
    buf[static_cast<size_t>(m.col_idx()[k])] = m.csr_values()[k];
}
void clear_row(const MatrixBlock& m, int64_t r, std::vector<double>& buf) {
  const auto& rp = m.row_ptr();
  for (int64_t k = rp[r]; k < rp[r + 1]; ++k) buf[static_cast<size_t>(m.col_idx()[k])] = 0.0;
}

// a sparse, zero cells of a stay zero: visit a's nonzeros only.
MatrixBlock left_nonzeros(BinaryOp op, const MatrixBlock& a, const MatrixBlock& b, Broadcast bc,
                          const std::vector<double>& vec) {
  const int64_t rows = a.rows(), cols = a.cols();
  std::vector<double> row_buf;
  const bool b_rows_sparse = bc == Broadcast::kNone && b.is_sparse();
  if (b_rows_sparse) row_buf.assign(static_cast<size_t>(cols), 0.0);
  RightAccess acc{bc, &b, &vec, &row_buf};
  CsrBuilder out(rows, cols);
  const auto& rp = a.row_ptr();
  for (int64_t r = 0; r < rows; ++r) {
    if (b_rows_sparse) scatter_row(b, r, row_buf);
    for (int64_t k = rp[r]; k < rp[r + 1]; ++k) {
      const int64_t c = a.col_idx()[k];
      out.add(c, binary_apply(op, a.csr_values()[k], acc.at(r, c)));
    }
    if (b_rows_sparse) clear_row(b, r, row_buf);
    out.end_row();
  }
  return out.finish();
}

// b sparse (same shape), zero cells of b stay zero: visit b's nonzeros only.
MatrixBlock right_nonzeros(BinaryOp op, const MatrixBlock& a, const MatrixBlock& b) {
  const int64_t rows = a.rows(), cols = a.cols();
  std::vector<double> row_buf;
  if (a.is_sparse()) row_buf.assign(static_cast<size_t>(cols), 0.0);
  CsrBuilder out(rows, cols);
  const auto& rp = b.row_ptr();
  for (int64_t r = 0; r < rows; ++r) {
    if (a.is_sparse()) scatter_row(a, r, row_buf);
    for (int64_t k = rp[r]; k < rp[r + 1]; ++k) {
      const int64_t c = b.col_idx()[k];
      const double x =
          a.is_sparse() ? row_buf[static_cast<size_t>(c)] : a.dense_data()[r * cols + c];
      out.add(c, binary_apply(op, x, b.csr_values()[k]));
    }
    if (a.is_sparse()) clear_row(a, r, row_buf);
    out.end_row();
  }
  return out.finish();
}

// Both sparse, same shape, op(0, 0) == 0: visit the union of the nonzero patterns (merge).
MatrixBlock union_nonzeros(BinaryOp op, const MatrixBlock& a, const MatrixBlock& b) {
  const int64_t rows = a.rows(), cols = a.cols();
  CsrBuilder out(rows, cols);
  const auto& ap = a.row_ptr();
  const auto& bp = b.row_ptr();
  for (int64_t r = 0; r < rows; ++r) {
    int64_t i = ap[r], j = bp[r];
    while (i < ap[r + 1] || j < bp[r + 1]) {
      const int64_t ca = i < ap[r + 1] ? a.col_idx()[i] : cols;
      const int64_t cb = j < bp[r + 1] ? b.col_idx()[j] : cols;
      if (ca == cb) {
        out.add(ca, binary_apply(op, a.csr_values()[i++], b.csr_values()[j++]));
      } else if (ca < cb) {
        out.add(ca, binary_apply(op, a.csr_values()[i++], 0.0));
      } else {
        out.add(cb, binary_apply(op, 0.0, b.csr_values()[j++]));
      }
    }
    out.end_row();
  }
  return out.finish();
}

MatrixBlock dense_path(BinaryOp op, const MatrixBlock& a_in, const MatrixBlock& b_in, Broadcast bc,
                       int64_t rows, int64_t cols) {
  // Only sparse operands are densified; dense ones are read in place.
  MatrixBlock a_hold, b_hold;
  if (a_in.is_sparse()) a_hold = a_in.to_dense();
  if (b_in.is_sparse()) b_hold = b_in.to_dense();
  const double* x = (a_in.is_sparse() ? a_hold : a_in).dense_data();
  const double* y = (b_in.is_sparse() ? b_hold : b_in).dense_data();
  MatrixBlock out = MatrixBlock::dense(rows, cols);
  double* o = out.dense_data();  // (rows, cols) row-major
  with_op(op, [&](auto tag) {
    constexpr BinaryOp kOp = decltype(tag)::value;
    // Output rows are independent: the pool takes bands of rows.
    parallel_for(0, rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        double* orow = o + r * cols;
        switch (bc) {
          case Broadcast::kNone: {
            const double* xr = x + r * cols;
            const double* yr = y + r * cols;
            for (int64_t c = 0; c < cols; ++c) orow[c] = cell<kOp>(xr[c], yr[c]);
            break;
          }
          case Broadcast::kColVector: {
            const double* xr = x + r * cols;
            const double yv = y[r];
            for (int64_t c = 0; c < cols; ++c) orow[c] = cell<kOp>(xr[c], yv);
            break;
          }
          case Broadcast::kRowVector: {
            const double* xr = x + r * cols;
            for (int64_t c = 0; c < cols; ++c) orow[c] = cell<kOp>(xr[c], y[c]);
            break;
          }
          default: {  // kOuter
            const double xv = x[r];
            for (int64_t c = 0; c < cols; ++c) orow[c] = cell<kOp>(xv, y[c]);
            break;
          }
        }
      }
    });
  });
  return out;
}

}  // namespace

double int_divide(double x, double y) {
  // IntegerDivide.executeIntDiv: double quotient, kept when NaN/Inf, else truncated toward zero
  // (UtilFunctions.toLong: signum(q) * floor(|q| + eps)). So -7 %/% 2 == -3, unlike R's floor.
  const double q = x / y;
  if (std::isnan(q) || std::isinf(q)) return q;
  const double t = (q > 0.0 ? 1.0 : (q < 0.0 ? -1.0 : 0.0)) * std::floor(std::fabs(q) + kDoubleEps);
  return static_cast<double>(java_long_cast(t));
}

double modulus(double x, double y) {
  // Modulus.execute: NaN for y == 0, else x - (x %/% y) * y; the sign follows x (-7 %% 2 == -1).
  if (y == 0.0) return kNaN;
  return x - int_divide(x, y) * y;
}

bool binary_op_from_opcode(const std::string& opcode, BinaryOp* op) {
  static const struct {
    const char* name;
    BinaryOp op;
  } kOps[] = {
      {"+", BinaryOp::kPlus},      {"-", BinaryOp::kMinus}, {"*", BinaryOp::kMult},
      {"/", BinaryOp::kDiv},       {"^", BinaryOp::kPow},   {"%%", BinaryOp::kMod},
      {"%/%", BinaryOp::kIntDiv},  {"==", BinaryOp::kEq},   {"!=", BinaryOp::kNeq},
      {"<", BinaryOp::kLt},        {">", BinaryOp::kGt},    {"<=", BinaryOp::kLe},
      {">=", BinaryOp::kGe},       {"&&", BinaryOp::kAnd},  {"||", BinaryOp::kOr},
      {"min", BinaryOp::kMin},     {"max", BinaryOp::kMax}, {"1-*", BinaryOp::kMinus1Mult},
      {"-nz", BinaryOp::kMinusNz},
      {"xor", BinaryOp::kXor},
      {"bitwand", BinaryOp::kBitwAnd},
      {"bitwor", BinaryOp::kBitwOr},
      {"bitwxor", BinaryOp::kBitwXor},
      {"bitwshiftl", BinaryOp::kBitwShiftL},
      {"bitwshiftr", BinaryOp::kBitwShiftR},
  };
  for (const auto& e : kOps) {
    if (opcode == e.name) {
      *op = e.op;
      return true;
    }
  }
  return false;
}

double binary_apply(BinaryOp op, double x, double y) {
  return with_op(op, [&](auto tag) { return cell<decltype(tag)::value>(x, y); });
}

Broadcast binary_broadcast(int64_t a_rows, int64_t a_cols, int64_t b_rows, int64_t b_cols) {
  if (a_rows == b_rows && a_cols == b_cols) return Broadcast::kNone;
  if (b_cols == 1 && a_rows == b_rows) return Broadcast::kColVector;
  if (b_rows == 1 && a_cols == b_cols) return Broadcast::kRowVector;
  if (a_cols == 1 && b_rows == 1) return Broadcast::kOuter;
  return Broadcast::kInvalid;
}

MatrixBlock binary_matrix_matrix(BinaryOp op, const MatrixBlock& a, const MatrixBlock& b) {
  const Broadcast bc = binary_broadcast(a.rows(), a.cols(), b.rows(), b.cols());
  DMLRT_REQUIRE(bc != Broadcast::kInvalid, ShapeError,
                "incompatible shapes " << dims_string(a.rows(), a.cols()) << " and "
                                       << dims_string(b.rows(), b.cols()));
  const int64_t rows = a.rows();
  const int64_t cols = bc == Broadcast::kOuter ? b.cols() : a.cols();
  if (rows == 0 || cols == 0) return MatrixBlock::dense(rows, cols);
  // An outer op's result is the product of two vector lengths: checked before it is taken.
  if (bc == Broadcast::kOuter)
    check_host_alloc("outer op of a " + dims_string(a.rows(), a.cols()) + " and a " +
                         dims_string(b.rows(), b.cols()) + " vector",
                     rows, cols, sizeof(double));

  MatrixBlock out;
  // See Note [Sparse output format]: pick the cheapest exact iteration space.
  if (a.is_sparse() && bc != Broadcast::kOuter) {
    std::vector<double> vec;
    bool safe;
    if (bc == Broadcast::kNone) {
      safe = zero_preserving(op, stored_values(b), b.is_sparse(), /*zero_left=*/true);
    } else {
      vec = vector_values(b);
      safe = zero_preserving(op, vec, false, true);
    }
    if (safe) {
      out = left_nonzeros(op, a, b, bc, vec);
      out.examine_format();
      return out;
    }
  }
  if (bc == Broadcast::kNone && b.is_sparse() &&
      zero_preserving(op, stored_values(a), a.is_sparse(), /*zero_left=*/false)) {
    out = right_nonzeros(op, a, b);
  } else if (bc == Broadcast::kNone && a.is_sparse() && b.is_sparse() &&
             binary_apply(op, 0.0, 0.0) == 0.0) {
    out = union_nonzeros(op, a, b);
  } else {
    out = dense_path(op, a, b, bc, rows, cols);
  }
  out.examine_format();
  return out;
}

MatrixBlock binary_matrix_scalar(BinaryOp op, const MatrixBlock& a, double s, bool scalar_left) {
  auto f = [&](double x) { return scalar_left ? binary_apply(op, s, x) : binary_apply(op, x, s); };
  const int64_t rows = a.rows(), cols = a.cols();
  if (rows == 0 || cols == 0) return MatrixBlock::dense(rows, cols);
  const double zero_image = f(0.0);
  MatrixBlock out;
  if (a.is_sparse()) {
    const auto& rp = a.row_ptr();
    if (zero_image == 0.0) {
      out = csr_map_values(a, f);
    } else {
      out = MatrixBlock::dense(rows, cols, zero_image);
      double* o = out.dense_data();  // (rows, cols) row-major
      parallel_for(0, rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t k = rp[r]; k < rp[r + 1]; ++k)
            o[r * cols + a.col_idx()[k]] = f(a.csr_values()[k]);
      });
    }
  } else {
    out = MatrixBlock::dense(rows, cols);
    const double* x = a.dense_data();
    double* o = out.dense_data();
    const int64_t n = rows * cols;
    with_op(op, [&](auto tag) {
      constexpr BinaryOp kOp = decltype(tag)::value;
      parallel_for(0, n, kParallelGrain, [&](int64_t lo, int64_t hi) {
        if (scalar_left) {
          for (int64_t i = lo; i < hi; ++i) o[i] = cell<kOp>(s, x[i]);
        } else {
          for (int64_t i = lo; i < hi; ++i) o[i] = cell<kOp>(x[i], s);
        }
      });
    });
  }
  out.examine_format();
  return out;
}

}  // namespace dmlrt::kernels::cpu
