// The embedded API (runtime/include/dmlrt): prepare once, bind, execute many times; scalar and
// matrix inputs and outputs; undeclared names; errors as dmlrt::Error. Only public headers here,
// as a user of the installed package would have. Expected values are worked out by hand.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_paths.h"
#include "dmlrt/dmlrt.h"

using Catch::Contains;

namespace {

// Y = X %*% W + b, and total = sum(Y); inputs X, W (matrices), b (scalar).
const char* kScoring = R"(PROGRAM
--MAIN PROGRAM
----GENERIC (lines 1-3) [recompile=false]
------CP°createvar°_mVar0°scratch_space//_p1//_t0/temp0°true°MATRIX°binary°-1°-1°1000°-1°copy
------CP°ba+*°X·MATRIX·FP64°W·MATRIX·FP64°_mVar0·MATRIX·FP64°2
------CP°createvar°_mVar1°scratch_space//_p1//_t0/temp1°true°MATRIX°binary°-1°-1°1000°-1°copy
------CP°+°_mVar0·MATRIX·FP64°b·SCALAR·FP64·false°_mVar1·MATRIX·FP64°2
------CP°rmvar°_mVar0
------CP°mvvar°_mVar1°Y
------CP°uak+°Y·MATRIX·FP64°total·SCALAR·FP64°2
)";

// Scalars of each value type in and out: sum = a + n, twice = n * 2, neg = !flag,
// greeting = "hello " + name; also prints greeting.
const char* kScalars = R"(PROGRAM
--MAIN PROGRAM
----GENERIC (lines 1-4) [recompile=false]
------CP°+°a·SCALAR·FP64°n·SCALAR·INT64°sum·SCALAR·FP64
------CP°*°n·SCALAR·INT64°2·SCALAR·INT64·true°twice·SCALAR·INT64
------CP°!°flag·SCALAR·BOOLEAN°neg·SCALAR·BOOLEAN
------CP°+°hello ·SCALAR·STRING·true°name·SCALAR·STRING°greeting·SCALAR·STRING
------CP°print°greeting·SCALAR·STRING·false°_Var0·SCALAR·STRING
------CP°rmvar°_Var0
)";

void check_matrix(const dmlrt::Matrix& m, int64_t rows, int64_t cols,
                  const std::vector<double>& ref) {
  REQUIRE(m.rows() == rows);
  REQUIRE(m.cols() == cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      INFO("cell (" << r << ", " << c << ")");
      CHECK(m.at(r, c) == Approx(ref[static_cast<size_t>(r * cols + c)]).margin(1e-12));
    }
  }
}

}  // namespace

TEST_CASE("api: prepare once, execute twice with fresh bindings", "[api]") {
  dmlrt::Connection conn;
  dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"Y", "total"});
  CHECK(s.input_names() == std::vector<std::string>{"X", "W", "b"});
  CHECK(s.output_names() == std::vector<std::string>{"Y", "total"});

  s.set_matrix("X", {{1, 2}, {3, 4}, {5, 6}});  // (3, 2)
  s.set_matrix("W", {{1}, {2}});                // (2, 1)
  s.set_scalar("b", 0.5);
  const dmlrt::ResultVariables r1 = s.execute();
  CHECK(r1.names() == std::vector<std::string>{"Y", "total"});
  CHECK(r1.size() == 2);
  CHECK(r1.is_matrix("Y"));
  CHECK_FALSE(r1.is_matrix("total"));
  const dmlrt::Matrix y1 = r1.get_matrix("Y");
  CHECK_FALSE(y1.is_sparse());
  check_matrix(y1, 3, 1, {5.5, 11.5, 17.5});
  CHECK(y1.data() == std::vector<double>{5.5, 11.5, 17.5});
  CHECK(r1.get_double("total") == Approx(34.5));

  // Fresh bindings with other shapes; the first result stays as it was.
  const double x2[] = {1, 0, 0, 1, 2, 2};  // (3, 2) row-major
  s.set_matrix("X", 3, 2, x2);
  s.set_matrix("W", dmlrt::Matrix(2, 2, {2, 0, 3, -1}));  // (2, 2)
  s.set_scalar("b", int64_t{-1});
  const dmlrt::ResultVariables r2 = s.execute();
  check_matrix(r2.get_matrix("Y"), 3, 2, {1, -1, 2, -2, 9, -3});
  CHECK(r2.get_double("total") == Approx(6.0));
  check_matrix(r1.get_matrix("Y"), 3, 1, {5.5, 11.5, 17.5});

  // Bindings persist: running again gives the same results.
  check_matrix(s.execute().get_matrix("Y"), 3, 2, {1, -1, 2, -2, 9, -3});

  SECTION("clear_parameters drops every binding") {
    s.clear_parameters();
    CHECK_THROWS_AS(s.execute(), dmlrt::Error);
    CHECK_THROWS_WITH(s.execute(),
                      "execute: input 'X' has no value; bind it with set_matrix or set_scalar");
  }
}

