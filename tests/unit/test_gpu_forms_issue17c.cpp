// Issue #17's GPU forms of sample and sqrt_matrix_java, as the host sees them (no device needed):
// the opcode table marks both GPU-capable; sample answers has_gpu_impl() only with replacement
// (without, the partial Fisher-Yates shuffle is sequential and stays on the CPU; its operands are
// scalars, so only its result moves, host to device). The GPU runs are compared with the CPU in
// tests/gpu (op registry, test_gpu_sample_sqrtm.cpp).
#include <catch2/catch.hpp>
#include <string>

#include "instructions/instruction.h"
#include "instructions/opcode_table.h"

using namespace dmlrt;

namespace {

bool gpu_capable(const std::string& line) {
  return inst::make_instruction(inst::InstructionText::parse(line))->has_gpu_impl();
}

}  // namespace

TEST_CASE("issue #17's GPU forms: sample and sqrt_matrix_java", "[opcodes][gpu-forms]") {
  for (const char* op : {"sample", "sqrt_matrix_java"}) {
    INFO(op);
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    REQUIRE(e != nullptr);
    CHECK(e->gpu);
  }
  const std::string o = "O·MATRIX·FP64";
  CHECK(gpu_capable("CP°sample°100°10·SCALAR·INT64·true°true°7°1000°" + o));
  CHECK_FALSE(gpu_capable("CP°sample°100°10·SCALAR·INT64·true°false°7°1000°" + o));
  CHECK(gpu_capable("CP°sqrt_matrix_java°A·MATRIX·FP64°" + o + "°8"));
}
