// Variable instructions: parsing, the casts' shape rule and CPU runs (variable_instructions.h).
#include "instructions/variable_instructions.h"

#include <cctype>
#include <cstdlib>

#include "gpu_context/error.h"
#include "instructions/gpu_placement.h"

namespace dmlrt::inst {
namespace {

int64_t parse_long_field(const std::string& s, const char* what, const std::string& where) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  DMLRT_REQUIRE(!s.empty() && *end == '\0', ParseError,
                where << ": " << what << " must be an integer, got '" << s << "'");
  return v;
}

bool parse_bool_field(const std::string& s, const char* what, const std::string& where) {
  if (s == "true" || s == "TRUE") return true;
  if (s == "false" || s == "FALSE") return false;
  DMLRT_FAIL(ParseError, where << ": " << what << " must be true or false, got '" << s << "'");
}

// Strips "·TYPE·..." from a field that is sometimes typed (cpvar/mvvar names).
std::string bare_name(const std::string& field) {
  const size_t p = field.find(kTypeDelim);
  return p == std::string::npos ? field : field.substr(0, p);
}

WriteRequest make_write_request(const std::string& path, const std::string& format) {
  WriteRequest req;
  req.path = path;
  req.format.format = format;
  return req;
}

}  // namespace

CreateVarInstruction::CreateVarInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(5, 16);
  name_ = field(0);
  file_ = field(1);
  override_ = parse_bool_field(field(2), "file-name override flag", where());
  const std::string dt = field(3);
  DMLRT_REQUIRE(dt != "FRAME", FramesNotSupported,
                where() << ": data type FRAME: frames are not supported yet");
  DMLRT_REQUIRE(dt == "MATRIX" || dt == "SCALAR", NotSupported,
                where() << ": data type " << dt
                        << " is not supported (dmlrt runs MATRIX and SCALAR programs)");
  fmt_.format = field(4);
  DMLRT_REQUIRE(fmt_.format != "binaryblock", ParseError,
                where() << ": the SystemML-era layout (binaryblock, two block sizes) is not "
                           "supported; recompile the script with SystemDS");
  if (num_fields() >= 9) {
    meta_.rows = parse_long_field(field(5), "rows", where());
    meta_.cols = parse_long_field(field(6), "cols", where());
    meta_.blen = parse_long_field(field(7), "block size", where());
    meta_.nnz = parse_long_field(field(8), "nnz", where());
  }
  if (num_fields() >= 10) {
    std::string u = field(9);
    for (auto& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    DMLRT_REQUIRE(u == "copy" || u == "inplace" || u == "inplace_pinned", ParseError,
                  where() << ": update type must be copy, inplace or inplace_pinned, got '"
                          << field(9) << "'");
  }
  if (fmt_.format == "csv" && num_fields() >= 14) {
    fmt_.header = parse_bool_field(field(10), "CSV header flag", where());
    fmt_.delim = field(11);
    fmt_.fill = parse_bool_field(field(12), "CSV fill flag", where());
    fmt_.fill_value = std::strtod(field(13).c_str(), nullptr);
    if (num_fields() >= 15) fmt_.na_strings = field(14);
  }
}

void CreateVarInstruction::run_cpu(ExecutionContext& ec) {
  auto mo = std::make_shared<MatrixObject>(meta_, file_, fmt_);
  mo->set_persistent_input(!override_);
  ec.set(name_, std::move(mo));
}

RmVarInstruction::RmVarInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(1, static_cast<size_t>(-1));
  for (size_t i = 0; i < num_fields(); ++i) names_.push_back(bare_name(field(i)));
}

void RmVarInstruction::run_cpu(ExecutionContext& ec) {
  for (const auto& n : names_) ec.remove(n);
}

CpVarInstruction::CpVarInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2);
  src_ = bare_name(field(0));
  dst_ = bare_name(field(1));
}

void CpVarInstruction::run_cpu(ExecutionContext& ec) { ec.set(dst_, ec.at(src_)); }

MvVarInstruction::MvVarInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  src_ = bare_name(field(0));
  dst_ = field(1);
  if (num_fields() == 3)
    format_ = field(2);
  else
    dst_ = bare_name(dst_);
}

void MvVarInstruction::run_cpu(ExecutionContext& ec) {
  if (format_.empty()) {
    Value v = std::move(ec.at(src_));  // moved, not copied: no reference-count round trip
    ec.remove(src_);
    ec.set(dst_, std::move(v));
    return;
  }
  ec.services().write_matrix(*ec.matrix(src_), make_write_request(dst_, format_));
}

AssignVarInstruction::AssignVarInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2);
  in_ = operand(0);
  out_ = operand(1);
}

void AssignVarInstruction::run_cpu(ExecutionContext& ec) { ec.set_scalar(out_, ec.scalar(in_)); }

RmFileVarInstruction::RmFileVarInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2);
  name_ = bare_name(field(0));
}

void RmFileVarInstruction::run_cpu(ExecutionContext& ec) { ec.remove(name_); }

