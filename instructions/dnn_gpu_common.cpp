// Shared pieces of the DNN GPU paths, device-free; see dnn_gpu_common.h.
#include "instructions/dnn_gpu_common.h"

#include <algorithm>
#include <cstdint>

namespace dmlrt::inst {

bool dnn_product_fits(std::initializer_list<int64_t> factors) {
  __int128 p = 1;
  for (int64_t f : factors) {
    p *= f;
    if (p > INT64_MAX || p < 0) return false;
  }
  return true;
}

int64_t dnn_chunk_rows(int64_t n, int64_t bytes_per_row, int64_t fixed_bytes, int64_t budget_bytes,
                       int64_t elements_per_row) {
  if (n <= 1) return std::max<int64_t>(n, 1);
  int64_t chunk = n;
  if (bytes_per_row > 0) {
    const int64_t room = budget_bytes - fixed_bytes;
    chunk = std::min(chunk, room > 0 ? room / bytes_per_row : 0);
  }
  if (elements_per_row > 0)
    chunk = std::min(chunk, (kMaxCudnnTensorElements - 1) / elements_per_row);
  return std::max<int64_t>(chunk, 1);
}

}  // namespace dmlrt::inst
