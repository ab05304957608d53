// LSTM on cuDNN's RNN API and the weight repacking kernels; see dnn_lstm.h and
// Note [LSTM on cuDNN].
#include <cudnn.h>

#include <limits>
#include <string>
#include <vector>

#include "gpu_context/cuda_check.h"
#include "gpu_context/error.h"
#include "gpu_context/handles.h"
#include "gpu_context/library_check.h"
#include "kernels/cuda/dnn_lstm.h"
#include "kernels/cuda/kernel_utils.cuh"

namespace dmlrt::kernels::cuda {
namespace {

using detail::global_thread;
using detail::grid_for;
using detail::grid_stride;

// SystemDS gate block (0 i, 1 f, 2 o, 3 g) -> cuDNN gate (0 i, 1 f, 2 g, 3 o); an involution.
__host__ __device__ __forceinline__ int cudnn_gate(int sds_gate) {
  return sds_gate < 2 ? sds_gate : 5 - sds_gate;
}

// Where W[row][col] (row < D+M) or, for row == D+M, b[col] lives in the weight space.
__device__ __forceinline__ int64_t space_index(const LstmWeightOffsets& off, int64_t row,
                                               int64_t col, int64_t d, int64_t m) {
  const int g = cudnn_gate(static_cast<int>(col / m));
  const int64_t h = col % m;
  if (row < d) return off.w[g] + h * d + row;            // (M, D) row-major
  if (row < d + m) return off.r[g] + h * m + (row - d);  // (M, M) row-major
  return off.bw[g] + h;
}

// Over the (D+M+1, 4M) cells of [W; b].
template <typename T>
__global__ void lstm_pack_kernel(const T* __restrict__ w, const T* __restrict__ b,
                                 T* __restrict__ space, LstmWeightOffsets off, int64_t d,
                                 int64_t m) {
  const int64_t m4 = 4 * m, nw = (d + m) * m4, total = nw + m4;
  for (int64_t i = global_thread(); i < total; i += grid_stride()) {
    const int64_t row = i / m4, col = i % m4;
    space[space_index(off, row, col, d, m)] = i < nw ? w[i] : b[col];
  }
}

template <typename T>
__global__ void lstm_unpack_kernel(const T* __restrict__ space, T* __restrict__ dw,
                                   T* __restrict__ db, LstmWeightOffsets off, int64_t d,
                                   int64_t m) {
  const int64_t m4 = 4 * m, nw = (d + m) * m4, total = nw + m4;
  for (int64_t i = global_thread(); i < total; i += grid_stride()) {
    const int64_t row = i / m4, col = i % m4;
    const T v = space[space_index(off, row, col, d, m)];
    if (i < nw)
      dw[i] = v;
    else
      db[col] = v;
  }
}

__global__ void fill_int32_kernel(int32_t* __restrict__ p, int64_t n, int32_t value) {
  for (int64_t i = global_thread(); i < n; i += grid_stride()) p[i] = value;
}

template <typename T>
void pack(const T* w, const T* b, T* space, const LstmWeightOffsets& off, int64_t d, int64_t m,
          cudaStream_t stream) {
  const int64_t total = (d + m + 1) * 4 * m;
  if (total == 0) return;
  lstm_pack_kernel<T><<<grid_for(total), detail::kThreads, 0, stream>>>(w, b, space, off, d, m);
  DMLRT_CHECK(cudaGetLastError());
}

template <typename T>
void unpack(const T* space, T* dw, T* db, const LstmWeightOffsets& off, int64_t d, int64_t m,
            cudaStream_t stream) {
  const int64_t total = (d + m + 1) * 4 * m;
  if (total == 0) return;
  lstm_unpack_kernel<T><<<grid_for(total), detail::kThreads, 0, stream>>>(space, dw, db, off, d, m);
  DMLRT_CHECK(cudaGetLastError());
}

// Typed owners of the cuDNN descriptors (STYLE.md 5).
struct RnnDestroy {
  void operator()(cudnnRNNDescriptor_t d) const { cudnnDestroyRNNDescriptor(d); }
};
struct RnnDataDestroy {
  void operator()(cudnnRNNDataDescriptor_t d) const { cudnnDestroyRNNDataDescriptor(d); }
};
struct TensorDestroy {
  void operator()(cudnnTensorDescriptor_t d) const { cudnnDestroyTensorDescriptor(d); }
};
struct DropoutDestroy {
  void operator()(cudnnDropoutDescriptor_t d) const { cudnnDestroyDropoutDescriptor(d); }
};
using UniqueRnn = gpu::UniqueHandle<cudnnRNNDescriptor_t, RnnDestroy>;
using UniqueRnnData = gpu::UniqueHandle<cudnnRNNDataDescriptor_t, RnnDataDestroy>;
using UniqueTensor = gpu::UniqueHandle<cudnnTensorDescriptor_t, TensorDestroy>;
using UniqueDropout = gpu::UniqueHandle<cudnnDropoutDescriptor_t, DropoutDestroy>;

UniqueTensor make_tensor() {
  return UniqueTensor::create([](auto* t) { DMLRT_CHECK(cudnnCreateTensorDescriptor(t)); });
}

UniqueRnnData make_rnn_data(cudnnDataType_t dtype, int n, int t, int vec,
                            const std::vector<int>& lengths) {
  auto desc = UniqueRnnData::create([](auto* d) { DMLRT_CHECK(cudnnCreateRNNDataDescriptor(d)); });
  DMLRT_CHECK_CTX(
      cudnnSetRNNDataDescriptor(desc.get(), dtype, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, t, n,
                                vec, lengths.data(), nullptr),
      "lstm data N=" << n << " T=" << t << " vector=" << vec);
  return desc;
}

int as_int(int64_t v, const char* what) {
  DMLRT_REQUIRE(v >= 0 && v <= std::numeric_limits<int>::max(), NotSupported,
                "lstm: " << what << " = " << v << " exceeds cuDNN's 32-bit sizes");
  return static_cast<int>(v);
}

}  // namespace

void launch_lstm_pack_weights(const double* w, const double* b, double* space,
                              const LstmWeightOffsets& off, int64_t d, int64_t m,
                              cudaStream_t stream) {
  pack(w, b, space, off, d, m, stream);
}
void launch_lstm_pack_weights(const float* w, const float* b, float* space,
                              const LstmWeightOffsets& off, int64_t d, int64_t m,
                              cudaStream_t stream) {
  pack(w, b, space, off, d, m, stream);
}
void launch_lstm_unpack_weights(const double* space, double* dw, double* db,
                                const LstmWeightOffsets& off, int64_t d, int64_t m,
                                cudaStream_t stream) {
  unpack(space, dw, db, off, d, m, stream);
}
void launch_lstm_unpack_weights(const float* space, float* dw, float* db,
                                const LstmWeightOffsets& off, int64_t d, int64_t m,
                                cudaStream_t stream) {
  unpack(space, dw, db, off, d, m, stream);
}

void launch_fill_int32(int32_t* p, int64_t n, int32_t value, cudaStream_t stream) {
  if (n == 0) return;
  fill_int32_kernel<<<grid_for(n), detail::kThreads, 0, stream>>>(p, n, value);
  DMLRT_CHECK(cudaGetLastError());
}

struct CudnnLstm::Impl {
  cudnnHandle_t handle = nullptr;
  cudnnDataType_t dtype = CUDNN_DATA_DOUBLE;
  size_t elem = 8;
  cudnnForwardMode_t mode = CUDNN_FWD_MODE_INFERENCE;
  int n = 0, t = 0, d = 0, m = 0;
  UniqueDropout dropout;
  UniqueRnn rnn;
  UniqueRnnData x, y;
  UniqueTensor h;  // (1, N, M): hx, hy, cx, cy and their gradients
  size_t weight_bytes = 0, work_bytes = 0, reserve_bytes = 0;

