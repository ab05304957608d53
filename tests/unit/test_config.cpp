// The -config reader (runtime/config.h): the flat XML of SystemDS-config.xml files, the sysds.*
// keys dmlrt honours with their validation, and the messages for keys it ignores.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <utility>
#include <vector>

#include "common/test_paths.h"
#include "gpu_context/error.h"
#include "runtime/config.h"

using dmlrt::IoError;
using dmlrt::ParseError;
using dmlrt::runtime::ConfigMessages;
using dmlrt::runtime::FloatPrecision;
using dmlrt::runtime::parse_config;
using dmlrt::runtime::parse_config_xml;
using dmlrt::runtime::RuntimeConfig;

namespace {

RuntimeConfig parse(const std::string& body, ConfigMessages* messages = nullptr) {
  RuntimeConfig c;
  parse_config("<root>\n" + body + "</root>\n", "c.xml", c, messages);
  return c;
}

}  // namespace

TEST_CASE("config XML: elements, lines, entities, comments", "[config]") {
  const std::string text =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!-- a comment\n spanning lines -->\n"
      "<root attr=\"x\">\n"
      "  <a>  one  </a>\n"
      "  <!-- <b>ignored</b> -->\n"
      "  <b>x &lt; y &amp;&amp; &quot;z&quot; &#65;&#x42;</b>\n"
      "  <c/>\n"
      "  <d><![CDATA[<raw> & ]]></d>\n"
      "  <e>\n    multi\n  </e>\n"
      "</root>\n";
  const auto entries = parse_config_xml(text, "t.xml");
  REQUIRE(entries.size() == 5);
  CHECK(entries[0].key == "a");
  CHECK(entries[0].value == "one");
  CHECK(entries[0].line == 5);
  CHECK(entries[1].key == "b");
  CHECK(entries[1].value == "x < y && \"z\" AB");
  CHECK(entries[1].line == 7);
  CHECK(entries[2].key == "c");
  CHECK(entries[2].value.empty());
  CHECK(entries[3].value == "<raw> &");  // values are trimmed, CDATA too
  CHECK(entries[4].value == "multi");
  CHECK(entries[4].line == 10);

  CHECK(parse_config_xml("<root/>", "t.xml").empty());
  CHECK(parse_config_xml("<root></root>", "t.xml").empty());
}

TEST_CASE("config XML: malformed documents name the file and line", "[config]") {
  using Catch::Contains;
  CHECK_THROWS_AS(parse_config_xml("", "t.xml"), ParseError);
  CHECK_THROWS_WITH(parse_config_xml("", "t.xml"),
                    Contains("t.xml:1: malformed config XML: no root element"));
  CHECK_THROWS_WITH(parse_config_xml("<root>\n<a>1</b>\n</root>", "t.xml"),
                    Contains("t.xml:2: malformed config XML: </b> does not close <a>"));
  CHECK_THROWS_WITH(parse_config_xml("<root>\n\n<a>1\n", "t.xml"),
                    Contains("t.xml:3: malformed config XML: element <a> is not closed"));
  CHECK_THROWS_WITH(parse_config_xml("<root>\n<a><b>1</b></a></root>", "t.xml"),
                    Contains("t.xml:2: malformed config XML: nested element inside <a>"));
  CHECK_THROWS_WITH(parse_config_xml("<root>\ntext<a>1</a></root>", "t.xml"),
                    Contains("t.xml:2: malformed config XML: text outside an element"));
  CHECK_THROWS_WITH(parse_config_xml("<root></root>\n<x/>", "t.xml"),
                    Contains("t.xml:2: malformed config XML: content after the root element"));
  CHECK_THROWS_WITH(parse_config_xml("<root><a>&nbsp;</a></root>", "t.xml"),
                    Contains("unknown entity '&nbsp;'"));
  CHECK_THROWS_WITH(parse_config_xml("<root>\n<!-- open", "t.xml"),
                    Contains("t.xml:2: malformed config XML: unterminated comment"));
  CHECK_THROWS_WITH(parse_config_xml("<root>", "t.xml"),
                    Contains("t.xml:1: malformed config XML: element <root> is not closed"));
}

