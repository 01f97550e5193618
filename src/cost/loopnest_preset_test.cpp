// The loop-nest model on a preset: evaluate_loopnest on arch::to_hierarchy(maestro-example)
// with a hand-made mapping, against hand-worked counts.
#include <gtest/gtest.h>

#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/loopnest.h"

namespace sparsemap::cost {
namespace {

workload::DataSpace space(const std::string& name, const std::string& a, const std::string& b,
                          bool rw) {
  workload::DataSpace d;
  d.name = name;
  d.projection = {{{a, "", 1}}, {{b, "", 1}}};
  d.read_write = rw;
  return d;
}

mapping::LoopNestDirective loops(const std::string& target, mapping::LoopNestDirectiveKind kind,
                                 std::vector<mapping::LoopFactor> f, const std::string& perm) {
  mapping::LoopNestDirective d;
  d.target = target;
  d.kind = kind;
  d.factors = std::move(f);
  d.permutation = perm;
  return d;
}

// Z[m][n] += A[m][k] B[k][n], M = N = 4, K = 8, on maestro-example's hierarchy:
//   DRAM temporal K2 | L2 spatial M4 N4 (16 of the 256 PEs) | L1 temporal K4.
// Per utilized instance (hierarchy.h / loopnest.h formulas):
//   L1 (16 used): A and B tiles 4 words, Z 1; each MAC reads A and B 8 times (2 x 4), L1 fills
//     8 of each (a K4 tile per DRAM step); Z: 8 updates, 7 reads (the first touch reads none).
//   L2: A read 8 x 4 (M is split over the PEs, N multicasts) = 32, filled 32 (two M4 K4
//     tiles); B likewise over N; Z: 16 updates (one per PE), no reads or fills.
//   DRAM: A and B read 32 each; Z updated 16 times.
// Cycles = temporal bounds 2 x 4 = 8 (DRAM: 64 reads / 50 words/cycle = 2; L2 under 1).
// Energy (pJ): MAC 128 x 0.23; L1 16 x (23 reads + 16 fills + 8 updates) x 1.68 x 0.23;
//   L2 (64 reads + 64 fills + 16 updates) x 18.61 x 0.23; DRAM 0 (MAESTRO prices none).
TEST(LoopNestOnPreset, MaestroExampleHandWorked) {
  const arch::ArchHierarchy v = arch::to_hierarchy(arch::preset("maestro-example"));
  workload::Einsum p;
  p.name = "gemm";
  p.dims = {"M", "N", "K"};
  p.data_spaces = {space("A", "M", "K", false), space("B", "K", "N", false),
                   space("Z", "M", "N", true)};
  p.bounds = {{"M", 4}, {"N", 4}, {"K", 8}};
  using K = mapping::LoopNestDirectiveKind;
  mapping::LoopNest m;
  m.directives = {loops("DRAM", K::kTemporal, {{"K", 2}}, "KMN"),
                  loops("L2", K::kSpatial, {{"M", 4}, {"N", 4}}, "MNK"),
                  loops("L1", K::kTemporal, {{"K", 4}}, "KMN")};
  const LoopNestResult r = evaluate_loopnest(p, v.hierarchy, m, &v.ert);
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.macs, 128);
  EXPECT_EQ(r.cycles, 8);
  EXPECT_EQ(r.utilized_compute_instances, 16);
  EXPECT_DOUBLE_EQ(r.utilization, 128.0 / (8 * 256));
  struct Want {
    const char* level;
    const char* ds;
    int64_t reads, fills, updates, tile;
  };
  const Want want[] = {
      {"DRAM", "A", 32, 0, 0, 32}, {"DRAM", "B", 32, 0, 0, 32}, {"DRAM", "Z", 0, 0, 16, 16},
      {"L2", "A", 32, 32, 0, 16},  {"L2", "B", 32, 32, 0, 16},  {"L2", "Z", 0, 0, 16, 16},
      {"L1", "A", 8, 8, 0, 4},     {"L1", "B", 8, 8, 0, 4},     {"L1", "Z", 7, 0, 8, 1}};
  for (const Want& w : want) {
    const LoopNestLevel* l = r.level(w.level);
    ASSERT_NE(l, nullptr) << w.level;
    const LoopNestDataspace* d = nullptr;
    for (const auto& x : l->dataspaces)
      if (x.name == w.ds) d = &x;
    ASSERT_NE(d, nullptr) << w.level << " " << w.ds;
    EXPECT_EQ(d->reads, w.reads) << w.level << " " << w.ds;
    EXPECT_EQ(d->fills, w.fills) << w.level << " " << w.ds;
    EXPECT_EQ(d->updates, w.updates) << w.level << " " << w.ds;
    EXPECT_EQ(d->tile_words, w.tile) << w.level << " " << w.ds;
  }
  EXPECT_EQ(r.level("L1")->utilized_instances, 16);
  const double mac = 0.23, l1 = 1.68 * mac, l2 = 18.61 * mac;
  EXPECT_DOUBLE_EQ(r.compute_energy_pj, 128 * mac);
  EXPECT_NEAR(r.level("L1")->energy_pj, 16 * (23 + 16 + 8) * l1, 1e-9);
  EXPECT_NEAR(r.level("L2")->energy_pj, (64 + 64 + 16) * l2, 1e-9);
  EXPECT_EQ(r.level("DRAM")->energy_pj, 0);
  EXPECT_NEAR(r.energy_pj, 128 * mac + 16 * 47 * l1 + 144 * l2, 1e-9);
}

}  // namespace
}  // namespace sparsemap::cost
