// cbind / rbind on the CPU for any number of dense or CSR blocks. The result is built directly in
// the format SystemDS would pick for it, so sparse inputs with a sparse result never densify.
#pragma once

#include <vector>

#include "kernels/matrix_block.h"

namespace dmlrt::kernels::cpu {

// Side by side: every input has the same number of rows m; result (m, sum of cols).
// Throws ShapeError naming the first mismatching input.
MatrixBlock cbind(const std::vector<const MatrixBlock*>& inputs);

// Stacked: every input has the same number of columns n; result (sum of rows, n).
MatrixBlock rbind(const std::vector<const MatrixBlock*>& inputs);

}  // namespace dmlrt::kernels::cpu