TEST_CASE("config: defaults and every honoured key", "[config]") {
  const RuntimeConfig d;
  CHECK(d.precision == FloatPrecision::kDouble);
  CHECK(d.memory.util_factor == 0.9);
  CHECK(d.memory.policy == dmlrt::mem::EvictionPolicy::kLru);
  CHECK(d.memory.available_gpus == "-1");
  CHECK(d.stats_max_wrap_length == 30);
  CHECK(d.default_block_size == 1000);
  CHECK(d.stats_gpu_events);

  ConfigMessages messages;
  const RuntimeConfig c = parse(
      "<sysds.floating.point.precision>single</sysds.floating.point.precision>\n"
      "<sysds.gpu.availableGPUs>0,2</sysds.gpu.availableGPUs>\n"
      "<sysds.gpu.eviction.policy>MIN_EVICT</sysds.gpu.eviction.policy>\n"
      "<sysds.gpu.memory.util.factor>0.5</sysds.gpu.memory.util.factor>\n"
      "<sysds.gpu.sync.postProcess>TRUE</sysds.gpu.sync.postProcess>\n"
      "<sysds.gpu.eager.cudaFree>true</sysds.gpu.eager.cudaFree>\n"
      "<sysds.stats.maxWrapLength>40</sysds.stats.maxWrapLength>\n"
      "<dmlrt.stats.gpu.events>false</dmlrt.stats.gpu.events>\n"
      "<sysds.defaultblocksize>2048</sysds.defaultblocksize>\n"
      "<sysds.scratch>/tmp/s</sysds.scratch>\n",
      &messages);
  CHECK(messages.warnings.empty());
  CHECK(messages.notes.empty());
  CHECK(c.precision == FloatPrecision::kSingle);
  CHECK(c.memory.available_gpus == "0,2");
  CHECK(c.memory.policy == dmlrt::mem::EvictionPolicy::kMinEvict);
  CHECK(c.memory.util_factor == 0.5);
  CHECK(c.gpu_sync_post_process);
  CHECK(c.gpu_eager_cuda_free);
  CHECK(c.stats_max_wrap_length == 40);
  CHECK_FALSE(c.stats_gpu_events);
  CHECK(c.default_block_size == 2048);
  CHECK(c.scratch == "/tmp/s");

  for (const char* gpus : {"-1", "0", "3", "0-3", "1,2,5"}) {
    INFO(gpus);
    CHECK(parse(std::string("<sysds.gpu.availableGPUs>") + gpus + "</sysds.gpu.availableGPUs>\n")
              .memory.available_gpus == gpus);
  }
}

TEST_CASE("config: bad values name file, line and key", "[config]") {
  using Catch::Contains;
  struct Case {
    const char* key;
    const char* value;
    const char* message;
  };
  const Case cases[] = {
      {"sysds.floating.point.precision", "half", "expected double or single, got 'half'"},
      {"sysds.gpu.eviction.policy", "mru", "unsupported policy 'mru'"},
      {"sysds.gpu.memory.util.factor", "0", "expected a number in (0, 1], got '0'"},
      {"sysds.gpu.memory.util.factor", "lots", "expected a number in (0, 1], got 'lots'"},
      {"sysds.gpu.sync.postProcess", "yes", "expected true or false, got 'yes'"},
      {"sysds.gpu.eager.cudaFree", "1", "expected true or false, got '1'"},
      {"dmlrt.stats.gpu.events", "off", "expected true or false, got 'off'"},
      {"sysds.stats.maxWrapLength", "-3", "expected a positive integer, got '-3'"},
      {"sysds.defaultblocksize", "1k", "expected a positive integer, got '1k'"},
      {"sysds.defaultblocksize", "0", "expected a positive integer, got '0'"},
      {"sysds.scratch", "", "expected a directory name"},
  };
  for (const Case& k : cases) {
    INFO(k.key << " = " << k.value);
    const std::string body =
        std::string("<x.other>1</x.other>\n<") + k.key + ">" + k.value + "</" + k.key + ">\n";
    CHECK_THROWS_AS(parse(body), ParseError);
    CHECK_THROWS_WITH(parse(body), Contains(std::string("c.xml:3: ") + k.key + ": " + k.message));
  }
}