TEST_CASE("api: sparse and dense inputs give the same result", "[api]") {
  dmlrt::Connection conn;
  dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"Y", "total"});
  // X (4, 5) with three nonzeros: (0,1)=2, (2,0)=-1, (3,4)=4.
  const dmlrt::Matrix x_csr =
      dmlrt::Matrix::csr(4, 5, {0, 1, 1, 2, 3}, {1, 0, 4}, {2.0, -1.0, 4.0});
  const dmlrt::Matrix w(5, 1, {1, 2, 3, 4, 5});
  const std::vector<double> ref = {4, 0, -1, 20};
  s.set_matrix("W", w);
  s.set_scalar("b", 0.0);
  s.set_matrix("X", x_csr);
  const dmlrt::ResultVariables sparse_run = s.execute();
  check_matrix(sparse_run.get_matrix("Y"), 4, 1, ref);
  s.set_matrix("X", x_csr.to_dense());
  check_matrix(s.execute().get_matrix("Y"), 4, 1, ref);
  CHECK(sparse_run.get_double("total") == Approx(23.0));
}

TEST_CASE("api: a sparse result comes back as CSR from get_matrix_block", "[api]") {
  const char* pass_through = R"(PROGRAM
--MAIN PROGRAM
----GENERIC (lines 1-1) [recompile=false]
------CP°cpvar°X°Y
)";
  dmlrt::Connection conn;
  dmlrt::PreparedScript s = conn.prepare_script(pass_through, {"X"}, {"Y"});
  std::vector<double> x(100 * 50, 0.0);  // (100, 50), 2 nonzeros
  x[7] = 1.5;
  x[99 * 50 + 49] = -2.0;
  s.set_matrix("X", 100, 50, x.data());
  const dmlrt::ResultVariables r = s.execute();
  const dmlrt::Matrix block = r.get_matrix_block("Y");
  CHECK(block.is_sparse());
  CHECK(block.nnz() == 2);
  CHECK(block.row_ptr().back() == 2);
  CHECK(block.at(0, 7) == 1.5);
  CHECK(block.at(99, 49) == -2.0);
  const dmlrt::Matrix dense = r.get_matrix("Y");
  CHECK_FALSE(dense.is_sparse());
  CHECK(dense.data() == x);
}

TEST_CASE("api: scalars of every value type in and out", "[api]") {
  std::ostringstream printed;
  dmlrt::Options opts;
  opts.output = &printed;
  dmlrt::Connection conn(opts);
  dmlrt::PreparedScript s = conn.prepare_script(kScalars, {"a", "n", "flag", "name"},
                                                {"sum", "twice", "neg", "greeting"});
  s.set_scalar("a", 1.25);
  s.set_scalar("n", 20);  // int binds as INT64
  s.set_scalar("flag", true);
  s.set_scalar("name", "dmlrt");
  dmlrt::ResultVariables r = s.execute();
  CHECK(r.get_double("sum") == 21.25);
  CHECK(r.get_long("twice") == 40);
  CHECK(r.get_double("twice") == 40.0);
  CHECK(r.get_string("twice") == "40");
  CHECK(r.get_boolean("neg") == false);
  CHECK(r.get_string("neg") == "FALSE");
  CHECK(r.get_string("greeting") == "hello dmlrt");
  CHECK(r.get_long("sum") == 21);  // DML's (long) cast truncates
  CHECK(printed.str() == "hello dmlrt\n");

  s.set_scalar("n", int64_t{-3});
  s.set_scalar("flag", false);
  s.set_scalar("name", std::string("again"));
  r = s.execute();
  CHECK(r.get_double("sum") == -1.75);
  CHECK(r.get_long("twice") == -6);
  CHECK(r.get_boolean("neg"));
  CHECK(printed.str() == "hello dmlrt\nhello again\n");
}

