// pmm on host blocks (permutation_mm.h).
#include "kernels/cpu/permutation_mm.h"

#include <cmath>
#include <vector>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"

namespace dmlrt::kernels::cpu {

void pmm_bad_entry(int64_t row, double t, int64_t rlen) {
  DMLRT_FAIL(RuntimeError, "pmm: permutation entry " << t << " of row " << row + 1
                                                     << " is outside the output's rows 1.." << rlen);
}

MatrixBlock permutation_mm(const MatrixBlock& p, const MatrixBlock& x, int64_t rlen) {
  const int64_t n = x.rows(), c = x.cols();
  check_host_alloc("pmm", rlen, c, sizeof(double));
  std::vector<double> out(rlen * c, 0.0);  // (rlen, c) row-major
  const MatrixBlock xd = x.is_sparse() ? x.to_dense() : MatrixBlock();
  const double* xv = (x.is_sparse() ? xd : x).dense_data();
  for (int64_t i = 0; i < n; ++i) {
    const double t = p.get(i, 0);
    const auto pos = static_cast<int64_t>(t);  // UtilFunctions.toInt truncates
    if (pos == 0) continue;
    if (!(pos >= 1 && pos <= rlen && t == std::floor(t))) pmm_bad_entry(i, t, rlen);
    for (int64_t j = 0; j < c; ++j) out[(pos - 1) * c + j] = xv[i * c + j];
  }
  MatrixBlock r = MatrixBlock::dense(rlen, c, std::move(out));
  r.examine_format();
  return r;
}

}  // namespace dmlrt::kernels::cpu
