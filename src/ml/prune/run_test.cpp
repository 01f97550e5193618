// prune-train, prune-compare and prune-overhead as library calls (run.h) on tiny synthetic
// configurations (a second or two each): the results, their JSON, the progress and the stops.
#include "sparsemap/ml/prune/run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::ml::prune {
namespace {

// 256 synthetic images in batches of 64: 4 steps an epoch.
Options tiny() {
  Options o;
  o.data = "synthetic";
  o.train_limit = 256;
  o.test_limit = 64;
  o.epochs = 1;
  o.batch = 64;
  return o;
}

// Records the notes and progress reports; stops after `stop_after` reports (0: never).
class Recorder : public search::Observer {
 public:
  explicit Recorder(int stop_after = 0) : stop_after_(stop_after) {}
  void on_progress(const search::Progress& p) override { reports.push_back(p); }
  void on_note(const std::string& line) override { notes.push_back(line); }
  void on_warning(const std::string& text) override { warnings.push_back(text); }
  bool cancelled() override {
    return stop_after_ > 0 && static_cast<int>(reports.size()) >= stop_after_;
  }
  std::vector<search::Progress> reports;
  std::vector<std::string> notes, warnings;

 private:
  int stop_after_;
};

TEST(PruneRun, TrainIsTrainWithItsJson) {
  Options o = tiny();
  o.epochs = 2;
  Recorder rec;
  const TrainRunResult r = run_train(o, rec);
  // The same training as train.h's, called directly.
  TrainOptions t;
  t.data.name = "synthetic";
  t.data.train_limit = 256;
  t.data.test_limit = 64;
  t.epochs = 2;
  t.batch = 64;
  const TrainResult direct = train(t);
  EXPECT_EQ(r.train.test_accuracy_pct, direct.test_accuracy_pct);
  EXPECT_EQ(r.train.train_loss, direct.train_loss);
  EXPECT_EQ(r.train.steps, 8);  // 2 epochs x 4 batches
  ASSERT_EQ(rec.notes.size(), 2u);
  EXPECT_EQ(rec.notes[0].rfind("[magnitude] epoch 1/2: loss ", 0), 0u) << rec.notes[0];
  ASSERT_EQ(rec.reports.size(), 2u);
  EXPECT_EQ(rec.reports[1].done, 2);
  EXPECT_EQ(rec.reports[1].total, 2);
  EXPECT_EQ(rec.reports[1].label, "magnitude");
  EXPECT_NEAR(rec.reports[1].best, r.train.history[1].train_loss, 5e-5);  // printed with %.4f

  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["command"], "prune-train");
  EXPECT_EQ(j["data"], "synthetic");
  EXPECT_EQ(j["seed"], 1);
  EXPECT_EQ(j["algorithm"], "magnitude");
  EXPECT_EQ(j["steps"], 8);
  EXPECT_EQ(j["train_examples"], 256);
  EXPECT_EQ(j["test_examples"], 64);
  EXPECT_DOUBLE_EQ(j["target_sparsity_pct"].get<double>(), 80.0);
  EXPECT_NEAR(j["pruned_sparsity_pct"].get<double>(), 80.0, 1e-3);
  EXPECT_EQ(j["test_accuracy_pct"], direct.test_accuracy_pct);
  ASSERT_EQ(j["layers"].size(), 6u);  // 3 weights, 3 biases
  EXPECT_EQ(j["layers"][0]["name"], "fc1.weight");
  EXPECT_EQ(j["layers"][0]["params"], 300 * 784);
  EXPECT_EQ(j["layers"][0]["zeros"], std::llround(0.8 * 300 * 784));
  EXPECT_TRUE(j["layers"][1]["target_sparsity_pct"].is_null());  // a bias stays dense
  EXPECT_EQ(j["history"].size(), 2u);
  EXPECT_FALSE(j.contains("export"));
}

TEST(PruneRun, TrainExportsIntoTheFormats) {
  Options o = tiny();
  o.export_formats = "csr,nm:2:4";
  o.export_n = 8;
  o.export_ms = 1;
  Recorder rec;
  const TrainRunResult r = run_train(o, rec);
  EXPECT_TRUE(r.train.weights.empty());  // freed after the export
  const nlohmann::json j = to_json(r);
  ASSERT_EQ(j["export"].size(), 6u);  // 3 weights x 2 formats
  EXPECT_EQ(j["export"][0]["layer"], "fc1.weight");
  EXPECT_EQ(j["export"][0]["format"], "csr");
  EXPECT_EQ(j["export"][0]["stored_values"], 300 * 784 - std::llround(0.8 * 300 * 784));
  EXPECT_EQ(j["export"][0]["n"], 8);
  EXPECT_FALSE(j["export"][1]["error"].get<std::string>().empty());  // unstructured is not 2:4
  EXPECT_TRUE(j["export"][1]["speedup"].is_null());
}

