// dse::attention::run on the golden configuration (tests/e2e/golden_test.sh's `attention`
// line): the numbers and the JSON the CLI writes, bad options as InputError, and cancellation.
#include "sparsemap/dse/attention/run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::dse::attention {
namespace {

// `sparsemap attention --model bert --hw flat-edge --seq 512 --map-budget 30 --seed 1`.
Options golden_options() {
  Options o;
  o.model = "bert";
  o.hw = "flat-edge";
  o.seq = "512";
  o.map_budget = 30;
  o.seed = 1;
  return o;
}

// Records the progress reports; cancels at the report numbered `cancel_at` (none when < 0).
class Recorder : public search::Observer {
 public:
  explicit Recorder(int cancel_at = -1) : cancel_at_(cancel_at) {}
  void on_progress(const search::Progress& p) override { seen.push_back(p); }
  void on_search_done() override { ++done; }
  bool cancelled() override {
    return cancel_at_ >= 0 && static_cast<int>(seen.size()) > cancel_at_;
  }
  std::vector<search::Progress> seen;
  int done = 0;

 private:
  int cancel_at_;
};

TEST(AttentionRun, GoldenNumbers) {
  Recorder obs;
  const Result r = run(golden_options(), obs);
  ASSERT_EQ(r.cases.size(), 1u);
  const CaseResult& c = r.cases[0];
  EXPECT_EQ(c.model, "bert");
  EXPECT_EQ(c.hw, "flat-edge");
  EXPECT_EQ(c.shape.batch, 64);
  EXPECT_EQ(c.shape.heads, 12);
  EXPECT_EQ(c.shape.ffn, 3072);
  ASSERT_EQ(c.rows.size(), 1u);
  const SeqResult& s = c.rows[0];
  EXPECT_EQ(s.seq, 512);
  // The values tests/e2e/golden/attention.json holds.
  EXPECT_DOUBLE_EQ(s.flat.cost.latency_s, 0.6425639404255319);
  EXPECT_DOUBLE_EQ(s.flat.cost.dram_bytes, 201326592.0);
  EXPECT_DOUBLE_EQ(s.flat.cost.energy_pj, 483165479632.89606);
  EXPECT_EQ(s.flat.evaluations, 6336);
  EXPECT_EQ(cost::config_text(s.flat.config), "row R=32 on:K,QK,A,V qk:input av:output");
  EXPECT_DOUBLE_EQ(s.base.latency_s, 0.6693360936170213);
  EXPECT_DOUBLE_EQ(s.base.dram_bytes, 1811939328.0);
  EXPECT_DOUBLE_EQ(s.speedup(), 1.0416645745383095);
  EXPECT_DOUBLE_EQ(s.energy_saving_pct(), 9.112484963159373);
  EXPECT_DOUBLE_EQ(s.gemms.rest.latency_s, 17.993862068085107);
  EXPECT_DOUBLE_EQ(s.layer_speedup(), 1.0014365497536526);
  EXPECT_EQ(s.gemms.evaluations, 150);
  // One report before the length, one after it, then the case is done.
  ASSERT_EQ(obs.seen.size(), 2u);
  EXPECT_EQ(obs.seen[0].label, "bert flat-edge N=512");
  EXPECT_EQ(obs.seen[0].done, 0);
  EXPECT_EQ(obs.seen[1].done, obs.seen[1].total);
  EXPECT_EQ(obs.done, 1);
  // to_json is the golden file, value for value.
  std::ifstream in(std::string(SPARSEMAP_SOURCE_DIR) + "/tests/e2e/golden/attention.json");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(to_json(r).dump(2) + "\n", text.str());
}

TEST(AttentionRun, BadOptionsAreInputErrors) {
  search::Observer obs;
  Options o = golden_options();
  o.seq = "1K,abc";
  try {
    run(o, obs);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "<flag --seq>: expected sequence lengths like 512,1K,64K,1M (got 'abc')");
  }
  o = golden_options();
  o.seq = "0";
  EXPECT_THROW(run(o, obs), InputError);
  o = golden_options();
  o.heads = 0;
  EXPECT_THROW(run(o, obs), InputError);
  o = golden_options();
  o.objective = "speed";
  EXPECT_THROW(run(o, obs), InputError);
  o = golden_options();
  o.model = "resnet18";  // no attention block
  EXPECT_THROW(run(o, obs), InputError);
  EXPECT_EQ(parse_seqs("512,1K,1M"), (std::vector<int64_t>{512, 1024, 1048576}));
  EXPECT_EQ(seq_text(1048576), "1M");
  EXPECT_EQ(seq_text(3000), "3000");
}

TEST(AttentionRun, CancelledBeforeTheFirstLength) {
  Recorder obs(0);
  EXPECT_THROW(run(golden_options(), obs), search::Cancelled);
  EXPECT_EQ(obs.seen.size(), 1u);
}

}  // namespace
}  // namespace sparsemap::dse::attention
