// Variable instructions: createvar rmvar cpvar mvvar assignvar rmfilevar write read setfilename and
// the casts castdts castdtm castvtd castvti castvtb, with SystemDS's operand layouts
// (reference/systemds-format.md §1.6).
#include <cstdlib>

#include "gpu_context/error.h"
#include "instructions/families.h"

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

// createvar name file override DATATYPE format rows cols blen nnz update [format extras]
class CreateVar final : public Instruction {
 public:
  explicit CreateVar(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(5, 16);
    name_ = field(0);
    file_ = field(1);
    override_ = parse_bool_field(field(2), "file-name override flag", where());
    const std::string dt = field(3);
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

  void execute(ExecutionContext& ec) override {
    auto mo = std::make_shared<MatrixObject>(meta_, file_, fmt_);
    mo->set_persistent_input(!override_);
    ec.set(name_, std::move(mo));
  }

 private:
  std::string name_, file_;
  bool override_ = true;
  MatrixMeta meta_;
  FileFormat fmt_;
};

// rmvar n1 n2 ...: unbind; the data is freed when no other name refers to it.
class RmVar final : public Instruction {
 public:
  explicit RmVar(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(1, static_cast<size_t>(-1));
    for (size_t i = 0; i < num_fields(); ++i) names_.push_back(bare_name(field(i)));
  }
  void execute(ExecutionContext& ec) override {
    for (const auto& n : names_) ec.remove(n);
  }

 private:
  std::vector<std::string> names_;
};

// cpvar src dst: dst aliases src's value.
class CpVar final : public Instruction {
 public:
  explicit CpVar(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2);
    src_ = bare_name(field(0));
    dst_ = bare_name(field(1));
  }
  void execute(ExecutionContext& ec) override { ec.set(dst_, ec.at(src_)); }

 private:
  std::string src_, dst_;
};

WriteRequest make_write_request(ExecutionContext& ec, const std::string& path,
                                const std::string& format) {
  WriteRequest req;
  req.path = path;
  req.format.format = format;
  (void)ec;
  return req;
}

// mvvar src dst (rename) | mvvar src file format (write src to file).
class MvVar final : public Instruction {
 public:
  explicit MvVar(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2, 3);
    src_ = bare_name(field(0));
    dst_ = field(1);
    if (num_fields() == 3) format_ = field(2);
    else dst_ = bare_name(dst_);
  }
  void execute(ExecutionContext& ec) override {
    if (format_.empty()) {
      Value v = std::move(ec.at(src_));  // moved, not copied: no reference-count round trip
      ec.remove(src_);
      ec.set(dst_, std::move(v));
      return;
    }
    ec.services().write_matrix(*ec.matrix(src_), make_write_request(ec, dst_, format_));
  }

 private:
  std::string src_, dst_, format_;
};

// assignvar in out: scalar copy (converted to the output's value type).
class AssignVar final : public Instruction {
 public:
  explicit AssignVar(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2);
    in_ = operand(0);
    out_ = operand(1);
  }
  void execute(ExecutionContext& ec) override { ec.set_scalar(out_, ec.scalar(in_)); }

 private:
  Operand in_, out_;
};

// rmfilevar v flag: SystemDS deletes the variable's file when flag is true. dmlrt writes no
// scratch files, so only the binding goes.
class RmFileVar final : public Instruction {
 public:
  explicit RmFileVar(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2);
    name_ = bare_name(field(0));
  }
  void execute(ExecutionContext& ec) override { ec.remove(name_); }

 private:
  std::string name_;
};

// write X fname fmt [csv: header delim sparse] description blen
class Write final : public Instruction {
 public:
  explicit Write(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(3, 8);
    in_ = operand(0);
    fname_ = operand(1);
    fmt_ = operand(2);
    if (num_fields() >= 7) {  // csv extras
      csv_header_ = field(3);
      csv_delim_ = field(4);
      csv_sparse_ = field(5);
      if (num_fields() >= 7) desc_field_ = 6;
    } else if (num_fields() >= 4) {
      desc_field_ = 3;
    }
  }

  void execute(ExecutionContext& ec) override {
    const std::string path = ec.scalar(fname_).to_string();
    const std::string format = ec.scalar(fmt_).to_string();
    if (in_.is_scalar()) {
      ec.services().write_scalar(ec.scalar(in_), path);
      return;
    }
    WriteRequest req = make_write_request(ec, path, format);
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

 private:
  Operand in_, fname_, fmt_;
  std::string csv_header_, csv_delim_, csv_sparse_;
  size_t desc_field_ = 0;
};

// read x fname: reads a scalar from a file.
class Read final : public Instruction {
 public:
  explicit Read(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2, 3);
    out_ = operand(0);
    fname_ = operand(1);
  }
  void execute(ExecutionContext& ec) override {
    const std::string path = ec.scalar(fname_).to_string();
    ec.set_scalar(out_, ec.services().read_scalar(path, out_.value_type));
  }

 private:
  Operand out_, fname_;
};

// setfilename var fname remote|local
class SetFileName final : public Instruction {
 public:
  explicit SetFileName(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2, 3);
    var_ = operand(0);
    fname_ = operand(1);
  }
  void execute(ExecutionContext& ec) override {
    ec.matrix_object(var_.name)->set_file_name(ec.scalar(fname_).to_string());
  }

 private:
  Operand var_, fname_;
};

// castdts castdtm castvtd castvti castvtb: in out [k]
class Cast final : public Instruction {
 public:
  explicit Cast(InstructionText t) : Instruction(std::move(t)) {
    expect_fields(2, 3);
    in_ = operand(0);
    out_ = operand(1);
  }

  void execute(ExecutionContext& ec) override {
    const std::string& op = opcode();
    if (op == "castdtm") {
      if (in_.is_matrix()) {
        ec.set_matrix(out_.name, ec.matrix(in_));
      } else {
        ec.set_matrix(out_.name, kernels::MatrixBlock::dense(1, 1, ec.scalar(in_).to_double()));
      }
      return;
    }
    ScalarValue v;
    if (in_.is_matrix()) {
      auto m = ec.matrix(in_);
      DMLRT_REQUIRE(m->rows() == 1 && m->cols() == 1, ShapeError,
                    op << ": expects a 1x1 matrix, got " << shape_of(*m));
      v = ScalarValue::fp64(m->get(0, 0));
    } else {
      v = ec.scalar(in_);
    }
    if (op == "castvtd") v = ScalarValue::fp64(v.to_double());
    else if (op == "castvti") v = ScalarValue::int64(v.to_int());
    else if (op == "castvtb") v = ScalarValue::boolean(v.to_bool());
    ec.set_scalar(out_, v);
  }

 private:
  Operand in_, out_;
};

}  // namespace

InstructionPtr make_variable(InstructionText text) {
  const std::string op = text.opcode;
  if (op == "createvar") return std::make_unique<CreateVar>(std::move(text));
  if (op == "rmvar") return std::make_unique<RmVar>(std::move(text));
  if (op == "cpvar") return std::make_unique<CpVar>(std::move(text));
  if (op == "mvvar") return std::make_unique<MvVar>(std::move(text));
  if (op == "assignvar") return std::make_unique<AssignVar>(std::move(text));
  if (op == "rmfilevar") return std::make_unique<RmFileVar>(std::move(text));
  if (op == "write") return std::make_unique<Write>(std::move(text));
  if (op == "read") return std::make_unique<Read>(std::move(text));
  if (op == "setfilename") return std::make_unique<SetFileName>(std::move(text));
  return std::make_unique<Cast>(std::move(text));
}

}  // namespace dmlrt::inst
