// The MAESTRO-class `--density` path (cost::evaluate with SparsityOptions) against the Sparseloop
// model (evaluate_sparseloop) on a case both express: unstructured weight sparsity (density d,
// uniformly random) with skipping, on a weight-stationary array. docs/sparseloop.md, "The
// --density path beside the Sparseloop model", says why the figures differ where they do.
#include <gtest/gtest.h>

#include <string>

#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/workload/einsum.h"
#include "sparsemap/workload/layer.h"
#include "support/density_path_case.h"

namespace sparsemap::cost {
namespace {

mapping::LoopNestDirective loops(const std::string& target, mapping::LoopNestDirectiveKind kind,
                                 std::vector<mapping::LoopFactor> f, const std::string& perm) {
  mapping::LoopNestDirective x;
  x.target = target;
  x.kind = kind;
  x.factors = std::move(f);
  x.permutation = perm;
  return x;
}

// The Sparseloop run on to_hierarchy(maestro-example) (DRAM, L2, 256 L1, 256 MACs), the same
// weight-stationary split: DRAM walks the 16 blocks of 4 output channels (M); L2 spreads M4 x
// C64 over the 256 PEs and walks the batch (N16) under them, so each PE's weight stays in its
// L1 for 16 MACs. Weights hypergeometric at density d, stored as a bitmask (1 bit per point,
// the --density path's metadata) in DRAM and L2 and decompressed into L1; at L1 the inputs and
// outputs are skipped on the weights, and the MACs skipped. Metadata words are priced as data
// words (8-bit metadata storage, ERT metadata_read / metadata_write = read / write), as the
// --density path counts metadata as extra stored words.
SparseLoopResult sparseloop(double d) {
  arch::ArchHierarchy v = arch::to_hierarchy(arch::preset("maestro-example"));
  for (auto& s : v.hierarchy.storage) {
    s.attributes["metadata_storage_width"] = "8";
    s.attributes["metadata_datawidth"] = "1";
    if (s.name == arch::kL1Level) s.attributes["decompression_supported"] = "true";
  }
  for (auto& c : v.ert.components) {
    std::vector<arch::ActionEnergy> md;
    for (const auto& a : c.actions)
      if (a.name == "read" || a.name == "write")
        md.push_back({"metadata_" + a.name, a.arguments, a.energy_pj});
    c.actions.insert(c.actions.end(), md.begin(), md.end());
  }
  const workload::Einsum p = workload::to_einsum(workload::fc("fc", 16, 64, 64, false));
  using K = mapping::LoopNestDirectiveKind;
  mapping::LoopNest m;
  m.directives = {loops("DRAM", K::kTemporal, {{"M", 16}}, "MNC"),
                  loops("L2", K::kSpatial, {{"M", 4}, {"C", 64}}, "MC"),
                  loops("L2", K::kTemporal, {{"N", 16}}, "N")};
  arch::SparseOptimizations sparse;
  std::map<std::string, workload::DensityModel> densities;
  if (d < 1) {
    densities["Weights"].distribution = workload::DensityDistribution::kHypergeometric;
    densities["Weights"].density = d;
    auto bitmask = [](int ranks) {
      arch::DataSpaceFormat f;
      f.data_space = "Weights";
      for (int r = 0; r < ranks; ++r) {
        f.ranks.emplace_back();
        f.ranks.back().format = arch::RankFormat::kB;
        f.ranks.back().metadata_word_bits = 1;
      }
      return f;
    };
    sparse.levels.push_back({arch::kDramLevel, {bitmask(3)}, {}, false, false});
    sparse.levels.push_back({arch::kL2Level, {bitmask(2)}, {}, false, false});
    using A = arch::ActionKind;
    sparse.levels.push_back(
        {arch::kL1Level,
         {},
         {{A::kSkipping, "Inputs", {"Weights"}, 0}, {A::kSkipping, "Outputs", {"Weights"}, 1}},
         false,
         false});
    sparse.levels.push_back({arch::kMacUnit, {}, {}, false, true});
  }
  return evaluate_sparseloop(p, v.hierarchy, m, &v.ert, sparse, densities);
}

double level_pj(const SparseLoopResult& r, const char* name) {
  const SparseLevel* l = r.level(name);
  EXPECT_NE(l, nullptr) << name;
  return l ? l->energy_pj : 0;
}

// Sparseloop's figure / the --density path's, at one density.
struct Measured {
  double d, computes, cycles, mac, l1, l2, total;
};

Measured measure(double d) {
  const density_case::Figures a = density_case::density_path(d);
  const SparseLoopResult b = sparseloop(d);
  EXPECT_TRUE(a.ok);
  EXPECT_TRUE(b.ok()) << b.reason;
  return {d,
          static_cast<double>(b.actual_computes) / a.effectual_macs,
          static_cast<double>(b.cycles) / static_cast<double>(a.runtime_cycles),
          b.compute_energy_pj / 1000 / a.mac_nj,
          level_pj(b, arch::kL1Level) / 1000 / a.l1_nj,
          level_pj(b, arch::kL2Level) / 1000 / a.l2_nj,
          b.energy_pj / 1000 / a.energy_nj};
}

// Sparseloop's / the --density path's figures, measured (docs/sparseloop.md explains each):
//   computes: equal (the --density path's d x MACs; Sparseloop floors the skipped MACs of a
//     hypergeometric tensor: 6,560 for 6,553.6 at d = 0.1, 0.1% more);
//   MAC energy: equal (actual computes x 0.23 pJ both);
//   cycles: 1/6 dense: 256 (compute-bound; DRAM's 5,120 reads at 50 words/cycle take 103)
//     against the --density path's 1,536, three times its compute cycles, each step of the
//     data-centric model waiting for its off-chip transfers; with d, Sparseloop's cycles follow
//     the actual computes down to the bandwidth floor (36 cycles at d = 0.1, 26 of compute),
//     the --density path's only its compute share (the dense inputs' transfers stay);
//   L2 energy: within 2% at every density (both move d + 1/8 words of weights per weight, the
//     inputs and outputs dense);
//   L1 energy: 5.5% below dense, 2.0 x at d = 0.1: both skip the per-MAC operand reads, but the
//     dense inputs' fills are 4.25 x more in the loop-nest model (one per MAC, 65,536, against
//     15,424) and the --density path reads and writes an output per MAC (65,536 each, both
//     skipped) where the loop-nest model updates it once per PE (a spatial reduction over C),
//     so the part that skipping removes is a smaller share of Sparseloop's L1 energy;
//   total: 0.974 dense, 1.143 at d = 0.1.
TEST(SparseloopVsDensityPath, UnstructuredWeightsSkippedOnAWeightStationaryArray) {
  const Measured want[] = {
      {1.00, 1.000000, 0.166667, 1.000000, 0.945240, 0.997602, 0.973823},
      {0.75, 1.000000, 0.150000, 1.000000, 1.002078, 1.017378, 1.010183},
      {0.50, 1.000000, 0.125000, 1.000000, 1.112924, 1.015752, 1.048709},
      {0.25, 1.000000, 0.083333, 1.000000, 1.402638, 1.002133, 1.101839},
      {0.10, 1.000977, 0.070312, 1.000977, 2.016400, 0.981061, 1.143487},
  };
  for (const Measured& w : want) {
    SCOPED_TRACE("d = " + std::to_string(w.d));
    const Measured m = measure(w.d);
    EXPECT_NEAR(m.computes, w.computes, 1e-6);
    EXPECT_NEAR(m.cycles, w.cycles, 1e-6);
    EXPECT_NEAR(m.mac, w.mac, 1e-6);
    EXPECT_NEAR(m.l1, w.l1, 1e-6);
    EXPECT_NEAR(m.l2, w.l2, 1e-6);
    EXPECT_NEAR(m.total, w.total, 1e-6);
  }
  // The absolute figures the ratios come from, dense: 65,536 MACs; 1,536 and 256 cycles.
  const density_case::Figures a = density_case::density_path(1);
  const SparseLoopResult b = sparseloop(1);
  EXPECT_EQ(a.runtime_cycles, 1536);
  EXPECT_EQ(b.cycles, 256);
  EXPECT_EQ(b.actual_computes, 65536);
}

}  // namespace
}  // namespace sparsemap::cost
