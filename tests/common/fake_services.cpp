// The in-memory test Services and TestContext; see fake_services.h.
#include "common/fake_services.h"

#include "gpu_context/error.h"
#include "instructions/opcode_table.h"

namespace dmlrt::test {

kernels::MatrixBlock FakeServices::read_matrix(const inst::MatrixObject& mo) {
  auto it = files.find(mo.file_name());
  DMLRT_REQUIRE(it != files.end(), IoError, "fake file '" << mo.file_name() << "' does not exist");
  return it->second;
}

void FakeServices::write_matrix(const kernels::MatrixBlock& block, const inst::WriteRequest& req) {
  written_matrices[req.path] = block;
}

void FakeServices::write_scalar(const inst::ScalarValue& value, const std::string& path) {
  written_scalars[path] = value;
}

inst::ScalarValue FakeServices::read_scalar(const std::string& path, inst::ValueType vt) {
  auto it = scalar_files.find(path);
  DMLRT_REQUIRE(it != scalar_files.end(), IoError, "fake file '" << path << "' does not exist");
  return it->second.cast_to(vt);
}

std::vector<inst::Value> FakeServices::call_function(const std::string& key,
                                                     const std::vector<std::string>&,
                                                     std::vector<inst::Value>) {
  DMLRT_FAIL(NotSupported, "FakeServices: no function '" << key << "'");
}

std::vector<std::string> FakeServices::function_outputs(const std::string& key) {
  DMLRT_FAIL(NotSupported, "FakeServices: no function '" << key << "'");
}

void TestContext::run(const std::string& raw) {
  inst::InstructionPtr ins = inst::make_instruction(inst::InstructionText::parse(raw));
  ins->execute(ec);
}

void TestContext::set_matrix(const std::string& name, kernels::MatrixBlock block) {
  ec.set_matrix(name, std::move(block));
}

void TestContext::set_scalar(const std::string& name, inst::ScalarValue v) {
  ec.set_scalar(name, std::move(v));
}

const kernels::MatrixBlock& TestContext::matrix(const std::string& name) {
  return *ec.matrix(name);
}

inst::ScalarValue TestContext::scalar(const std::string& name) { return ec.scalar(name); }

}  // namespace dmlrt::test
