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

EinsumLayout einsum_layout(const EinsumSpec& spec,
                           const std::vector<std::pair<int64_t, int64_t>>& dims) {
  EinsumLayout lay;
  std::map<char, int64_t> size;
  for (size_t k = 0; k < dims.size(); ++k) {
    const auto [rows, cols] = dims[k];
    const std::string& t = spec.terms[k];
    int64_t d[2] = {rows, cols};  // each letter's size in term order
    if (t.size() == 1) {
      DMLRT_REQUIRE(rows == 1 || cols == 1, RuntimeError,
                    "einsum: operand " << k + 1 << " (" << dims_string(rows, cols)
                                       << ") is a matrix but its term '" << t
                                       << "' names one axis");
      d[0] = cols == 1 ? rows : cols;
    }
    for (size_t a = 0; a < t.size(); ++a) {
      const auto it = size.find(t[a]);
      if (it == size.end()) {
        size[t[a]] = d[a];
        lay.letters += t[a];
      } else {
        DMLRT_REQUIRE(it->second == d[a], RuntimeError,
                      "einsum: axis '" << t[a] << "' has size " << it->second << " and " << d[a]
                                       << " (operand " << k + 1 << ", " << dims_string(rows, cols)
                                       << ")");
      }
    }
  }
  for (char c : lay.letters) lay.range.push_back(size[c]);
  lay.rows = spec.out.empty() ? 1 : size[spec.out[0]];
  lay.cols = spec.out.size() == 2 ? size[spec.out[1]] : 1;
  return lay;
}

MatrixBlock einsum(const EinsumSpec& spec, const std::vector<const MatrixBlock*>& in) {
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (const MatrixBlock* m : in) dims.emplace_back(m->rows(), m->cols());
  const EinsumLayout lay = einsum_layout(spec, dims);
  const std::string& letters = lay.letters;
  const int64_t orows = lay.rows, ocols = lay.cols;
  check_host_alloc("einsum", orows, ocols, sizeof(double));
  std::vector<double> out(orows * ocols, 0.0);
  // Position of each letter in the odometer; strides of each operand's axes.
  const int nl = static_cast<int>(letters.size());
  const std::vector<int64_t>& range = lay.range;
  std::vector<int64_t> idx(nl, 0);
  if (std::any_of(range.begin(), range.end(), [](int64_t r) { return r == 0; }))
    return spec.out.empty() ? MatrixBlock::dense(1, 1, 0.0)
                            : MatrixBlock::dense(orows, ocols, std::move(out));
  std::vector<MatrixBlock> dense(in.size());
  for (size_t k = 0; k < in.size(); ++k) dense[k] = in[k]->is_sparse() ? in[k]->to_dense() : *in[k];
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