  std::string shape() const {
    return "lstm N=" + std::to_string(n) + " T=" + std::to_string(t) + " D=" + std::to_string(d) +
           " M=" + std::to_string(m);
  }
};

CudnnLstm::CudnnLstm(cudnnHandle_t cudnn, bool fp64, bool allow_tf32, bool training, int64_t n,
                     int64_t t, int64_t d, int64_t m)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.handle = cudnn;
  s.dtype = fp64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  s.elem = fp64 ? 8 : 4;
  s.mode = training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE;
  s.n = as_int(n, "N");
  s.t = as_int(t, "T");
  s.d = as_int(d, "D");
  s.m = as_int(m, "M");
  // Tensors cuDNN indexes with int: X (N*T*D), Y (N*T*M), the gates (N*4M per step).
  as_int(n * t * d, "N*T*D");
  as_int(n * t * m, "N*T*M");
  as_int((d + m + 2) * 4 * m, "(D+M+2)*4M weights");

  // No dropout: a single layer never applies it, and with probability 0 cuDNN needs no states.
  s.dropout = UniqueDropout::create([](auto* d) { DMLRT_CHECK(cudnnCreateDropoutDescriptor(d)); });
  DMLRT_CHECK(cudnnSetDropoutDescriptor(s.dropout.get(), s.handle, 0.0f, nullptr, 0, 0));