TEST(PruneRun, CompareTrainsEachAlgorithmInOrder) {
  Options o = tiny();
  o.algos = "dense,,magnitude";
  Recorder rec;
  const CompareResult r = run_compare(o, rec);
  ASSERT_EQ(r.runs.size(), 2u);
  ASSERT_EQ(rec.reports.size(), 2u);
  EXPECT_EQ(rec.reports[1].item, 1u);
  EXPECT_EQ(rec.reports[1].items, 2u);
  EXPECT_EQ(rec.reports[0].label, "no_prune");
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["command"], "prune-compare");
  EXPECT_EQ(j["epochs"], 1);
  EXPECT_EQ(j["batch"], 64);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["algorithm"], "no_prune");
  EXPECT_EQ(j["results"][0]["pruned_sparsity_pct"], 0.0);
  EXPECT_EQ(j["results"][1]["algorithm"], "magnitude");
  // Measured (as `prune-compare --data synthetic --train-limit 256 --test-limit 64 --epochs 1
  // --batch 64` prints): the dense model separates the ten prototypes, magnitude at 80% gets
  // 27 of the 64 test images.
  EXPECT_DOUBLE_EQ(r.runs[0].test_accuracy_pct, 100.0);
  EXPECT_DOUBLE_EQ(r.runs[1].test_accuracy_pct, 100.0 * 27 / 64);
  EXPECT_NEAR(j["results"][1]["pruned_sparsity_pct"].get<double>(), 80.0, 1e-3);
  EXPECT_FALSE(j["results"][0].contains("command"));
}

TEST(PruneRun, OverheadSkipsDenseAndTimesTheRest) {
  Options o = overhead_defaults();
  EXPECT_EQ(o.algos, "magnitude,random,static_sparse,set,rigl,magnitude_ste,sr_ste");
  o.data = "synthetic";
  o.algos = "dense,magnitude,no_prune";
  o.batch = 16;
  o.steps = 2;
  o.rounds = 1;
  // The warning about OPENBLAS_L2_SIZE (set here if it is not; unset again after).
  const bool had_l2 = std::getenv("OPENBLAS_L2_SIZE") != nullptr;
  if (!had_l2) setenv("OPENBLAS_L2_SIZE", "1048576", 1);
  Recorder rec;
  const OverheadResult r = run_overhead(o, rec);
  if (!had_l2) unsetenv("OPENBLAS_L2_SIZE");
  ASSERT_FALSE(rec.warnings.empty());
  EXPECT_EQ(rec.warnings[0], "OPENBLAS_L2_SIZE is set; measure with it unset");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].algorithm, "magnitude");
  EXPECT_EQ(r.rows[0].samples, 2);  // 2 timed steps, no update among them
  ASSERT_EQ(rec.reports.size(), 1u);
  EXPECT_EQ(rec.reports[0].label, "magnitude");
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["command"], "prune-overhead");
  EXPECT_EQ(j["batch"], 16);
  EXPECT_EQ(j["openblas_core"], r.openblas_core);
  EXPECT_EQ(j["rows"][0]["samples"], 2);
}

TEST(PruneRun, StopsAtTheNextEpoch) {
  Options o = tiny();
  o.epochs = 3;
  Recorder rec(1);
  EXPECT_THROW(run_train(o, rec), search::Cancelled);
  EXPECT_EQ(rec.notes.size(), 1u);  // the first epoch ran, the second did not
  Recorder rec2(1);
  o.algos = "dense,magnitude";
  EXPECT_THROW(run_compare(o, rec2), search::Cancelled);
  EXPECT_EQ(rec2.reports.size(), 1u);
}

// Expects InputError with `what` from `f`, before any training (no progress line).
template <class F>
void expect_refused(F f, const std::string& what) {
  Recorder rec;
  try {
    f(rec);
    ADD_FAILURE() << "no InputError, expected " << what;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), what);
  }
  EXPECT_TRUE(rec.notes.empty()) << what;
}

TEST(PruneRun, BadOptionsAreTheCliErrors) {
  Options o = tiny();
  o.mask_grads = "maybe";
  expect_refused([&](Recorder& r) { run_train(o, r); },
                 "<flag --mask-grads>: expected auto, on or off");
  o = tiny();
  o.algos = ",";
  expect_refused([&](Recorder& r) { run_compare(o, r); }, "<flag --algos>: no algorithm given");
  o.algos = "dense,no_prune";
  expect_refused([&](Recorder& r) { run_overhead(o, r); }, "<flag --algos>: no algorithm given");
  o = tiny();
  o.algos = "magnitude,lottery";
  Recorder rec;
  EXPECT_THROW(run_compare(o, rec), InputError);
  EXPECT_TRUE(rec.notes.empty());  // refused before magnitude trains
  o = tiny();
  o.export_formats = "csr,zip";
  EXPECT_THROW(run_train(o, rec), InputError);
  EXPECT_TRUE(rec.notes.empty());
}

TEST(PruneRun, TablesInTheCliOrder) {
  std::vector<std::string> flags;
  for (const auto& row : overhead_option_table()) flags.push_back(row.flag);
  EXPECT_EQ(flags,
            (std::vector<std::string>{"--model", "--data", "--data-dir", "--threads", "--sparsity",
                                      "--optimizer", "--seed", "--batch", "--json", "--quiet",
                                      "--algos", "--steps", "--rounds", "--schedule-steps"}));
  EXPECT_EQ(train_option_table().size(), 29u);  // 10 common, 13 training, 6 of its own
  EXPECT_EQ(compare_option_table().size(), 24u);
  EXPECT_EQ(compare_option_table().back().flag, "--algos");
}

}  // namespace
}  // namespace sparsemap::ml::prune
