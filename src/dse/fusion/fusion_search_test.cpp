// Fusion mappers: DP equals exhaustive on small chains, the GA reaches the full-space optimum on
// a tiny chain, baselines meet the buffer, repair, genome round trips and bad input.
#include "sparsemap/dse/fusion/fusion_search.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "sparsemap/dse/fusion/synthetic_models.h"
#include "sparsemap/error.h"

namespace sparsemap::dse::fusion {
namespace {

using cost::FusionCostModel;
using cost::FusionMapping;

arch::Arch small_arch() {
  arch::Arch a;
  a.name = "small";
  a.num_pes = 16;
  a.l1_bytes = 1024;
  a.l2_bytes = 1 << 20;
  a.noc_words_per_cycle = 16;
  a.offchip_words_per_cycle = 0.5;
  a.word_bytes = 2;
  a.energy.offchip_pj = 20;
  return a;
}

// A chain of `n` layers (convs, a depthwise conv, an FC head) at batch 4.
workload::Model chain(int variant) {
  workload::Model m;
  m.name = "chain" + std::to_string(variant);
  const int64_t b = 4, c = 4 + 4 * variant, hw = 8 + 2 * variant;
  m.layers.push_back(workload::conv2d("c0", b, 3, hw, hw, c, 3, 1, 1));
  m.layers.push_back(workload::conv2d("c1", b, c, hw, hw, c, 3, 1, 1, c));
  m.layers.push_back(workload::conv2d("c2", b, c, hw, hw, 2 * c, 1));
  m.layers.push_back(workload::conv2d("c3", b, 2 * c, hw, hw, 2 * c, 3, 1 + variant % 2, 1));
  m.layers.push_back(workload::conv2d("c4", b, 2 * c, (hw - 1) / (1 + variant % 2) + 1,
                                      (hw - 1) / (1 + variant % 2) + 1, c, 1));
  m.producers = workload::chain_producers(m.layers.size());
  return m;
}

FusionCostModel model_of(int variant, int64_t buffer) {
  cost::FusionOptions o;
  o.buffer_bytes = buffer;
  return FusionCostModel(cost::fusion_graph(chain(variant), 4), small_arch(), o);
}

TEST(FusionSearch, DpEqualsExhaustiveOnSmallChains) {
  for (int v = 0; v < 3; ++v)
    for (int64_t buffer : {3000, 8000, 40000}) {
      const FusionCostModel m = model_of(v, buffer);
      for (Objective o : {Objective::Latency, Objective::Energy}) {
        const FusionResult d = dp(m, o);
        const FusionResult e = exhaustive(m, o);
        EXPECT_EQ(e.samples, 3 * 4 * 4 * 4 * 4) << v;  // sum_k C(4, k-1) 3^k = 3 * 4^4
        ASSERT_TRUE(e.cost.meets_buffer) << v << " " << buffer;
        EXPECT_TRUE(d.cost.meets_buffer);
        EXPECT_DOUBLE_EQ(objective_value(d.cost, o), objective_value(e.cost, o))
            << "variant " << v << " buffer " << buffer << " " << objective_name(o);
      }
    }
}

// A residual block: the skip edge crosses group boundaries; DP stays exact (a group's cost
// depends only on its range).
TEST(FusionSearch, DpEqualsExhaustiveWithASkipConnection) {
  workload::Model m;
  m.name = "res";
  const int64_t b = 4;
  m.layers.push_back(workload::conv2d("stem", b, 3, 12, 12, 8, 3, 1, 1));
  m.layers.push_back(workload::conv2d("blk.conv1", b, 8, 12, 12, 8, 3, 1, 1));
  m.layers.push_back(workload::conv2d("blk.conv2", b, 8, 12, 12, 8, 3, 1, 1));
  m.layers.push_back(
      workload::nongemm("blk.add", workload::OpKind::Elementwise, "add", {b, 8, 12, 12}, 2));
  m.layers.push_back(workload::conv2d("head", b, 8, 12, 12, 16, 1));
  m.producers = {{}, {0}, {1}, {2, 0}, {3}};
  const cost::FusionGraph g = cost::fusion_graph(m, b);
  ASSERT_EQ(g.skip_edges(), 1);
  for (int64_t buffer : {4000, 12000, 60000}) {
    cost::FusionOptions o;
    o.buffer_bytes = buffer;
    const FusionCostModel fm(g, small_arch(), o);
    for (Objective obj : {Objective::Latency, Objective::Energy})
      EXPECT_DOUBLE_EQ(objective_value(dp(fm, obj).cost, obj),
                       objective_value(exhaustive(fm, obj).cost, obj))
          << buffer;
  }
}

TEST(FusionSearch, BaselinesOrderAndMeetTheBuffer) {
  const FusionCostModel m = model_of(1, 8000);
  const FusionResult none = no_fusion(m, Objective::Latency);
  const FusionResult g = greedy(m, Objective::Latency);
  const FusionResult d = dp(m, Objective::Latency);
  EXPECT_TRUE(g.cost.meets_buffer);
  EXPECT_TRUE(d.cost.meets_buffer);
  EXPECT_LE(d.cost.latency_cycles, g.cost.latency_cycles);
  EXPECT_LT(d.cost.latency_cycles, none.cost.latency_cycles);  // fusion pays on this chain
  EXPECT_LT(d.cost.dram_bytes, none.cost.dram_bytes);
  EXPECT_GT(d.samples, 0);
}

TEST(FusionSearch, GaReachesTheFullSpaceOptimumOnATinyChain) {
  const FusionCostModel m = model_of(0, 8000);
  SearchOptions s;
  s.algo = "exhaustive";
  s.budget = 1 << 20;
  s.seed_baselines = false;
  const FusionResult ex = search(m, Objective::Latency, s);  // 3^5 x 2^4 = 3888 points
  EXPECT_EQ(ex.samples, 3888);
  s.algo = "ga";
  s.budget = 3000;
  s.seed_baselines = true;
  const FusionResult ga = search(m, Objective::Latency, s);
  EXPECT_TRUE(ga.cost.meets_buffer);
  EXPECT_DOUBLE_EQ(ga.cost.latency_cycles, ex.cost.latency_cycles);
  // Per-layer micro-batches are a superset of DP's space.
  EXPECT_LE(ex.cost.latency_cycles, dp(m, Objective::Latency).cost.latency_cycles);
  // EDP: the GA never does worse than its DP seed.
  const FusionResult edp = search(m, Objective::Edp, s);
  const FusionResult dedp = dp(m, Objective::Edp);
  EXPECT_LE(objective_value(edp.cost, Objective::Edp), objective_value(dedp.cost, Objective::Edp));
}

TEST(FusionSearch, RepairMeetsTheBuffer) {
  const FusionCostModel m = model_of(2, 6000);
  FusionMapping all;
  all.micro_batch.assign(5, 4);
  all.cut.assign(4, 0);
  ASSERT_FALSE(m.evaluate(all).meets_buffer);
  int64_t samples = 0;
  const FusionMapping r = repair(m, all, Objective::Latency, &samples);
  EXPECT_TRUE(m.evaluate(r).meets_buffer);
  EXPECT_GT(samples, 1);
  samples = 0;
  const FusionMapping same = repair(m, r, Objective::Latency, &samples);
  EXPECT_EQ(same, r);
  EXPECT_EQ(samples, 1);
}

TEST(FusionSearch, GenomeRoundTrip) {
  const FusionCostModel m = model_of(0, 8000);
  FusionMapping f;
  f.micro_batch = {1, 2, 4, 2, 1};
  f.cut = {0, 1, 0, 1};
  EXPECT_EQ(genome_dims(m), 9u);
  EXPECT_EQ(decode(m, encode(m, f)), f);
}

TEST(FusionSearch, BadInput) {
  EXPECT_THROW(parse_objective("speed"), InputError);
  EXPECT_EQ(parse_objective("edp"), Objective::Edp);
  const FusionCostModel m = model_of(0, 8000);
  EXPECT_THROW(exhaustive(m, Objective::Latency, 100), InputError);
}

// Resuming from a checkpoint of another search (another model: another genome length) is one
// InputError that names the checkpoint file, not "<checkpoint>" (issue #19).
TEST(FusionSearch, ResumeFromAnotherSearchNamesTheFile) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sparsemap_fusion_resume_" + std::to_string(::getpid()) + ".json"))
                               .string();
  SearchOptions s;
  s.budget = 80;
  s.population = 8;
  s.checkpoint_file = path;
  search(model_of(0, 8000), Objective::Latency, s);
  ASSERT_TRUE(std::filesystem::exists(path));
  cost::FusionOptions o;
  o.buffer_bytes = 8000;
  workload::Model shorter = chain(1);
  shorter.layers.pop_back();
  shorter.producers.pop_back();
  const FusionCostModel other(cost::fusion_graph(shorter, 4), small_arch(), o);
  s.resume = true;
  try {
    search(other, Objective::Latency, s);
    ADD_FAILURE() << "resumed a checkpoint of another search";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("genes"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sparsemap::dse::fusion

namespace sparsemap::dse::fusion {
namespace {

TEST(SyntheticModels, BuildFusionGraphsDeterministically) {
  int skips = 0;
  for (uint64_t s = 1; s <= 40; ++s) {
    const workload::Model m = synthetic_cnn(s, 4);
    EXPECT_EQ(m, synthetic_cnn(s, 4));
    const cost::FusionGraph g = cost::fusion_graph(m, 4);
    EXPECT_GE(g.nodes.size(), 4u) << m.name;
    EXPECT_LE(g.nodes.size(), 80u) << m.name;
    skips += g.skip_edges();
  }
  EXPECT_GT(skips, 40);
}

}  // namespace
}  // namespace sparsemap::dse::fusion
