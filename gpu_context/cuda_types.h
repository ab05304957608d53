// The CUDA runtime and library handle types, declared without the CUDA headers, so that
// host-clean headers (kernels/cuda/*.h, memory/) name what they take — a cudaStream_t, a
// cublasHandle_t — instead of void*. These are the typedefs the CUDA headers themselves make;
// C++ allows an identical typedef twice, so a file may include both.
#pragma once

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;
struct CUevent_st;
typedef struct CUevent_st* cudaEvent_t;
struct cublasContext;
typedef struct cublasContext* cublasHandle_t;
struct cublasLtContext;
typedef struct cublasLtContext* cublasLtHandle_t;
struct cusparseContext;
typedef struct cusparseContext* cusparseHandle_t;
struct cusolverDnContext;
typedef struct cusolverDnContext* cusolverDnHandle_t;
struct cudnnContext;
typedef struct cudnnContext* cudnnHandle_t;
