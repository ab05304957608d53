// The sort-based GPU forms (issues #17/#18: sort_gpu.cpp, unique_gpu.cpp, count_distinct_gpu.cpp)
// as the host sees them: the opcode table marks rsort, qsort, qpick, unique* and the whole
// countDistinct family (uacd*, the approximate uacdap* included) GPU-capable and their
// instructions answer has_gpu_impl(). The GPU runs are compared with the CPU in tests/gpu.
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

TEST_CASE("sort-based GPU forms: table rows and instructions", "[opcodes][gpu-forms]") {
  for (const char* op :
       {"rsort", "qsort", "qpick", "unique", "uniquer", "uniquec", "uacd", "uacdr", "uacdc",
        "uacdap", "uacdapr", "uacdapc"}) {
    INFO(op);
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    REQUIRE(e != nullptr);
    CHECK(e->gpu);
  }
  const std::string a = "A·MATRIX·FP64", o = "O·MATRIX·FP64";
  const std::string f = "false·SCALAR·BOOLEAN·true";
  CHECK(gpu_capable("CP°rsort°" + a + "°1·SCALAR·INT64·true°" + f + "°" + f + "°" + o + "°1"));
  CHECK(gpu_capable("CP°qsort°" + a + "°" + o + "°1"));
  CHECK(gpu_capable("CP°qsort°" + a + "°W·MATRIX·FP64°" + o + "°1"));
  CHECK(gpu_capable("CP°qpick°" + a + "°m·SCALAR·FP64°MEDIAN°true"));
  CHECK(gpu_capable("CP°qpick°" + a + "°0.25·SCALAR·FP64·true°q·SCALAR·FP64°VALUEPICK°true"));
  CHECK(gpu_capable("CP°uniquec°" + a + "°" + o + "°1"));
  CHECK(gpu_capable("CP°uacd°" + a + "°n·SCALAR·INT64°1"));
  CHECK(gpu_capable("CP°uacdr°" + a + "°" + o + "°1"));
  CHECK(gpu_capable("CP°uacdap°" + a + "°n·SCALAR·INT64°1"));
  CHECK(gpu_capable("CP°uacdapc°" + a + "°" + o + "°1"));
}
