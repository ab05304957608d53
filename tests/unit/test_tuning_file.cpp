// TuningFile (gpu_context/tuning_file.h, Note [Tuning cache files]) and the persisted GEMM plan
// text (gpu_context/gemm_plan_cache.h, Note [Persisted GEMM plans]): round trips, hits and
// misses across instances, corrupt / truncated / stale files ignored with one warning and
// rewritten, merging with another writer, memory-only and unwritable directories. Device-free;
// the planner's use of the file runs in tests/gpu/test_gpu_matmult.cpp.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/test_files.h"
#include "gpu_context/conv_algo_cache.h"
#include "gpu_context/gemm_plan_cache.h"
#include "gpu_context/tuning_file.h"

using namespace dmlrt;
using gpu::GemmPlanChoice;
using gpu::GemmPlanKey;
using gpu::TuningEntries;
using gpu::TuningFile;
using gpu::TuningFileFormat;

namespace {

TuningFileFormat test_format(int64_t version = 130001) {
  return gpu::gemm_plan_file_format(version);
}

}  // namespace

TEST_CASE("tuning file text: round trip, line-safe keys, checksum", "[tuning]") {
  const TuningEntries entries = {{"a key", "cublas 3.5"}, {"tab\there", "lt 0 x 0 1"}};
  const std::string text = gpu::serialize_tuning_file(test_format(), entries);
  CHECK(text.rfind("dmlrt-gemm-plans 1 cublaslt=130001\n", 0) == 0);
  TuningEntries back;
  std::string why;
  REQUIRE(gpu::parse_tuning_file(text, test_format(), &back, &why));
  CHECK(back.size() == 2);
  CHECK(back["a key"] == "cublas 3.5");
  CHECK(back["tab_here"] == "lt 0 x 0 1");  // the tab would split the line
}

TEST_CASE("tuning file text: truncated, corrupt and stale texts are refused with a reason",
          "[tuning]") {
  const std::string text = gpu::serialize_tuning_file(test_format(), {{"k", "cublas 1"}});
  TuningEntries back;
  std::string why;
  for (size_t len = 0; len < text.size(); ++len) {
    INFO("prefix of " << len << " bytes");
    CHECK_FALSE(gpu::parse_tuning_file(text.substr(0, len), test_format(), &back, &why));
    CHECK(back.empty());
  }
  std::string flipped = text;
  flipped[text.find("cublas 1")] = 'C';
  CHECK_FALSE(gpu::parse_tuning_file(flipped, test_format(), &back, &why));
  CHECK(why == "corrupt (checksum mismatch)");
  CHECK_FALSE(gpu::parse_tuning_file(text, test_format(120000), &back, &why));
  CHECK(why == "stale (written for cuBLASLt 130001, this is cuBLASLt 120000)");
  TuningFileFormat newer = test_format();
  newer.format = 2;
  CHECK_FALSE(gpu::parse_tuning_file(text, newer, &back, &why));
  CHECK(why == "stale (format version 1, expected 2)");
  // Another table's file is not this one's.
  const std::string conv = gpu::serialize_conv_algo_cache({}, 130001);
  CHECK_FALSE(gpu::parse_tuning_file(conv, test_format(), &back, &why));
  CHECK(why == "corrupt (not a dmlrt GEMM plan cache)");
  // A body line without a tab, checksum and all.
  const std::string body = "dmlrt-gemm-plans 1 cublaslt=130001\nno tab\n";
  CHECK_FALSE(gpu::parse_tuning_file(body + "checksum " + gpu::tuning_checksum(body) + "\n",
                                     test_format(), &back, &why));
  CHECK(why == "corrupt (line 2)");
}

TEST_CASE("tuning file: persists across instances and merges another writer's entries",
          "[tuning]") {
  test::ScratchDir dir("tuning_file");
  const std::string sub = (dir.path / "nested" / "cache").string();
  {
    TuningFile f(sub, "t.txt", test_format());
    CHECK(f.path() == (std::filesystem::path(sub) / "t.txt").string());
    CHECK(f.find("x") == nullptr);
    f.put("x", "cublas 1");
  }
  TuningFile a(sub, "t.txt", test_format()), b(sub, "t.txt", test_format());
  REQUIRE(a.find("x") != nullptr);
  CHECK(*a.find("x") == "cublas 1");
  CHECK(b.entries().size() == 1);  // b read the file before a wrote y
  a.put("y", "cublas 2");
  b.put("z", "cublas 3");  // b's save keeps a's y
  TuningFile c(sub, "t.txt", test_format());
  CHECK(c.entries().size() == 3);
  CHECK(a.warnings().empty());
  CHECK(b.warnings().empty());
  // No temporary is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(sub)) files += e.is_regular_file();
  CHECK(files == 1);
}

