// The samples of the op registry (op_registry.h): instruction shapes copied from the differential
// tests test_gpu_*.cpp, which keep the edge cases (NaN/Inf inputs, degenerate shapes, errors,
// budgets); the registry holds one representative line per GPU path so that every GPU-capable
// opcode is covered and the bench can time it. No Catch2 here: the bench links this file.
#include "op_registry.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iterator>
#include <sstream>

namespace dmlrt::test::gpu {
namespace {

const std::string kM = "·MATRIX·FP64";

std::string mat(const std::string& name) { return name + kM; }
std::string lit(int64_t v) { return std::to_string(v) + "·SCALAR·INT64·true"; }
// An FP64 literal, every digit kept; bare (no operand suffix) for rand's and DNN's plain fields.
std::string bare(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v;
  return os.str();
}
std::string num(double v) { return bare(v) + "·SCALAR·FP64·true"; }
std::string flag(bool v) { return std::string(v ? "true" : "false") + "·SCALAR·BOOLEAN·true"; }
std::string str(const std::string& s) { return s + "·SCALAR·STRING·true"; }

// A case whose GPU and CP lines differ only in the execution type (and SystemDS's CP-only
// trailing fields `cpu_tail`, e.g. the thread count).
OpCase lines(const std::string& fields, const std::string& cpu_tail = "") {
  OpCase c;
  c.gpu_line = "GPU°" + fields;
  c.cpu_line = "CP°" + fields + cpu_tail;
  return c;
}

OpInput in(const std::string& name, int64_t rows, int64_t cols, double lo = -2, double hi = 2,
           bool formatted = true) {
  OpInput i;
  i.name = name;
  i.rows = rows;
  i.cols = cols;
  i.lo = lo;
  i.hi = hi;
  i.formatted = formatted;
  return i;
}
// A dense, full operand (parameter vectors, weights, statistics).
OpInput dense(const std::string& name, int64_t rows, int64_t cols, double lo = -2, double hi = 2) {
  return in(name, rows, cols, lo, hi, false);
}

std::vector<OpOutput> out(std::initializer_list<const char*> names) {
  std::vector<OpOutput> o;
  for (const char* n : names) o.push_back({n, false});
  return o;
}

// FP32 tolerance of a sum of `k` products of terms <= 1 (test_gpu_matmult.cpp, test_gpu_tsmm.cpp).
OpTol dot_tol32(int64_t k) {
  return {1e-4 * static_cast<double>(std::max<int64_t>(1, k)) / 8, 1e-4};
}

// FP32 tolerance of a conv pass reducing `length` terms (test_gpu_dnn_conv.cpp's check_close).
OpTol conv_tol32(int64_t length) {
  const double t =
      1e-4 * std::max(1.0, std::sqrt(static_cast<double>(std::max<int64_t>(length, 1)) / 16));
  return {t, t, true};
}

// -------------------------------------------------------------------------------------------
// Cell-wise binary: matrix-matrix, the two vector broadcasts, outer, and a scalar on either side.

void add_binary(std::vector<OpSample>& s) {
  struct Op {
    const char* opcode;
    bool fp32;  // %% and %/% jump where x/y crosses an integer: float rounding moves the jump
  };
  const Op ops[] = {{"+", true},   {"-", true},    {"*", true},   {"/", true},  {"^", true},
                    {"%%", false}, {"%/%", false}, {"==", true},  {"!=", true}, {"<", true},
                    {">", true},   {"<=", true},   {">=", true},  {"&&", true}, {"||", true},
                    {"min", true}, {"max", true},  {"1-*", true}, {"-nz", true}};
  for (const Op& op : ops) {
    const std::string o = op.opcode;
    const bool fp32 = op.fp32;
    struct Form {
      const char* name;
      // B's shape from A's (rows, cols); A is rows x 1 for "outer".
      int kind;  // 0 same, 1 column vector, 2 row vector, 3 outer, 4 A op s, 5 s op A
    };
    for (const Form& f :
         {Form{"matrix-matrix", 0}, Form{"matrix-column vector", 1}, Form{"matrix-row vector", 2},
          Form{"column-row outer", 3}, Form{"matrix-scalar", 4}, Form{"scalar-matrix", 5}}) {
      const int kind = f.kind;
      s.push_back(
          {op.opcode, o + " " + f.name, OpFamily::kBinary, [o, kind, fp32](int64_t r, int64_t c) {
             OpCase k;
             if (kind == 4 || kind == 5) {
               const std::string a = mat("A"), sc = num(-1.5);
               k = lines(o + "°" + (kind == 4 ? a + "°" + sc : sc + "°" + a) + "°" + mat("C"));
               k.inputs = {in("A", r, c)};
             } else {
               k = lines(o + "°" + mat("A") + "°" + mat("B") + "°" + mat("C"));
               k.inputs = {in("A", r, kind == 3 ? 1 : c),
                           in("B", kind == 2 || kind == 3 ? 1 : r, kind == 1 ? 1 : c)};
             }
             k.outputs = out({"C"});
             k.fp32 = fp32;
             return k;
           }});
    }
  }
}

// xor and the bitwise ops (on operands cast to Java int): A in [-1000, 1000], B in [-40, 40]
// (shift counts past 31 and negative ones wrap mod 32), both sides of a vector broadcast and a
// scalar on either side. Integer results: exact in FP64, rounded to float in FP32.
void add_bitwise(std::vector<OpSample>& s) {
  // The table's opcode and SystemDS's spelling in plans (opcodes match case-insensitively).
  const char* const ops[][2] = {{"xor", "xor"},         {"bitwand", "bitwAnd"},
                                {"bitwor", "bitwOr"},   {"bitwxor", "bitwXor"},
                                {"bitwshiftl", "bitwShiftL"}, {"bitwshiftr", "bitwShiftR"}};
  for (const auto& names : ops) {
    const char* op = names[0];
    const std::string o = names[1];
    for (int kind : {0, 2, 4, 5}) {  // matrix-matrix, matrix-row vector, A op s, s op A
      const char* form = kind == 0   ? " matrix-matrix"
                         : kind == 2 ? " matrix-row vector"
                         : kind == 4 ? " matrix-scalar"
                                     : " scalar-matrix";
      s.push_back({op, o + form, OpFamily::kBinary, [o, kind](int64_t r, int64_t c) {
                     OpCase k;
                     if (kind >= 4) {
                       const std::string a = mat("A"), sc = num(kind == 4 ? 3.7 : 1234.5);
                       k = lines(o + "°" + (kind == 4 ? a + "°" + sc : sc + "°" + a) + "°" +
                                 mat("C"));
                       k.inputs = {in("A", r, c, -1000, 1000)};
                     } else {
                       k = lines(o + "°" + mat("A") + "°" + mat("B") + "°" + mat("C"));
                       k.inputs = {in("A", r, c, -1000, 1000),
                                   in("B", kind == 2 ? 1 : r, c, -40, 40)};
                     }
                     k.inputs[0].specials = 0.05;  // NaN casts to 0, +-Inf saturate
                     k.outputs = out({"C"});
                     return k;
                   }});
    }
  }
}

// -------------------------------------------------------------------------------------------
// Unary: the cell-wise builtins (GPU layout in°out, CP in°out°k), log with a base, softmax, the
// cumulative scans.

void add_unary(std::vector<OpSample>& s) {
  const char* const cellwise[] = {"exp",  "log",  "abs",  "sqrt",  "round", "floor",
                                  "ceil", "sin",  "cos",  "tan",   "sinh",  "cosh",
                                  "tanh", "asin", "acos", "atan",  "sign",  "sigmoid",
                                  "!",    "^2",   "*2",   "sprop", "plogp", "log_nz"};
  for (const char* op : cellwise) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kUnary, [o](int64_t r, int64_t c) {
                   // SystemDS's ^2 / *2 carry the literal 2. [-3, 3] reaches outside the domains
                   // of asin, acos, log and sqrt (NaN on both) and keeps exp finite in FP32.
                   const std::string two = o == "^2" || o == "*2" ? "°" + lit(2) : "";
                   OpCase k = lines(o + "°" + mat("A") + two + "°" + mat("B"), "°8");
                   k.inputs = {in("A", r, c, -3, 3)};
                   k.outputs = out({"B"});
                   return k;
                 }});
  }
  // isnan, isinf and isna on inputs that hold NaN, +Inf and -Inf.
  for (const char* op : {"isnan", "isinf", "isna"}) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kUnary, [o](int64_t r, int64_t c) {
                   OpCase k = lines(o + "°" + mat("A") + "°" + mat("B"), "°8");
                   k.inputs = {in("A", r, c, -3, 3)};
                   k.inputs[0].specials = 0.2;
                   k.outputs = out({"B"});
                   return k;
                 }});
  }
  // log with a base: literal base, the matrix as base, a matrix base of X's shape and a row
  // vector base (SystemDS broadcasts it). Bases in [0.1, 9] (near 1: large values on both).
  struct LogForm {
    const char* name;
    int kind;  // 0 log(X, 2.5), 1 log(7, X), 2 log(X, B), 3 log(X, row vector B)
  };
  for (const LogForm& f : {LogForm{"log base scalar", 0}, LogForm{"log scalar base matrix", 1},
                           LogForm{"log base matrix", 2}, LogForm{"log base row vector", 3}}) {
    const int kind = f.kind;
    s.push_back({"log", f.name, OpFamily::kUnary, [kind](int64_t r, int64_t c) {
                   const std::string x = mat("X"), b = mat("B");
                   const std::string args = kind == 0   ? x + "°" + num(2.5)
                                            : kind == 1 ? num(7) + "°" + x
                                                        : x + "°" + b;
                   OpCase k = lines("log°" + args + "°" + mat("L"), "°8");
                   k.inputs = {in("X", r, c, 0.05, 6.0)};
                   if (kind >= 2) k.inputs.push_back(dense("B", kind == 2 ? r : 1, c, 0.1, 9.0));
                   k.outputs = out({"L"});
                   return k;
                 }});
  }
  s.push_back({"softmax", "softmax", OpFamily::kUnary, [](int64_t r, int64_t c) {
                 OpCase k = lines("softmax°" + mat("A") + "°" + mat("S"));
                 k.inputs = {in("A", r, c, -5, 5)};
                 k.outputs = out({"S"});
                 return k;
               }});
  for (const char* op : {"ucumk+", "ucum*", "ucummin", "ucummax"}) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kUnary, [o](int64_t r, int64_t c) {
                   // Products over [-1.1, 1.1] decay without overflowing.
                   const double h = o == "ucum*" ? 1.1 : 3;
                   OpCase k = lines(o + "°" + mat("A") + "°" + mat("C"), "°8");
                   k.inputs = {in("A", r, c, -h, h)};
                   k.outputs = out({"C"});
                   return k;
                 }});
  }
  // Row-wise running sums (urowcumk+): one thread per row in the CPU's Kahan order.
  s.push_back({"urowcumk+", "urowcumk+", OpFamily::kUnary, [](int64_t r, int64_t c) {
                 OpCase k = lines("urowcumk+°" + mat("A") + "°" + mat("C"), "°8");
                 k.inputs = {in("A", r, c, -3, 3)};
                 k.outputs = out({"C"});
                 return k;
               }});
  // cumsumprod reads [a, b] rows: two columns whatever `cols`; a contracting recurrence.
  s.push_back({"ucumk+*", "ucumk+* (rows x 2)", OpFamily::kUnary, [](int64_t r, int64_t) {
                 OpCase k = lines("ucumk+*°" + mat("A") + "°" + mat("C"), "°8");
                 k.inputs = {in("A", r, 2, -0.9, 0.9)};
                 k.outputs = out({"C"});
                 return k;
               }});
}

