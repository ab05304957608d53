// The GPU forms issue #17 added, as the host sees them (no device needed): the opcode table marks
// inverse, cholesky, det, lu, qr, svd, rmempty, roll, xor and the bitw* ops GPU-capable, their
// instructions answer has_gpu_impl() for the matrix forms (not for scalar-scalar binaries or
// other parameterized builtins), and xor / bitw* stay out of fused cell-wise chains. The GPU
// runs themselves are compared with the CPU by the op registry (tests/gpu).
#include <catch2/catch.hpp>
#include <string>

#include "instructions/instruction.h"
#include "instructions/opcode_table.h"
#include "kernels/cpu/binary.h"

using namespace dmlrt;

namespace {

bool gpu_capable(const std::string& line) {
  return inst::make_instruction(inst::InstructionText::parse(line))->has_gpu_impl();
}

}  // namespace

TEST_CASE("issue #17's GPU forms: table rows and instructions", "[opcodes][gpu-forms]") {
  for (const char* op : {"inverse", "cholesky", "det", "lu", "qr", "svd", "rmempty", "roll", "xor",
                         "bitwand", "bitwor", "bitwxor", "bitwshiftl", "bitwshiftr"}) {
    INFO(op);
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    REQUIRE(e != nullptr);
    CHECK(e->gpu);
  }
  const std::string a = "A·MATRIX·FP64", o = "O·MATRIX·FP64";
  CHECK(gpu_capable("CP°inverse°" + a + "°" + o + "°2"));
  CHECK(gpu_capable("CP°det°" + a + "°d·SCALAR·FP64°2"));
  CHECK(gpu_capable("CP°lu°" + a + "°P°L°U°2"));
  CHECK(gpu_capable("CP°qr°" + a + "°H°R°2"));
  CHECK(gpu_capable("CP°svd°" + a + "°U°S°V°2"));
  CHECK(gpu_capable("CP°roll°" + a + "°1·SCALAR·INT64·true°" + o + "°2"));
  CHECK(gpu_capable("CP°rmempty°margin=rows°empty.return=true°target=A°bRmEmptyBC=false°" + o));
  CHECK(gpu_capable("CP°replace°target=A°pattern=0°replacement=1°" + o));  // issue #18
  CHECK_FALSE(gpu_capable("CP°toString°target=A°s·SCALAR·STRING"));
  CHECK(gpu_capable("CP°bitwAnd°" + a + "°3·SCALAR·INT64·true°" + o));
  CHECK(gpu_capable("CP°xor°" + a + "°B·MATRIX·FP64°" + o));
  CHECK_FALSE(gpu_capable("CP°bitwAnd°1·SCALAR·INT64·true°3·SCALAR·INT64·true°s·SCALAR·INT64"));
}

TEST_CASE("issue #18's GPU forms: n-ary folds, the row cumsum, uaggouterchain", "[opcodes][gpu-forms]") {
  for (const char* op : {"n+", "n*", "nmin", "nmax", "urowcumk+"}) {
    INFO(op);
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    REQUIRE(e != nullptr);
    CHECK(e->gpu);
  }
  const std::string a = "A·MATRIX·FP64", o = "O·MATRIX·FP64";
  CHECK(gpu_capable("CP°n+°" + a + "°B·MATRIX·FP64°2·SCALAR·FP64·true°" + o));
  CHECK(gpu_capable("CP°nmax°" + a + "°B·MATRIX·FP64°C·MATRIX·FP64°" + o));
  CHECK_FALSE(gpu_capable("CP°n+°x·SCALAR·FP64°y·SCALAR·FP64°s·SCALAR·FP64"));
  CHECK(gpu_capable("CP°urowcumk+°" + a + "°" + o + "°1"));
  CHECK(inst::find_opcode("uaggouterchain")->gpu);
  CHECK(gpu_capable("CP°uaggouterchain°uark+°<°x·MATRIX·FP64°y·MATRIX·FP64°" + o));
}

TEST_CASE("xor and the bitwise ops are not fused into cell-wise chains", "[opcodes][gpu-forms]") {
  using kernels::cpu::binary_op_fusable;
  using kernels::cpu::BinaryOp;
  CHECK(binary_op_fusable(BinaryOp::kPlus));
  CHECK(binary_op_fusable(BinaryOp::kMinusNz));
  for (BinaryOp op : {BinaryOp::kXor, BinaryOp::kBitwAnd, BinaryOp::kBitwOr, BinaryOp::kBitwXor,
                      BinaryOp::kBitwShiftL, BinaryOp::kBitwShiftR})
    CHECK_FALSE(binary_op_fusable(op));
}
