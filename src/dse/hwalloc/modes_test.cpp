// hwalloc's --dataflow mixed and --objective energy, checked against exhaustive enumeration of
// tiny spaces with the cost model called directly (not through Problem).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/hwalloc/hwalloc.h"
#include "sparsemap/dse/hwalloc/methods.h"
#include "sparsemap/io/confuciux_csv.h"

namespace sparsemap::dse::hwalloc {
namespace {

// Layer 0: a 1x1 CONV with many channels on a 7x7 map (K-parallel dla should win); layer 1:
// few channels on a 56x56 map (output-row-parallel shi/eye should win).
const char* kTwoLayers = "K,C,Y,X,R,S,T\n256,256,7,7,1,1,1\n4,3,58,58,3,3,1\n";

// The cost model on one state, as Problem prices it (padded edges), called directly.
cost::Cost direct(const workload::Layer& l, const LayerChoice& c) {
  const mapping::Mapping m = layer_mapping(l, c);
  return cost::evaluate(padded_layer(l, m), confuciux_arch(c.pes), m);
}

struct Best {
  double value = std::numeric_limits<double>::infinity();
  LayerChoice choice;
};

TEST(HwallocMixed, EachLayerPicksTheTemplateItsCostSays) {
  const workload::Model m = io::parse_confuciux_csv(kTwoLayers, "two.csv");
  ProblemOptions o;
  o.dataflow = "mixed";
  Problem p(m, o);
  ASSERT_EQ(p.actions_per_layer(), 3);
  EXPECT_EQ(p.dataflows(0), (std::vector<Dataflow>{Dataflow::Dla, Dataflow::Shi, Dataflow::Eye}));
  EXPECT_EQ(p.choice_from_levels(1, 3, 4, 1), (LayerChoice{8, 5, Dataflow::Shi}));
  EXPECT_EQ(p.choice_from_levels(1, 11, 0, 2), (LayerChoice{128, 1, Dataflow::Eye}));
  // Every state of both layers: the mixed problem's price is the direct cost of that template.
  Best best[2];
  for (size_t i = 0; i < 2; ++i)
    for (int pl = 0; pl < kLevels; ++pl)
      for (int bl = 0; bl < kLevels; ++bl)
        for (int df = 0; df < 3; ++df) {
          const LayerChoice c = p.choice_from_levels(i, pl, bl, df);
          const LayerCost lc = p.layer_cost(i, c);
          const cost::Cost d = direct(p.layer(i), c);
          ASSERT_EQ(lc.ok, d.ok());
          if (!lc.ok) continue;
          ASSERT_EQ(lc.latency_cycles, d.runtime_cycles);
          ASSERT_DOUBLE_EQ(lc.area, maestro_area(c.pes, d.l1_bytes, d.l2_bytes));
          if (double(lc.latency_cycles) < best[i].value) best[i] = {double(lc.latency_cycles), c};
        }
  // The fastest state of each layer uses a different template: K-parallel for the channel-heavy
  // 1x1 layer, output rows in parallel for the 3-channel 56x56 layer.
  EXPECT_EQ(best[0].choice.dataflow, Dataflow::Dla);
  EXPECT_NE(best[1].choice.dataflow, Dataflow::Dla);
  // With a budget that admits both fastest states (fraction 1: the largest corner), the best
  // design is the pair of them, and the mixed problem prices it as their sum.
  o.fraction = 1;
  Problem q(m, o);
  const DesignCost both = q.evaluate({best[0].choice, best[1].choice});
  EXPECT_TRUE(both.feasible);
  EXPECT_EQ(double(both.latency_cycles), best[0].value + best[1].value);
}

// The baselines search ConfuciuX's GA space (raw PEs x KTileSz x dataflow): 128 x 12 x 3 =
// 4,608 states on one layer, enumerated here; random search must land on one of the minima.
TEST(HwallocMixed, RandomSearchFindsTheExhaustiveOptimumOfOneLayer) {
  const workload::Model m = io::parse_confuciux_csv("K,C,Y,X,R,S,T\n4,3,58,58,3,3,1\n", "one.csv");
  ProblemOptions o;
  o.dataflow = "mixed";
  Problem exhaustive(m, o);
  Best best;
  std::vector<LayerChoice> all;
  for (int64_t pes = 1; pes <= kMaxPes; ++pes)
    for (int64_t kt = 1; kt <= kMaxKTile; ++kt)
      for (Dataflow df : {Dataflow::Dla, Dataflow::Shi, Dataflow::Eye}) {
        const LayerChoice c{pes, kt, df};
        const DesignCost d = exhaustive.evaluate({c});
        all.push_back(c);
        if (d.feasible && d.objective < best.value) best = {d.objective, c};
      }
  EXPECT_EQ(exhaustive.calls(), 128 * 12 * 3);  // corners included: every state once
  std::vector<LayerChoice> argmin;              // ties: several states reach the minimum
  for (const LayerChoice& c : all) {
    const DesignCost d = exhaustive.evaluate({c});
    if (d.feasible && d.objective == best.value) argmin.push_back(c);
  }
  for (const LayerChoice& c : argmin) EXPECT_NE(c.dataflow, Dataflow::Dla);
  Problem p(m, o);
  Tracker t;
  int64_t designs = 0;
  Budget b;
  b.count = BudgetCount::States;
  b.calls = 100000;       // never binds: 4,608 states
  b.max_designs = 60000;  // a given state is missed with probability exp(-60000/4608) ~ 2e-6
  b.stall = 0;
  run_baseline(p, "random", 7, b, t, designs, nullptr, {}, {});
  ASSERT_TRUE(t.has_best);
  EXPECT_EQ(t.best_cost.objective, best.value);
  EXPECT_NE(std::find(argmin.begin(), argmin.end(), t.best[0]), argmin.end());
}

TEST(HwallocEnergy, BestEqualsTheMinimumOverAnExhaustiveTinySpace) {
  // A layer where the two objectives disagree: the single fastest-energy state is not among the
  // two fastest-latency ones (on most layers ours price both best at the same states).
  const workload::Model m =
      io::parse_confuciux_csv("K,C,Y,X,R,S,T\n256,256,7,7,1,1,1\n", "one.csv");
  ProblemOptions o;
  o.objective = Objective::Energy;
  Problem exhaustive(m, o);
  Best energy, latency;
  for (int pl = 0; pl < kLevels; ++pl)
    for (int bl = 0; bl < kLevels; ++bl) {
      const LayerChoice c = exhaustive.choice_from_levels(0, pl, bl);
      const DesignCost d = exhaustive.evaluate({c});
      const cost::Cost direct_cost = direct(exhaustive.layer(0), c);
      ASSERT_DOUBLE_EQ(d.energy_nj, direct_cost.energy_nj);
      ASSERT_EQ(d.objective, d.energy_nj);  // the objective is the energy
      if (!d.feasible) continue;
      if (d.energy_nj < energy.value) energy = {d.energy_nj, c};
      if (double(d.latency_cycles) < latency.value) latency = {double(d.latency_cycles), c};
    }
  int energy_argmin = 0, latency_argmin = 0, both = 0;
  for (int pl = 0; pl < kLevels; ++pl)
    for (int bl = 0; bl < kLevels; ++bl) {
      const DesignCost d = exhaustive.evaluate({exhaustive.choice_from_levels(0, pl, bl)});
      const bool e = d.feasible && d.energy_nj == energy.value;
      const bool l = d.feasible && double(d.latency_cycles) == latency.value;
      energy_argmin += e;
      latency_argmin += l;
      both += e && l;
    }
  // The two objectives disagree on this layer, so the test shows which one was minimised.
  EXPECT_EQ(energy_argmin, 1);
  EXPECT_EQ(latency_argmin, 2);
  EXPECT_EQ(both, 0);
  // The baselines search the raw space (128 x 12 = 1,536 states): its energy minimum.
  Best raw;
  for (int64_t pes = 1; pes <= kMaxPes; ++pes)
    for (int64_t kt = 1; kt <= kMaxKTile; ++kt) {
      const DesignCost d = exhaustive.evaluate({LayerChoice{pes, kt, Dataflow::Dla}});
      if (d.feasible && d.energy_nj < raw.value) raw = {d.energy_nj, LayerChoice{pes, kt}};
    }
  EXPECT_LE(raw.value, energy.value);
  Problem p(m, o);
  Tracker t;
  int64_t designs = 0;
  Budget b;
  b.count = BudgetCount::States;
  b.calls = 100000;
  b.max_designs = 30000;  // 1,536 states: each missed with probability exp(-30000/1536) ~ 3e-9
  b.stall = 0;
  run_baseline(p, "random", 5, b, t, designs, nullptr, {}, {});
  ASSERT_TRUE(t.has_best);
  EXPECT_EQ(t.best_cost.energy_nj, raw.value);
  EXPECT_LE(t.best_cost.area, p.budget());
}

}  // namespace
}  // namespace sparsemap::dse::hwalloc
