// The cuDNN convolution algorithm cache without a device (gpu_context/conv_algo_cache.h): the key,
// choices, the file round trip, corrupt / truncated / stale files (ignored with one warning and
// rewritten), merging with entries another process saved, and an unwritable directory.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu_context/conv_algo_cache.h"

using namespace dmlrt::gpu;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kVersion = 91900;

ConvAlgoKey lenet_key() {
  ConvAlgoKey k;
  k.pass = ConvPass::kForward;
  k.n = 64, k.c = 1, k.h = 28, k.w = 28, k.k = 32, k.r = 5, k.s = 5;
  k.stride_h = 1, k.stride_w = 1, k.pad_h = 2, k.pad_w = 2;
  k.dtype = "fp64";
  k.math_type = 0;
  k.deterministic = false;
  k.device = "NVIDIA H200 cc9.0";
  k.cudnn_version = kVersion;
  return k;
}

ConvAlgoChoice choice(int algo, double ms, uint64_t ws = 0, int math = 0) {
  ConvAlgoChoice c;
  c.algo = algo;
  c.time_ms = ms;
  c.workspace_bytes = ws;
  c.math_type = math;
  return c;
}

// A fresh directory per test, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() /
           ("dmlrt_conv_cache_" + name + "_" + std::to_string(static_cast<long>(getpid())));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace

TEST_CASE("conv algo key: every field distinguishes, and the key is one line", "[conv_cache]") {
  const ConvAlgoKey base = lenet_key();
  const std::string s = base.to_string();
  CHECK(s.find('\t') == std::string::npos);
  CHECK(s.find('\n') == std::string::npos);
  std::vector<ConvAlgoKey> variants(20, base);
  variants[0].pass = ConvPass::kBackwardData;
  variants[1].pass = ConvPass::kBackwardFilter;
  variants[2].n = 32;
  variants[3].c = 2;
  variants[4].h = 27;
  variants[5].w = 27;
  variants[6].k = 16;
  variants[7].r = 3;
  variants[8].s = 3;
  variants[9].stride_h = 2;
  variants[10].stride_w = 2;
  variants[11].pad_h = 1;
  variants[12].pad_w = 1;
  variants[13].dtype = "fp32";
  variants[14].math_type = 3;
  variants[15].deterministic = true;
  variants[16].device = "NVIDIA H100 cc9.0";
  variants[17].cudnn_version = 91400;
  variants[18].graph_engines = true;
  variants[19].accuracy = "0.0001";
  for (size_t i = 0; i < variants.size(); ++i) {
    INFO("variant " << i << ": " << variants[i].to_string());
    CHECK(variants[i].to_string() != s);
  }
  ConvAlgoKey tabbed = base;
  tabbed.device = "bad\tname\n";
  CHECK(tabbed.to_string().find('\t') == std::string::npos);
  CHECK(tabbed.to_string().find('\n') == std::string::npos);
}

TEST_CASE("conv algo choice: text round trip and malformed forms", "[conv_cache]") {
  ConvAlgoChoice c = choice(6, 0.0421, 1u << 20, 2);
  c.kind = ConvAlgoKind::kEngine;
  ConvAlgoChoice back;
  REQUIRE(ConvAlgoChoice::parse(c.to_string(), &back));
  CHECK(back.kind == ConvAlgoKind::kEngine);
  CHECK(back.algo == 6);
  CHECK(back.math_type == 2);
  CHECK(back.workspace_bytes == (1u << 20));
  CHECK(back.time_ms == Approx(0.0421));
  for (const char* bad : {"", "L", "X:1:0:0:1", "L:1:0:0", "L:a:0:0:1", "L:1:0:-5:1", "L:1:0:0:x",
                          "L:1:0:0:1:9", "L:-1:0:0:1", "L:1:0:0:-1"}) {
    INFO(bad);
    CHECK_FALSE(ConvAlgoChoice::parse(bad, &back));
  }
}

