// Quaternary instructions: parsing, shape rules and CPU run (quaternary_instructions.h).
#include "instructions/quaternary_instructions.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

namespace k = kernels::cpu;

// The enum value named `name` in `table`; false when none is.
template <typename E>
bool lookup(const std::vector<std::pair<const char*, E>>& table, const std::string& name, E* out) {
  for (const auto& [n, e] : table)
    if (name == n) {
      *out = e;
      return true;
    }
  return false;
}

const std::vector<std::pair<const char*, k::WslossType>> kWslossTypes = {
    {"POST", k::WslossType::kPost},
    {"POST_NZ", k::WslossType::kPostNz},
    {"PRE", k::WslossType::kPre},
    {"NONE", k::WslossType::kNone}};
const std::vector<std::pair<const char*, k::WdivmmType>> kWdivmmTypes = {
    {"DIV_LEFT", k::WdivmmType::kDivLeft},
    {"DIV_RIGHT", k::WdivmmType::kDivRight},
    {"DIV_LEFT_EPS", k::WdivmmType::kDivLeftEps},
    {"DIV_RIGHT_EPS", k::WdivmmType::kDivRightEps},
    {"MULT_BASIC", k::WdivmmType::kMultBasic},
    {"MULT_LEFT", k::WdivmmType::kMultLeft},
    {"MULT_RIGHT", k::WdivmmType::kMultRight},
    {"MULT_MINUS_LEFT", k::WdivmmType::kMultMinusLeft},
    {"MULT_MINUS_RIGHT", k::WdivmmType::kMultMinusRight},
    {"MULT_MINUS_4_LEFT", k::WdivmmType::kMultMinus4Left},
    {"MULT_MINUS_4_RIGHT", k::WdivmmType::kMultMinus4Right}};
const std::vector<std::pair<const char*, k::WcemmType>> kWcemmTypes = {
    {"BASIC", k::WcemmType::kBasic}, {"BASIC_EPS", k::WcemmType::kBasicEps}};
const std::vector<std::pair<const char*, k::WsigmoidType>> kWsigmoidTypes = {
    {"BASIC", k::WsigmoidType::kBasic},
    {"LOG", k::WsigmoidType::kLog},
    {"MINUS", k::WsigmoidType::kMinus},
    {"LOG_MINUS", k::WsigmoidType::kLogMinus}};
const std::vector<std::pair<const char*, k::WummType>> kWummTypes = {{"MULT", k::WummType::kMult},
                                                                     {"DIV", k::WummType::kDiv}};

}  // namespace

QuaternaryInstruction::QuaternaryInstruction(InstructionText t) : Instruction(std::move(t)) {
  const std::string& op = opcode();
  size_t first = 0, type_field = 0;
  if (op == "wsloss" || op == "wdivmm" || op == "wcemm") {
    expect_fields(7);
    fourth_ = operand(3);
    out_ = operand(4);
    type_field = 5;
  } else if (op == "wsigmoid") {
    expect_fields(6);
    out_ = operand(3);
    type_field = 4;
  } else if (op == "wumm") {
    expect_fields(7);
    DMLRT_REQUIRE(k::unary_op_from_opcode(field(0), &uop_), ParseError,
                  where() << ": wumm: '" << field(0) << "' is not a cell-wise unary op");
    first = 1;
    out_ = operand(4);
    type_field = 5;
  } else {
    DMLRT_FAIL(NotSupported, "opcode '" << op << "' is not a quaternary op");
  }
  for (size_t i = 0; i < 3; ++i) {
    in_[i] = operand(first + i);
    DMLRT_REQUIRE(in_[i].is_matrix(), ParseError,
                  where() << ": " << op << " input '" << in_[i].name << "' must be a MATRIX");
  }
  const std::string& type = field(type_field);
  bool known = false;
  if (op == "wsloss") {
    kind_ = Kind::kWsloss;
    known = lookup(kWslossTypes, type, &wsloss_);
  } else if (op == "wdivmm") {
    kind_ = Kind::kWdivmm;
    known = lookup(kWdivmmTypes, type, &wdivmm_);
  } else if (op == "wcemm") {
    kind_ = Kind::kWcemm;
    known = lookup(kWcemmTypes, type, &wcemm_);
  } else if (op == "wsigmoid") {
    kind_ = Kind::kWsigmoid;
    known = lookup(kWsigmoidTypes, type, &wsigmoid_);
  } else {
    kind_ = Kind::kWumm;
    known = lookup(kWummTypes, type, &wumm_);
  }
  DMLRT_REQUIRE(known, ParseError, where() << ": " << op << ": unknown type '" << type << "'");
  const bool scalar_out = kind_ == Kind::kWsloss || kind_ == Kind::kWcemm;
  DMLRT_REQUIRE(scalar_out ? out_.is_scalar() : out_.is_matrix(), ParseError,
                where() << ": " << op << " output '" << out_.name << "' must be a "
                        << (scalar_out ? "SCALAR" : "MATRIX"));
  if (uses_fourth())
    DMLRT_REQUIRE(fourth_is_matrix() ? fourth_.is_matrix() : fourth_.is_scalar(), ParseError,
                  where() << ": " << op << " " << type << " needs a "
                          << (fourth_is_matrix() ? "MATRIX" : "SCALAR") << " fourth input, got '"
                          << fourth_.name << "'");
}