TEST_CASE("config: unknown and ignored keys are reported, not fatal", "[config]") {
  ConfigMessages m;
  const RuntimeConfig c = parse(
      "<sysds.no.such.key>1</sysds.no.such.key>\n"
      "<sysds.native.blas>mkl</sysds.native.blas>\n"
      "<other>1</other>\n"
      "<sysds.gpu.availableGPUs>2-1</sysds.gpu.availableGPUs>\n"
      "<sysds.scratch>a</sysds.scratch>\n"
      "<sysds.scratch>b</sysds.scratch>\n",
      &m);
  REQUIRE(m.warnings.size() == 4);
  CHECK(m.warnings[0] == "c.xml:2: unknown key 'sysds.no.such.key'; ignored");
  CHECK(m.warnings[1] == "c.xml:4: 'other' is not a sysds.* key; ignored");
  // SystemDS also falls back on all devices for an invalid list.
  CHECK(m.warnings[2] ==
        "c.xml:5: sysds.gpu.availableGPUs: invalid device list '2-1' (expected -1, N, a-b or "
        "a,b,c); using all devices");
  CHECK(m.warnings[3] == "c.xml:7: sysds.scratch: given more than once; the last value wins");
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0] == "c.xml:3: sysds.native.blas: has no effect in dmlrt; ignored");
  CHECK(c.memory.available_gpus == "-1");
  CHECK(c.scratch == "b");
}

TEST_CASE("config: files", "[config]") {
  namespace fs = std::filesystem;
  RuntimeConfig c;
  CHECK_THROWS_AS(dmlrt::runtime::read_config_file("/nonexistent/dmlrt.xml", c), IoError);
  CHECK_THROWS_WITH(dmlrt::runtime::read_config_file("/nonexistent/dmlrt.xml", c),
                    "/nonexistent/dmlrt.xml: cannot read the config file");

  const std::string good = dmlrt::test::test_data_dir() + "/unit/data/cli/good.xml";
  ConfigMessages m;
  dmlrt::runtime::read_config_file(good, c, &m);
  CHECK(m.warnings.empty());
  CHECK(c.precision == FloatPrecision::kSingle);
  CHECK(c.memory.util_factor == 0.5);
  CHECK(c.stats_max_wrap_length == 40);

  CHECK(dmlrt::runtime::parse_precision("Double", "p") == FloatPrecision::kDouble);
  CHECK_THROWS_WITH(dmlrt::runtime::parse_precision("fp16", "option '-precision'"),
                    "option '-precision': expected double or single, got 'fp16'");
}

