// dse::hwalloc::run: the golden run's numbers (tests/e2e/golden/hwalloc.json), to_json, the RL
// methods through Options::rl (a torch-free agent here), cancellation and bad input.
#include "sparsemap/dse/hwalloc/run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::dse::hwalloc {
namespace {

Options golden_options() {
  Options o;  // `hwalloc --model tests/data/confuciux/models/resnet18.csv --method ga
  o.model = std::string(SPARSEMAP_SOURCE_DIR) + "/tests/data/confuciux/models/resnet18.csv";
  o.method = "ga";  //  --budget 600 --seed 5`
  o.budget = 600;
  o.seed = 5;
  return o;
}

TEST(HwallocRun, GoldenGaRun) {
  search::Observer quiet;
  const Result r = run(golden_options(), quiet);
  EXPECT_EQ(r.model, "resnet18");
  EXPECT_EQ(r.calls, 600);
  EXPECT_EQ(r.states, 411);
  EXPECT_EQ(r.lookups, 600);
  EXPECT_EQ(r.designs, 25);
  EXPECT_EQ(r.rl_episodes, 0);
  ASSERT_TRUE(r.tracker.has_best);
  EXPECT_EQ(r.tracker.best_cost.latency_cycles, 208051666);
  EXPECT_DOUBLE_EQ(r.tracker.best_cost.energy_nj, 13595254.906);
  EXPECT_EQ(r.tracker.states_to_best, 411);
  EXPECT_DOUBLE_EQ(r.fraction, 0.5);
  EXPECT_DOUBLE_EQ(r.constraint, 162541862294995.34);
  ASSERT_EQ(r.layers.size(), 20u);
  EXPECT_EQ(r.layers[0].choice.pes, 36);
  EXPECT_EQ(r.layers[0].choice.k_tile, 4);
  EXPECT_EQ(r.layers[0].cost.latency_cycles, 149795649);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["best"]["calls_to_best"], 600);
  EXPECT_EQ(j["convergence"].size(), 3u);
  EXPECT_EQ(j["convergence"][1][0], 140);
  EXPECT_EQ(j["convergence"][1][1], 208440178.0);
  EXPECT_EQ(j["layers"][0]["name"], "L0");
  EXPECT_FALSE(j.contains("note"));
}

// An agent that takes every layer's smallest levels: a feasible design every episode.
class SmallestAgent : public RlAgent {
 public:
  explicit SmallestAgent(int actions) : actions_(actions) {}
  bool episode(RlEnv& env, Rng& rng) override {
    env.reset(rng);
    ++episodes_;
    for (;;) {
      const RlEnv::Step s = env.step(std::vector<int>(actions_, 0));
      if (s.done) return s.succeeded;
    }
  }
  int64_t episodes() const override { return episodes_; }
  std::string save() const override { return std::to_string(episodes_); }
  void load(const std::string& bytes) override { episodes_ = std::stoll(bytes); }

 private:
  int actions_;
  int64_t episodes_ = 0;
};

TEST(HwallocRun, RlMethodsUseTheInjectedAgent) {
  Options o = golden_options();
  o.method = "rl";
  o.budget = 300;
  std::vector<std::string> algorithms;
  o.rl = [&algorithms](int, int actions, const std::string& algorithm, uint64_t) {
    algorithms.push_back(algorithm);
    return std::unique_ptr<RlAgent>(new SmallestAgent(actions));
  };
  search::Observer quiet;
  const Result r = run(o, quiet);
  EXPECT_EQ(algorithms, std::vector<std::string>{"reinforce"});
  EXPECT_GT(r.rl_episodes, 0);
  EXPECT_EQ(r.rl_episodes, r.designs);
  EXPECT_GE(r.calls, 300);
  ASSERT_TRUE(r.tracker.has_best);
  EXPECT_EQ(r.layers.at(0).choice.pes, 1);
  EXPECT_FALSE(r.options.rl);  // dropped from the result
}

class Cancelling : public search::Observer {
 public:
  bool cancelled() override { return true; }
};

TEST(HwallocRun, ObserverCancels) {
  Cancelling stop;
  EXPECT_THROW(run(golden_options(), stop), search::Cancelled);
}

TEST(HwallocRun, BadInputIsInputError) {
  search::Observer quiet;
  Options o = golden_options();
  o.method = "confuciux";  // no Options::rl: what a build without libtorch says
  try {
    run(o, quiet);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "<flag --method>: the RL methods need libtorch: this sparsemap was built without "
              "libtorch");
  }
  o = golden_options();
  o.budget = 60;  // the corner designs take 100 lookups
  EXPECT_THROW(run(o, quiet), InputError);
  o = golden_options();
  o.method = "magic";
  EXPECT_THROW(run(o, quiet), InputError);
  EXPECT_THROW(check_options(golden_options(), "", "x.pdf"), InputError);
}

}  // namespace
}  // namespace sparsemap::dse::hwalloc
