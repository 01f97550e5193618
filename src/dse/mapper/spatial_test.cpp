// Tests of the utilisation bound and the spatial seeds: hand-worked bounds, no mapping below
// the bound, seeds that reach their predicted steps in the cost model.
#include "sparsemap/dse/mapper/spatial.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::mapper {
namespace {

using workload::Dim;
using workload::Layer;
using workload::OpKind;

Layer gemm(int64_t m, int64_t n, int64_t k) {
  Layer l;
  l.name = "g";
  l.kind = OpKind::Gemm;
  l.dim(Dim::M) = m, l.dim(Dim::N) = n, l.dim(Dim::K) = k;
  return l;
}

Layer layer_of(const std::string& model, size_t gemm_index) {
  size_t i = 0;
  for (const Layer& l : workload::zoo_model(model).layers)
    if (workload::is_gemm_class(l.kind) && i++ == gemm_index) return l;
  ADD_FAILURE() << model << " has no GEMM-class layer " << gemm_index;
  return gemm(1, 1, 1);
}

TEST(UtilisationBound, HandWorked) {
  // M=10, N=7 on 8 PEs: (s_M, s_N) = (1, 7) or (2, 4) take 10 steps; (8, 1) takes 14, (2, 3)
  // 15, (4, 2) 12; nothing takes 9 = ceil(70 / 8).
  EXPECT_EQ(utilisation_bound_cycles(gemm(10, 7, 1), 8), 10);
  // 16 x 4 x 3 on 8 PEs factors exactly: 192 / 8.
  EXPECT_EQ(utilisation_bound_cycles(gemm(16, 4, 3), 8), 24);
  // One PE: the MACs. More PEs than MACs: one step.
  EXPECT_EQ(utilisation_bound_cycles(gemm(5, 3, 2), 1), 30);
  EXPECT_EQ(utilisation_bound_cycles(gemm(5, 3, 2), 1000), 1);
  // ResNet-18's first layer (K 64, C 3, R = S = 7, Y' = X' = 112) on 200 PEs: K x C on 192
  // PEs leaves 7 x 7 x 112 x 112 = 614,656 steps; ceil(MACs / 200) = 590,070 needs 199.9
  // busy PEs, which no spread of these extents gives.
  const Layer conv1 = layer_of("resnet18", 0);
  ASSERT_EQ(conv1.macs(), 118013952);
  const int64_t u = utilisation_bound_cycles(conv1, 200);
  EXPECT_EQ(u, 602112);  // R and Y' over 7 x 28 PEs: 64 x 3 x 7 x 4 x 112
}

// Every spread tried, for small extents: min over s of prod ceil(e / s), prod s <= pes.
int64_t brute_force(const std::vector<int64_t>& e, size_t i, int64_t pes) {
  if (i == e.size()) return 1;
  int64_t best = -1;
  for (int64_t s = 1; s <= std::min(e[i], pes); ++s) {
    const int64_t v = (e[i] + s - 1) / s * brute_force(e, i + 1, pes / s);
    if (best < 0 || v < best) best = v;
  }
  return best;
}

TEST(UtilisationBound, EqualsBruteForce) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int64_t> ext(1, 24), pes(1, 96);
  for (int k = 0; k < 300; ++k) {
    Layer l;
    l.kind = OpKind::Conv;
    l.dim(Dim::K) = ext(rng), l.dim(Dim::C) = ext(rng);
    l.dim(Dim::R) = 1 + ext(rng) % 3, l.dim(Dim::S) = 1 + ext(rng) % 3;
    l.dim(Dim::Y) = l.dim(Dim::R) - 1 + ext(rng), l.dim(Dim::X) = l.dim(Dim::S) - 1 + ext(rng);
    const int64_t p = pes(rng);
    ASSERT_EQ(utilisation_bound_cycles(l, p), brute_force(loop_extents(l), 0, p))
        << "K " << l.dim(Dim::K) << " C " << l.dim(Dim::C) << " P " << p;
  }
}

TEST(UtilisationBound, LoopExtentsMultiplyToTheMacs) {
  for (const std::string model : {"resnet50", "mobilenet-v2", "bert-base", "dlrm", "ncf"})
    for (const Layer& l : workload::zoo_model(model).layers) {
      if (!workload::is_gemm_class(l.kind)) {
        EXPECT_TRUE(loop_extents(l).empty()) << l.name;
        continue;
      }
      const std::vector<int64_t> e = loop_extents(l);
      EXPECT_EQ(std::accumulate(e.begin(), e.end(), int64_t{1}, std::multiplies<>()), l.macs())
          << model << " " << l.name;
      const int64_t pes = 200;
      EXPECT_GE(utilisation_bound_cycles(l, pes), (l.macs() + pes - 1) / pes) << l.name;
    }
}

// No mapping of the map space runs below the bound (random genomes, three PE counts, two and
// three levels), and every mapping the cost model accepts is counted.
TEST(UtilisationBound, NoMappingBelowIt) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 0.999999);
  int checked = 0;
  for (const auto& [model, index] : std::vector<std::pair<std::string, size_t>>{
           {"resnet18", 0}, {"resnet18", 5}, {"mobilenet-v2", 2}, {"bert-base", 3}, {"ncf", 1}})
    for (int64_t pes : {16, 200, 1024})
      for (int levels : {2, 3}) {
        const Layer l = layer_of(model, index);
        arch::Arch hw = arch::preset("gamma-edge");
        hw.num_pes = pes;
        MapSpaceOptions o;
        o.max_levels = levels;
        const MapSpace space(l, hw, o);
        const int64_t bound = utilisation_bound_cycles(l, pes);
        for (int k = 0; k < 60; ++k) {
          search::Genome g(space.dims());
          for (double& x : g) x = u(rng);
          const cost::Cost c = cost::evaluate(l, hw, space.decode(g));
          if (!c.ok()) continue;
          ++checked;
          ASSERT_GE(c.runtime_cycles, bound) << model << " " << index << " P " << pes;
        }
      }
  EXPECT_GT(checked, 1200);
}

