// Accelerator files as three-level hierarchies: every MAESTRO hardware file under tests/data
// round-trips exactly through arch::to_hierarchy / from_hierarchy, and a Timeloop
// architecture of that shape becomes an Arch.
#include <gtest/gtest.h>

#include <filesystem>

#include "sparsemap/arch/area.h"
#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/timeloop.h"
#include "support/test_data.h"

namespace sparsemap::io {
namespace {

namespace fs = std::filesystem;

TEST(ArchHierarchyFiles, EveryMaestroHardwareFileRoundTrips) {
  SPARSEMAP_TEST_DATA(dir, "maestro");
  int files = 0, round_trips = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !((name.size() > 5 && name.substr(name.size() - 5) == ".hw.m") ||
                                  name == "accelerator_1.m"))
      continue;
    ++files;
    arch::Arch a;
    try {
      a = read_maestro_hw(e.path().string());
    } catch (const InputError&) {
      EXPECT_NE(e.path().string().find("/invalid/"), std::string::npos) << e.path();
      continue;
    }
    const arch::ArchHierarchy v = arch::to_hierarchy(a);
    EXPECT_EQ(arch::from_hierarchy(v), a) << e.path();
    EXPECT_EQ(v.hierarchy.storage[2].instances, a.num_pes) << e.path();
    round_trips += arch::from_hierarchy(v) == a;
  }
  EXPECT_GE(files, 370);  // accelerator_1.m, gamma_edge.hw.m, random/, uneven/, invalid/
  EXPECT_GE(round_trips, 362);
}

// Timeloop's 03-model-conv1d+oc-3level: MainMemory (256-bit rows of 8-bit words),
// GlobalBuffer (32768 x 64 bits), one RegisterFile (64 x 8 bits) and one MACC. Its ERT prices
// 32- and 8-word accesses: per word 2048 / 32 = 64 pJ off chip, 43.353054 / 8 read and
// 30.878292 / 8 write on the global buffer. Its ART is not DiGamma's (707084 um^2 for 2 Mbit,
// 887.84 for 512 bits), so from_hierarchy refuses it; with DiGamma's table it converts.
TEST(ArchHierarchyFiles, TimeloopThreeLevelArchitecture) {
  SPARSEMAP_TEST_DATA(dir, "timeloop/03-model-conv1d+oc-3level");
  const std::string out = dir + "/ref-output/bypass/";
  const TimeloopInputs in =
      read_timeloop_files({dir + "/arch/3level.arch.yaml", out + "timeloop-model.ERT.yaml",
                           out + "timeloop-model.ART.yaml"});
  ASSERT_TRUE(in.arch && in.ert && in.art);
  try {
    arch::from_hierarchy(*in.arch, *in.ert, *in.art, "", "3level");
    ADD_FAILURE() << "accepted an ART that is not DiGamma's";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected the same area per bit"), std::string::npos)
        << e.what();
  }
  const arch::AreaTable art = arch::digamma_art(*in.arch, 282, 0.086);
  const arch::Arch a = arch::from_hierarchy(*in.arch, *in.ert, art, "Timeloop", "3level");
  EXPECT_EQ(a.num_pes, 1);
  EXPECT_EQ(a.word_bytes, 1);
  EXPECT_EQ(a.l2_bytes, 32768 * 8);
  EXPECT_EQ(a.l1_bytes, 64);
  EXPECT_EQ(a.clock_mhz, 1000);
  EXPECT_EQ(a.noc_words_per_cycle, arch::kMaxWordsPerCycle);  // no bandwidth given: unlimited
  EXPECT_EQ(a.energy.offchip_pj, 64);
  EXPECT_DOUBLE_EQ(a.energy.l2_read_pj, 43.353054 / 8);
  EXPECT_DOUBLE_EQ(a.energy.l2_write_pj, 30.878292 / 8);
  EXPECT_DOUBLE_EQ(a.energy.l1_read_pj, 0.42564);
  EXPECT_DOUBLE_EQ(a.energy.mac_pj, 0.845);
  EXPECT_EQ(a.area.sram_um2_per_bit, 0.086);
  // Its area under the one rule: the file's ART as it is, and DiGamma's.
  EXPECT_DOUBLE_EQ(arch::area_um2(*in.arch, *in.art), 707084.0 + 887.84 + 332.25);
  EXPECT_DOUBLE_EQ(arch::area_um2(*in.arch, art), 8.0 * (262144 + 64) * 0.086 + 282);
}

}  // namespace
}  // namespace sparsemap::io
