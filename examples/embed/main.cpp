// Embedding dmlrt: prepare a linear-model scoring plan (Y = X %*% W + b) once, then execute it
// twice with fresh input bindings and print the results. The plan is in dmlrt's plan grammar
// with raw SystemDS instructions; like a JMLC script it reads its inputs X, W, b by name (no
// createvar/read for them) and leaves its output Y in the symbol table (no rmvar of Y).
#include <dmlrt/dmlrt.h>

#include <cstdio>
#include <iostream>

namespace {

const char* kScoringPlan = R"(PROGRAM
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

void print_matrix(const char* label, const dmlrt::Matrix& m) {
  std::printf("%s (%lldx%lld):", label, static_cast<long long>(m.rows()),
              static_cast<long long>(m.cols()));
  for (int64_t r = 0; r < m.rows(); ++r) {
    std::printf(" [");
    for (int64_t c = 0; c < m.cols(); ++c) std::printf(c ? " %g" : "%g", m.at(r, c));
    std::printf("]");
  }
  std::printf("\n");
}

}  // namespace

int main() {
  try {
    std::printf("dmlrt %s\n", dmlrt::version().c_str());
    dmlrt::Connection conn;
    dmlrt::PreparedScript score =
        conn.prepare_script(kScoringPlan, {"X", "W", "b"}, {"Y", "total"});

    // Run 1: three rows of two features.
    score.set_matrix("X", {{1, 2}, {3, 4}, {5, 6}});  // (3, 2) row-major
    score.set_matrix("W", {{1}, {2}});                // (2, 1)
    score.set_scalar("b", 0.5);
    dmlrt::ResultVariables r1 = score.execute();
    print_matrix("run 1: Y", r1.get_matrix("Y"));
    std::printf("run 1: total = %g\n", r1.get_double("total"));

    // Run 2: fresh bindings, a different batch size and model.
    const double x2[] = {1, 0, 0, 1};  // (2, 2) row-major
    score.set_matrix("X", 2, 2, x2);
    score.set_matrix("W", dmlrt::Matrix(2, 1, {2, 3}));
    score.set_scalar("b", -1.0);
    dmlrt::ResultVariables r2 = score.execute();
    print_matrix("run 2: Y", r2.get_matrix("Y"));
    std::printf("run 2: total = %g\n", r2.get_double("total"));

    // Errors are dmlrt::Error, with a message that names the problem.
    try {
      score.set_scalar("bias", 1.0);
    } catch (const dmlrt::Error& e) {
      std::printf("expected error: %s\n", e.what());
    }
    return 0;
  } catch (const dmlrt::Error& e) {
    std::cerr << "embed_example: " << e.what() << "\n";
    return 1;
  }
}
