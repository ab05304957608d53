// A minimal in-memory inst::Services for unit tests of instructions: matrices "read" from a map of
// file name -> block, writes recorded in maps, print output captured in a string stream, and
// function calls rejected. Shared by every instruction family's tests.
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "instructions/execution_context.h"
#include "instructions/instruction.h"

namespace dmlrt::test {

class FakeServices : public inst::Services {
 public:
  // Blocks returned by read_matrix, keyed by MatrixObject::file_name().
  std::map<std::string, kernels::MatrixBlock> files;
  // What write_matrix / write_scalar received, keyed by path.
  std::map<std::string, kernels::MatrixBlock> written_matrices;
  std::map<std::string, inst::ScalarValue> written_scalars;
  // Scalars returned by read_scalar, keyed by path.
  std::map<std::string, inst::ScalarValue> scalar_files;
  std::ostringstream output;

  kernels::MatrixBlock read_matrix(const inst::MatrixObject& mo) override;
  void write_matrix(const kernels::MatrixBlock& block, const inst::WriteRequest& req) override;
  void write_scalar(const inst::ScalarValue& value, const std::string& path) override;
  inst::ScalarValue read_scalar(const std::string& path, inst::ValueType vt) override;
  std::vector<inst::Value> call_function(const std::string& key,
                                         const std::vector<std::string>& arg_names,
                                         std::vector<inst::Value> args) override;
  std::vector<std::string> function_outputs(const std::string& key) override;
  std::ostream& out() override { return output; }
};

// An ExecutionContext over its own FakeServices, with helpers to build and run instructions.
struct TestContext {
  FakeServices services;
  inst::ExecutionContext ec{services, inst::RunOptions{}};

  // Parses the raw instruction (° · separators) through the opcode table and executes it.
  void run(const std::string& raw);
  // Binds a matrix / scalar variable.
  void set_matrix(const std::string& name, kernels::MatrixBlock block);
  void set_scalar(const std::string& name, inst::ScalarValue v);
  // Reads a variable back (throws when unbound or of the other kind).
  const kernels::MatrixBlock& matrix(const std::string& name);
  inst::ScalarValue scalar(const std::string& name);
};

}  // namespace dmlrt::test
