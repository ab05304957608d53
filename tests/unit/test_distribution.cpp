// Tests of cdf / invcdf (distribution_instructions.h): values checked against R / closed forms,
// the ends of the supports, and every error message. SystemDS's own outputs are the conformance
// case param_cdf_invcdf.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "common/fake_services.h"
#include "gpu_context/error.h"

using dmlrt::inst::ScalarValue;
using dmlrt::test::TestContext;

namespace {
double run_scalar(const std::string& line) {
  TestContext t;
  t.set_scalar("x", ScalarValue::fp64(0.3));
  t.run(line);
  return t.scalar("y").to_double();
}
}  // namespace

TEST_CASE("cdf / invcdf: values and support ends", "[parameterized][distribution]") {
  CHECK(run_scalar("CP°cdf°dist=normal°target=1.96°y·SCALAR·FP64") ==
        Approx(0.9750021048517795).epsilon(1e-14));
  CHECK(run_scalar("CP°cdf°dist=normal°target=x°y·SCALAR·FP64") ==
        Approx(0.6179114221889527).epsilon(1e-14));  // a bound variable
  CHECK(run_scalar("CP°cdf°rate=2°dist=exp°target=0.5°y·SCALAR·FP64") ==
        Approx(1 - std::exp(-1.0)).epsilon(1e-14));
  CHECK(run_scalar("CP°cdf°rate=2°dist=exp°lower.tail=FALSE°target=0.5°y·SCALAR·FP64") ==
        Approx(std::exp(-1.0)).epsilon(1e-14));
  CHECK(run_scalar("CP°cdf°df=2°dist=chisq°target=-1°y·SCALAR·FP64") == 0.0);
  CHECK(run_scalar("CP°cdf°df=3°dist=t°target=0°y·SCALAR·FP64") == 0.5);
  CHECK(run_scalar("CP°invcdf°df=10°dist=t°target=0.975°y·SCALAR·FP64") ==
        Approx(2.228138851986273).epsilon(1e-12));
  CHECK(run_scalar("CP°invcdf°df2=5°dist=f°df1=3°target=0°y·SCALAR·FP64") == 0.0);
  CHECK(std::isinf(run_scalar("CP°invcdf°dist=normal°target=1°y·SCALAR·FP64")));
  CHECK(run_scalar("CP°invcdf°dist=normal°target=0°y·SCALAR·FP64") < 0);
}

TEST_CASE("cdf / invcdf: error messages", "[parameterized][distribution]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(run_scalar("CP°cdf°dist=gamma°target=1°y·SCALAR·FP64"),
                    Contains("cdf: unsupported distribution 'gamma' (normal, exp, chisq, f, t)"));
  CHECK_THROWS_WITH(run_scalar("CP°cdf°dist=normal°mean=1°y·SCALAR·FP64"),
                    Contains("cdf: missing parameter 'target'"));
  CHECK_THROWS_WITH(run_scalar("CP°cdf°dist=normal°target°y·SCALAR·FP64"),
                    Contains("cdf: field 'target' is not name=value"));
  CHECK_THROWS_WITH(run_scalar("CP°cdf°dist=normal°target=1°Y·MATRIX·FP64"),
                    Contains("cdf: the output must be a scalar"));
  CHECK_THROWS_WITH(run_scalar("CP°cdf°y·SCALAR·FP64"),
                    Contains("cdf expects dist=, target= and an output"));
  CHECK_THROWS_WITH(run_scalar("CP°cdf°dist=normal°target=abc°y·SCALAR·FP64"),
                    Contains("cdf: parameter target='abc' is not a number"));
  CHECK_THROWS_WITH(
      run_scalar("CP°cdf°sd=0°dist=normal°target=1°y·SCALAR·FP64"),
      Contains("cdf: standard deviation for the normal distribution must be positive (0)"));
  CHECK_THROWS_WITH(
      run_scalar("CP°cdf°rate=-1°dist=exp°target=1°y·SCALAR·FP64"),
      Contains("cdf: rate for the exponential distribution must be positive (-1)"));
  CHECK_THROWS_WITH(
      run_scalar("CP°cdf°dist=chisq°target=1°y·SCALAR·FP64"),
      Contains("cdf: degrees of freedom (df) must be given for the chi-squared distribution"));
  CHECK_THROWS_WITH(
      run_scalar("CP°invcdf°df=0.5°dist=t°target=0.5°y·SCALAR·FP64"),
      Contains("invcdf: degrees of freedom for the t distribution must be positive (0)"));
  CHECK_THROWS_WITH(run_scalar("CP°cdf°df1=3°dist=f°target=1°y·SCALAR·FP64"),
                    Contains("cdf: degrees of freedom (df1, df2) must be given for the F"));
  CHECK_THROWS_WITH(
      run_scalar("CP°cdf°df1=3°df2=-2°dist=f°target=1°y·SCALAR·FP64"),
      Contains("cdf: degrees of freedom for the F distribution must be positive (3,-2)"));
  CHECK_THROWS_WITH(run_scalar("CP°invcdf°dist=normal°target=1.5°y·SCALAR·FP64"),
                    Contains("invcdf: probability 1.5 is out of [0, 1]"));
}