TEST_CASE("api: undeclared and missing names throw dmlrt::Error", "[api]") {
  dmlrt::Connection conn;
  dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"Y", "total"});
  CHECK_THROWS_AS(s.set_scalar("bias", 1.0), dmlrt::Error);
  CHECK_THROWS_WITH(s.set_scalar("bias", 1.0),
                    "set_scalar: 'bias' is not a declared input of this script (inputs: X, W, b)");
  CHECK_THROWS_WITH(s.set_matrix("Y", {{1.0}}),
                    "set_matrix: 'Y' is not a declared input of this script (inputs: X, W, b)");
  CHECK_THROWS_WITH(s.set_matrix("X", {{1.0, 2.0}, {3.0}}),
                    "Matrix::from_rows: row 1 has 1 values, row 0 has 2");
  CHECK_THROWS_WITH(s.set_matrix("X", 2, 2, nullptr),
                    "set_matrix: 'X': null data for a 2x2 matrix");

  s.set_matrix("X", {{1, 2}});
  s.set_matrix("W", {{1}, {1}});
  CHECK_THROWS_WITH(s.execute(),
                    "execute: input 'b' has no value; bind it with set_matrix or set_scalar");
  s.set_scalar("b", 0.0);
  const dmlrt::ResultVariables r = s.execute();
  CHECK_THROWS_WITH(r.get_matrix("Z"),
                    "get_matrix: 'Z' is not a declared output of this script (outputs: Y, total)");
  CHECK_THROWS_WITH(r.get_double("X"),
                    "get_double: 'X' is not a declared output of this script (outputs: Y, total)");
  CHECK_THROWS_WITH(r.get_double("Y"), "get_double: output 'Y' is a 1x1 matrix, not a scalar");
  CHECK_THROWS_WITH(r.get_matrix("total"),
                    "get_matrix: output 'total' is a scalar (FP64), not a matrix");

  SECTION("a declared output the plan removed") {
    const char* removes = R"(PROGRAM
--MAIN PROGRAM
----GENERIC (lines 1-1) [recompile=false]
------CP°cpvar°X°Y
------CP°rmvar°Y
)";
    dmlrt::PreparedScript t = conn.prepare_script(removes, {"X"}, {"Y"});
    t.set_matrix("X", {{1}});
    const dmlrt::ResultVariables rt = t.execute();
    CHECK(rt.size() == 0);
    CHECK_FALSE(rt.contains("Y"));
    CHECK_THROWS_WITH(rt.get_matrix("Y"),
                      Contains("get_matrix: output 'Y' is not in the symbol table after the run"));
  }
  SECTION("names declared twice") {
    CHECK_THROWS_WITH(conn.prepare_script(kScoring, {"X", "X"}, {"Y"}),
                      "prepare_script: input 'X' is declared twice");
    CHECK_THROWS_WITH(conn.prepare_script(kScoring, {"X"}, {""}),
                      "prepare_script: empty output name");
  }
}