  s.rnn = UniqueRnn::create([](auto* d) { DMLRT_CHECK(cudnnCreateRNNDescriptor(d)); });
  const cudnnMathType_t math =
      fp64 ? CUDNN_DEFAULT_MATH : (allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH);
  DMLRT_CHECK_CTX(cudnnSetRNNDescriptor_v8(s.rnn.get(), CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM,
                                           CUDNN_RNN_DOUBLE_BIAS, CUDNN_UNIDIRECTIONAL,
                                           CUDNN_LINEAR_INPUT, s.dtype, s.dtype, math, s.d, s.m,
                                           s.m, 1, s.dropout.get(), CUDNN_RNN_PADDED_IO_ENABLED),
                  s.shape());

  const std::vector<int> lengths(static_cast<size_t>(s.n), s.t);
  s.x = make_rnn_data(s.dtype, s.n, s.t, s.d, lengths);
  s.y = make_rnn_data(s.dtype, s.n, s.t, s.m, lengths);
  s.h = make_tensor();
  const int hdims[3] = {1, s.n, s.m};
  const int hstrides[3] = {s.n * s.m, s.m, 1};
  DMLRT_CHECK_CTX(cudnnSetTensorNdDescriptor(s.h.get(), s.dtype, 3, hdims, hstrides), s.shape());

  DMLRT_CHECK_CTX(cudnnGetRNNWeightSpaceSize(s.handle, s.rnn.get(), &s.weight_bytes), s.shape());
  DMLRT_CHECK_CTX(cudnnGetRNNTempSpaceSizes(s.handle, s.rnn.get(), s.mode, s.x.get(), &s.work_bytes,
                                            &s.reserve_bytes),
                  s.shape());
  if (!training) s.reserve_bytes = 0;
}

CudnnLstm::~CudnnLstm() = default;

size_t CudnnLstm::weight_space_bytes() const { return impl_->weight_bytes; }
size_t CudnnLstm::workspace_bytes() const { return impl_->work_bytes; }
size_t CudnnLstm::reserve_bytes() const { return impl_->reserve_bytes; }