TEST_CASE("conv algo choice: engine configurations carry their knobs", "[conv_cache]") {
  ConvAlgoChoice e = choice(41, 0.25, 8192, 1);
  e.kind = ConvAlgoKind::kEngine;
  e.knobs = {{2, 7}, {14, 3}, {25, 0}};
  CHECK(e.to_string() == "E:41:1:8192:0.25:2=7,14=3,25=0");
  ConvAlgoChoice back;
  REQUIRE(ConvAlgoChoice::parse(e.to_string(), &back));
  CHECK(back.kind == ConvAlgoKind::kEngine);
  CHECK(back.algo == 41);
  CHECK(back.knobs == e.knobs);
  CHECK(back.same_algorithm(e));
  // Another knob value is another configuration of the same engine.
  ConvAlgoChoice other = e;
  other.knobs[1].value = 4;
  CHECK_FALSE(other.same_algorithm(e));
  // An engine without knobs writes "-"; a legacy algorithm has no knob field.
  e.knobs.clear();
  CHECK(e.to_string() == "E:41:1:8192:0.25:-");
  REQUIRE(ConvAlgoChoice::parse(e.to_string(), &back));
  CHECK(back.knobs.empty());
  for (const char* bad : {"E:1:0:0:1", "E:1:0:0:1:", "E:1:0:0:1:2", "E:1:0:0:1:2=", "E:1:0:0:1:=3",
                          "E:1:0:0:1:2=3,", "E:1:0:0:1:-1=3", "E:1:0:0:1:2=x", "L:1:0:0:1:-"}) {
    INFO(bad);
    CHECK_FALSE(ConvAlgoChoice::parse(bad, &back));
  }
  // Inserting the same engine with other knobs keeps both; the same configuration replaces.
  ConvAlgoCache cache("none", kVersion);
  ConvAlgoChoice a = choice(41, 0.3), b = choice(41, 0.2), c = choice(41, 0.1);
  a.kind = b.kind = c.kind = ConvAlgoKind::kEngine;
  a.knobs = {{2, 1}};
  b.knobs = {{2, 2}};
  c.knobs = {{2, 1}};
  cache.insert(lenet_key(), {a, b});
  const ConvAlgoList& merged = cache.insert(lenet_key(), {c});
  REQUIRE(merged.size() == 2);
  CHECK(merged[0].knobs == c.knobs);
  CHECK(merged[0].time_ms == Approx(0.1));
  CHECK(merged[1].knobs == b.knobs);
}

TEST_CASE("conv algo cache file: a format-1 file (legacy algorithms only) is stale",
          "[conv_cache]") {
  const std::string body =
      "dmlrt-conv-algo-cache 1 cudnn=91900\n" + lenet_key().to_string() + "\tL:1:0:0:0.01\n";
  const std::string text = body + "checksum " + tuning_checksum(body) + "\n";
  ConvAlgoMap back;
  std::string why;
  CHECK_FALSE(parse_conv_algo_cache(text, kVersion, &back, &why));
  CHECK(why.find("stale (format version 1") != std::string::npos);
}

TEST_CASE("conv algo cache file: serialize and parse round trip", "[conv_cache]") {
  ConvAlgoMap m;
  m[lenet_key().to_string()] = {choice(1, 0.01), choice(0, 0.02, 4096)};
  ConvAlgoKey k2 = lenet_key();
  k2.pass = ConvPass::kBackwardFilter;
  ConvAlgoChoice engine = choice(57, 0.3, 65536, 1);
  engine.kind = ConvAlgoKind::kEngine;
  engine.knobs = {{2, 5}, {24, 11}};
  m[k2.to_string()] = {choice(3, 0.5, 123456, 1), engine};
  const std::string text = serialize_conv_algo_cache(m, kVersion);
  CHECK(
      text.rfind("dmlrt-conv-algo-cache " + std::to_string(kConvAlgoCacheFormat) + " cudnn=91900\n",
                 0) == 0);
  ConvAlgoMap back;
  std::string why;
  REQUIRE(parse_conv_algo_cache(text, kVersion, &back, &why));
  REQUIRE(back.size() == 2);
  const ConvAlgoList& l = back[lenet_key().to_string()];
  REQUIRE(l.size() == 2);
  CHECK(l[0].algo == 1);
  CHECK(l[1].workspace_bytes == 4096);
  CHECK(back[k2.to_string()][0].math_type == 1);
  REQUIRE(back[k2.to_string()].size() == 2);
  CHECK(back[k2.to_string()][1].kind == ConvAlgoKind::kEngine);
  CHECK(back[k2.to_string()][1].knobs == engine.knobs);
  // An empty cache is a valid file too.
  REQUIRE(parse_conv_algo_cache(serialize_conv_algo_cache({}, kVersion), kVersion, &back, &why));
  CHECK(back.empty());
}