TEST_CASE("api: failures map to dmlrt::Error with the plan location", "[api]") {
  dmlrt::Connection conn;
  SECTION("parse error at prepare") {
    const std::string bad =
        "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-1)\n------CP°frobnicate°1°2\n";
    CHECK_THROWS_AS(conn.prepare_script(bad, {}, {}), dmlrt::Error);
    CHECK_THROWS_WITH(conn.prepare_script(bad, {}, {}), Contains("<script>:4:"));
    CHECK_THROWS_WITH(conn.prepare_script(bad, {}, {}), Contains("unknown opcode 'frobnicate'"));
  }
  SECTION("shape error at execute") {
    dmlrt::PreparedScript s = conn.prepare_script(kScoring, {"X", "W", "b"}, {"Y"});
    s.set_matrix("X", dmlrt::Matrix::zeros(3, 2));
    s.set_matrix("W", dmlrt::Matrix::zeros(3, 1));
    s.set_scalar("b", 1.0);
    CHECK_THROWS_AS(s.execute(), dmlrt::Error);
    CHECK_THROWS_WITH(s.execute(), Contains("<script>:5:"));
    CHECK_THROWS_WITH(s.execute(), Contains("3x2"));
    CHECK_THROWS_WITH(s.execute(), Contains("3x1"));
  }
  SECTION("stop()") {
    const char* stops =
        "PROGRAM\n--MAIN PROGRAM\n----GENERIC (lines 1-1)\n"
        "------CP°stop°msg·SCALAR·STRING°_Var0·SCALAR·STRING\n";
    dmlrt::PreparedScript s = conn.prepare_script(stops, {"msg"}, {});
    s.set_scalar("msg", "boom");
    CHECK_THROWS_WITH(s.execute(), Contains("<script>:4:") && Contains("stop: boom"));
  }
  SECTION("unreadable plan file") {
    CHECK_THROWS_AS(conn.prepare_script_file("/nonexistent/x.plan", {}, {}), dmlrt::Error);
    CHECK_THROWS_WITH(conn.prepare_script_file("/nonexistent/x.plan", {}, {}),
                      Contains("/nonexistent/x.plan"));
    CHECK_THROWS_WITH(dmlrt::Connection::read_script("/nonexistent/x.plan"),
                      "/nonexistent/x.plan: cannot read the script");
  }
}

TEST_CASE("api: plan files, arguments, statistics and explain", "[api]") {
  const std::string dir = dmlrt::test::test_data_dir() + "/unit/data/cli/";
  std::ostringstream printed;
  dmlrt::Options opts;
  opts.output = &printed;
  opts.statistics = true;
  opts.statistics_top_n = 2;
  dmlrt::Connection conn(opts);

  dmlrt::PreparedScript named = conn.prepare_script_file(dir + "named_args.plan", {}, {},
                                                         {{"$x", "2"}, {"y", "4"}, {"msg", "hi"}});
  named.execute();
  CHECK(printed.str() == "8.0\nhi\n");

  printed.str("");
  dmlrt::PreparedScript positional =
      conn.prepare_script(dmlrt::Connection::read_script(dir + "positional_args.plan"), {}, {},
                          {{"$1", "5"}, {"2", "6"}, {"3", "x"}});
  CHECK(positional.statistics().empty());  // nothing ran yet
  positional.execute();
  CHECK(printed.str() == "11\nx\n");
  const std::string stats = positional.statistics();
  CHECK_THAT(stats, Catch::StartsWith("SystemDS Statistics:\n"));
  CHECK_THAT(stats, Contains("Heavy hitter instructions:\n"));
  const size_t table = stats.find("Count\n");
  REQUIRE(table != std::string::npos);
  const std::string rows = stats.substr(table + 6);
  CHECK(std::count(rows.begin(), rows.end(), '\n') == 2);  // statistics_top_n

  CHECK_THAT(positional.explain(),
             Contains("------CP + 5.SCALAR.INT64.true 6.SCALAR.INT64.true _Var0.SCALAR.INT64\n"));
  CHECK_THAT(positional.explain(true),
             Contains("------CP°+°5·SCALAR·INT64·true°6·SCALAR·INT64·true°_Var0·SCALAR·INT64\n"));

  dmlrt::Connection quiet;
  dmlrt::PreparedScript no_stats = quiet.prepare_script(kScoring, {"X", "W", "b"}, {"Y"});
  no_stats.set_matrix("X", {{1}});
  no_stats.set_matrix("W", {{1}});
  no_stats.set_scalar("b", 1.0);
  no_stats.execute();
  CHECK(no_stats.statistics().empty());
}

