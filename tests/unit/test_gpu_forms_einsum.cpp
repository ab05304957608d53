// einsum's GPU run as the host sees it (no device needed): the opcode table marks it GPU-capable
// and the instruction answers has_gpu_impl() for every form (its operands are matrices; equations
// beyond the kernel's limits go back to the CPU through gpu_applicable, tested in tests/gpu), and
// the layout the GPU run shares with the CPU kernel. The GPU run is compared with the CPU in
// tests/gpu/test_gpu_einsum.cpp and the op registry.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "gpu_context/error.h"
#include "instructions/instruction.h"
#include "instructions/opcode_table.h"
#include "kernels/cpu/einsum.h"

using namespace dmlrt;

namespace {

inst::InstructionPtr make(const std::string& line) {
  return inst::make_instruction(inst::InstructionText::parse(line));
}

}  // namespace

TEST_CASE("einsum's GPU run: table row and forms", "[opcodes][gpu-forms]") {
  const inst::OpcodeEntry* e = inst::find_opcode("einsum");
  REQUIRE(e != nullptr);
  CHECK(e->gpu);
  const std::string a = "A·MATRIX·FP64", b = "B·MATRIX·FP64";
  CHECK(make("CP°einsum°ij,jk->ik·SCALAR·STRING·true°" + a + "°" + b + "°C·MATRIX·FP64")
            ->has_gpu_impl());
  CHECK(make("CP°einsum°ij->·SCALAR·STRING·true°" + a + "°s·SCALAR·FP64")->has_gpu_impl());
  CHECK(make("CP°einsum°ii->i·SCALAR·STRING·true°" + a + "°D·MATRIX·FP64")->has_gpu_impl());
}

TEST_CASE("einsum layout: letters in loop-nest order, output dims, shape errors",
          "[opcodes][gpu-forms]") {
  using kernels::cpu::einsum_layout;
  using kernels::cpu::parse_einsum;
  const auto mm = einsum_layout(parse_einsum("ij,jk->ik", 2), {{3, 4}, {4, 5}});
  CHECK(mm.letters == "ijk");
  CHECK(mm.range == std::vector<int64_t>{3, 4, 5});
  CHECK(mm.rows == 3);
  CHECK(mm.cols == 5);
  const auto vec = einsum_layout(parse_einsum("ij,j->i", 2), {{2, 3}, {1, 3}});
  CHECK(vec.rows == 2);
  CHECK(vec.cols == 1);
  const auto sc = einsum_layout(parse_einsum("ij->", 1), {{0, 3}});
  CHECK(sc.rows == 1);
  CHECK(sc.cols == 1);
  CHECK(sc.range == std::vector<int64_t>{0, 3});
  CHECK_THROWS_WITH(einsum_layout(parse_einsum("ij,jk->ik", 2), {{2, 3}, {2, 3}}),
                    Catch::Contains("einsum: axis 'j' has size 3 and 2 (operand 2, 2x3)"));
  CHECK_THROWS_WITH(einsum_layout(parse_einsum("i->i", 1), {{2, 3}}),
                    Catch::Contains("einsum: operand 1 (2x3) is a matrix but its term 'i'"));
}
