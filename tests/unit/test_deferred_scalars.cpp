// Deferred scalars (Note [Deferred scalars] in instructions/scalar_value.cpp): a value computed
// once, on first use, with its type known before; DeferScope computing what was registered with
// it (at finish, at its end, when a nested scope opens); scalar binary and n-ary instructions
// leaving their result deferred when an operand is, only where the result's type follows from
// the operands' types and the operation cannot fail, with the values of the immediate run.
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/fake_services.h"
#include "gpu_context/error.h"
#include "instructions/scalar_value.h"

using dmlrt::inst::DeferScope;
using dmlrt::inst::ScalarValue;
using dmlrt::inst::ValueType;
using dmlrt::test::TestContext;

namespace {

// A deferred FP64 `v` that counts its computations in *calls.
ScalarValue counted(double v, std::shared_ptr<int> calls) {
  return ScalarValue::deferred(ValueType::kFP64, [v, calls] {
    ++*calls;
    return ScalarValue::fp64(v);
  });
}

}  // namespace

TEST_CASE("deferred scalar: type now, value once on first use", "[scalar][deferred]") {
  auto calls = std::make_shared<int>(0);
  const ScalarValue s = counted(2.5, calls);
  CHECK(s.type() == ValueType::kFP64);
  CHECK(s.is_deferred());
  CHECK(*calls == 0);
  const ScalarValue copy = s;  // copies share the computation
  CHECK(copy.to_double() == 2.5);
  CHECK(*calls == 1);
  CHECK_FALSE(s.is_deferred());
  CHECK(s.to_string() == "2.5");
  CHECK(s.to_int() == 2);
  CHECK(s.to_bool());
  CHECK(s.cast_to(ValueType::kString).to_string() == "2.5");
  CHECK(s.cast_to(ValueType::kFP64).to_double() == 2.5);
  CHECK(*calls == 1);
}

TEST_CASE("deferred scalar: an error is raised by every use", "[scalar][deferred]") {
  auto calls = std::make_shared<int>(0);
  const ScalarValue s = ScalarValue::deferred(ValueType::kFP64, [calls]() -> ScalarValue {
    ++*calls;
    throw dmlrt::RuntimeError("copy of a device value to the host: device lost");
  });
  CHECK_THROWS_WITH(s.to_double(), Catch::Contains("device lost"));
  CHECK_THROWS_WITH(s.to_string(), Catch::Contains("device lost"));
  CHECK(*calls == 1);
}

TEST_CASE("DeferScope: computes what it holds at finish, at its end, before a nested scope",
          "[scalar][deferred]") {
  int owner = 0, other = 0;
  auto calls = std::make_shared<int>(0);
  CHECK(DeferScope::active(&owner) == nullptr);
  {
    DeferScope outer(&owner);
    CHECK(DeferScope::active(&owner) == &outer);
    CHECK(DeferScope::active(&other) == nullptr);  // another session's scalars are read at once
    outer.add(counted(1, calls));
    outer.finish();
    CHECK(*calls == 1);
    const ScalarValue a = counted(2, calls);
    outer.add(a);
    {
      DeferScope inner(&owner);  // the outer scope's scalars are computed first
      CHECK(*calls == 2);
      CHECK_FALSE(a.is_deferred());
      CHECK(DeferScope::active(&owner) == &inner);
      inner.add(counted(3, calls));
    }
    CHECK(*calls == 3);
    CHECK(DeferScope::active(&owner) == &outer);
    DeferScope other_scope(&other);
    outer.add(counted(4, calls));  // an outer scope's scalar, added while an inner one is open
    other_scope.add(counted(5, calls));
    DeferScope::finish_all();  // every open scope of the thread (before worker threads start)
    CHECK(*calls == 5);
    outer.add(counted(6, calls));
  }
  CHECK(*calls == 6);
  CHECK(DeferScope::active(&owner) == nullptr);
}

