// union_distinct and rcm (rowClassMeet) as the host sees their GPU forms (issue #17): the opcode
// table marks them GPU-capable, their instructions answer has_gpu_impl(), and the GPU rcm's host
// step numbers classes as the CPU kernel does. The GPU runs are
// compared with the CPU by the op registry and tests/gpu/test_gpu_union.cpp,
// test_gpu_row_class_meet.cpp.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "instructions/instruction.h"
#include "instructions/opcode_table.h"
#include "kernels/cpu/row_class_meet.h"

using namespace dmlrt;

TEST_CASE("issue #17's GPU forms: union_distinct and rcm", "[opcodes][gpu-forms]") {
  for (const char* op : {"union_distinct", "rcm"}) {
    INFO(op);
    const inst::OpcodeEntry* e = inst::find_opcode(op);
    REQUIRE(e != nullptr);
    CHECK(e->gpu);
  }
  auto gpu_capable = [](const std::string& line) {
    return inst::make_instruction(inst::InstructionText::parse(line))->has_gpu_impl();
  };
  CHECK(gpu_capable("CP°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64°8"));
  CHECK(gpu_capable("GPU°union_distinct°A·MATRIX·FP64°B·MATRIX·FP64°C·MATRIX·FP64"));
  CHECK(gpu_capable("CP°rcm°A·MATRIX·FP64°B·MATRIX·FP64°C°N°8"));
}

// The host step of the GPU rcm (Note [GPU rcm]): each row's distinct label pairs in
// first-occurrence order, numbered by class_numbers, give row_class_meet's C. Many distinct pairs
// in early rows grow the map, whose capacity the later rows keep.
TEST_CASE("rcm class_numbers replays row_class_meet's order", "[opcodes][gpu-forms]") {
  const int64_t m = 9, n = 200;
  std::vector<double> av(m * n), bv(m * n);
  uint64_t s = 12345;
  auto next = [&s](int levels) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(static_cast<int>((s >> 33) % static_cast<uint64_t>(levels)) -
                               levels / 3);
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int levels = i < 2 ? 60 : 5;  // wide rows first
      av[i * n + j] = next(levels);
      bv[i * n + j] = next(levels);
    }
  const kernels::MatrixBlock a = kernels::MatrixBlock::dense(m, n, av);
  const kernels::MatrixBlock b = kernels::MatrixBlock::dense(m, n, bv);
  const kernels::cpu::ClassMeet want = kernels::cpu::row_class_meet(a, b);

  std::vector<int32_t> pa, pb;
  std::vector<int64_t> row_begin{0}, first;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const auto x = static_cast<int32_t>(av[i * n + j]), y = static_cast<int32_t>(bv[i * n + j]);
      if (x == 0 || y == 0) continue;
      bool seen = false;
      for (size_t k = static_cast<size_t>(row_begin.back()); k < pa.size() && !seen; ++k)
        seen = pa[k] == x && pb[k] == y;
      if (seen) continue;
      pa.push_back(x);
      pb.push_back(y);
      first.push_back(i * n + j);
    }
    if (static_cast<int64_t>(pa.size()) > row_begin.back())
      row_begin.push_back(static_cast<int64_t>(pa.size()));
  }
  const std::vector<int64_t> numbers = kernels::cpu::class_numbers(pa, pb, row_begin);
  REQUIRE(numbers.size() == pa.size());
  for (size_t k = 0; k < pa.size(); ++k) {
    INFO("pair " << k << " (" << pa[k] << ", " << pb[k] << ") at cell " << first[k]);
    CHECK(static_cast<double>(numbers[k]) == want.c.get(first[k] / n, first[k] % n));
  }
}
