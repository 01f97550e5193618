// Training on tiny configurations (synthetic data, seconds), export and the overhead meter.
#include "sparsemap/ml/prune/train.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>

#include "sparsemap/error.h"
#include "sparsemap/ml/prune/export.h"

namespace sparsemap::ml::prune {
namespace {

TrainOptions tiny(const std::string& algo) {
  TrainOptions o;
  o.data.name = "synthetic";
  o.data.train_limit = 640;
  o.data.test_limit = 200;
  o.algorithm = algo;
  o.sparsity = 0.8;
  o.epochs = 2;
  o.batch = 64;
  o.lr = 3e-3;
  o.keep_weights = true;
  return o;
}

TEST(Train, MagnitudeLearnsAndEndsExactlySparse) {
  std::vector<std::string> lines;
  const TrainResult r = train(tiny("magnitude"), [&](const std::string& l) { lines.push_back(l); });
  EXPECT_EQ(lines.size(), 2u);
  EXPECT_EQ(r.steps, 20);
  EXPECT_GT(r.mask_updates, 0);
  EXPECT_GT(r.test_accuracy_pct, 60.0);  // ten separable classes
  ASSERT_EQ(r.layers.size(), 6u);        // 3 weights, 3 biases
  for (const LayerSparsity& l : r.layers) {
    if (l.shape.size() < 2) {
      EXPECT_EQ(l.target, -1);
      continue;
    }
    EXPECT_EQ(l.zeros, std::llround(0.8 * l.numel)) << l.name;
  }
  EXPECT_NEAR(r.pruned_sparsity, 0.8, 1e-5);
  EXPECT_EQ(r.weights.size(), 3u);
  EXPECT_GT(r.step_ms, 0);
}

TEST(Train, DenseAndDeterministic) {
  const TrainResult a = train(tiny("dense")), b = train(tiny("dense"));
  EXPECT_EQ(a.algorithm, "no_prune");
  EXPECT_EQ(a.pruned_sparsity, 0.0);
  EXPECT_EQ(a.test_accuracy_pct, b.test_accuracy_pct);
  EXPECT_EQ(a.train_loss, b.train_loss);
}

TEST(Train, CnnWithRigl) {
  TrainOptions o = tiny("rigl");
  o.model = "cnn";
  o.data.train_limit = 256;
  o.epochs = 1;
  const TrainResult r = train(o);
  for (const LayerSparsity& l : r.layers) {
    if (l.target < 0) continue;
    // The mask is exact; weights regrown at the last update are still 0, so zeros may exceed.
    EXPECT_EQ(std::llround(l.mask_sparsity * l.numel), std::llround(0.8 * l.numel)) << l.name;
    EXPECT_GE(l.zeros, std::llround(0.8 * l.numel)) << l.name;
  }
  EXPECT_EQ(r.layers[0].shape, (std::vector<int64_t>{32, 1, 3, 3}));
}

TEST(Train, BadOptionsAreInputErrors) {
  TrainOptions o = tiny("magnitude");
  o.model = "resnet";
  EXPECT_THROW(train(o), InputError);
  o = tiny("lottery");
  EXPECT_THROW(train(o), InputError);
  o = tiny("magnitude");
  o.data.name = "cifar";
  EXPECT_THROW(train(o), InputError);
  o = tiny("magnitude");
  o.optimizer = "lion";
  EXPECT_THROW(train(o), InputError);
  o = tiny("set");
  o.type = "nm:2:4";
  EXPECT_THROW(train(o), InputError);
  o = tiny("magnitude");
  o.data.name = "fashion-mnist";
  o.data.dir = "/nonexistent/fashion";
  try {
    train(o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dataset-fashion-mnist"), std::string::npos);
  }
}

TEST(Train, FashionMnistSmoke) {
  struct stat st {};
  if (::stat(data::kFashionMnistDir, &st) != 0)
    FAIL() << data::kFashionMnistDir
           << " missing: install Debian's dataset-fashion-mnist (scripts/bootstrap-deps.sh, which "
              "make test runs)";
  TrainOptions o = tiny("magnitude");
  o.data.name = "fashion-mnist";
  o.epochs = 1;
  const TrainResult r = train(o);
  EXPECT_EQ(r.train_examples, 640);
  EXPECT_EQ(r.test_examples, 200);
  EXPECT_GT(r.test_accuracy_pct, 30.0);  // 10 classes, 10 steps
}

TEST(Export, PrunedLayersIntoFormatsWithTimings) {
  const TrainResult r = train(tiny("magnitude"));
  ExportOptions o;
  o.formats = {sparse::parse_format("csr"), sparse::parse_format("nm:2:4")};
  o.n = 16;
  o.min_ms = 1;
  o.min_reps = 2;
  const std::vector<ExportRow> rows = export_weights(r.weights, o);
  ASSERT_EQ(rows.size(), 6u);  // 3 layers x 2 formats
  for (const ExportRow& e : rows) {
    EXPECT_NEAR(e.sparsity, 0.8, 1e-3);
    if (e.format == "csr") {
      EXPECT_TRUE(e.error.empty()) << e.error;
      EXPECT_EQ(e.stored_values, e.rows * e.cols - std::llround(0.8 * e.rows * e.cols));
      EXPECT_GT(e.speedup, 0);
      EXPECT_LT(e.max_rel_err, 1e-4);
      EXPECT_LT(e.footprint_bytes, e.dense_bytes);
    } else {
      EXPECT_FALSE(e.error.empty());  // an unstructured mask is no 2:4 pattern
    }
  }
}

TEST(Overhead, MeasuresEveryAlgorithm) {
  OverheadOptions o;
  o.data.name = "synthetic";
  o.batch = 32;
  o.steps = 3;
  o.rounds = 1;
  o.schedule_steps = 160;  // magnitude updates every 5 steps
  o.algorithms = {"magnitude", "set", "magnitude_ste"};
  const std::vector<OverheadRow> rows = measure_overhead(o);
  ASSERT_EQ(rows.size(), 3u);
  for (const OverheadRow& r : rows) {
    EXPECT_GT(r.dense_step_ms, 0) << r.algorithm;
    EXPECT_GT(r.step_ms, 0) << r.algorithm;
    EXPECT_GT(r.hook_ms, 0) << r.algorithm;
  }
  EXPECT_GT(rows[1].update_every, 0);
  EXPECT_GT(rows[1].update_ms, 0);
}

}  // namespace
}  // namespace sparsemap::ml::prune
