// The GPU forms issue #18 item 1 added, as the host sees them (no device needed): the opcode table
// marks contains, replace, rexpand, groupedagg, ctable, ctableexpand and the scalar casts
// GPU-capable, and their instructions answer has_gpu_impl() only for the forms the GPU runs have
// (groupedagg sum / count / mean, casts of a matrix to a scalar). The GPU runs themselves are
// compared with the CPU in tests/gpu (test_gpu_parameterized.cpp, test_gpu_ctable.cpp, registry).
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

TEST_CASE("issue #18's GPU forms: table rows and instructions", "[opcodes][gpu-forms]") {
  for (const char* op : {"contains", "replace", "rexpand", "groupedagg", "ctable", "ctableexpand",
                         "castdts", "castvtd", "castvti", "castvtb"}) {
    INFO(op);
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    REQUIRE(e != nullptr);
    CHECK(e->gpu);
  }
  const std::string a = "A·MATRIX·FP64", o = "O·MATRIX·FP64", s = "s·SCALAR·FP64";
  CHECK(gpu_capable("CP°contains°target=A°pattern=0°b·SCALAR·BOOLEAN"));
  CHECK(gpu_capable("CP°replace°target=A°pattern=NaN°replacement=0°" + o));
  CHECK(gpu_capable("CP°rexpand°target=A°max=5°dir=cols°cast=true°ignore=true°" + o));
  for (const char* fn : {"sum", "count", "mean"})
    CHECK(gpu_capable(std::string("CP°groupedagg°target=A°groups=G°fn=") + fn + "°" + o));
  for (const char* fn : {"variance", "min", "max"})
    CHECK_FALSE(gpu_capable(std::string("CP°groupedagg°target=A°groups=G°fn=") + fn + "°" + o));
  CHECK_FALSE(gpu_capable("CP°groupedagg°target=A°groups=G°fn=centralmoment°order=3°" + o));
  CHECK(gpu_capable("CP°ctable°" + a + "°B·MATRIX·FP64°1.0·SCALAR·FP64·true°-1·true°-1·true°" +
                    o + "°false"));
  CHECK(gpu_capable("CP°ctableexpand°seq(1, 5)·SCALAR·STRING·true°" + a +
                    "°1.0·SCALAR·FP64·true°-1·true°-1·true°" + o + "°false"));
  CHECK(gpu_capable("CP°castdts°" + a + "°" + s));
  CHECK(gpu_capable("CP°castvti°" + a + "°i·SCALAR·INT64"));
  CHECK_FALSE(gpu_capable("CP°castdts°x·SCALAR·FP64°" + s));
  CHECK_FALSE(gpu_capable("CP°castdtm°x·SCALAR·FP64°" + o));
  CHECK_FALSE(gpu_capable("CP°castdtm°" + a + "°" + o));
}