WriteInstruction::WriteInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(3, 8);
  in_ = operand(0);
  fname_ = operand(1);
  fmt_ = operand(2);
  if (num_fields() >= 7) {  // csv extras
    csv_header_ = field(3);
    csv_delim_ = field(4);
    csv_sparse_ = field(5);
    desc_field_ = 6;
  } else if (num_fields() >= 4) {
    desc_field_ = 3;
  }
}

void WriteInstruction::run_cpu(ExecutionContext& ec) {
  const std::string path = ec.scalar(fname_).to_string();
  const std::string format = ec.scalar(fmt_).to_string();
  if (in_.is_scalar()) {
    ec.services().write_scalar(ec.scalar(in_), path);
    return;
  }
  WriteRequest req = make_write_request(path, format);
  if (!csv_header_.empty()) {
    req.format.header = Operand::parse(csv_header_).name == "true";
    req.format.delim = Operand::parse(csv_delim_).name;
    req.format.sparse = Operand::parse(csv_sparse_).name == "true";
  }
  if (desc_field_ > 0) {
    Operand d = Operand::parse(field(desc_field_));
    if (d.data_type == DataType::kScalar) req.format.description = ec.scalar(d).to_string();
  }
  ec.services().write_matrix(*ec.matrix(in_), req);
}

ReadInstruction::ReadInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  out_ = operand(0);
  fname_ = operand(1);
}

void ReadInstruction::run_cpu(ExecutionContext& ec) {
  const std::string path = ec.scalar(fname_).to_string();
  ec.set_scalar(out_, ec.services().read_scalar(path, out_.value_type));
}

SetFileNameInstruction::SetFileNameInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  var_ = operand(0);
  fname_ = operand(1);
}

void SetFileNameInstruction::run_cpu(ExecutionContext& ec) {
  ec.matrix_object(var_.name)->set_file_name(ec.scalar(fname_).to_string());
}

CastInstruction::CastInstruction(InstructionText t) : Instruction(std::move(t)) {
  expect_fields(2, 3);
  in_ = operand(0);
  out_ = operand(1);
  const std::string& op = opcode();
  if (op == "castdtm")
    to_ = To::kMatrix;
  else if (op == "castvtd")
    to_ = To::kDouble;
  else if (op == "castvti")
    to_ = To::kInt;
  else if (op == "castvtb")
    to_ = To::kBool;
  else
    to_ = To::kScalar;  // castdts: the value as it is
}

void CastInstruction::check(Shapes& shapes) const {
  if (to_ == To::kMatrix || !in_.is_matrix()) return;
  const Dims d = shapes.dims(in_);
  DMLRT_REQUIRE((d.rows < 0 || d.rows == 1) && (d.cols < 0 || d.cols == 1), ShapeError,
                opcode() << ": expects a 1x1 matrix, got " << kernels::dims_string(d.rows, d.cols));
}

void CastInstruction::run_cpu(ExecutionContext& ec) {
  if (to_ == To::kMatrix) {
    if (in_.is_matrix()) {
      ec.set_matrix(out_.name, ec.matrix(in_));
    } else {
      ec.set_matrix(out_.name, kernels::MatrixBlock::dense(1, 1, ec.scalar(in_).to_double()));
    }
    return;
  }
  // A matrix input is 1x1 (check).
  set_result(ec, in_.is_matrix() ? ScalarValue::fp64(ec.matrix(in_)->get(0, 0)) : ec.scalar(in_));
}

// One cell: the input is 1x1 (check) and the output a scalar.
int64_t CastInstruction::device_bytes(ExecutionContext& ec) const {
  return dense_device_bytes(ec.options().gpu.get(), 1, 1);
}

bool CastInstruction::graph_safe(ExecutionContext& ec) const {
  if (!has_gpu_impl()) return false;
  const std::shared_ptr<MatrixObject>& mo = ec.matrix_object_ref(in_.name);
  // A 1x1 read on the host runs no device work: nothing a replay could stand for.
  return !mo->host_valid() && mo->has_device_copy() && graph_safe_dense(ec);
}

void CastInstruction::set_result(ExecutionContext& ec, ScalarValue v) const {
  if (v.is_deferred() && to_ != To::kScalar && to_ != To::kDouble) {
    // A deferred cell (Note [Deferred scalars]): converted when used (cannot fail).
    const To to = to_;
    v = ScalarValue::deferred(to == To::kInt ? ValueType::kINT64 : ValueType::kBoolean, [v, to] {
      return to == To::kInt ? ScalarValue::int64(v.to_int()) : ScalarValue::boolean(v.to_bool());
    });
  } else if (to_ == To::kDouble && !v.is_deferred()) {
    v = ScalarValue::fp64(v.to_double());
  } else if (to_ == To::kInt) {
    v = ScalarValue::int64(v.to_int());
  } else if (to_ == To::kBool) {
    v = ScalarValue::boolean(v.to_bool());
  }
  ec.set_scalar(out_, v);
}

}  // namespace dmlrt::inst
