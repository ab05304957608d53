// einsum on host blocks (einsum.h): one loop nest over every letter's range.
#include "kernels/cpu/einsum.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "gpu_context/error.h"
#include "kernels/host_memory.h"

namespace dmlrt::kernels::cpu {
namespace {

std::string strip_spaces(const std::string& s) {
  std::string r;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) r += c;
  return r;
}

}  // namespace

EinsumSpec parse_einsum(const std::string& equation, size_t operands) {
  const std::string eq = strip_spaces(equation);
  EinsumSpec spec;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  size_t pos = 0;
  while (true) {
    const size_t comma = lhs.find(',', pos);
    spec.terms.push_back(
        lhs.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  std::map<char, int> uses;
  for (const auto& t : spec.terms) {
    DMLRT_REQUIRE(!t.empty() && t.size() <= 2, RuntimeError,
                  "einsum: term '"
                      << t << "' of '" << equation
                      << "' must name one or two axes (dmlrt's operands are matrices)");
    for (char c : t) {
      DMLRT_REQUIRE(std::isalpha(static_cast<unsigned char>(c)), RuntimeError,
                    "einsum: '" << c << "' in '" << equation << "' is not an axis letter");
      ++uses[c];
    }
  }
  DMLRT_REQUIRE(spec.terms.size() == operands, RuntimeError,
                "einsum: '" << equation << "' has " << spec.terms.size() << " operand terms but "
                            << operands << " operands are given");
  // SystemDS 3.4 compiles the implicit form (no "->") to a scalar and then fails on it.
  DMLRT_REQUIRE(arrow != std::string::npos, RuntimeError,
                "einsum: '" << equation
                            << "' has no '->' output (SystemDS 3.4 does not run the "
                               "implicit form either)");
  spec.out = eq.substr(arrow + 2);
  DMLRT_REQUIRE(
      spec.out.size() <= 2, RuntimeError,
      "einsum: the output '" << spec.out << "' of '" << equation << "' has more than two axes");
  for (char c : spec.out) {
    DMLRT_REQUIRE(uses.count(c), RuntimeError,
                  "einsum: output axis '" << c << "' of '" << equation << "' is in no operand");
    DMLRT_REQUIRE(std::count(spec.out.begin(), spec.out.end(), c) == 1, RuntimeError,
                  "einsum: output axis '" << c << "' of '" << equation << "' appears twice");
  }
  return spec;
}

MatrixBlock einsum(const EinsumSpec& spec, const std::vector<const MatrixBlock*>& in) {
  // Every letter's range, from the operands' dims.
  std::string letters;
  std::map<char, int64_t> size;
  std::vector<MatrixBlock> dense(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    const MatrixBlock& m = *in[k];
    const std::string& t = spec.terms[k];
    dense[k] = m.is_sparse() ? m.to_dense() : m;
    std::vector<int64_t> dims;
    if (t.size() == 2) {
      dims = {m.rows(), m.cols()};
    } else {
      DMLRT_REQUIRE(m.rows() == 1 || m.cols() == 1, RuntimeError,
                    "einsum: operand " << k + 1 << " (" << dims_string(m.rows(), m.cols())
                                       << ") is a matrix but its term '" << t
                                       << "' names one axis");
      dims = {m.cols() == 1 ? m.rows() : m.cols()};
    }
    for (size_t a = 0; a < t.size(); ++a) {
      const auto it = size.find(t[a]);
      if (it == size.end()) {
        size[t[a]] = dims[a];
        letters += t[a];
      } else {
        DMLRT_REQUIRE(it->second == dims[a], RuntimeError,
                      "einsum: axis '" << t[a] << "' has size " << it->second << " and " << dims[a]
                                       << " (operand " << k + 1 << ", "
                                       << dims_string(m.rows(), m.cols()) << ")");
      }
    }
  }
  const int64_t orows = spec.out.empty() ? 1 : size[spec.out[0]];
  const int64_t ocols = spec.out.size() == 2 ? size[spec.out[1]] : 1;
  check_host_alloc("einsum", orows, ocols, sizeof(double));
  std::vector<double> out(orows * ocols, 0.0);
  // Position of each letter in the odometer; strides of each operand's axes.
  const int nl = static_cast<int>(letters.size());
  std::vector<int64_t> range(nl), idx(nl, 0);
  for (int l = 0; l < nl; ++l) range[l] = size[letters[l]];
  if (std::any_of(range.begin(), range.end(), [](int64_t r) { return r == 0; }))
    return spec.out.empty() ? MatrixBlock::dense(1, 1, 0.0)
                            : MatrixBlock::dense(orows, ocols, std::move(out));
  auto letter_pos = [&](char c) { return static_cast<int>(letters.find(c)); };
  struct Axis {
    int letter;
    int64_t stride;
  };
  std::vector<std::vector<Axis>> axes(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    const std::string& t = spec.terms[k];
    if (t.size() == 2)
      axes[k] = {{letter_pos(t[0]), dense[k].cols()}, {letter_pos(t[1]), 1}};
    else
      axes[k] = {{letter_pos(t[0]), 1}};  // a vector's cells are contiguous either way
  }
  std::vector<Axis> oaxes;
  if (spec.out.size() == 2)
    oaxes = {{letter_pos(spec.out[0]), ocols}, {letter_pos(spec.out[1]), 1}};
  else if (spec.out.size() == 1)
    oaxes = {{letter_pos(spec.out[0]), 1}};
  std::vector<const double*> data(in.size());
  for (size_t k = 0; k < in.size(); ++k) data[k] = dense[k].dense_data();
  while (true) {
    double prod = 1.0;
    for (size_t k = 0; k < in.size(); ++k) {
      int64_t off = 0;
      for (const Axis& a : axes[k]) off += idx[a.letter] * a.stride;
      prod *= data[k][off];
    }
    int64_t o = 0;
    for (const Axis& a : oaxes) o += idx[a.letter] * a.stride;
    out[o] += prod;
    int l = nl - 1;
    for (; l >= 0; --l) {
      if (++idx[l] < range[l]) break;
      idx[l] = 0;
    }
    if (l < 0) break;
  }
  return MatrixBlock::dense(orows, ocols, std::move(out));
}

}  // namespace dmlrt::kernels::cpu
