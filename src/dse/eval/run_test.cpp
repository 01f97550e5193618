// `sparsemap eval` and `sparsemap timeloop` through the library: the runs `golden_test.sh` holds
// (tests/e2e/golden/eval.json, eval_sparse.json, timeloop.json) give the same numbers, and bad
// inputs are InputErrors.
#include "sparsemap/dse/eval/run.h"

#include <gtest/gtest.h>

#include "support/error_of.h"
#include "support/test_data.h"

namespace sparsemap::dse::eval {
namespace {

using testing::error_of;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(EvalRun, ModelUnderATemplate) {  // golden eval.json
  Options o;
  o.model = "resnet18";
  o.dataflow = "kcp_ws";
  o.hw = "gamma-edge";
  search::Observer observer;
  const Result r = run(o, observer);
  ASSERT_EQ(r.evaluations.size(), 1u);
  const Evaluation& e = r.evaluations[0];
  ASSERT_EQ(e.costs.size(), 21u);
  int64_t runtime = 0;
  for (const cost::Cost& c : e.costs) {
    EXPECT_TRUE(c.ok()) << c.reason;
    runtime += c.runtime_cycles;
  }
  EXPECT_EQ(runtime, 34930517);
  EXPECT_EQ(e.costs[0].runtime_cycles, 20070401);
  EXPECT_DOUBLE_EQ(e.costs[0].energy_nj, 307901.9331445);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["total"]["runtime_cycles"], 34930517);
  EXPECT_DOUBLE_EQ(j["total"]["energy_nj"].get<double>(), 5097428.806078101);
  EXPECT_EQ(j["total"]["macs"], 1814073344);
  EXPECT_EQ(j["model"], "resnet18");
  EXPECT_EQ(j["dataflow"], "kcp_ws");
  EXPECT_FALSE(j.contains("mapping"));
  EXPECT_NO_THROW(require_some_feasible(r));
}

TEST(EvalRun, SparseWeightsWithEnforcedBuffers) {  // golden eval_sparse.json
  Options o;
  o.model = "ncf";
  o.dataflow = "xp_ws";
  o.hw = "maestro-example";
  o.density = "W=0.5";
  o.structure = "W=nm:2:4";
  o.enforce_buffers = true;
  search::Observer observer;
  const nlohmann::json j = to_json(run(o, observer));
  EXPECT_EQ(j["total"]["runtime_cycles"], 2050);
  EXPECT_DOUBLE_EQ(j["total"]["energy_nj"].get<double>(), 1594.5569651000003);
  EXPECT_EQ(j["total"]["layers_ok"], 4);
  EXPECT_EQ(j["layers"][0]["runtime_cycles"], 1280);
  EXPECT_EQ(j["sparsity"]["weight"], "nm:2:4");
}

TEST(EvalRun, SeveralDataflows) {
  Options o;
  o.model = "ncf";
  o.dataflow = "all";
  o.hw = "gamma-edge";
  search::Observer observer;
  const Result r = run(o, observer);
  EXPECT_GE(r.evaluations.size(), 3u);
  const nlohmann::json j = to_json(r);
  ASSERT_TRUE(j.contains("evaluations"));
  EXPECT_EQ(j["evaluations"].size(), r.evaluations.size());
  EXPECT_EQ(j["evaluations"][0]["dataflow"], r.evaluations[0].dataflow);
}

TEST(EvalRun, TimeloopFiles) {  // golden timeloop.json, through `timeloop` and `eval --timeloop`
  SPARSEMAP_TEST_DATA(dir, "timeloop/04-model-conv1d+oc-3levelspatial/ref-output/kp");
  TimeloopOptions t;
  t.files = {dir + "/timeloop-model.ERT.yaml", dir + "/parsed-processed-input.yaml"};
  search::Observer observer;
  const TimeloopResult tr = run_timeloop(t, observer);
  ASSERT_TRUE(tr.dense.has_value());
  EXPECT_FALSE(tr.sparse.has_value());
  EXPECT_EQ(tr.dense->cycles, 3072);
  EXPECT_DOUBLE_EQ(tr.dense->energy_pj, 720795.888512);
  EXPECT_EQ(tr.dense->macs, 49152);
  Options o;
  o.timeloop = t.files;
  const Result r = run(o, observer);
  ASSERT_TRUE(r.timeloop.has_value());
  EXPECT_EQ(to_json(r), to_json(tr));
  EXPECT_EQ(to_json(r)["cycles"], 3072);
}

TEST(EvalRun, BadInputsAreInputErrors) {
  search::Observer observer;
  Options o;
  o.hw = "gamma-edge";
  EXPECT_TRUE(has(error_of([&] { run(o, observer); }), "expected either --mapping FILE.m"));
  o.model = "resnet18";
  EXPECT_TRUE(has(error_of([&] { run(o, observer); }), "--model needs --dataflow"));
  o.dataflow = "kcp_ws";
  o.hw = "";
  EXPECT_TRUE(has(error_of([&] { run(o, observer); }), "--hw is required"));
  o.hw = "nosuch-accelerator";
  EXPECT_NE(error_of([&] { run(o, observer); }), "no error");
  Options t;
  t.timeloop = {"a.yaml"};
  t.hw = "gamma-edge";
  EXPECT_TRUE(has(error_of([&] { run(t, observer); }),
                  "--hw does not apply to Timeloop files (they carry the architecture"));
  TimeloopOptions missing;
  missing.files = {"/nonexistent/arch.yaml"};
  EXPECT_NE(error_of([&] { run_timeloop(missing, observer); }), "no error");
}

// The option tables: eval's rows refused beside --timeloop are exactly the flags run() refuses
// there (all but --json and --timeloop), and run() names a MAESTRO flag before the model's sizes.
TEST(EvalOptions, RowsRefusedBesideTimeloopAreTheOnesRunRefuses) {
  std::vector<std::string> refused;
  for (const auto& row : option_table())
    if (row.timeloop_refuses) refused.push_back(row.name());
  EXPECT_EQ(refused,
            (std::vector<std::string>{"--hw", "--mapping", "--model", "--dataflow", "--batch",
                                      "--seq", "--image", "--enforce-buffers", "--emit-m",
                                      "--density", "--structure", "--sparse-mode"}));
  Options o;
  o.timeloop = {"unread.yaml"};  // refused before any file is read
  o.zoo.batch = 2;
  o.enforce_buffers = true;
  search::Observer observer;
  // Two given: the MAESTRO flag is named before the model's sizes (as the CLI checks them).
  EXPECT_TRUE(has(error_of([&] { run(o, observer); }), "--enforce-buffers does not apply"));
  o.enforce_buffers = false;
  EXPECT_TRUE(has(error_of([&] { run(o, observer); }), "--batch does not apply"));
}

TEST(TimeloopOptions, FilesArePositionalAndRequired) {
  const auto& table = timeloop_option_table();
  ASSERT_EQ(table.size(), 6u);
  EXPECT_EQ(table[0].name(), "files");
  EXPECT_TRUE(table[0].is_required);
  std::vector<std::string> names;
  for (const auto& row : table) names.push_back(row.name());
  EXPECT_EQ(names, (std::vector<std::string>{"files", "--hw", "--no-leakage", "--timeloop-3.0.3",
                                             "--json", "--emit-map"}));
}

}  // namespace
}  // namespace sparsemap::dse::eval