TEST_CASE("tuning file: a bad file warns once, is ignored and rewritten; none is memory only",
          "[tuning]") {
  test::ScratchDir dir("tuning_bad");
  const std::filesystem::path file = dir.path / "t.txt";
  const std::string good = gpu::serialize_tuning_file(test_format(), {{"x", "cublas 1"}});
  const std::vector<std::pair<std::string, std::string>> bad = {
      {good.substr(0, good.size() - 5), "truncated (no final line end)"},
      {"garbage\nchecksum 0\n", "corrupt (checksum mismatch)"},
      {gpu::serialize_tuning_file(test_format(99), {{"x", "cublas 1"}}),
       "stale (written for cuBLASLt 99, this is cuBLASLt 130001)"}};
  for (const auto& [text, reason] : bad) {
    INFO(reason);
    test::write_file(file, text);
    TuningFile f(dir.path.string(), "t.txt", test_format());
    CHECK(f.find("x") == nullptr);
    REQUIRE(f.warnings().size() == 1);
    CHECK(f.warnings()[0] == "GEMM plan cache " + file.string() + " is " + reason +
                                 "; ignoring it (it is rewritten at the next save)");
    f.put("y", "cublas 2");
    CHECK(f.warnings().size() == 1);
    TuningFile again(dir.path.string(), "t.txt", test_format());
    REQUIRE(again.find("y") != nullptr);
    CHECK(again.warnings().empty());
  }
  TuningFile none("none", "t.txt", test_format());
  CHECK(none.path().empty());
  none.put("x", "cublas 1");
  CHECK(*none.find("x") == "cublas 1");
  CHECK(none.warnings().empty());
}

TEST_CASE("tuning file: an unwritable directory warns once and keeps the entries in memory",
          "[tuning]") {
  test::ScratchDir dir("tuning_ro");
  test::write_file(dir.path / "blocker", "a file where a folder would go");
  const std::string sub = (dir.path / "blocker" / "cache").string();
  TuningFile f(sub, "t.txt", test_format());
  f.put("x", "cublas 1");
  REQUIRE(f.warnings().size() == 1);
  CHECK(f.warnings()[0].find("cannot write GEMM plan cache " + sub) == 0);
  f.put("y", "cublas 2");
  CHECK(f.warnings().size() == 1);
  CHECK(f.entries().size() == 2);
}

TEST_CASE("persisted GEMM plans: key and choice text", "[tuning][gemm_planner]") {
  GemmPlanKey k;
  k.fp64 = false;
  k.trans_b = true;
  k.m = 64;
  k.n = 10;
  k.k = 512;
  k.max_workspace = 4 << 20;
  k.device = "NVIDIA H200\tcc9.0";
  CHECK(k.to_string() == "fp32 ta=0 tb=1 m=64 n=10 k=512 ws=4194304 dev=NVIDIA H200_cc9.0");
  // Every field is part of the key.
  GemmPlanKey other = k;
  other.max_workspace = 0;
  CHECK(other.to_string() != k.to_string());

  GemmPlanChoice lt;
  lt.cublaslt = true;
  lt.index = 3;
  for (size_t i = 0; i < lt.algo.size(); ++i) lt.algo[i] = 0x0123456789abcdefULL * (i + 1);
  lt.workspace_bytes = 65536;
  lt.us_per_call = 8.25;
  GemmPlanChoice back;
  REQUIRE(GemmPlanChoice::parse(lt.to_string(), &back));
  CHECK(back.cublaslt);
  CHECK(back.index == 3);
  CHECK(back.algo == lt.algo);
  CHECK(back.workspace_bytes == 65536);
  CHECK(back.us_per_call == 8.25);
  GemmPlanChoice routine;
  routine.us_per_call = 14.5;
  REQUIRE(GemmPlanChoice::parse(routine.to_string(), &back));
  CHECK_FALSE(back.cublaslt);
  CHECK(routine.to_string() == "cublas 14.5");

  const std::string hex(128, 'a');
  for (const std::string& bad : std::vector<std::string>{"", "cublas", "cublas x", "cublas 1 2", "cuBLAS 1", "lt 1 " + hex + " 0",
        "lt -1 " + hex + " 0 1", "lt 1.5 " + hex + " 0 1", "lt 1 " + hex.substr(1) + " 0 1",
        "lt 1 " + std::string(127, 'a') + "g 0 1", "lt 1 " + hex + " 0 1 extra"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(GemmPlanChoice::parse(bad, &back));
  }
}

TEST_CASE("conv algorithm cache: an entry that does not parse is a miss with one warning",
          "[tuning][conv_cache]") {
  test::ScratchDir dir("tuning_conv_entry");
  gpu::ConvAlgoKey key;
  key.dtype = "fp64";
  const std::string text = gpu::serialize_tuning_file(gpu::conv_algo_file_format(91900),
                                                      {{key.to_string(), "L:not-a-choice"}});
  test::write_file(dir.path / "conv_algos.txt", text);
  gpu::TuningStats stats;
  gpu::ConvAlgoCache cache(dir.path.string(), 91900);
  cache.set_stats(&stats);
  CHECK(cache.find(key) == nullptr);
  REQUIRE(cache.warnings().size() == 1);
  CHECK(cache.warnings()[0].find("is corrupt; timing that shape again") != std::string::npos);
  gpu::ConvAlgoChoice c;
  c.time_ms = 1.0;
  cache.insert(key, {c});
  cache.record_tuning(0.25);
  gpu::ConvAlgoCache again(dir.path.string(), 91900);
  again.set_stats(&stats);
  REQUIRE(again.find(key) != nullptr);
  CHECK(again.warnings().empty());
  CHECK(stats.timed == 1);
  CHECK(stats.seconds == 0.25);
  CHECK(stats.from_file == 1);
}