// -------------------------------------------------------------------------------------------
// Ternary: three matrices, and a scalar in the middle (ifelse: a scalar else-branch too).

void add_ternary(std::vector<OpSample>& s) {
  for (const char* op : {"ifelse", "+*", "-*"}) {
    const std::string o = op;
    for (int kind : {0, 1, 2}) {
      if (kind == 2 && o != "ifelse") continue;
      const char* name = kind == 0 ? " M M M" : (kind == 1 ? " M s M" : " M M s");
      s.push_back({op, o + name, OpFamily::kTernary, [o, kind](int64_t r, int64_t c) {
                     const std::string a = mat("A"), b = kind == 1 ? num(2.5) : mat("B"),
                                       cc = kind == 2 ? num(-0.75) : mat("C");
                     OpCase k = lines(o + "°" + a + "°" + b + "°" + cc + "°" + mat("OUT") + "°2");
                     k.inputs = {in("A", r, c)};
                     if (kind != 1) k.inputs.push_back(in("B", r, c));
                     if (kind != 2) k.inputs.push_back(in("C", r, c));
                     k.outputs = out({"OUT"});
                     return k;
                   }});
    }
  }
}

// N-ary folds (n+ n* nmin nmax): three matrices and a scalar folded in first, as on the CPU.
void add_nary(std::vector<OpSample>& s) {
  for (const char* op : {"n+", "n*", "nmin", "nmax"}) {
    const std::string o = op;
    s.push_back({op, o + " M M s M", OpFamily::kTernary, [o](int64_t r, int64_t c) {
                   OpCase k = lines(o + "°" + mat("A") + "°" + mat("B") + "°" + num(0.75) + "°" +
                                    mat("C") + "°" + mat("OUT"));
                   k.inputs = {in("A", r, c), in("B", r, c), in("C", r, c)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
}

// -------------------------------------------------------------------------------------------
// Aggregates: full ones into a scalar, row and column ones into a vector; rowIndexMax/Min exact.

void add_aggregates(std::vector<OpSample>& s) {
  enum Range { kSigned, kProd, kVar };
  struct Agg {
    const char* opcode;
    bool full;
    Range range;
  };
  const Agg aggs[] = {
      {"ua+", true, kSigned},      {"uak+", true, kSigned},     {"uar+", false, kSigned},
      {"uark+", false, kSigned},   {"uac+", false, kSigned},    {"uack+", false, kSigned},
      {"ua*", true, kProd},        {"uar*", false, kProd},      {"uac*", false, kProd},
      {"uamean", true, kSigned},   {"uarmean", false, kSigned}, {"uacmean", false, kSigned},
      {"uamax", true, kSigned},    {"uarmax", false, kSigned},  {"uacmax", false, kSigned},
      {"uamin", true, kSigned},    {"uarmin", false, kSigned},  {"uacmin", false, kSigned},
      {"uasqk+", true, kSigned},   {"uarsqk+", false, kSigned}, {"uacsqk+", false, kSigned},
      {"uavar", true, kVar},       {"uarvar", false, kVar},     {"uacvar", false, kVar},
      {"uarimax", false, kSigned}, {"uarimin", false, kSigned}};
  for (const Agg& a : aggs) {
    const std::string o = a.opcode;
    const bool full = a.full;
    const Range range = a.range;
    s.push_back({a.opcode, o, OpFamily::kAggregate, [o, full, range](int64_t r, int64_t c) {
                   const bool index = o == "uarimax" || o == "uarimin";
                   const std::string res = full ? "s·SCALAR·FP64" : mat("R");
                   OpCase k = lines(o + "°" + mat("A") + "°" + res, index ? "°8°1" : "°8");
                   // Well-conditioned (DESIGN.md §6): products near 1, variances of [2, 4].
                   const double lo = range == kProd ? 0.999 : (range == kVar ? 2.0 : -1.0);
                   const double hi = range == kProd ? 1.001 : (range == kVar ? 4.0 : 1.0);
                   k.inputs = {in("A", r, c, lo, hi)};
                   k.outputs = {{full ? "s" : "R", full}};
                   if (index) k.tol64 = k.tol32 = {0, 0, false};  // row indices are exact
                   return k;
                 }});
  }
  // trace of a square (rows x rows) input.
  for (const char* op : {"uatrace", "uaktrace"}) {
    const std::string o = op;
    s.push_back({op, o + " (rows x rows)", OpFamily::kAggregate, [o](int64_t r, int64_t) {
                   OpCase k = lines(o + "°" + mat("A") + "°s·SCALAR·FP64", "°8");
                   k.inputs = {in("A", r, r, -1, 1)};
                   k.outputs = {{"s", true}};
                   return k;
                 }});
  }
}

// -------------------------------------------------------------------------------------------
// Sort-based ops (sort_gpu.cpp, unique_gpu.cpp, count_distinct_gpu.cpp): rsort and unique* with
// the reorg family, qsort / qpick / countDistinct with the aggregates. Exact results (indices,
// counts, moved values); qpick's IQM sums in another order. Ties, NaN and -0.0 are covered by
// test_gpu_sort.cpp and test_gpu_unique.cpp; here the formats (zeros tie) and sizes.

void add_sort(std::vector<OpSample>& s) {
  const OpTol exact{0, 0, false};
  for (bool decreasing : {false, true})
    for (bool index : {false, true}) {
      const std::string name = std::string("rsort by column 1") + (decreasing ? " decreasing" : "") +
                               (index ? " index.return" : "");
      s.push_back({"rsort", name, OpFamily::kReorg, [=](int64_t r, int64_t c) {
                     OpCase k = lines("rsort°" + mat("A") + "°" + lit(1) + "°" + flag(decreasing) +
                                      "°" + flag(index) + "°" + mat("OUT"));
                     k.inputs = {in("A", r, c)};
                     k.outputs = out({"OUT"});
                     k.tol64 = k.tol32 = exact;
                     return k;
                   }});
    }
  for (const char* op : {"unique", "uniquer", "uniquec"}) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kReorg, [o, exact](int64_t r, int64_t c) {
                   OpCase k = lines(o + "°" + mat("A") + "°" + mat("OUT"));
                   k.inputs = {in("A", r, c)};
                   k.outputs = out({"OUT"});
                   k.tol64 = k.tol32 = exact;
                   return k;
                 }});
  }
  s.push_back({"qsort", "qsort (rows x 1)", OpFamily::kAggregate, [exact](int64_t r, int64_t) {
                 OpCase k = lines("qsort°" + mat("A") + "°" + mat("OUT"), "°8");
                 k.inputs = {in("A", r, 1)};
                 k.outputs = out({"OUT"});
                 k.tol64 = k.tol32 = exact;
                 return k;
               }});
  s.push_back({"qsort", "qsort weighted (rows x 1)", OpFamily::kAggregate, [](int64_t r, int64_t) {
                 OpCase k = lines("qsort°" + mat("A") + "°" + mat("W") + "°" + mat("OUT"), "°8");
                 k.inputs = {in("A", r, 1), dense("W", r, 1, 0, 3)};
                 k.outputs = out({"OUT"});
                 return k;
               }});
  for (const char* type : {"MEDIAN", "IQM"}) {
    const std::string t = type;
    s.push_back({"qpick", "qpick " + t + " (rows x 1)", OpFamily::kAggregate,
                 [t](int64_t r, int64_t) {
                   OpCase k = lines("qpick°" + mat("A") + "°s·SCALAR·FP64°" + t + "°true");
                   k.inputs = {in("A", r, 1)};
                   k.outputs = {{"s", true}};
                   return k;
                 }});
  }
  s.push_back({"qpick", "qpick VALUEPICK of 0.3 (rows x 1)", OpFamily::kAggregate,
               [exact](int64_t r, int64_t) {
                 OpCase k =
                     lines("qpick°" + mat("A") + "°" + num(0.3) + "°s·SCALAR·FP64°VALUEPICK°true");
                 k.inputs = {in("A", r, 1)};
                 k.outputs = {{"s", true}};
                 k.tol64 = k.tol32 = exact;
                 return k;
               }});
  for (const char* op : {"uacd", "uacdap"}) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kAggregate, [o, exact](int64_t r, int64_t c) {
                   OpCase k = lines(o + "°" + mat("A") + "°s·SCALAR·INT64", "°8");
                   k.inputs = {in("A", r, c)};
                   k.outputs = {{"s", true}};
                   k.tol64 = k.tol32 = exact;
                   return k;
                 }});
  }
  for (const char* op : {"uacdr", "uacdc", "uacdapr", "uacdapc"}) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kAggregate, [o, exact](int64_t r, int64_t c) {
                   OpCase k = lines(o + "°" + mat("A") + "°" + mat("OUT"), "°8");
                   k.inputs = {in("A", r, c)};
                   k.outputs = out({"OUT"});
                   k.tol64 = k.tol32 = exact;
                   return k;
                 }});
  }
}

