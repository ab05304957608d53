// libFuzzer target for the plan parser: any text either parses or throws a dmlrt::Error (with
// a message); a crash, hang, sanitizer report or leak is a bug. Also feeds each line to the
// explain-to-raw converter and the argument substitution.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_context/error.h"
#include "runtime/plan_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  dmlrt::runtime::PlanArgs args;
  args.named["X"] = "in/X.csv";
  args.positional = {"1", "two"};
  try {
    (void)dmlrt::runtime::parse_plan(text, "fuzz.plan");
  } catch (const dmlrt::Error&) {
  }
  try {
    (void)dmlrt::runtime::parse_plan(text, "fuzz.plan", args);
  } catch (const dmlrt::Error&) {
  }
  try {
    const size_t nl = text.find('\n');
    (void)dmlrt::runtime::explain_to_raw(text.substr(0, nl));
  } catch (const dmlrt::Error&) {
  }
  return 0;
}