TEST_CASE("conv algo cache file: truncated, corrupt and stale texts are rejected", "[conv_cache]") {
  ConvAlgoMap m;
  m[lenet_key().to_string()] = {choice(1, 0.01), choice(0, 0.02, 4096)};
  const std::string text = serialize_conv_algo_cache(m, kVersion);
  ConvAlgoMap back;
  std::string why;

  // Every proper prefix is rejected (a crash mid-write, a full disk).
  for (size_t len = 0; len < text.size(); ++len) {
    INFO("prefix of " << len << " bytes");
    CHECK_FALSE(parse_conv_algo_cache(text.substr(0, len), kVersion, &back, &why));
    CHECK(back.empty());
  }
  // One flipped byte anywhere.
  for (size_t i = 0; i + 1 < text.size(); i += 7) {
    std::string bad = text;
    bad[i] = bad[i] == 'x' ? 'y' : 'x';
    INFO("byte " << i);
    CHECK_FALSE(parse_conv_algo_cache(bad, kVersion, &back, &why));
  }
  // A valid checksum over a malformed line is still corrupt.
  std::string body = "dmlrt-conv-algo-cache " + std::to_string(kConvAlgoCacheFormat) +
                     " cudnn=91900\nkey-without-tab\n";
  std::string forged = body + "checksum " + tuning_checksum(body) + "\n";
  CHECK_FALSE(parse_conv_algo_cache(forged, kVersion, &back, &why));
  CHECK(why.find("corrupt") != std::string::npos);
  // Stale: another cuDNN, another format.
  CHECK_FALSE(parse_conv_algo_cache(text, 91400, &back, &why));
  CHECK(why.find("stale") != std::string::npos);
  CHECK(why.find("91900") != std::string::npos);
  body = "dmlrt-conv-algo-cache 0 cudnn=91900\n";
  forged = body + "checksum " + tuning_checksum(body) + "\n";
  CHECK_FALSE(parse_conv_algo_cache(forged, kVersion, &back, &why));
  CHECK(why.find("stale (format version 0") != std::string::npos);
}

TEST_CASE("conv algo cache: lookups count hits and misses; inserts merge and sort",
          "[conv_cache]") {
  ConvAlgoCache cache("none", kVersion);
  CHECK(cache.file().empty());
  CHECK(cache.find(lenet_key()) == nullptr);
  CHECK(cache.misses() == 1);
  cache.insert(lenet_key(), {choice(1, 0.3), choice(2, 0.1)});
  const ConvAlgoList* l = cache.find(lenet_key());
  REQUIRE(l != nullptr);
  CHECK(cache.hits() == 1);
  REQUIRE(l->size() == 2);
  CHECK((*l)[0].algo == 2);  // fastest first
  // A later find under another workspace cap adds algorithms and re-times known ones.
  cache.insert(lenet_key(), {choice(1, 0.05), choice(7, 0.2, 1 << 30)});
  l = cache.find(lenet_key());
  REQUIRE(l->size() == 3);
  CHECK((*l)[0].algo == 1);
  CHECK((*l)[1].algo == 2);
  CHECK((*l)[2].algo == 7);
  CHECK(cache.size() == 1);
  CHECK(cache.warnings().empty());
}

