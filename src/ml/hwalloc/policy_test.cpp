// ConfuciuX's policy: a run is a function of its seed, a saved agent continues exactly, and
// REINFORCE improves on random actions on a small model.
#include "sparsemap/ml/hwalloc/policy.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"
#include "sparsemap/io/confuciux_csv.h"

namespace sparsemap::ml::hwalloc {
namespace {

namespace hw = dse::hwalloc;

workload::Model alexnet() {
  return io::read_confuciux_csv(std::string(SPARSEMAP_SOURCE_DIR) +
                                "/tests/data/confuciux/models/alexnet.csv");
}

// Runs `episodes` episodes; returns the latency of each succeeded episode (0 otherwise).
std::vector<int64_t> run(Agent& agent, hw::RlEnv& env, hw::Rng& rng, int episodes) {
  std::vector<int64_t> out;
  for (int e = 0; e < episodes; ++e)
    out.push_back(agent.episode(env, rng) ? env.design_cost().latency_cycles : 0);
  return out;
}

TEST(HwallocPolicy, DeterministicForASeedAndResumesExactly) {
  for (const char* algo : {"reinforce", "a2c"}) {
    PolicyOptions o;
    o.algorithm = algo;
    hw::Problem p1(alexnet(), {}), p2(alexnet(), {});
    hw::RlEnv e1(p1), e2(p2);
    Agent a1(e1.state_size(), 2, o, 7), a2(e2.state_size(), 2, o, 7);
    hw::Rng r1(7), r2(7);
    const auto x1 = run(a1, e1, r1, 12);
    EXPECT_EQ(x1, run(a2, e2, r2, 12)) << algo;
    // Save after 12 episodes, continue both the original and a fresh agent loaded from it.
    const std::string bytes = a1.save();
    Agent a3(e1.state_size(), 2, o, 99);
    a3.load(bytes);
    EXPECT_EQ(a3.episodes(), 12);
    hw::Rng r3 = r1;
    hw::Problem p3(alexnet(), {});
    p3.replay(p1.state_log());
    hw::RlEnv e3(p3);
    e3.set_worst(e1.worst());
    EXPECT_EQ(run(a1, e1, r1, 6), run(a3, e3, r3, 6)) << algo;
    EXPECT_EQ(p1.calls(), p3.calls());
  }
  EXPECT_THROW(Agent(11, 2, PolicyOptions{"dqn"}, 1), sparsemap::InputError);
}

TEST(HwallocPolicy, ReinforceLearnsOnAlexnet) {
  hw::ProblemOptions po;
  po.fraction = 0.5;
  hw::Problem p(alexnet(), po);
  hw::RlEnv env(p);
  Agent agent(env.state_size(), 2, PolicyOptions{}, 1);
  hw::Rng rng(1);
  const auto lat = run(agent, env, rng, 300);
  auto best_of = [&](size_t from, size_t to) {
    int64_t b = 0;
    for (size_t i = from; i < to; ++i)
      if (lat[i] > 0 && (b == 0 || lat[i] < b)) b = lat[i];
    return b;
  };
  const int64_t early = best_of(0, 20), late = best_of(280, 300);
  ASSERT_GT(late, 0);
  EXPECT_TRUE(early == 0 || late < early) << early << " -> " << late;
}

}  // namespace
}  // namespace sparsemap::ml::hwalloc