// Seeds in the cost model (gamma-edge, unconstrained bandwidths, 200 PEs): never below the bound,
// and the best within a few steps of it where the layer's loops spread well.
TEST(SpatialSeeds, ReachTheBoundInTheCostModel) {
  arch::Arch hw = arch::preset("gamma-edge");
  hw.num_pes = 200;
  struct Case {
    std::string model;
    size_t index;
    int64_t bound, best;
  };
  // resnet18's layer1.0.conv1 (K = C = 64, 3 x 3, 56 x 56): Y' over 28 clusters of 7 PEs on
  // X', 2 x 8 x 64 x 64 x 9 = 589,824 steps, plus 17 cycles of first-step ingress.
  // resnet18's conv1 (stride 2): K x C over 64 x 3 PEs, 112 x 112 steps of the 7 x 7 window,
  // each with one cycle of ingress (C is on the PEs, so every inner run is one step):
  // 12,544 x 50 + 1 = 627,201; the bound spreads R and Y' (7 x 28) for 602,112.
  // bert-base's query projection (GEMM 768 x 768 x 128).
  for (const Case& c : std::vector<Case>{{"resnet18", 1, 589824, 589841},
                                         {"resnet18", 0, 602112, 627201},
                                         {"bert-base", 0, 379456, 381425}}) {
    const MapSpace space(layer_of(c.model, c.index), hw, MapSpaceOptions{});
    EXPECT_EQ(utilisation_bound_cycles(space.layer(), 200), c.bound);
    const std::vector<search::Genome> seeds = spatial_seeds(space, 4);
    ASSERT_EQ(seeds.size(), 4u);
    int64_t best = -1;
    for (const search::Genome& g : seeds) {
      const cost::Cost cost = cost::evaluate(space.layer(), hw, space.decode(g));
      ASSERT_TRUE(cost.ok());
      EXPECT_GE(cost.runtime_cycles, c.bound);
      if (best < 0 || cost.runtime_cycles < best) best = cost.runtime_cycles;
    }
    EXPECT_EQ(best, c.best) << c.model << " " << c.index;
  }
}

TEST(SpatialSeeds, OneLevelAndConstrainedSpaces) {
  arch::Arch hw = arch::preset("gamma-edge");
  hw.num_pes = 8;
  MapSpaceOptions one;
  one.max_levels = 1;
  // 16 x 4 x 3 on one level: the 16 (M) over 8 PEs, 2 x 4 x 3 = 24 steps, and one cycle of
  // the first step's ingress.
  const MapSpace space(gemm(16, 4, 3), hw, one);
  const std::vector<search::Genome> seeds = spatial_seeds(space, 8);
  ASSERT_EQ(seeds.size(), 6u);  // one per slot, each with its two level-0 tilings
  const cost::Cost c = cost::evaluate(space.layer(), hw, space.decode(seeds[0]));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.runtime_cycles, 25);
  // NVDLA's class fixes K then C on the levels: only that pair survives the round trip.
  MapSpaceOptions nv;
  nv.constraint = Constraint::Nvdla;
  const MapSpace fixed(layer_of("resnet18", 5), hw, nv);
  for (const search::Genome& g : spatial_seeds(fixed, 8)) {
    const MapSpace::Decoded d = fixed.decode_raw(g);
    EXPECT_EQ(d.parallel[0], 0);
    EXPECT_EQ(d.parallel[1], 1);
  }
}

// map --spatial-seeds: the seeds are evaluated (counted) first, so each layer's result is at
// most its best seed, and the whole model beats the unseeded search at a small budget.
TEST(SpatialSeeds, OpenTheMappersSearch) {
  const arch::Arch hw = arch::preset("gamma-edge");  // 168 PEs
  std::vector<Layer> layers;
  for (size_t i = 0; i < 6; ++i) layers.push_back(layer_of("resnet18", i));
  MapperOptions o;
  o.budget = 24;
  const ModelOutcome cold = map_layers(layers, hw, o);
  o.spatial_seeds = 4;
  const ModelOutcome seeded = map_layers(layers, hw, o);
  int64_t cold_total = 0, seeded_total = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    cold_total += cold.layers[i].cost.runtime_cycles;
    seeded_total += seeded.layers[i].cost.runtime_cycles;
    EXPECT_EQ(seeded.layers[i].samples, seeded.layers[i].reused ? 0 : 24);
    const MapSpace space(layers[i], hw, o.space);
    int64_t best_seed = -1;
    for (const search::Genome& g : spatial_seeds(space, 4, true)) {
      cost::EvalOptions eo;
      eo.enforce_buffers = true;
      const cost::Cost c = cost::evaluate(layers[i], hw, space.decode(g), eo);
      if (c.ok() && (best_seed < 0 || c.runtime_cycles < best_seed)) best_seed = c.runtime_cycles;
    }
    ASSERT_GT(best_seed, 0) << i;
    EXPECT_LE(seeded.layers[i].cost.runtime_cycles, best_seed) << layers[i].name;
  }
  EXPECT_LT(seeded_total, cold_total);
}

}  // namespace
}  // namespace sparsemap::dse::mapper