TEST_CASE("deferred operands: scalar binary ops defer what cannot fail", "[scalar][deferred]") {
  auto calls = std::make_shared<int>(0);
  TestContext t;
  t.set_scalar("d", counted(3.0, calls));
  t.set_scalar("n", ScalarValue::int64(4));
  t.set_scalar("s", ScalarValue::string("loss "));
  // arithmetic in double, a comparison, a string concatenation: deferred, typed as computed
  t.run("CP°/°d·SCALAR·FP64·false°n·SCALAR·INT64·false°q·SCALAR·FP64");
  t.run("CP°>°d·SCALAR·FP64·false°2·SCALAR·INT64·true°c·SCALAR·BOOLEAN");
  t.run("CP°+°s·SCALAR·STRING·false°q·SCALAR·FP64·false°m·SCALAR·STRING");
  CHECK(*calls == 0);
  CHECK(t.scalar("q").type() == ValueType::kFP64);
  CHECK(t.scalar("c").type() == ValueType::kBoolean);
  CHECK(t.scalar("m").type() == ValueType::kString);
  CHECK(t.scalar("m").is_deferred());
  CHECK(t.scalar("m").to_string() == "loss 0.75");  // as the immediate run prints it
  CHECK(*calls == 1);
  CHECK(t.scalar("q").to_double() == 0.75);
  CHECK(t.scalar("c").to_bool());
  CHECK(*calls == 1);
}

TEST_CASE("deferred operands: ops that may fail run at once, with their errors",
          "[scalar][deferred]") {
  auto calls = std::make_shared<int>(0);
  TestContext t;
  t.set_scalar("s", ScalarValue::deferred(ValueType::kString, [calls] {
                 ++*calls;
                 return ScalarValue::string("abc");
               }));
  // string arithmetic other than + fails at its own instruction, not at a later use
  CHECK_THROWS_WITH(t.run("CP°-°s·SCALAR·STRING·false°1·SCALAR·INT64·true°x·SCALAR·FP64"),
                    Catch::Contains("arithmetic '-' is not supported over string inputs"));
  CHECK(*calls == 1);
  // integer arithmetic may overflow: computed at once
  auto icalls = std::make_shared<int>(0);
  t.set_scalar("i", ScalarValue::deferred(ValueType::kINT64, [icalls] {
                 ++*icalls;
                 return ScalarValue::int64(7);
               }));
  t.run("CP°*°i·SCALAR·INT64·false°6·SCALAR·INT64·true°j·SCALAR·INT64");
  CHECK(*icalls == 1);
  CHECK_FALSE(t.scalar("j").is_deferred());
  CHECK(t.scalar("j").to_int() == 42);
}

TEST_CASE("deferred operands: n-ary scalar ops", "[scalar][deferred][nary]") {
  auto calls = std::make_shared<int>(0);
  TestContext t;
  t.set_scalar("a", counted(0.5, calls));
  t.set_scalar("b", counted(0.25, calls));
  t.set_scalar("s", ScalarValue::string("x="));
  t.run("CP°n+°a·SCALAR·FP64·false°b·SCALAR·FP64·false°1·SCALAR·INT64·true°c·SCALAR·FP64");
  CHECK(*calls == 0);
  t.run("CP°n+°s·SCALAR·STRING·false°c·SCALAR·FP64·false°m·SCALAR·STRING");
  CHECK(*calls == 0);
  t.run("CP°nmax°a·SCALAR·FP64·false°b·SCALAR·FP64·false°x·SCALAR·FP64");
  CHECK(*calls == 0);
  CHECK(t.scalar("m").to_string() == "x=1.75");
  CHECK(t.scalar("x").to_double() == 0.5);
  CHECK(*calls == 2);
  // strings under another n-ary op: the error at once
  CHECK_THROWS_WITH(t.run("CP°nmin°s·SCALAR·STRING·false°a·SCALAR·FP64·false°y·SCALAR·FP64"),
                    Catch::Contains("string operands are only supported by n+"));
}