TEST_CASE("config: the dmlrt cuDNN and DNN budget keys", "[config][dnn]") {
  const RuntimeConfig d;
  CHECK_FALSE(d.cudnn_deterministic);
  CHECK_FALSE(d.allow_tf32);
  CHECK(d.cudnn_graph);  // graph engines join the timed candidates unless switched off
  CHECK(d.cudnn_cache_dir.empty());
  CHECK(d.persist_gemm_plans);
  CHECK(d.dnn_budget_bytes == -1);
  CHECK(d.fp32_conv_tolerance == 1e-4);
  CHECK(d.parfor_workers_per_gpu == 1);  // SystemDS's rule: one PARFOR worker per GPU
  CHECK(d.gpu_graphs);  // on by default since it wins (bench/RESULTS.md, "CUDA graphs")
  CHECK(d.gpu_graph_cache == 64);
  CHECK(d.gpu_graph_chunk_bytes == 1LL << 20);  // 1M: short graphs first once buffers reach 1 MiB
  CHECK(d.gpu_graph_warmup == 2);  // a list is captured on its third run
  CHECK(d.gpu_graph_device_bound == 2.0);

  ConfigMessages messages;
  const RuntimeConfig c = parse(
      "<dmlrt.gpu.cudnn.deterministic>true</dmlrt.gpu.cudnn.deterministic>\n"
      "<dmlrt.gpu.allow.tf32>TRUE</dmlrt.gpu.allow.tf32>\n"
      "<dmlrt.gpu.cudnn.graph>false</dmlrt.gpu.cudnn.graph>\n"
      "<dmlrt.gpu.cudnn.cache.dir>/tmp/algos</dmlrt.gpu.cudnn.cache.dir>\n"
      "<dmlrt.gpu.gemm.plans.persist>false</dmlrt.gpu.gemm.plans.persist>\n"
      "<dmlrt.gpu.dnn.budget>512M</dmlrt.gpu.dnn.budget>\n"
      "<dmlrt.gpu.cudnn.fp32.tolerance>2.5e-3</dmlrt.gpu.cudnn.fp32.tolerance>\n"
      "<dmlrt.gpu.parfor.workers.per.gpu>4</dmlrt.gpu.parfor.workers.per.gpu>\n"
      "<dmlrt.gpu.graphs>On</dmlrt.gpu.graphs>\n"
      "<dmlrt.gpu.graphs.cache>3</dmlrt.gpu.graphs.cache>\n"
      "<dmlrt.gpu.graphs.chunk>1M</dmlrt.gpu.graphs.chunk>\n"
      "<dmlrt.gpu.graphs.warmup>5</dmlrt.gpu.graphs.warmup>\n"
      "<dmlrt.gpu.graphs.device.bound>2.5</dmlrt.gpu.graphs.device.bound>\n",
      &messages);
  CHECK(messages.warnings.empty());
  CHECK(messages.notes.empty());
  CHECK(c.cudnn_deterministic);
  CHECK(c.allow_tf32);
  CHECK_FALSE(c.cudnn_graph);
  CHECK(c.cudnn_cache_dir == "/tmp/algos");
  CHECK_FALSE(c.persist_gemm_plans);
  CHECK(c.dnn_budget_bytes == 512LL << 20);
  CHECK(c.fp32_conv_tolerance == 2.5e-3);
  CHECK(c.parfor_workers_per_gpu == 4);
  CHECK(c.gpu_graphs);
  CHECK(c.gpu_graph_cache == 3);
  CHECK(c.gpu_graph_chunk_bytes == 1LL << 20);
  CHECK(c.gpu_graph_warmup == 5);
  CHECK(c.gpu_graph_device_bound == 2.5);
  CHECK(parse("<dmlrt.gpu.graphs.device.bound>off</dmlrt.gpu.graphs.device.bound>\n")
            .gpu_graph_device_bound == 0.0);
  CHECK(parse("<dmlrt.gpu.graphs.chunk>Never</dmlrt.gpu.graphs.chunk>\n").gpu_graph_chunk_bytes ==
        -1);
  CHECK(parse("<dmlrt.gpu.graphs.chunk>always</dmlrt.gpu.graphs.chunk>\n").gpu_graph_chunk_bytes ==
        0);
  CHECK_FALSE(parse("<dmlrt.gpu.graphs>off</dmlrt.gpu.graphs>\n").gpu_graphs);
  for (const char* off : {"off", "OFF", "Off"})
    CHECK(std::isinf(parse(std::string("<dmlrt.gpu.cudnn.fp32.tolerance>") + off +
                           "</dmlrt.gpu.cudnn.fp32.tolerance>\n")
                         .fp32_conv_tolerance));

  CHECK(parse("<dmlrt.gpu.cudnn.cache.dir>none</dmlrt.gpu.cudnn.cache.dir>\n").cudnn_cache_dir ==
        "none");
  const std::pair<const char*, long long> budgets[] = {
      {"4096", 4096}, {"1k", 1024}, {"8G", 8LL << 30}, {"3MiB", 3LL << 20}, {"7B", 7}};
  for (const auto& [text, bytes] : budgets) {
    INFO(text);
    CHECK(parse(std::string("<dmlrt.gpu.dnn.budget>") + text + "</dmlrt.gpu.dnn.budget>\n")
              .dnn_budget_bytes == bytes);
  }
}

