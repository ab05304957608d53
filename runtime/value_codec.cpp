// Value bytes for MPI ranks; see the header.
#include "runtime/value_codec.h"

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "gpu_context/error.h"

namespace dmlrt::runtime {
namespace {

enum Tag : char { kScalar = 'S', kDense = 'D', kCsr = 'C', kEmpty = 'E', kList = 'L' };

template <typename T>
void put(const T* p, size_t n, std::string& out) {
  out.append(reinterpret_cast<const char*>(p), n * sizeof(T));
}

template <typename T>
std::vector<T> take(const std::string& in, size_t& pos, size_t n) {
  DMLRT_REQUIRE(pos + n * sizeof(T) <= in.size(), RuntimeError,
                "MPI value bytes end early (" << in.size() << " bytes, " << pos + n * sizeof(T)
                                              << " needed)");
  std::vector<T> v(n);
  if (n > 0) std::memcpy(v.data(), in.data() + pos, n * sizeof(T));
  pos += n * sizeof(T);
  return v;
}

char take_tag(const std::string& in, size_t& pos) {
  DMLRT_REQUIRE(pos < in.size(), RuntimeError, "MPI value bytes end early");
  return in[pos++];
}

}  // namespace

void encode_int(int64_t x, std::string& out) { put(&x, 1, out); }
int64_t decode_int(const std::string& in, size_t& pos) { return take<int64_t>(in, pos, 1)[0]; }

void encode_string(const std::string& s, std::string& out) {
  encode_int(static_cast<int64_t>(s.size()), out);
  out += s;
}

std::string decode_string(const std::string& in, size_t& pos) {
  const int64_t n = decode_int(in, pos);
  DMLRT_REQUIRE(n >= 0 && pos + static_cast<size_t>(n) <= in.size(), RuntimeError,
                "MPI value bytes end early (a string of " << n << " bytes)");
  std::string s = in.substr(pos, static_cast<size_t>(n));
  pos += static_cast<size_t>(n);
  return s;
}

void encode_value(const inst::Value& v, std::string& out) {
  if (const auto* s = std::get_if<inst::ScalarValue>(&v)) {
    out += kScalar;
    encode_int(static_cast<int64_t>(s->type()), out);
    if (s->type() == inst::ValueType::kFP64 || s->type() == inst::ValueType::kFP32) {
      const double d = s->to_double();
      put(&d, 1, out);
    } else if (s->type() == inst::ValueType::kString) {
      encode_string(s->to_string(), out);
    } else if (s->type() == inst::ValueType::kBoolean) {
      encode_int(s->to_bool() ? 1 : 0, out);
    } else {
      encode_int(s->to_int(), out);
    }
  } else if (const auto* mo = std::get_if<std::shared_ptr<inst::MatrixObject>>(&v)) {
    const std::shared_ptr<const kernels::MatrixBlock>& b = (*mo)->block();
    if (b == nullptr) {
      out += kEmpty;
      return;
    }
    out += b->is_sparse() ? kCsr : kDense;
    encode_int(b->rows(), out);
    encode_int(b->cols(), out);
    if (b->is_sparse()) {
      encode_int(static_cast<int64_t>(b->col_idx().size()), out);
      put(b->row_ptr().data(), b->row_ptr().size(), out);
      put(b->col_idx().data(), b->col_idx().size(), out);
      put(b->csr_values().data(), b->csr_values().size(), out);
    } else {
      put(b->dense_values().data(), b->dense_values().size(), out);
    }
  } else {
    const inst::ListValue& l = *std::get<inst::ListPtr>(v);
    out += kList;
    encode_int(static_cast<int64_t>(l.items.size()), out);
    encode_int(l.named ? 1 : 0, out);
    for (size_t i = 0; i < l.items.size(); ++i) {
      if (l.named) encode_string(l.names[i], out);
      encode_value(l.items[i], out);
    }
  }
}

inst::Value decode_value(const std::string& in, size_t& pos) {
  const char tag = take_tag(in, pos);
  switch (tag) {
    case kScalar: {
      const auto vt = static_cast<inst::ValueType>(decode_int(in, pos));
      if (vt == inst::ValueType::kFP64 || vt == inst::ValueType::kFP32)
        return inst::ScalarValue::fp64(take<double>(in, pos, 1)[0]);
      if (vt == inst::ValueType::kString) return inst::ScalarValue::string(decode_string(in, pos));
      if (vt == inst::ValueType::kBoolean) return inst::ScalarValue::boolean(decode_int(in, pos));
      return inst::ScalarValue::int64(decode_int(in, pos));
    }
    case kEmpty:
      return std::make_shared<inst::MatrixObject>();
    case kDense:
    case kCsr: {
      const int64_t rows = decode_int(in, pos), cols = decode_int(in, pos);
      DMLRT_REQUIRE(rows >= 0 && cols >= 0, RuntimeError,
                    "MPI value bytes: a matrix of " << rows << "x" << cols);
      auto mo = std::make_shared<inst::MatrixObject>();
      if (tag == kCsr) {
        const int64_t nnz = decode_int(in, pos);
        auto rp = take<int64_t>(in, pos, static_cast<size_t>(rows + 1));
        auto ci = take<int32_t>(in, pos, static_cast<size_t>(nnz));
        auto vals = take<double>(in, pos, static_cast<size_t>(nnz));
        mo->set_block(
            kernels::MatrixBlock::csr(rows, cols, std::move(rp), std::move(ci), std::move(vals)));
      } else {
        mo->set_block(kernels::MatrixBlock::dense(
            rows, cols, take<double>(in, pos, static_cast<size_t>(rows * cols))));
      }
      return mo;
    }
    case kList: {
      auto l = std::make_shared<inst::ListValue>();
      const int64_t n = decode_int(in, pos);
      l->named = decode_int(in, pos) != 0;
      for (int64_t i = 0; i < n; ++i) {
        if (l->named) l->names.push_back(decode_string(in, pos));
        l->items.push_back(decode_value(in, pos));
      }
      return inst::ListPtr(std::move(l));
    }
    default:
      DMLRT_FAIL(RuntimeError, "MPI value bytes: unknown tag " << static_cast<int>(tag));
  }
}

}  // namespace dmlrt::runtime
