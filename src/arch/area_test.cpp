// The one area rule and its built-in tables: hand-worked sums, and the old formulas (DiGamma's
// and MAESTRO's) as calls of the rule.
#include "sparsemap/arch/area.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/arch/presets.h"

namespace sparsemap::arch {
namespace {

TEST(AreaRule, NameInstances) {
  EXPECT_EQ(name_instances("sys.PE[0..15].buf[1..4]"), 64);
  EXPECT_EQ(name_instances("System_top_level.DRAM[1..1]"), 1);
  EXPECT_EQ(name_instances("bus"), 1);
  EXPECT_EQ(name_instances("odd[3..1]"), 1);  // malformed: 1
  EXPECT_EQ(name_instances("odd[a..b]"), 1);
  EXPECT_EQ(name_instances("neg[-5..3]"), 1);
  EXPECT_EQ(name_instances("big[0..9223372036854775806].x[0..9]"), INT64_MAX);
}

// Levels DRAM (not in the table: 0), GLB x1 at 1000, PE x16 at 50 (entry matched by base name),
// MAC x16 at 10, plus an entry outside the hierarchy counted by its name's range (4 x 2.5).
TEST(AreaRule, HandWorked) {
  Hierarchy h;
  StorageLevel dram, glb, pe;
  dram.name = "DRAM";
  glb.name = "GLB";
  pe.name = "PE_buf";
  pe.instances = 16;
  h.storage = {dram, glb, pe};
  h.compute.name = "MAC";
  h.compute.instances = 16;
  AreaTable t;
  t.components = {
      {"sys.GLB[1..1]", 1000}, {"sys.PE[0..15].PE_buf", 50}, {"MAC", 10}, {"sys.wire[0..3]", 2.5}};
  const auto parts = area_parts(h, t);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[1].instances, 16);
  EXPECT_EQ(parts[3].instances, 4);
  EXPECT_EQ(area_um2(h, t), 1000 + 16 * 50 + 16 * 10 + 4 * 2.5);
  t.components.clear();
  EXPECT_EQ(area_um2(h, t), 0);  // nothing listed, nothing priced
}

// The old DiGamma formula: (P pe + 8 (P L1 + L2) s) / 1e6 mm^2.
double old_digamma_mm2(int64_t p, int64_t l1, int64_t l2, const AreaModel& m) {
  const double bits = 8.0 * (static_cast<double>(p) * l1 + l2);
  return (p * m.pe_um2 + bits * m.sram_um2_per_bit) / 1e6;
}

TEST(AreaRule, DigammaPartsAreTheRuleOnToHierarchy) {
  std::vector<Arch> archs = presets();
  for (int64_t p : {1, 7, 64, 168, 1000, 65536})
    for (int64_t l1 : {1, 3, 100, 512, 4096})
      for (int64_t l2 : {1, 999, 108000, 1 << 25}) {
        Arch a;
        a.num_pes = p;
        a.l1_bytes = l1;
        a.l2_bytes = l2;
        archs.push_back(a);
      }
  for (const Arch& a : archs) {
    const ArchHierarchy v = to_hierarchy(a);
    const double rule = area_um2(v.hierarchy, v.art);
    EXPECT_EQ(area_sum(digamma_parts(a.num_pes, a.l1_bytes, a.l2_bytes, a.area)), rule) << a.name;
    EXPECT_EQ(area_mm2(a), rule / 1e6) << a.name;
    const double old = old_digamma_mm2(a.num_pes, a.l1_bytes, a.l2_bytes, a.area);
    EXPECT_NEAR(area_mm2(a), old, 1e-15 * std::max(1.0, old)) << a.name;
  }
  // gamma-edge, hand-worked: (168 x 282 + 8 (168 x 512 + 108000) 0.086) / 1e6.
  EXPECT_NEAR(area_mm2(preset("gamma-edge")), 0.180859008, 1e-12);
}

TEST(AreaRule, MaestroTableHandWorked) {
  Arch a;
  a.num_pes = 4;
  a.l1_bytes = 100;
  a.l2_bytes = 1000;
  a.noc_words_per_cycle = 81920000;
  const Hierarchy h = three_level_hierarchy(a);
  const AreaTable t = maestro_art(h);
  EXPECT_NE(t.source.find("not um^2"), std::string::npos);
  const double bus = 101.7938 * (14.662 * 4 + 28.895) * 81920000.0;
  const double arb = 395.473 * (1.2886 * 16 + 5.5814 * 4 - 23.711);
  EXPECT_DOUBLE_EQ(area_um2(h, t), 4 * (283 + 10.4) + 104 + bus + arb);
  a.l2_bytes = 0;  // MAESTRO prices at least one byte of L2
  const Hierarchy h0 = three_level_hierarchy(a);
  EXPECT_DOUBLE_EQ(area_um2(h0, maestro_art(h0)), 4 * (283 + 10.4) + 0.104 + bus + arb);
}

}  // namespace
}  // namespace sparsemap::arch