TEST_CASE("config: bad values of the dmlrt cuDNN keys name file, line and key", "[config][dnn]") {
  using Catch::Contains;
  const char* budget_msg = "expected a positive byte count such as 4096, 512M or 8G, got '";
  const std::vector<std::tuple<const char*, const char*, std::string>> cases = {
      {"dmlrt.gpu.cudnn.deterministic", "yes", "expected true or false, got 'yes'"},
      {"dmlrt.gpu.allow.tf32", "1", "expected true or false, got '1'"},
      {"dmlrt.gpu.cudnn.fp32.tolerance", "0",
       "expected a positive number such as 1e-4, or off, got '0'"},
      {"dmlrt.gpu.cudnn.fp32.tolerance", "-1e-4",
       "expected a positive number such as 1e-4, or off, got '-1e-4'"},
      {"dmlrt.gpu.cudnn.fp32.tolerance", "1e-4x",
       "expected a positive number such as 1e-4, or off, got '1e-4x'"},
      {"dmlrt.gpu.cudnn.fp32.tolerance", "inf",
       "expected a positive number such as 1e-4, or off, got 'inf'"},
      {"dmlrt.gpu.cudnn.fp32.tolerance", "",
       "expected a positive number such as 1e-4, or off, got ''"},
      {"dmlrt.gpu.cudnn.cache.dir", "", "expected a directory name or none, got ''"},
      {"dmlrt.gpu.gemm.plans.persist", "sometimes", "expected true or false, got 'sometimes'"},
      {"dmlrt.gpu.dnn.budget", "0", std::string(budget_msg) + "0'"},
      {"dmlrt.gpu.parfor.workers.per.gpu", "0", "expected a positive integer, got '0'"},
      {"dmlrt.gpu.graphs", "maybe", "expected on or off, got 'maybe'"},
      {"dmlrt.gpu.graphs.cache", "0", "expected a positive integer, got '0'"},
      {"dmlrt.gpu.graphs.chunk", "0",
       "expected always, never or a positive byte count such as 1M, got '0'"},
      {"dmlrt.gpu.graphs.warmup", "0", "expected a positive integer, got '0'"},
      {"dmlrt.gpu.graphs.device.bound", "0",
       "expected a positive number such as 2, or off, got '0'"},
      {"dmlrt.gpu.graphs.device.bound", "x",
       "expected a positive number such as 2, or off, got 'x'"},
      {"dmlrt.gpu.graphs.chunk", "sometimes",
       "expected always, never or a positive byte count such as 1M, got 'sometimes'"},
      {"dmlrt.gpu.dnn.budget", "-1", std::string(budget_msg) + "-1'"},
      {"dmlrt.gpu.dnn.budget", "12X", std::string(budget_msg) + "12X'"},
      {"dmlrt.gpu.dnn.budget", "G", std::string(budget_msg) + "G'"},
      {"dmlrt.gpu.dnn.budget", "99999999999999999999",
       std::string(budget_msg) + "99999999999999999999'"},
      {"dmlrt.gpu.dnn.budget", "9000000000T", std::string(budget_msg) + "9000000000T'"},
  };
  for (const auto& [key, value, message] : cases) {
    INFO(key << " = " << value);
    const std::string body =
        std::string("<x.other>1</x.other>\n<") + key + ">" + value + "</" + key + ">\n";
    CHECK_THROWS_AS(parse(body), ParseError);
    CHECK_THROWS_WITH(parse(body), Contains(std::string("c.xml:3: ") + key + ": " + message));
  }
}