// uaggouterchain: agg(outer(x, y, op)) for a column x (rows x 1) and a row y (1 x cols).
void add_outer_chain(std::vector<OpSample>& s) {
  struct Form {
    const char* agg;
    const char* op;
  };
  for (const Form f : {Form{"uark+", "<"}, Form{"uack+", ">="}, Form{"uak+", "<"},
                       Form{"uarmax", "-"}, Form{"uacmin", "*"}, Form{"uarimax", "<"},
                       Form{"uarimin", ">"}}) {
    const std::string agg = f.agg, op = f.op;
    s.push_back({"uaggouterchain", "uaggouterchain " + agg + " " + op, OpFamily::kAggregate,
                 [agg, op](int64_t r, int64_t c) {
                   OpCase k = lines("uaggouterchain°" + agg + "°" + op + "°" + mat("X") + "°" +
                                    mat("Y") + "°" + mat("OUT"));
                   k.inputs = {in("X", r, 1), in("Y", 1, c)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
}

// -------------------------------------------------------------------------------------------
// Reorg, indexing, append.

void add_reorg(std::vector<OpSample>& s) {
  for (const char* op : {"r'", "rev"}) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kReorg, [o](int64_t r, int64_t c) {
                   OpCase k = lines(o + "°" + mat("A") + "°" + mat("OUT"));
                   k.inputs = {in("A", r, c)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
  // rdiag of a column vector (a diagonal matrix) and of a square matrix (its diagonal).
  for (bool square : {false, true}) {
    s.push_back({"rdiag", square ? "rdiag square (rows x rows)" : "rdiag vector (rows x 1)",
                 OpFamily::kReorg, [square](int64_t r, int64_t) {
                   OpCase k = lines("rdiag°" + mat("A") + "°" + mat("OUT"));
                   k.inputs = {in("A", r, square ? r : 1)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
  // lower.tri / upper.tri (parameterized builtins, grouped here): every diag/values form on the
  // rows x cols input in every format (the values=false mask follows it on empty rows).
  for (const char* op : {"lowertri", "uppertri"})
    for (bool diag : {true, false})
      for (bool values : {true, false}) {
        const std::string o = op;
        const std::string params = std::string("diag=") + (diag ? "true" : "false") +
                                   "°values=" + (values ? "true" : "false");
        s.push_back({op, o + " " + params, OpFamily::kReorg, [o, params](int64_t r, int64_t c) {
                       OpCase k = lines(o + "°" + params + "°target=A°" + mat("OUT"));
                       k.inputs = {in("A", r, c)};
                       k.outputs = out({"OUT"});
                       return k;
                     }});
      }
  // roll by 1, by 3 (past the row count of the 1-row sizes: mod rows), by -2 (up), by 0.
  for (int64_t shift : {1, 3, -2, 0}) {
    s.push_back({"roll", "roll by " + std::to_string(shift), OpFamily::kReorg,
                 [shift](int64_t r, int64_t c) {
                   OpCase k = lines("roll°" + mat("A") + "°" + lit(shift) + "°" + mat("OUT"), "°8");
                   k.inputs = {in("A", r, c)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
  // rmempty (a parameterized builtin, grouped here): rows and columns, with and without
  // empty.return, on inputs with NaN and +-Inf (nonzeros); with a select vector in the case's
  // format (dense keeps everything: the pass-through). The formats give the empty rows and
  // columns, the empty format the all-empty result.
  for (bool rows : {true, false})
    for (int form : {0, 1, 2}) {  // 0 empty.return=true, 1 empty.return=false, 2 select
      const std::string margin = rows ? "margin=rows" : "margin=cols";
      const std::string name = std::string("rmempty ") + margin +
                               (form == 0   ? " empty.return=true"
                                : form == 1 ? " empty.return=false"
                                            : " select");
      s.push_back({"rmempty", name, OpFamily::kReorg, [rows, form, margin](int64_t r, int64_t c) {
                     std::string f = "rmempty°" + margin + "°empty.return=" +
                                     (form == 1 ? "false" : "true") + "°target=A";
                     if (form == 2) f += "°select=S";
                     OpCase k = lines(f + "°bRmEmptyBC=false°" + mat("OUT"));
                     k.inputs = {in("A", r, c)};
                     k.inputs[0].specials = 0.05;
                     if (form == 2) k.inputs.push_back(in("S", rows ? r : 1, rows ? 1 : c));
                     k.outputs = out({"OUT"});
                     return k;
                   }});
    }
  // rshape to the transposed shape, by row and by column.
  for (bool byrow : {true, false}) {
    s.push_back({"rshape", byrow ? "rshape to cols x rows, byrow" : "rshape to cols x rows, bycol",
                 OpFamily::kReorg, [byrow](int64_t r, int64_t c) {
                   OpCase k = lines("rshape°" + mat("A") + "°" + lit(c) + "°" + lit(r) + "°" +
                                    str("-1") + "°" + (byrow ? "true" : "false") +
                                    "·SCALAR·BOOLEAN·true°" + mat("OUT"));
                   k.inputs = {in("A", r, c)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
}

// Parameterized builtins and table() that run on the GPU (issue #18), grouped with reorg:
// contains and replace on the formatted input (NaN patterns on inputs with NaN), rexpand of a
// fractional index vector (ignore=true: the sparse formats hold zeros), ctable / ctableexpand of
// dense index inputs in [1, 5] (zeros are errors there), groupedagg's GPU functions and the
// scalar casts of a 1x1.
void add_parameterized(std::vector<OpSample>& s) {
  for (const char* p : {"0", "NaN"}) {
    const std::string pat = p;
    s.push_back({"contains", "contains pattern=" + pat, OpFamily::kReorg,
                 [pat](int64_t r, int64_t c) {
                   OpCase k = lines("contains°target=A°pattern=" + pat + "°OUT·SCALAR·BOOLEAN");
                   k.inputs = {in("A", r, c)};
                   k.inputs[0].specials = pat == "NaN" ? 0.05 : 0.0;
                   k.outputs = {{"OUT", true}};
                   return k;
                 }});
    s.push_back({"replace", "replace pattern=" + pat, OpFamily::kReorg,
                 [pat](int64_t r, int64_t c) {
                   OpCase k = lines("replace°target=A°pattern=" + pat + "°replacement=" +
                                    (pat == "0" ? "7" : "0") + "°" + mat("OUT"));
                   k.inputs = {in("A", r, c)};
                   k.inputs[0].specials = pat == "NaN" ? 0.05 : 0.0;
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
  for (const char* dir : {"rows", "cols"}) {
    const std::string d = dir;
    s.push_back({"rexpand", "rexpand dir=" + d + " (rows x 1)", OpFamily::kReorg,
                 [d](int64_t r, int64_t) {
                   OpCase k = lines("rexpand°target=A°max=5°dir=" + d +
                                    "°cast=true°ignore=true°" + mat("OUT"));
                   k.inputs = {in("A", r, 1, 0.5, 6.5)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
  for (bool weighted : {false, true}) {
    s.push_back({"ctable", weighted ? "ctable weighted" : "ctable counts", OpFamily::kReorg,
                 [weighted](int64_t r, int64_t c) {
                   OpCase k = lines("ctable°" + mat("A") + "°" + mat("B") + "°" +
                                    (weighted ? mat("W") : "1.0·SCALAR·FP64·true") +
                                    "°-1·true°-1·true°" + mat("OUT") + "°false");
                   k.inputs = {dense("A", r, c, 1, 5.99), dense("B", r, c, 1, 5.99)};
                   if (weighted) k.inputs.push_back(dense("W", r, c));
                   k.outputs = out({"OUT"});
                   return k;
                 },
                 false, false});
  }
  for (bool left : {true, false}) {
    s.push_back({"ctableexpand", left ? "ctableexpand seq left" : "ctableexpand seq right",
                 OpFamily::kReorg,
                 [left](int64_t r, int64_t) {
                   const std::string seq = "seq(1, " + std::to_string(r) + ")·SCALAR·STRING·true";
                   const std::string ins = left ? seq + "°" + mat("A") : mat("A") + "°" + seq;
                   OpCase k = lines("ctableexpand°" + ins + "°1.0·SCALAR·FP64·true°-1·true°" +
                                    "-1·true°" + mat("OUT") + "°false");
                   k.inputs = {dense("A", r, 1, 1, 5.99)};
                   k.outputs = out({"OUT"});
                   return k;
                 },
                 false, false});
  }
  // groupedagg sum / count / mean (weighted or not) of the formatted target, ids 1..4 in rows.
  for (const char* fn : {"sum", "count", "mean"})
    for (bool weighted : {false, true}) {
      const std::string f = fn;
      s.push_back({"groupedagg", "groupedagg fn=" + f + (weighted ? " weighted" : ""),
                   OpFamily::kReorg, [f, weighted](int64_t r, int64_t c) {
                     OpCase k = lines("groupedagg°target=A°groups=G°fn=" + f +
                                      (weighted ? "°weights=W" : "") + "°" + mat("OUT"), "");
                     k.inputs = {in("A", r, c), dense("G", r, 1, 1, 4.99)};
                     if (weighted) k.inputs.push_back(dense("W", r, c, 0, 2));
                     k.outputs = out({"OUT"});
                     return k;
                   }});
    }
  for (const char* op : {"castdts", "castvtd", "castvti", "castvtb"}) {
    const std::string o = op;
    s.push_back({op, o + " of a 1x1", OpFamily::kReorg, [o](int64_t, int64_t) {
                   OpCase k = lines(o + "°" + mat("A") + "°OUT·SCALAR·FP64");
                   k.inputs = {in("A", 1, 1)};
                   k.outputs = {{"OUT", true}};
                   return k;
                 }});
  }
}

// The middle half [n/4 + 1, n - n/4] of 1..n (1..1 for n = 1), 1-based inclusive.
std::pair<int64_t, int64_t> middle(int64_t n) { return {n / 4 + 1, n - n / 4}; }
std::string bounds(int64_t rl, int64_t ru, int64_t cl, int64_t cu) {
  return lit(rl) + "°" + lit(ru) + "°" + lit(cl) + "°" + lit(cu);
}

void add_indexing(std::vector<OpSample>& s) {
  // rightIndex: the middle block, one row, one column (ranges of the index family's GPU paths),
  // and a single cell into a scalar.
  struct Right {
    const char* name;
    int kind;  // 0 block, 1 row, 2 column, 3 cell to scalar
  };
  for (const Right& f : {Right{"rightIndex block", 0}, Right{"rightIndex row", 1},
                         Right{"rightIndex column", 2}, Right{"rightIndex cell to scalar", 3}}) {
    const int kind = f.kind;
    s.push_back({"rightIndex", f.name, OpFamily::kIndexing, [kind](int64_t r, int64_t c) {
                   auto [rl, ru] = middle(r);
                   auto [cl, cu] = middle(c);
                   if (kind == 1 || kind == 3) ru = rl;
                   if (kind == 2 || kind == 3) cu = cl;
                   const std::string res = kind == 3 ? "s·SCALAR·FP64" : mat("OUT");
                   OpCase k =
                       lines("rightIndex°" + mat("X") + "°" + bounds(rl, ru, cl, cu) + "°" + res);
                   k.inputs = {in("X", r, c)};
                   k.outputs = {{kind == 3 ? "s" : "OUT", kind == 3}};
                   return k;
                 }});
  }
  // leftIndex: a matrix into the middle block, a scalar into it.
  for (bool scalar : {false, true}) {
    s.push_back({"leftIndex",
                 scalar ? "leftIndex scalar into block" : "leftIndex matrix into block",
                 OpFamily::kIndexing, [scalar](int64_t r, int64_t c) {
                   const auto [rl, ru] = middle(r);
                   const auto [cl, cu] = middle(c);
                   const std::string rhs = scalar ? num(2.5) : mat("Y");
                   OpCase k = lines("leftIndex°" + mat("X") + "°" + rhs + "°" +
                                    bounds(rl, ru, cl, cu) + "°" + mat("OUT"));
                   k.inputs = {in("X", r, c)};
                   if (!scalar) k.inputs.push_back(in("Y", ru - rl + 1, cu - cl + 1));
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
}

void add_append(std::vector<OpSample>& s) {
  // append (2 inputs): B has about half A's other dimension.
  for (bool cbind : {true, false}) {
    s.push_back(
        {"append", cbind ? "append cbind" : "append rbind", OpFamily::kAppend,
         [cbind](int64_t r, int64_t c) {
           OpCase k = lines("append°" + mat("A") + "°" + mat("B") + "°" + lit(c) + "°" +
                            mat("OUT") + "°" + (cbind ? "true" : "false"));
           k.inputs = {in("A", r, c), in("B", cbind ? r : r / 2 + 1, cbind ? c / 2 + 1 : c)};
           k.outputs = out({"OUT"});
           return k;
         }});
  }
  // n-ary cbind / rbind of three inputs of different widths / heights.
  for (const char* op : {"cbind", "rbind"}) {
    const std::string o = op;
    s.push_back({op, o + " of three", OpFamily::kAppend, [o](int64_t r, int64_t c) {
                   const bool cb = o == "cbind";
                   OpCase k = lines(o + "°" + mat("A") + "°" + mat("B") + "°" + mat("C") + "°" +
                                    mat("OUT"));
                   k.inputs = {in("A", r, c), in("B", cb ? r : r / 2 + 1, cb ? c / 2 + 1 : c),
                               in("C", cb ? r : 1, cb ? 1 : c)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
}

// -------------------------------------------------------------------------------------------
// Matrix multiply, tsmm, solve.

void add_linalg(std::vector<OpSample>& s) {
  // ba+*: A (rows x cols) %*% B (cols x cols), with every transpose flag (the stored operands
  // transposed accordingly), and matrix-vector / vector-matrix.
  struct Mm {
    const char* name;
    bool ta, tb;
    int kind;  // 0 matrix-matrix, 1 matrix-vector, 2 vector-matrix
  };
  for (const Mm& f :
       {Mm{"ba+* A %*% B", false, false, 0}, Mm{"ba+* t(A) %*% B", true, false, 0},
        Mm{"ba+* A %*% t(B)", false, true, 0}, Mm{"ba+* t(A) %*% t(B)", true, true, 0},
        Mm{"ba+* matrix-vector", false, false, 1}, Mm{"ba+* vector-matrix", false, false, 2}}) {
    const bool ta = f.ta, tb = f.tb;
    const int kind = f.kind;
    s.push_back({"ba+*", f.name, OpFamily::kMatmult, [ta, tb, kind](int64_t r, int64_t c) {
                   // (m x k) %*% (k x n)
                   const int64_t m = kind == 2 ? 1 : r, k = kind == 2 ? r : c,
                                 n = kind == 1 ? 1 : c;
                   OpCase cs = lines("ba+*°" + mat("A") + "°" + mat("B") + "°" + mat("C") + "°1°" +
                                     (ta ? "true" : "false") + "°" + (tb ? "true" : "false"));
                   cs.inputs = {in("A", ta ? k : m, ta ? m : k, -1, 1),
                                in("B", tb ? n : k, tb ? k : n, -1, 1)};
                   cs.outputs = out({"C"});
                   cs.tol32 = dot_tol32(k);
                   return cs;
                 }});
  }
  // pmm: P's entries all 1 (or 0 where the case's format leaves zeros): every kept row of X
  // targets row 1 and the last one wins, the rest of the (rows + 2) output rows stay zero.
  s.push_back({"pmm", "pmm (P rows x 1 of ones)", OpFamily::kMatmult, [](int64_t r, int64_t c) {
                 OpCase k = lines("pmm°" + mat("P") + "°" + mat("X") + "°" + lit(r + 2) + "°" +
                                  mat("OUT"), "°1");
                 k.inputs = {in("P", r, 1, 1, 1), in("X", r, c)};
                 k.outputs = out({"OUT"});
                 k.tol64 = k.tol32 = OpTol{0, 0};
                 return k;
               }});
  for (const char* type : {"LEFT", "RIGHT"}) {
    const std::string t = type;
    s.push_back({"tsmm", "tsmm " + t, OpFamily::kMatmult, [t](int64_t r, int64_t c) {
                   OpCase k = lines("tsmm°" + mat("X") + "°" + mat("C") + "°" + t + "°2");
                   k.inputs = {in("X", r, c, -1, 1)};
                   k.outputs = out({"C"});
                   k.tol32 = dot_tol32(t == "LEFT" ? r : c);
                   return k;
                 }});
  }
  // The quaternary ops (Note [GPU quaternary ops]): the weights W and X (rows x cols) in the
  // case's format, U (rows x 3) and V (cols x 3) dense in [0.5, 1.5], so UV' lies in [0.75, 6.75]
  // (no division by zero, log of positive values). Every weights type of SystemDS's CP forms.
  struct Quat {
    const char* opcode;
    std::string fields;  // after the opcode: inputs and output, then the type
    bool scalar_out;
  };
  const std::string uv = mat("U") + "°" + mat("V");
  const std::string uvw = uv + "°";
  const std::string none = "°-1·SCALAR·INT64·true°";
  const Quat quats[] = {
      {"wsloss", mat("X") + "°" + uvw + mat("W") + "°s·SCALAR·FP64°POST", true},
      {"wsloss", mat("X") + "°" + uvw + "1·SCALAR·INT64·true°s·SCALAR·FP64°POST_NZ", true},
      {"wsloss", mat("X") + "°" + uvw + mat("W") + "°s·SCALAR·FP64°PRE", true},
      {"wsloss", mat("X") + "°" + uvw + "1·SCALAR·INT64·true°s·SCALAR·FP64°NONE", true},
      {"wcemm", mat("X") + "°" + uvw + num(0.0) + "°s·SCALAR·FP64°BASIC", true},
      {"wcemm", mat("X") + "°" + uvw + num(0.5) + "°s·SCALAR·FP64°BASIC_EPS", true},
      {"wsigmoid", mat("W") + "°" + uvw + mat("R") + "°BASIC", false},
      {"wsigmoid", mat("W") + "°" + uvw + mat("R") + "°LOG", false},
      {"wsigmoid", mat("W") + "°" + uvw + mat("R") + "°MINUS", false},
      {"wsigmoid", mat("W") + "°" + uvw + mat("R") + "°LOG_MINUS", false},
      {"wumm", "exp°" + mat("W") + "°" + uvw + mat("R") + "°MULT", false},
      {"wumm", "^2°" + mat("W") + "°" + uvw + mat("R") + "°DIV", false},
  };
  std::vector<Quat> all(std::begin(quats), std::end(quats));
  for (const char* t : {"MULT_BASIC", "DIV_LEFT", "DIV_RIGHT", "MULT_LEFT", "MULT_RIGHT",
                        "MULT_MINUS_LEFT", "MULT_MINUS_RIGHT"})
    all.push_back({"wdivmm", mat("W") + "°" + uv + none + mat("R") + "°" + t, false});
  for (const char* t : {"DIV_LEFT_EPS", "DIV_RIGHT_EPS"})
    all.push_back({"wdivmm", mat("W") + "°" + uvw + num(0.5) + "°" + mat("R") + "°" + t, false});
  for (const char* t : {"MULT_MINUS_4_LEFT", "MULT_MINUS_4_RIGHT"})
    all.push_back({"wdivmm", mat("W") + "°" + uvw + mat("X") + "°" + mat("R") + "°" + t, false});
  for (const Quat& q : all) {
    const std::string fields = std::string(q.opcode) + "°" + q.fields + "°2";
    const bool scalar = q.scalar_out;
    const std::string sep = "°";  // two bytes in UTF-8
    const std::string label =
        std::string(q.opcode) + " " + q.fields.substr(q.fields.rfind(sep) + sep.size());
    s.push_back({q.opcode, label, OpFamily::kMatmult, [fields, scalar](int64_t r, int64_t c) {
                   OpCase k = lines(fields);
                   k.inputs = {in("W", r, c, 0, 2), in("X", r, c, -2, 2),
                               in("U", r, 3, 0.5, 1.5, false), in("V", c, 3, 0.5, 1.5, false)};
                   k.outputs = {{scalar ? "s" : "R", scalar}};
                   if (scalar) k.tol32 = {1e-3, 1e-4, false};  // float cells summed over r x c
                   return k;
                 }});
  }
  // solve: A (rows x rows) strictly diagonally dominant in the case's format (the empty format
  // leaves its diagonal), so |x| <= |b|; B rows x cols.
  s.push_back({"solve", "solve dominant A", OpFamily::kSolve, [](int64_t r, int64_t c) {
                 OpCase k = lines("solve°" + mat("A") + "°" + mat("B") + "°" + mat("X") + "°2");
                 OpInput a = in("A", r, r, -1, 1);
                 a.dominant = true;
                 k.inputs = {a, in("B", r, c, -1, 1)};
                 k.outputs = out({"X"});
                 const double scale = std::max(1.0, std::sqrt(static_cast<double>(r)) / 4);
                 k.tol32 = {1e-4 * scale, 1e-4, false};
                 return k;
               }});
}

// -------------------------------------------------------------------------------------------
// einsum (Note [GPU einsum order] in kernels/cuda/einsum.cu): the conformance case's equations
// and an outer product, on operands A, B, C in the equation's order. An operand's dims are
// rows x cols unless the sample's name says otherwise. Sums run in double on both precisions.

void add_einsum(std::vector<OpSample>& s) {
  // A dim r * rows + c * cols + k.
  struct Dim {
    int64_t r, c, k;
  };
  const Dim R{1, 0, 0}, C{0, 1, 0}, One{0, 0, 1};
  struct Eq {
    const char* eq;
    const char* label;  // the shapes, where not rows x cols
    std::vector<std::pair<Dim, Dim>> dims;
  };
  const Eq eqs[] = {
      {"ij,jk->ik", " (B cols x cols)", {{R, C}, {C, C}}},
      {"ij->ji", "", {{R, C}}},
      {"ij->i", "", {{R, C}}},
      {"ij->j", "", {{R, C}}},
      {"ii->i", " (A rows x rows)", {{R, R}}},
      {"ij,kj->ik", "", {{R, C}, {R, C}}},
      {"ij,j->i", " (B cols x 1)", {{R, C}, {C, One}}},
      {"i,j->ij", " (A rows x 1, B 1 x cols)", {{R, One}, {One, C}}},
      {"ij,jk,kl->il", " (B cols x cols, C cols x rows)", {{R, C}, {C, C}, {C, R}}},
      {"ij->", "", {{R, C}}},
      {"ij,ij->", "", {{R, C}, {R, C}}},
  };
  for (const Eq& e : eqs) {
    const std::string eq = e.eq;
    const bool scalar = eq.back() == '>';
    const auto dims = e.dims;
    s.push_back({"einsum", "einsum " + eq + e.label, OpFamily::kMatmult,
                 [eq, scalar, dims](int64_t r, int64_t c) {
                   auto at = [&](const Dim& d) { return d.r * r + d.c * c + d.k; };
                   std::string fields = "einsum°" + str(eq);
                   std::vector<OpInput> inputs;
                   for (size_t k = 0; k < dims.size(); ++k) {
                     const std::string name(1, static_cast<char>('A' + k));
                     inputs.push_back(in(name, at(dims[k].first), at(dims[k].second)));
                     fields += "°" + mat(name);
                   }
                   OpCase cs = lines(fields + (scalar ? "°s·SCALAR·FP64" : "°" + mat("R")));
                   cs.inputs = inputs;
                   cs.outputs = {{scalar ? "s" : "R", scalar}};
                   return cs;
                 }});
  }
}

// -------------------------------------------------------------------------------------------
// inverse, cholesky, det, lu, qr, svd (cuSOLVER; Note [GPU linalg] in kernels/cuda/linalg_op.cpp).
// Square ops read A rows x rows. Strictly dominant inputs keep every format well conditioned
// (the empty format leaves the diagonal); the pivoting samples take dense random inputs, FP64
// only (an FP32 pivot may pick the other of two nearly equal candidates).

void add_factor(std::vector<OpSample>& s) {
  struct Square {
    const char* opcode;
    const char* outputs;  // the line's output fields
    std::vector<OpOutput> compared;
  };
  const Square ops[] = {{"inverse", "X·MATRIX·FP64", {{"X", false}}},
                        {"det", "d·SCALAR·FP64", {{"d", true}}},
                        {"lu", "P°L°U", {{"P", false}, {"L", false}, {"U", false}}}};
  for (const Square& op : ops) {
    for (bool pivoting : {false, true}) {
      const std::string o = op.opcode, outs = op.outputs;
      const std::vector<OpOutput> compared = op.compared;
      s.push_back({op.opcode,
                   o + (pivoting ? " pivoting (rows x rows, dense)" : " dominant (rows x rows)"),
                   OpFamily::kFactor,
                   [o, outs, compared, pivoting](int64_t r, int64_t) {
                     OpCase k = lines(o + "°" + mat("A") + "°" + outs, "°8");
                     OpInput a = in("A", r, r, -1, 1);
                     a.dominant = !pivoting;
                     k.inputs = {a};
                     k.outputs = compared;
                     k.fp32 = !pivoting;
                     return k;
                   },
                   !pivoting, !pivoting});
    }
  }
  // A symmetric, strictly dominant A with a positive diagonal: positive definite.
  s.push_back({"cholesky", "cholesky SPD (rows x rows)", OpFamily::kFactor,
               [](int64_t r, int64_t) {
                 OpCase k = lines("cholesky°" + mat("A") + "°" + mat("L"), "°8");
                 OpInput a = in("A", r, r, -1, 1);
                 a.symmetric = a.dominant = true;
                 k.inputs = {a};
                 k.outputs = out({"L"});
                 return k;
               }});
  // qr of a dominant A: columns that are well apart, so that the reflections (and the tau == 0
  // cases where nothing lies below the diagonal) are the same on both sides.
  s.push_back({"qr", "qr dominant", OpFamily::kFactor, [](int64_t r, int64_t c) {
                 OpCase k = lines("qr°" + mat("A") + "°H°R", "°8");
                 OpInput a = in("A", r, c, -1, 1);
                 a.dominant = true;
                 k.inputs = {a};
                 k.outputs = out({"H", "R"});
                 return k;
               }});
  // svd: the singular values, U Sigma t(V), t(U) U and t(V) V, which do not depend on the signs
  // of the singular vector pairs or on the bases of repeated (zero) singular values.
  s.push_back({"svd", "svd (Sigma, U Sigma t(V), t(U) U, t(V) V)", OpFamily::kFactor,
               [](int64_t r, int64_t c) {
                 OpCase k = lines("svd°" + mat("A") + "°U°S°V", "°8");
                 k.inputs = {in("A", r, c)};
                 k.then = {"CP°ba+*°" + mat("U") + "°" + mat("S") + "°" + mat("US") + "°1",
                           "CP°r'°" + mat("V") + "°" + mat("Vt") + "°1",
                           "CP°ba+*°" + mat("US") + "°" + mat("Vt") + "°" + mat("USVt") + "°1",
                           "CP°tsmm°" + mat("U") + "°" + mat("UtU") + "°LEFT°1",
                           "CP°tsmm°" + mat("V") + "°" + mat("VtV") + "°LEFT°1"};
                 k.outputs = out({"S", "USVt", "UtU", "VtV"});
                 k.tol32 = {5e-4, 1e-4, false};
                 return k;
               }});
  // eigen of a symmetric A (syevd): the eigenvalues, V diag(L) t(V) and t(V) V, which do not
  // depend on the bases of repeated eigenvalues (the sparse and empty formats have many);
  // tests/gpu/test_gpu_eigen.cpp compares V itself where the eigenvalues are distinct.
  s.push_back({"eigen", "eigen symmetric (L, V diag(L) t(V), t(V) V)", OpFamily::kFactor,
               [](int64_t r, int64_t) {
                 OpCase k = lines("eigen°" + mat("A") + "°L°V", "°8");
                 OpInput a = in("A", r, r);
                 a.symmetric = true;
                 k.inputs = {a};
                 k.then = {"CP°r'°" + mat("L") + "°" + mat("Lt") + "°1",
                           "CP°*°" + mat("V") + "°" + mat("Lt") + "°" + mat("VL"),
                           "CP°r'°" + mat("V") + "°" + mat("Vt") + "°1",
                           "CP°ba+*°" + mat("VL") + "°" + mat("Vt") + "°" + mat("VLVt") + "°1",
                           "CP°tsmm°" + mat("V") + "°" + mat("VtV") + "°LEFT°1"};
                 k.outputs = out({"L", "VLVt", "VtV"});
                 k.tol32 = {5e-4, 1e-4, false};
                 return k;
               }});
}

// -------------------------------------------------------------------------------------------
// FFTs through cuFFT: rows and cols are rounded down to powers of two where the transform needs
// them (1x1, 32x16, 4x256); stft frames rows x cols with a zero-padded last frame. FP32 error
// follows the size of the spectrum, hence `rms`.

int64_t pow2_floor(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

void add_fft(std::vector<OpSample>& s) {
  struct F {
    const char* opcode;
    const char* name;
    bool two_d, complex;
  };
  for (const F& f : {F{"fft", "fft real", true, false}, F{"ifft", "ifft complex", true, true},
                     F{"ifft", "ifft real", true, false},
                     F{"fft_linearized", "fft_linearized real", false, false},
                     F{"ifft_linearized", "ifft_linearized complex", false, true}}) {
    const std::string op = f.opcode;
    const bool two_d = f.two_d, complex = f.complex;
    s.push_back({f.opcode, f.name, OpFamily::kFft, [op, two_d, complex](int64_t r, int64_t c) {
                   const int64_t m = two_d ? pow2_floor(r) : r, n = pow2_floor(c);
                   OpCase k = lines(op + "°" + mat("X") + (complex ? "°" + mat("Y") : "") + "°R°I",
                                    "°2");
                   k.inputs = {in("X", m, n)};
                   if (complex) k.inputs.push_back(in("Y", m, n));
                   k.outputs = out({"R", "I"});
                   k.tol64 = {1e-9, 1e-9, true};
                   k.tol32 = {1e-4, 1e-4, true};
                   return k;
                 }});
  }
  for (const bool complex : {false, true}) {
    const int64_t w = complex ? 8 : 4, o = complex ? 3 : 1;
    s.push_back({"stft", complex ? "stft complex window 8 overlap 3" : "stft window 4 overlap 1",
                 OpFamily::kFft, [complex, w, o](int64_t r, int64_t c) {
                   OpCase k = lines("stft°" + mat("X") + (complex ? "°" + mat("Y") : "") + "°" +
                                        lit(w) + "°" + lit(o) + "°R°I",
                                    "°2");
                   k.inputs = {in("X", r, c)};
                   if (complex) k.inputs.push_back(in("Y", r, c));
                   k.outputs = out({"R", "I"});
                   k.tol64 = {1e-9, 1e-9, true};
                   k.tol32 = {1e-4, 1e-4, true};
                   return k;
                 }});
  }
}

// -------------------------------------------------------------------------------------------
// rand and seq: no matrix inputs; the GPU draws the CPU's Philox cells (FP64 equal to the last
// bit, FP32 those values rounded: test_gpu_datagen.cpp).

void add_datagen(std::vector<OpSample>& s) {
  struct Rand {
    const char* name;
    const char* pdf;
    double min, max, sparsity, lambda;
  };
  for (const Rand& p : {Rand{"rand uniform dense", "uniform", -2.5, 4.0, 1.0, 1.0},
                        Rand{"rand uniform sparse 0.1", "uniform", 0.0, 1.0, 0.1, 1.0},
                        Rand{"rand uniform ultra-sparse 0.001", "uniform", 0.0, 1.0, 0.001, 1.0},
                        Rand{"rand uniform empty", "uniform", 0.0, 1.0, 0.0, 1.0},
                        Rand{"rand constant", "uniform", 2.5, 2.5, 1.0, 1.0},
                        Rand{"rand normal", "normal", 0.0, 1.0, 1.0, 1.0},
                        Rand{"rand poisson", "poisson", 0.0, 1.0, 1.0, 3.5}}) {
    s.push_back({"rand", p.name, OpFamily::kDataGen,
                 [p](int64_t r, int64_t c) {
                   OpCase k = lines("rand°" + lit(r) + "°" + lit(c) + "°1000°" + bare(p.min) + "°" +
                                    bare(p.max) + "°" + bare(p.sparsity) + "°7°" + p.pdf + "°" +
                                    bare(p.lambda) + "°2°" + mat("OUT"));
                   k.outputs = out({"OUT"});
                   k.tol64 = {1e-15, 1e-15, false};
                   k.tol32 = {1e-7, 1e-7, false};
                   k.round_reference = true;
                   return k;
                 },
                 false, false});
  }
  // seq of `rows` values: ascending by 1, by a binary fraction, descending.
  struct Seq {
    const char* name;
    double from, incr;
  };
  for (const Seq& q :
       {Seq{"seq by 1", 1, 1}, Seq{"seq by 0.25", 0.5, 0.25}, Seq{"seq descending", -3, -1}}) {
    s.push_back({"seq", q.name, OpFamily::kDataGen,
                 [q](int64_t r, int64_t) {
                   const double to = q.from + q.incr * static_cast<double>(r - 1);
                   OpCase k = lines("seq°-1°1°1000°" + num(q.from) + "°" + num(to) + "°" +
                                    num(q.incr) + "°" + mat("OUT"));
                   k.outputs = out({"OUT"});
                   k.tol64 = {1e-15, 1e-15, false};
                   k.tol32 = {1e-7, 1e-7, false};
                   k.round_reference = true;
                   return k;
                 },
                 false, false});
  }
}

// -------------------------------------------------------------------------------------------
// sample with replacement (the CPU's Philox draws, bit for bit; without replacement it has no GPU
// run) and sqrt_matrix_java of an SPD matrix (cuSOLVER syevd): test_gpu_sample_sqrtm.cpp keeps
// the edge cases and errors.

void add_sample_sqrtm(std::vector<OpSample>& s) {
  s.push_back({"sample", "sample with replacement (rows*cols of 7*cols+3)", OpFamily::kDataGen,
               [](int64_t r, int64_t c) {
                 OpCase k = lines("sample°" + std::to_string(7 * c + 3) + "°" + lit(r * c) +
                                  "°true°11°1000°" + mat("OUT"));
                 k.outputs = out({"OUT"});
                 k.tol64 = {0, 0, false};
                 k.tol32 = {0, 0, false};
                 k.round_reference = true;
                 return k;
               },
               false, false});
  s.push_back({"sqrt_matrix_java", "sqrt_matrix_java SPD (rows x rows)", OpFamily::kFactor,
               [](int64_t r, int64_t) {
                 OpCase k = lines("sqrt_matrix_java°" + mat("A") + "°" + mat("X"), "°8");
                 OpInput a = in("A", r, r, -1, 1);
                 a.symmetric = a.dominant = true;
                 k.inputs = {a};
                 k.outputs = out({"X"});
                 k.tol32 = {5e-4, 1e-4, false};
                 return k;
               }});
}

// -------------------------------------------------------------------------------------------
// DNN: N = rows images of about cols pixels (window()), C = 2 channels, K = 3 filters.

struct Geometry {
  int64_t n, c, h, w, k, r, s, sh, sw, ph, pw;
  int64_t p() const { return (h + 2 * ph - r) / sh + 1; }
  int64_t q() const { return (w + 2 * pw - s) / sw + 1; }
  // The 12 shape scalars: stride_h, stride_w, pad_h, pad_w, N, C, H, W, K, C, R, S.
  std::string scalars() const {
    std::string o;
    for (int64_t v : {sh, sw, ph, pw, n, c, h, w, k, c, r, s}) o += "°" + lit(v);
    return o;
  }
};

// A 3x3 window over images of about `cols` pixels (side ceil(sqrt(cols))): stride 1 pad 1
// (P = H) or stride 2 pad 0 (side at least 3).
Geometry window(int64_t rows, int64_t cols, bool strided, int64_t k) {
  int64_t side = 1;
  while (side * side < cols) ++side;
  if (strided) side = std::max<int64_t>(side, 3);
  return strided ? Geometry{rows, 2, side, side, k, 3, 3, 2, 2, 0, 0}
                 : Geometry{rows, 2, side, side, k, 3, 3, 1, 1, 1, 1};
}

void add_conv(std::vector<OpSample>& s) {
  for (bool strided : {false, true}) {
    const std::string g = strided ? " 3x3 stride 2" : " 3x3 pad 1";
    // conv2d with a dense filter over formatted images, and a formatted (sparse) filter over dense
    // images (the sparse-filter path).
    for (bool sparse_w : {false, true}) {
      s.push_back({"conv2d", "conv2d" + g + (sparse_w ? " formatted W" : ""), OpFamily::kDnn,
                   [strided, sparse_w](int64_t r, int64_t c) {
                     const Geometry ge = window(r, c, strided, 3);
                     OpCase k = lines("conv2d°" + mat("X") + "°" + mat("W") + ge.scalars() + "°" +
                                      mat("OUT"));
                     k.inputs = {in("X", ge.n, ge.c * ge.h * ge.w, -2, 2, !sparse_w),
                                 in("W", ge.k, ge.c * ge.r * ge.s, -2, 2, sparse_w)};
                     k.outputs = out({"OUT"});
                     k.tol32 = conv_tol32(ge.c * ge.r * ge.s);
                     return k;
                   }});
    }
    s.push_back(
        {"conv2d_bias_add", "conv2d_bias_add" + g, OpFamily::kDnn, [strided](int64_t r, int64_t c) {
           const Geometry ge = window(r, c, strided, 3);
           OpCase k = lines("conv2d_bias_add°" + mat("X") + "°" + mat("B") + "°" + mat("W") +
                            ge.scalars() + "°" + mat("OUT"));
           k.inputs = {in("X", ge.n, ge.c * ge.h * ge.w), dense("B", ge.k, 1),
                       dense("W", ge.k, ge.c * ge.r * ge.s)};
           k.outputs = out({"OUT"});
           k.tol32 = conv_tol32(ge.c * ge.r * ge.s);
           return k;
         }});
    s.push_back(
        {"conv2d_backward_filter", "conv2d_backward_filter" + g, OpFamily::kDnn,
         [strided](int64_t r, int64_t c) {
           const Geometry ge = window(r, c, strided, 3);
           OpCase k = lines("conv2d_backward_filter°" + mat("X") + "°" + mat("D") + ge.scalars() +
                            "°" + mat("OUT"));
           k.inputs = {in("X", ge.n, ge.c * ge.h * ge.w), in("D", ge.n, ge.k * ge.p() * ge.q())};
           k.outputs = out({"OUT"});
           k.tol32 = conv_tol32(ge.n * ge.p() * ge.q());
           return k;
         }});
    s.push_back(
        {"conv2d_backward_data", "conv2d_backward_data" + g, OpFamily::kDnn,
         [strided](int64_t r, int64_t c) {
           const Geometry ge = window(r, c, strided, 3);
           OpCase k = lines("conv2d_backward_data°" + mat("W") + "°" + mat("D") + ge.scalars() +
                            "°" + mat("OUT"));
           k.inputs = {dense("W", ge.k, ge.c * ge.r * ge.s), in("D", ge.n, ge.k * ge.p() * ge.q())};
           k.outputs = out({"OUT"});
           k.tol32 = conv_tol32(ge.k * ge.r * ge.s);
           return k;
         }});
  }
}

void add_pool(std::vector<OpSample>& s) {
  // Pooling keeps the channels (K = C); fields ...°OUT°k°budget as in test_gpu_dnn_pool.cpp.
  const char* const ops[][2] = {{"maxpooling", "maxpooling_backward"},
                                {"avgpooling", "avgpooling_backward"},
                                {"relu_maxpooling", "relu_maxpooling_backward"}};
  for (bool strided : {false, true}) {
    const std::string g = strided ? " 3x3 stride 2" : " 3x3 pad 1";
    for (const auto& op : ops) {
      const std::string f = op[0], b = op[1];
      s.push_back({op[0], f + g, OpFamily::kDnn, [f, strided](int64_t r, int64_t c) {
                     const Geometry ge = window(r, c, strided, 2);
                     OpCase k =
                         lines(f + "°" + mat("X") + ge.scalars() + "°" + mat("OUT") + "°1°1.0E9");
                     k.inputs = {in("X", ge.n, ge.c * ge.h * ge.w)};
                     k.outputs = out({"OUT"});
                     return k;
                   }});
      s.push_back(
          {op[1], b + g, OpFamily::kDnn, [b, strided](int64_t r, int64_t c) {
             const Geometry ge = window(r, c, strided, 2);
             OpCase k = lines(b + "°" + mat("X") + "°" + mat("D") + ge.scalars() + "°" +
                              mat("OUT") + "°1°1.0E9");
             k.inputs = {in("X", ge.n, ge.c * ge.h * ge.w), in("D", ge.n, ge.c * ge.p() * ge.q())};
             k.outputs = out({"OUT"});
             return k;
           }});
    }
  }
}

// relu_backward, bias_add / bias_multiply (X: N x K*PQ with K = 3, PQ = cols), channel_sums
// (C = 3, HW = cols), update_nesterov_x.
void add_dnn_cellwise(std::vector<OpSample>& s) {
  s.push_back({"relu_backward", "relu_backward", OpFamily::kDnn, [](int64_t r, int64_t c) {
                 OpCase k = lines("relu_backward°" + mat("X") + "°" + mat("D") + "°" + mat("OUT") +
                                  "°1°0.0");
                 k.inputs = {in("X", r, c), in("D", r, c)};
                 k.outputs = out({"OUT"});
                 return k;
               }});
  for (const char* op : {"bias_add", "bias_multiply"}) {
    const std::string o = op;
    s.push_back({op, o, OpFamily::kDnn, [o](int64_t r, int64_t c) {
                   OpCase k =
                       lines(o + "°" + mat("X") + "°" + mat("B") + "°" + mat("OUT") + "°1°0.0");
                   k.inputs = {in("X", r, 3 * c), dense("B", 3, 1)};
                   k.outputs = out({"OUT"});
                   return k;
                 }});
  }
  s.push_back({"channel_sums", "channel_sums", OpFamily::kDnn, [](int64_t r, int64_t c) {
                 OpCase k = lines("channel_sums°" + mat("X") + "°" + lit(3) + "°" + lit(c) + "°" +
                                  mat("OUT"));
                 k.inputs = {in("X", r, 3 * c)};
                 k.outputs = out({"OUT"});
                 return k;
               }});
  s.push_back({"update_nesterov_x", "update_nesterov_x", OpFamily::kDnn, [](int64_t r, int64_t c) {
                 OpCase k = lines("update_nesterov_x°" + mat("X") + "°" + mat("V") + "°" +
                                  mat("P") + "°" + num(0.9) + "°" + mat("OUT"));
                 k.inputs = {in("X", r, c), in("V", r, c), dense("P", r, c)};
                 k.outputs = out({"OUT"});
                 return k;
               }});
}

// batch_norm2d* over X: N x C*HW with C = 3, HW = cols; scale, bias and running mean in [-2, 2],
// running variance (and the backward's inverse variance) in [0.5, 2.5]. GPU layout (typed
// outputs, no k), which the CPU runs too.
std::vector<OpInput> bn_inputs(int64_t r, int64_t c) {
  return {in("X", r, 3 * c), dense("S", 3, 1), dense("B", 3, 1), dense("RM", 3, 1),
          dense("RV", 3, 1, 0.5, 2.5)};
}
const std::string& bn_in() {
  static const std::string s =
      mat("X") + "°" + mat("S") + "°" + mat("B") + "°" + mat("RM") + "°" + mat("RV");
  return s;
}
std::string five_outputs() {
  std::string o;
  for (const char* n : {"O0", "O1", "O2", "O3", "O4"}) o += "°" + mat(n);
  return o;
}

void add_batchnorm(std::vector<OpSample>& s) {
  for (const char* mode : {"train", "test"}) {
    const std::string m = mode;
    s.push_back({"batch_norm2d", "batch_norm2d " + m, OpFamily::kDnn, [m](int64_t r, int64_t c) {
                   OpCase k = lines("batch_norm2d°" + bn_in() + "°" + str(m) + "°" + num(1e-5) +
                                    "°" + num(0.9) + five_outputs());
                   k.inputs = bn_inputs(r, c);
                   k.outputs = out({"O0", "O1", "O2", "O3", "O4"});
                   return k;
                 }});
  }
  s.push_back(
      {"batch_norm2d_train", "batch_norm2d_train", OpFamily::kDnn, [](int64_t r, int64_t c) {
         OpCase k = lines("batch_norm2d_train°" + bn_in() + "°" + num(1e-5) + "°" + num(0.9) +
                          five_outputs());
         k.inputs = bn_inputs(r, c);
         k.outputs = out({"O0", "O1", "O2", "O3", "O4"});
         return k;
       }});
  s.push_back({"batch_norm2d_test", "batch_norm2d_test", OpFamily::kDnn, [](int64_t r, int64_t c) {
                 OpCase k =
                     lines("batch_norm2d_test°" + bn_in() + "°" + num(1e-5) + "°" + mat("O0"));
                 k.inputs = bn_inputs(r, c);
                 k.outputs = out({"O0"});
                 return k;
               }});
  // Arbitrary saved statistics (not the batch's own), so sum(x - mean) != 0.
  s.push_back(
      {"batch_norm2d_backward", "batch_norm2d_backward", OpFamily::kDnn, [](int64_t r, int64_t c) {
         OpCase k = lines("batch_norm2d_backward°" + mat("X") + "°" + mat("D") + "°" + mat("S") +
                          "°" + num(1e-5) + "°" + mat("SM") + "°" + mat("IV") + "°" + mat("O0") +
                          "°" + mat("O1") + "°" + mat("O2"));
         k.inputs = {in("X", r, 3 * c), in("D", r, 3 * c), dense("S", 3, 1), dense("SM", 3, 1),
                     dense("IV", 3, 1, 0.5, 2.5)};
         k.outputs = out({"O0", "O1", "O2"});
         return k;
       }});
}

// lstm over N = rows sequences of T = 2 steps of D = cols features, M = 5 hidden units; weights,
// bias and initial states in [-0.5, 0.5] (gates away from saturation). The GPU layout (out°cy;
// the backward without caches, on cuDNN) and the forward's CP layout (five outputs, three of
// them SystemDS's caches, on cuBLAS and the step kernels).
constexpr int64_t kSteps = 2, kHidden = 5;

std::vector<OpInput> lstm_inputs(int64_t n, int64_t d) {
  return {in("X", n, kSteps * d), dense("W", d + kHidden, 4 * kHidden, -0.5, 0.5),
          dense("b", 1, 4 * kHidden, -0.5, 0.5), dense("out0", n, kHidden, -0.5, 0.5),
          dense("c0", n, kHidden, -0.5, 0.5)};
}
std::string lstm_in(bool rs) {
  return mat("X") + "°" + mat("W") + "°" + mat("b") + "°" + mat("out0") + "°" + mat("c0") + "°" +
         flag(rs);
}

void add_lstm(std::vector<OpSample>& s) {
  for (bool rs : {true, false}) {
    const std::string seq = rs ? " return_sequences" : " last step";
    s.push_back({"lstm", "lstm" + seq, OpFamily::kDnn, [rs](int64_t r, int64_t c) {
                   OpCase k = lines("lstm°" + lstm_in(rs) + "°" + mat("out") + "°" + mat("cy"));
                   k.inputs = lstm_inputs(r, c);
                   k.outputs = out({"out", "cy"});
                   return k;
                 }});
    s.push_back({"lstm", "lstm CP layout" + seq, OpFamily::kDnn, [rs](int64_t r, int64_t c) {
                   OpCase k = lines("lstm°" + lstm_in(rs) + "°" + mat("out") + "°" + mat("cy") +
                                    "°" + mat("cache_out") + "°" + mat("cache_c") + "°" +
                                    mat("cache_ifog") + "°1");
                   k.inputs = lstm_inputs(r, c);
                   k.outputs = out({"out", "cy", "cache_out", "cache_c", "cache_ifog"});
                   return k;
                 }});
    s.push_back(
        {"lstm_backward", "lstm_backward" + seq, OpFamily::kDnn, [rs](int64_t r, int64_t c) {
           std::string l = "lstm_backward°" + lstm_in(rs) + "°" + mat("dout") + "°" + mat("dc");
           for (const char* o : {"dX", "dW", "db", "dout0", "dc0"}) l += "°" + mat(o);
           OpCase k = lines(l);
           k.inputs = lstm_inputs(r, c);
           k.inputs.push_back(dense("dout", r, rs ? kSteps * kHidden : kHidden));
           k.inputs.push_back(dense("dc", r, kHidden));
           k.outputs = out({"dX", "dW", "db", "dout0", "dc0"});
           return k;
         }});
  }
}

// -------------------------------------------------------------------------------------------
// mmchain (X rows x cols, v cols x 1, w or y rows x 1); tak+* / tack+* over three rows x cols
// operands or scalars; cov and cm over vectors of rows * cols cells (weights dense, positive).

void add_stats(std::vector<OpSample>& s) {
  for (const char* type : {"XtXv", "XtwXv", "XtXvy"}) {
    const std::string t = type;
    s.push_back({"mmchain", "mmchain " + t, OpFamily::kMatmult, [t](int64_t r, int64_t c) {
                   const std::string w = t == "XtXv" ? "" : mat("W") + "°";
                   OpCase k = lines("mmchain°" + mat("X") + "°" + mat("V") + "°" + w + mat("R") +
                                        "°" + t,
                                    "°8");
                   k.inputs = {in("X", r, c, -1, 1), in("V", c, 1, -1, 1)};
                   if (t != "XtXv") k.inputs.push_back(dense("W", r, 1, -1, 1));
                   k.outputs = out({"R"});
                   k.tol32 = dot_tol32(r * c);  // two chained float products
                   return k;
                 }});
  }
  for (const char* op : {"tak+*", "tack+*"}) {
    const std::string o = op;
    for (int kind : {0, 1, 2}) {
      const char* name = kind == 0 ? " M M M" : (kind == 1 ? " M s M" : " M M s");
      s.push_back({op, o + name, OpFamily::kAggregate, [o, kind](int64_t r, int64_t c) {
                     const std::string b = kind == 1 ? num(2.5) : mat("B"),
                                       cc = kind == 2 ? num(-0.75) : mat("C");
                     const bool scalar = o == "tak+*";
                     OpCase k = lines(o + "°" + mat("A") + "°" + b + "°" + cc + "°" +
                                          (scalar ? "s·SCALAR·FP64" : mat("R")),
                                      "°8");
                     k.inputs = {in("A", r, c, -1, 1)};
                     if (kind != 1) k.inputs.push_back(in("B", r, c, -1, 1));
                     if (kind != 2) k.inputs.push_back(in("C", r, c, -1, 1));
                     k.outputs = {{scalar ? "s" : "R", scalar}};
                     return k;
                   }});
    }
  }
  for (bool weighted : {false, true}) {
    const std::string wname = weighted ? " weighted" : "";
    s.push_back({"cov", "cov" + wname + " (rows*cols x 1)", OpFamily::kAggregate,
                 [weighted](int64_t r, int64_t c) {
                   const std::string w = weighted ? mat("W") + "°" : "";
                   OpCase k =
                       lines("cov°" + mat("X") + "°" + mat("Y") + "°" + w + "s·SCALAR·FP64", "°8");
                   k.inputs = {in("X", r * c, 1), in("Y", r * c, 1)};
                   if (weighted) k.inputs.push_back(dense("W", r * c, 1, 0.5, 1.5));
                   k.outputs = {{"s", true}};
                   return k;
                 }});
    for (int order : {0, 2, 3, 4}) {
      s.push_back({"cm", "cm" + wname + " order " + std::to_string(order) + " (rows*cols x 1)",
                   OpFamily::kAggregate, [weighted, order](int64_t r, int64_t c) {
                     const std::string w = weighted ? mat("W") + "°" : "";
                     OpCase k =
                         lines("cm°" + mat("X") + "°" + w + lit(order) + "°s·SCALAR·FP64", "°8");
                     k.inputs = {in("X", r * c, 1)};
                     if (weighted) k.inputs.push_back(dense("W", r * c, 1, 0.5, 1.5));
                     k.outputs = {{"s", true}};
                     return k;
                   }});
    }
  }
}

// -------------------------------------------------------------------------------------------
// union_distinct (distinct rows of rbind(A, B), first-occurrence order) and rcm (rowClassMeet:
// labels cast to int, values in [-3, 4) give many zeros and repeated classes), both exact;
// test_gpu_union.cpp keeps the duplicate-heavy and NaN / -0.0 cases.

void add_union_rcm(std::vector<OpSample>& s) {
  const OpTol exact{0, 0, false};
  s.push_back({"union_distinct", "union_distinct A, B (rows x cols each)", OpFamily::kAppend,
               [exact](int64_t r, int64_t c) {
                 OpCase k =
                     lines("union_distinct°" + mat("A") + "°" + mat("B") + "°" + mat("C"), "°8");
                 k.inputs = {in("A", r, c, -1, 1), in("B", r, c, -1, 1)};
                 k.outputs = out({"C"});
                 k.tol64 = k.tol32 = exact;
                 return k;
               }});
  for (const bool row_b : {false, true}) {
    s.push_back({"rcm", row_b ? "rcm B (1 x cols)" : "rcm B (rows x cols)", OpFamily::kFft,
                 [exact, row_b](int64_t r, int64_t c) {
                   OpCase k = lines("rcm°" + mat("A") + "°" + mat("B") + "°C°N", "°8");
                   k.inputs = {in("A", r, c, -3, 4), in("B", row_b ? 1 : r, c, -3, 4)};
                   k.outputs = out({"C", "N"});
                   k.tol64 = k.tol32 = exact;
                   return k;
                 }});
  }
}

}  // namespace

const std::vector<OpSample>& op_samples() {
  static const std::vector<OpSample> samples = [] {
    std::vector<OpSample> s;
    add_binary(s);
    add_bitwise(s);
    add_unary(s);
    add_ternary(s);
    add_nary(s);
    add_outer_chain(s);
    add_aggregates(s);
    add_reorg(s);
    add_sort(s);
    add_parameterized(s);
    add_indexing(s);
    add_append(s);
    add_linalg(s);
    add_einsum(s);
    add_stats(s);
    add_union_rcm(s);
    add_fft(s);
    add_factor(s);
    add_datagen(s);
    add_sample_sqrtm(s);
    add_conv(s);
    add_pool(s);
    add_dnn_cellwise(s);
    add_batchnorm(s);
    add_lstm(s);
    return s;
  }();
  return samples;
}

const std::vector<std::pair<int64_t, int64_t>>& op_test_sizes() {
  static const std::vector<std::pair<int64_t, int64_t>> sizes = {{1, 1}, {37, 23}, {5, 300}};
  return sizes;
}

}  // namespace dmlrt::test::gpu
