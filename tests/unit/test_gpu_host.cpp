// Host-only tests of the GPU backend's device-free parts: sysds.gpu.availableGPUs parsing, the
// placement rule of DESIGN.md §4, and the fallback to the CPU when no device is usable (this
// machine, or a CPU-only build).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gpu_context/device.h"
#include "gpu_context/device_selection.h"
#include "instructions/gpu_placement.h"
#include "memory/gpu_session.h"

using dmlrt::gpu::parse_available_gpus;
using dmlrt::inst::choose_placement;
using dmlrt::inst::ExecType;
using dmlrt::inst::GpuMode;
using dmlrt::inst::Placement;

TEST_CASE("sysds.gpu.availableGPUs forms", "[gpu-host][config]") {
  std::string w;
  CHECK(parse_available_gpus("-1", 4, &w) == std::vector<int>{0, 1, 2, 3});
  CHECK(parse_available_gpus("2", 4, &w) == std::vector<int>{2});
  CHECK(parse_available_gpus("1-3", 4, &w) == std::vector<int>{1, 2, 3});
  CHECK(parse_available_gpus("3,0,3", 4, &w) == std::vector<int>{0, 3});
  CHECK(parse_available_gpus(" 1 , 2 ", 4, &w) == std::vector<int>{1, 2});
  CHECK(w.empty());
  CHECK(parse_available_gpus("-1", 0, &w).empty());
}

TEST_CASE("invalid sysds.gpu.availableGPUs falls back to all devices with a warning",
          "[gpu-host][config]") {
  for (const char* bad : {"abc", "5", "2-1", "0,x", "", "1-", "-3", "0-9"}) {
    std::string w;
    CHECK(parse_available_gpus(bad, 2, &w) == std::vector<int>{0, 1});
    CHECK_THAT(w, Catch::Contains(std::string("sysds.gpu.availableGPUs: invalid value '") + bad +
                                  "' for 2 device(s)"));
  }
}

TEST_CASE("placement: GPU lines, -gpu and -gpu force", "[gpu-host][placement]") {
  const int64_t budget = 1000;
  // No usable device: always the CPU.
  for (GpuMode m : {GpuMode::kOff, GpuMode::kOn, GpuMode::kForce})
    for (ExecType t : {ExecType::kCP, ExecType::kGPU})
      CHECK(choose_placement(t, m, false, true, 10, budget) == Placement::kCpu);
  // No GPU implementation: always the CPU.
  CHECK(choose_placement(ExecType::kGPU, GpuMode::kForce, true, false, 10, budget) ==
        Placement::kCpu);
  // GPU lines run on the GPU in every mode, whatever their size.
  for (GpuMode m : {GpuMode::kOff, GpuMode::kOn, GpuMode::kForce})
    CHECK(choose_placement(ExecType::kGPU, m, true, true, 5000, budget) == Placement::kGpu);
  // CP lines: off -> CPU; -gpu -> GPU when known and within budget; force -> GPU.
  CHECK(choose_placement(ExecType::kCP, GpuMode::kOff, true, true, 10, budget) == Placement::kCpu);
  CHECK(choose_placement(ExecType::kCP, GpuMode::kOn, true, true, 10, budget) == Placement::kGpu);
  CHECK(choose_placement(ExecType::kCP, GpuMode::kOn, true, true, 1000, budget) == Placement::kGpu);
  CHECK(choose_placement(ExecType::kCP, GpuMode::kOn, true, true, 1001, budget) == Placement::kCpu);
  CHECK(choose_placement(ExecType::kCP, GpuMode::kOn, true, true, -1, budget) == Placement::kCpu);
  CHECK(choose_placement(ExecType::kCP, GpuMode::kForce, true, true, -1, budget) ==
        Placement::kGpu);
  CHECK(choose_placement(ExecType::kCPFile, GpuMode::kForce, true, true, 5000, budget) ==
        Placement::kGpu);
}

TEST_CASE("without a usable device no GPU session opens", "[gpu-host]") {
  if (dmlrt::gpu::usable_device_count() > 0) return;  // a GPU machine: covered by dmlrt_gpu_tests
  dmlrt::mem::GpuSessionOptions o;
  CHECK(dmlrt::mem::open_gpu_session(o, "test asked for the GPU") == nullptr);
  CHECK(dmlrt::mem::stats_of(nullptr) == nullptr);
}