TEST_CASE("api: connection options and version", "[api]") {
  CHECK(std::regex_match(dmlrt::version(), std::regex(R"(\d+\.\d+\.\d+)")));

  const std::string dir = dmlrt::test::test_data_dir() + "/unit/data/cli/";
  dmlrt::Options opts;
  opts.config_file = dir + "good.xml";
  const dmlrt::Connection conn(opts);
  CHECK(conn.options().precision == dmlrt::Precision::kSingle);  // from the config
  const dmlrt::Connection copy = conn;
  CHECK(copy.options().config_file == opts.config_file);

  opts.config_file = dir + "bad_value.xml";
  CHECK_THROWS_AS(dmlrt::Connection(opts), dmlrt::Error);
  CHECK_THROWS_WITH(dmlrt::Connection(opts),
                    Contains("bad_value.xml:3: sysds.gpu.memory.util.factor"));

  dmlrt::Options negative;
  negative.statistics_top_n = -1;
  CHECK_THROWS_WITH(dmlrt::Connection(negative),
                    "Connection: statistics_top_n must be >= 0, got -1");
}

TEST_CASE("api: Matrix value type", "[api]") {
  const dmlrt::Matrix m(2, 3, {1, 0, 2, 0, 0, 3});  // (2, 3) row-major
  CHECK(m.rows() == 2);
  CHECK(m.cols() == 3);
  CHECK(m.nnz() == 3);
  CHECK(m.at(1, 2) == 3);
  CHECK(m.to_rows() == std::vector<std::vector<double>>{{1, 0, 2}, {0, 0, 3}});
  const dmlrt::Matrix c = m.to_csr();
  CHECK(c.is_sparse());
  CHECK(c.row_ptr() == std::vector<int64_t>{0, 2, 3});
  CHECK(c.col_idx() == std::vector<int32_t>{0, 2, 2});
  CHECK(c.values() == std::vector<double>{1, 2, 3});
  CHECK(c.at(0, 1) == 0.0);
  CHECK(c.to_dense().data() == m.data());
  CHECK(dmlrt::Matrix().rows() == 0);
  CHECK(dmlrt::Matrix::zeros(0, 4).cols() == 4);
  CHECK(dmlrt::Matrix::from_rows({}).rows() == 0);

  CHECK_THROWS_WITH(dmlrt::Matrix(2, 2, {1, 2, 3}),
                    "Matrix: 3 values given for a 2x2 matrix (expected 4)");
  CHECK_THROWS_WITH(dmlrt::Matrix(-1, 2, {}), "Matrix: negative dimensions -1x2");
  CHECK_THROWS_WITH(m.at(2, 0), "Matrix::at: cell (2, 0) outside a 2x3 matrix");
  CHECK_THROWS_WITH(c.data(), Contains("the matrix is in CSR form"));
  CHECK_THROWS_WITH(m.row_ptr(), Contains("the matrix is dense"));
  CHECK_THROWS_WITH(dmlrt::Matrix::csr(2, 3, {0, 1}, {0}, {1.0}),
                    "Matrix::csr (2x3): row_ptr has 2 entries, expected rows+1 = 3");
  CHECK_THROWS_WITH(dmlrt::Matrix::csr(1, 3, {0, 2}, {2, 1}, {1.0, 2.0}),
                    "Matrix::csr (1x3): column indices not increasing in row 0");
  CHECK_THROWS_WITH(dmlrt::Matrix::csr(1, 3, {0, 1}, {3}, {1.0}),
                    "Matrix::csr (1x3): column index 3 out of range in row 0");
  CHECK_THROWS_WITH(dmlrt::Matrix::csr(1, 3, {0, 1}, {0}, {}),
                    "Matrix::csr (1x3): col_idx has 1 entries but values has 0");
}
