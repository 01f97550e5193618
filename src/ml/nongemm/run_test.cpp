// Tests of ml::nongemm::run (ml/nongemm/run.h): a tiny model's profile, once, with its horizons
// and JSON, the suite's JSON shape, and bad input.
#include "sparsemap/ml/nongemm/run.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"

namespace sparsemap::ml::nongemm {
namespace {

Options tiny(const std::string& model) {
  Options o;
  o.model = model;
  o.tiny = true;
  o.threads = 1;
  o.iters = 1;
  o.schedule = {0, 0, 0};
  return o;
}

struct Models : search::Observer {
  std::vector<std::string> labels;
  void on_progress(const search::Progress& p) override { labels.push_back(p.label); }
  void on_warning(const std::string&) override {}  // a busy machine
};

TEST(NongemmRun, TinyModelOnce) {
  Options o = tiny("bert-base");
  o.gemm_speedup = {10};
  o.hw = "maestro-example";
  Models seen;
  const Result r = run(o, seen);
  ASSERT_EQ(r.profiles.size(), 1u);
  ASSERT_EQ(r.horizons.size(), 1u);
  EXPECT_EQ(seen.labels, std::vector<std::string>{"bert-base"});
  const Profile& p = r.profiles[0];
  EXPECT_EQ(p.wall_ms.size(), 1u);  // one active run
  EXPECT_FALSE(p.ops.empty());
  EXPECT_GT(r.horizons[0].shapes, 0);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["model"], "bert-base");
  EXPECT_EQ(j["iters"], 1);
  EXPECT_EQ(j["tiny"], true);
  EXPECT_EQ(j["seq_len"], 16);
  EXPECT_NEAR(j["gemm_pct"].get<double>() + j["nongemm_pct"].get<double>(), 100, 1e-6);
  ASSERT_EQ(j["horizon"].size(), 1u);
  EXPECT_EQ(j["horizon"][0]["gemm_speedup"], 10);
  EXPECT_TRUE(j.contains("hw"));
  EXPECT_TRUE(j["groups"].contains("normalization"));
}

TEST(NongemmRun, BadInputIsAnInputError) {
  Models seen;
  EXPECT_THROW(run(Options{}, seen), InputError);  // neither --model nor --all
  Options o = tiny("no-such-model");
  EXPECT_THROW(run(o, seen), InputError);
  o = tiny("gpt2");
  o.schedule = {1, 2};
  EXPECT_THROW(run(o, seen), InputError);
  o = tiny("gpt2");
  o.gemm_speedup = {0};
  EXPECT_THROW(run(o, seen), InputError);
  o = tiny("gpt2");
  o.stat = "mode";
  EXPECT_THROW(run(o, seen), InputError);
  o = tiny("");
  o.all = true;
  o.seq = 8;
  EXPECT_THROW(run(o, seen), InputError);
  EXPECT_TRUE(seen.labels.empty());  // every check before the first profile
}

}  // namespace
}  // namespace sparsemap::ml::nongemm