LstmWeightOffsets CudnnLstm::weight_offsets(const void* weight_space) const {
  const Impl& s = *impl_;
  LstmWeightOffsets off{};
  UniqueTensor mdesc = make_tensor(), bdesc = make_tensor();
  const char* base = static_cast<const char*>(weight_space);
  auto offset_of = [&](void* addr, const char* what, int id) {
    DMLRT_REQUIRE(addr != nullptr, RuntimeError,
                  "cudnnGetRNNWeightParams gave no " << what << " for linLayerID " << id << " ["
                                                     << s.shape() << "]");
    return static_cast<int64_t>((static_cast<const char*>(addr) - base) /
                                static_cast<std::ptrdiff_t>(s.elem));
  };
  // The shape cudnnGetRNNWeightParams wrote into a descriptor: {1, rows, cols} for a matrix,
  // {1, M, 1} for a bias.
  struct Nd {
    int nb = 0, dims[8] = {}, strides[8] = {};
    std::string text() const {
      std::string t = "dims {";
      for (int i = 0; i < nb; ++i) t += (i ? ", " : "") + std::to_string(dims[i]);
      t += "} strides {";
      for (int i = 0; i < nb; ++i) t += (i ? ", " : "") + std::to_string(strides[i]);
      return t + "}";
    }
  };
  auto shape_of = [&](cudnnTensorDescriptor_t desc) {
    Nd nd;
    cudnnDataType_t dt;
    DMLRT_CHECK(cudnnGetTensorNdDescriptor(desc, 8, &dt, &nd.nb, nd.dims, nd.strides));
    return nd;
  };
  for (int id = 0; id < 8; ++id) {
    void* maddr = nullptr;
    void* baddr = nullptr;
    DMLRT_CHECK_CTX(cudnnGetRNNWeightParams(s.handle, s.rnn.get(), 0, s.weight_bytes, weight_space,
                                            id, mdesc.get(), &maddr, bdesc.get(), &baddr),
                    s.shape() << " linLayerID=" << id);
    const int g = id % 4;
    const int cols = id < 4 ? s.d : s.m;
    const Nd mat = shape_of(mdesc.get()), bias = shape_of(bdesc.get());
    // Row-major (M, cols): the layout the repacking kernels assume (Note [LSTM on cuDNN]).
    const bool mat_ok = mat.nb == 3 && mat.dims[0] == 1 && mat.dims[1] == s.m &&
                        mat.dims[2] == cols && mat.strides[1] == cols && mat.strides[2] == 1;
    const bool bias_ok = bias.nb == 3 && bias.dims[0] == 1 && bias.dims[1] == s.m &&
                         bias.dims[2] == 1 && bias.strides[1] == 1;
    DMLRT_REQUIRE(mat_ok && bias_ok, RuntimeError,
                  "cudnnGetRNNWeightParams linLayerID "
                      << id << ": matrix " << mat.text() << ", bias " << bias.text()
                      << "; expected a row-major " << s.m << "x" << cols << " matrix and " << s.m
                      << " biases [" << s.shape() << "]");
    (id < 4 ? off.w : off.r)[g] = offset_of(maddr, "matrix", id);
    (id < 4 ? off.bw : off.br)[g] = offset_of(baddr, "bias", id);
  }
  return off;
}

void CudnnLstm::forward(const int32_t* seq_lengths, const void* x, void* y, const void* hx,
                        void* hy, const void* cx, void* cy, const void* weights, void* work,
                        void* reserve) const {
  const Impl& s = *impl_;
  DMLRT_CHECK_CTX(
      cudnnRNNForward(s.handle, s.rnn.get(), s.mode, seq_lengths, s.x.get(), x, s.y.get(), y,
                      s.h.get(), hx, hy, s.h.get(), cx, cy, s.weight_bytes, weights, s.work_bytes,
                      work, s.reserve_bytes, reserve),
      s.shape() << (s.mode == CUDNN_FWD_MODE_TRAINING ? " training" : " inference"));
}

void CudnnLstm::backward_data(const int32_t* seq_lengths, const void* y, const void* dy, void* dx,
                              const void* hx, const void* dhy, void* dhx, const void* cx,
                              const void* dcy, void* dcx, const void* weights, void* work,
                              void* reserve) const {
  const Impl& s = *impl_;
  DMLRT_CHECK_CTX(
      cudnnRNNBackwardData_v8(s.handle, s.rnn.get(), seq_lengths, s.y.get(), y, dy, s.x.get(), dx,
                              s.h.get(), hx, dhy, dhx, s.h.get(), cx, dcy, dcx, s.weight_bytes,
                              weights, s.work_bytes, work, s.reserve_bytes, reserve),
      s.shape());
}

void CudnnLstm::backward_weights(const int32_t* seq_lengths, const void* x, const void* hx,
                                 const void* y, void* dweights, void* work, void* reserve) const {
  const Impl& s = *impl_;
  DMLRT_CHECK_CTX(
      cudnnRNNBackwardWeights_v8(s.handle, s.rnn.get(), CUDNN_WGRAD_MODE_ADD, seq_lengths,
                                 s.x.get(), x, s.h.get(), hx, s.y.get(), y, s.weight_bytes,
                                 dweights, s.work_bytes, work, s.reserve_bytes, reserve),
      s.shape());
}

}  // namespace dmlrt::kernels::cuda
