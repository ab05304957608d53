// Typed owners of cuSPARSE generic-API descriptors (STYLE.md 5) and their constructors for
// dmlrt's layouts: CSR with int32 or int64 indices (base 0), row-major dense matrices, vectors.
// CUDA builds only.
#pragma once

#ifdef DMLRT_WITH_CUDA
#include <cusparse.h>

#include <cstdint>

#include "gpu_context/handles.h"
#include "gpu_context/library_check.h"

namespace dmlrt::gpu {

namespace detail {
struct SpMatDestroy {
  void operator()(cusparseSpMatDescr_t d) const { cusparseDestroySpMat(d); }
};
struct DnMatDestroy {
  void operator()(cusparseDnMatDescr_t d) const { cusparseDestroyDnMat(d); }
};
struct DnVecDestroy {
  void operator()(cusparseDnVecDescr_t d) const { cusparseDestroyDnVec(d); }
};
struct SpGemmDestroy {
  void operator()(cusparseSpGEMMDescr_t d) const { cusparseSpGEMM_destroyDescr(d); }
};
}  // namespace detail

using UniqueSpMat = UniqueHandle<cusparseSpMatDescr_t, detail::SpMatDestroy>;
using UniqueDnMat = UniqueHandle<cusparseDnMatDescr_t, detail::DnMatDestroy>;
using UniqueDnVec = UniqueHandle<cusparseDnVecDescr_t, detail::DnVecDestroy>;
using UniqueSpGemm = UniqueHandle<cusparseSpGEMMDescr_t, detail::SpGemmDestroy>;

// (rows, cols) CSR, base 0; index64 selects int64 offsets and indices.
inline UniqueSpMat make_csr(int64_t rows, int64_t cols, int64_t nnz, void* row_ptr, void* col_idx,
                            void* values, bool index64, cudaDataType value_type) {
  const cusparseIndexType_t it = index64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  return UniqueSpMat::create([&](auto* d) {
    DMLRT_CHECK_CTX(cusparseCreateCsr(d, rows, cols, nnz, row_ptr, col_idx, values, it, it,
                                      CUSPARSE_INDEX_BASE_ZERO, value_type),
                    "csr " << rows << "x" << cols << " nnz=" << nnz);
  });
}

// (rows, cols) dense with leading dimension ld, in `order`.
inline UniqueDnMat make_dense(int64_t rows, int64_t cols, int64_t ld, void* values,
                              cudaDataType value_type, cusparseOrder_t order) {
  return UniqueDnMat::create([&](auto* d) {
    DMLRT_CHECK_CTX(cusparseCreateDnMat(d, rows, cols, ld, values, value_type, order),
                    "dense " << rows << "x" << cols << " ld=" << ld);
  });
}

inline UniqueDnVec make_vector(int64_t n, void* values, cudaDataType value_type) {
  return UniqueDnVec::create([&](auto* d) {
    DMLRT_CHECK_CTX(cusparseCreateDnVec(d, n, values, value_type), "vector n=" << n);
  });
}

inline UniqueSpGemm make_spgemm() {
  return UniqueSpGemm::create([](auto* d) { DMLRT_CHECK(cusparseSpGEMM_createDescr(d)); });
}

}  // namespace dmlrt::gpu
#endif  // DMLRT_WITH_CUDA