TEST_CASE("conv algo cache: persists across instances, merges another writer's entries",
          "[conv_cache]") {
  TempDir dir("persist");
  const std::string sub = (dir.path / "a" / "b").string();  // created on the first save
  {
    ConvAlgoCache c1(sub, kVersion);
    CHECK(c1.file() == (fs::path(sub) / "conv_algos.txt").string());
    CHECK(c1.find(lenet_key()) == nullptr);
    c1.insert(lenet_key(), {choice(4, 0.2, 64)});
    CHECK(fs::exists(c1.file()));
  }
  ConvAlgoKey other = lenet_key();
  other.pass = ConvPass::kBackwardData;
  {
    ConvAlgoCache c2(sub, kVersion);
    const ConvAlgoList* l = c2.find(lenet_key());
    REQUIRE(l != nullptr);
    CHECK((*l)[0].algo == 4);
    CHECK((*l)[0].workspace_bytes == 64);
    CHECK(c2.hits() == 1);
    // Another process (c3) saves a key after c2 loaded; c2's save keeps it.
    ConvAlgoCache c3(sub, kVersion);
    ConvAlgoKey third = lenet_key();
    third.pass = ConvPass::kBackwardFilter;
    c3.insert(third, {choice(0, 1.0)});
    c2.insert(other, {choice(1, 0.7)});
    ConvAlgoCache c4(sub, kVersion);
    CHECK(c4.find(lenet_key()) != nullptr);
    CHECK(c4.find(other) != nullptr);
    CHECK(c4.find(third) != nullptr);
    CHECK(c4.size() == 3);
  }
  // No temporary file is left behind.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(sub)) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("conv algo cache: corrupt, truncated and stale files warn once and are rewritten",
          "[conv_cache]") {
  TempDir dir("bad");
  const std::string file = (dir.path / "conv_algos.txt").string();
  ConvAlgoMap m;
  m[lenet_key().to_string()] = {choice(1, 0.01)};
  const std::string good = serialize_conv_algo_cache(m, kVersion);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated", good.substr(0, good.size() / 2)},
      {"corrupt", std::string(good).replace(good.find("L:1"), 3, "L:2")},
      {"stale", serialize_conv_algo_cache(m, 91400)},
      {"corrupt", "garbage\n"}};
  for (const auto& [what, text] : cases) {
    INFO(what);
    write_text(file, text);
    ConvAlgoCache c(dir.path.string(), kVersion);
    CHECK(c.find(lenet_key()) == nullptr);  // the file's entry is not trusted
    REQUIRE(c.warnings().size() == 1);
    CHECK(c.warnings()[0].find(what) != std::string::npos);
    CHECK(c.warnings()[0].find(file) != std::string::npos);
    CHECK(c.find(lenet_key()) == nullptr);
    CHECK(c.warnings().size() == 1);  // once
    c.insert(lenet_key(), {choice(5, 0.3)});
    CHECK(c.warnings().size() == 1);
    // Rewritten: valid now, with the new entry only.
    ConvAlgoMap back;
    std::string why;
    REQUIRE(parse_conv_algo_cache(read_text(file), kVersion, &back, &why));
    REQUIRE(back.size() == 1);
    CHECK(back.begin()->second[0].algo == 5);
  }
}

TEST_CASE("conv algo cache: an unwritable directory warns once and keeps memory entries",
          "[conv_cache]") {
  TempDir dir("ro");
  // A regular file where the directory should be: no one (not even root) can create under it.
  const fs::path blocker = dir.path / "blocker";
  write_text(blocker.string(), "x");
  const std::string sub = (blocker / "cache").string();
  ConvAlgoCache c(sub, kVersion);
  CHECK(c.find(lenet_key()) == nullptr);
  CHECK(c.warnings().empty());  // a missing file is not worth a warning
  c.insert(lenet_key(), {choice(1, 0.1)});
  REQUIRE(c.warnings().size() == 1);
  CHECK(c.warnings()[0].find("cannot write") != std::string::npos);
  CHECK(c.warnings()[0].find(sub) != std::string::npos);
  ConvAlgoKey other = lenet_key();
  other.n = 1;
  c.insert(other, {choice(0, 0.1)});
  CHECK(c.warnings().size() == 1);  // not repeated
  CHECK(c.find(lenet_key()) != nullptr);
  CHECK(c.find(other) != nullptr);
}

TEST_CASE("conv algo cache: the default directory follows XDG_CACHE_HOME, then HOME",
          "[conv_cache]") {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const char* old_home = std::getenv("HOME");
  const std::string saved_xdg = old_xdg ? old_xdg : "", saved_home = old_home ? old_home : "";
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  CHECK(ConvAlgoCache::default_dir() == "/x/cache/dmlrt");
  CHECK(ConvAlgoCache("", kVersion).file() == "/x/cache/dmlrt/conv_algos.txt");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  CHECK(ConvAlgoCache::default_dir() == "/home/u/.cache/dmlrt");
  unsetenv("HOME");
  CHECK(ConvAlgoCache::default_dir().empty());
  CHECK(ConvAlgoCache("", kVersion).file().empty());
  if (old_xdg) setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  if (old_home) setenv("HOME", saved_home.c_str(), 1);
}