bool QuaternaryInstruction::uses_fourth() const {
  using W = k::WdivmmType;
  switch (kind_) {
    case Kind::kWsloss:
      return wsloss_ == k::WslossType::kPost || wsloss_ == k::WslossType::kPre;
    case Kind::kWdivmm:
      return wdivmm_ == W::kDivLeftEps || wdivmm_ == W::kDivRightEps ||
             wdivmm_ == W::kMultMinus4Left || wdivmm_ == W::kMultMinus4Right;
    case Kind::kWcemm:
      return wcemm_ == k::WcemmType::kBasicEps;
    default:
      return false;
  }
}

bool QuaternaryInstruction::fourth_is_matrix() const {
  return kind_ == Kind::kWsloss ||
         (kind_ == Kind::kWdivmm && (wdivmm_ == k::WdivmmType::kMultMinus4Left ||
                                     wdivmm_ == k::WdivmmType::kMultMinus4Right));
}

void QuaternaryInstruction::check(Shapes& shapes) const {
  const Dims a = shapes.dims(in_[0]), u = shapes.dims(in_[1]), v = shapes.dims(in_[2]);
  const Dims d = uses_fourth() && fourth_is_matrix() ? shapes.dims(fourth_) : Dims{};
  auto describe = [&] {
    std::string s = in_[0].name + " " + kernels::dims_string(a.rows, a.cols) + ", U " +
                    kernels::dims_string(u.rows, u.cols) + ", V " +
                    kernels::dims_string(v.rows, v.cols);
    if (d.known()) s += ", " + fourth_.name + " " + kernels::dims_string(d.rows, d.cols);
    return s;
  };
  if (a.known() && u.known() && a.rows != u.rows)
    DMLRT_FAIL(ShapeError,
               opcode() << ": U must have the rows of " << in_[0].name << ": " << describe());
  if (a.known() && v.known() && a.cols != v.rows)
    DMLRT_FAIL(ShapeError, opcode() << ": V must have a row per column of " << in_[0].name << ": "
                                    << describe());
  if (u.known() && v.known() && u.cols != v.cols)
    DMLRT_FAIL(ShapeError, opcode()
                               << ": U and V must have the same number of columns: " << describe());
  if (a.known() && d.known() && (a.rows != d.rows || a.cols != d.cols))
    DMLRT_FAIL(ShapeError, opcode() << ": " << fourth_.name << " must have the shape of "
                                    << in_[0].name << ": " << describe());
}

int64_t QuaternaryInstruction::device_bytes(ExecutionContext& ec) const {
  const mem::GpuSession* gpu = ec.options().gpu.get();
  int64_t total = 0;
  auto add = [&](int64_t rows, int64_t cols) {
    const int64_t b = dense_device_bytes(gpu, rows, cols);
    if (b < 0 || total < 0) total = -1;
    else total += b;
  };
  Dims d[3];
  for (int i = 0; i < 3; ++i) {
    const MatrixMeta& meta = ec.matrix_object_ref(in_[i].name)->meta();
    d[i] = Dims{meta.rows, meta.cols};
    add(meta.rows, meta.cols);
  }
  if (uses_fourth() && fourth_is_matrix()) add(d[0].rows, d[0].cols);
  add(d[0].rows, d[0].cols);  // UV', which the cell results overwrite
  if (kind_ == Kind::kWdivmm) add(std::max(d[0].rows, d[0].cols), d[1].cols);
  return total;
}

void QuaternaryInstruction::run_cpu(ExecutionContext& ec) {
  const auto a = ec.matrix(in_[0]);
  const auto u = ec.matrix(in_[1]);
  const auto v = ec.matrix(in_[2]);
  std::shared_ptr<const kernels::MatrixBlock> m4;
  double eps = 0.0;
  if (uses_fourth()) {
    if (fourth_is_matrix())
      m4 = ec.matrix(fourth_);
    else
      eps = ec.scalar(fourth_).to_double();
  }
  switch (kind_) {
    case Kind::kWsloss:
      ec.set_scalar(out_, ScalarValue::fp64(k::wsloss(*a, *u, *v, m4.get(), wsloss_)));
      return;
    case Kind::kWcemm:
      ec.set_scalar(out_, ScalarValue::fp64(k::wcemm(*a, *u, *v, eps, wcemm_)));
      return;
    case Kind::kWdivmm:
      ec.set_matrix(out_.name, k::wdivmm(*a, *u, *v, m4.get(), eps, wdivmm_));
      return;
    case Kind::kWsigmoid:
      ec.set_matrix(out_.name, k::wsigmoid(*a, *u, *v, wsigmoid_));
      return;
    case Kind::kWumm:
      ec.set_matrix(out_.name, k::wumm(*a, *u, *v, uop_, wumm_));
      return;
  }
}

}  // namespace dmlrt::inst
