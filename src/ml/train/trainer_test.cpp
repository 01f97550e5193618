// Recipe training on tiny models (synthetic data, seconds): exact N:M masks at the end for every
// recipe, SR-STE's extra gradient, the mask-decay forward, resume == uninterrupted, NaN refusal.
#include "sparsemap/ml/train/trainer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>

#include "sparsemap/error.h"
#include "sparsemap/ml/prune/updater.h"
#include "sparsemap/ml/train/models.h"

namespace sparsemap::ml::train {
namespace {

TrainOptions tiny(const std::string& model, RecipeKind k, NmRatio nm) {
  TrainOptions o;
  o.model = model;
  o.data = "synthetic";
  o.tiny = true;
  o.recipe.kind = k;
  o.recipe.nm = nm;
  o.recipe.dense_fraction = 0.1;
  o.recipe.fine_fraction = 0.2;
  o.steps = 30;
  o.batch = 16;
  o.train_limit = model == "vit-tiny" ? 128 : 3000;
  o.test_limit = model == "vit-tiny" ? 50 : 400;
  o.threads = 1;
  o.eval_every = 10;
  return o;
}

TEST(Train, EveryRecipeEndsWithExactNmMasks) {
  for (const char* model : {"vit-tiny", "char-gpt"})
    for (RecipeKind k : all_recipes()) {
      const NmRatio nm = k == RecipeKind::SdgfFine ? NmRatio{1, 4} : NmRatio{1, 8};
      const TrainResult r = train(tiny(model, k, nm));
      SCOPED_TRACE(std::string(model) + " " + recipe_name(k));
      EXPECT_TRUE(std::isfinite(r.metric));
      EXPECT_EQ(r.steps, 30);
      if (k == RecipeKind::Dense) {
        EXPECT_TRUE(r.layers.empty());
        EXPECT_DOUBLE_EQ(r.training_flops, r.dense_flops);
        continue;
      }
      ASSERT_EQ(r.layers.size(), 4u);  // qkv, proj, fc1, fc2 of the one block
      for (const LayerNm& l : r.layers) {
        EXPECT_TRUE(l.exact) << l.name;
        EXPECT_EQ(l.ratio, nm.str());
        EXPECT_NEAR(l.sparsity_pct, 100.0 * (1.0 - 1.0 * nm.n / nm.m), 1e-9) << l.name;
      }
      EXPECT_LT(r.training_flops, r.dense_flops);
    }
}

TEST(Train, SeparateAttentionAndMlpRatios) {
  TrainOptions o = tiny("vit-tiny", RecipeKind::SrSte, {2, 4});
  o.nm_attention = "2:4";
  o.nm_mlp = "1:8";
  const TrainResult r = train(o);
  ASSERT_EQ(r.layers.size(), 4u);
  for (const LayerNm& l : r.layers) {
    EXPECT_TRUE(l.exact) << l.name;
    EXPECT_EQ(l.ratio, is_mlp_weight(l.name) ? "1:8" : "2:4") << l.name;
  }
}

TEST(Train, SrSteExtraGradientEqualsTheFormula) {
  // ml/prune's SR-STE on a 2:4 Linear: grad' = grad + lambda_W * (1 - mask) * w.
  torch::manual_seed(3);
  torch::nn::Linear lin(8, 3);
  prune::UpdaterConfig c;
  c.algorithm = prune::Algorithm::SrSte;
  c.type.kind = prune::SparsityKind::Nm;
  c.type.n = 2;
  c.type.m = 4;
  c.sparsity = 0.5;
  c.schedule = prune::Schedule::no_update();
  c.srste_decay = 2e-4;
  prune::Updater u(c, {{"w", lin->weight}});
  const torch::Tensor w0 = lin->weight.detach().clone();
  u.pre_forward(0);
  const torch::Tensor out = lin->forward(torch::randn({5, 8})).pow(2).sum();
  out.backward();
  const torch::Tensor g = lin->weight.grad().clone();
  const torch::Tensor mask = u.layers()[0].mask.clone();
  u.before_step(0);
  // The mask is 2:4 of |w0| and the weights are dense again.
  EXPECT_TRUE(lin->weight.detach().equal(w0));
  EXPECT_TRUE(mask.reshape({3, 2, 4}).sum(-1).eq(2).all().item<bool>());
  const torch::Tensor want = g + 2e-4 * (1 - mask) * w0;
  EXPECT_TRUE(torch::allclose(lin->weight.grad(), want, 0, 1e-7));
  // Where the mask keeps, the gradient is untouched (bitwise).
  EXPECT_TRUE((lin->weight.grad() * mask).equal(g * mask));
}

TEST(Train, FusedSteMasksEqualTheArrayRule) {
  // The straight-through forward builds its masks in one fused pass (unstructured: a threshold;
  // others: compute_mask); both must be sparse/prune's rule on |w|, ties included.
  for (const char* type : {"unstructured", "nm:2:8", "block:2x2"}) {
    torch::manual_seed(5);
    torch::nn::Linear lin(16, 6);
    {
      torch::NoGradGuard g;
      lin->weight.copy_(torch::randint(-2, 3, {6, 16}).to(torch::kFloat));  // many ties
    }
    prune::UpdaterConfig c;
    c.algorithm = prune::Algorithm::MagnitudeSte;
    c.type = prune::parse_sparsity_type(type);
    c.sparsity = std::string(type) == "nm:2:8" ? 0.75 : 0.6;
    c.schedule = prune::Schedule::no_update();
    prune::Updater u(c, {{"w", lin->weight}});
    const torch::Tensor w0 = lin->weight.detach().clone();
    u.pre_forward(0);
    const sparse::Mask want =
        prune::compute_mask(prune::matrix_view(w0.abs().contiguous()), c.type, c.sparsity, {6, 16});
    const torch::Tensor mask = prune::mask_to_tensor(want, {6, 16}, torch::kFloat);
    EXPECT_TRUE(lin->weight.detach().equal(w0 * mask)) << type;
    // The mask itself: unstructured layers write none until finalize (no mask decay here).
    if (std::string(type) == "unstructured")
      EXPECT_FALSE(u.layers()[0].mask.defined());
    else
      EXPECT_TRUE(prune::tensor_to_mask(u.layers()[0].mask) == want) << type;
    u.restore_dense();
  }
}

TEST(Train, MaskDecayForwardAndGradient) {
  // forward with w * (mask + (1 - mask) beta); gradient of that product.
  torch::manual_seed(4);
  torch::nn::Linear lin(4, 2);
  prune::UpdaterConfig c;
  c.algorithm = prune::Algorithm::MagnitudeSte;
  c.type.kind = prune::SparsityKind::Nm;
  c.type.n = 1;
  c.type.m = 4;
  c.sparsity = 0.75;
  c.schedule = prune::Schedule::no_update();
  prune::Updater u(c, {{"w", lin->weight}});
  u.set_pruned_scale(0.25, true);
  const torch::Tensor w0 = lin->weight.detach().clone();
  u.pre_forward(0);
  const torch::Tensor mask = u.layers()[0].mask.clone();
  const torch::Tensor soft = mask + (1 - mask) * 0.25;
  EXPECT_TRUE(torch::allclose(lin->weight.detach(), w0 * soft));
  const torch::Tensor x = torch::randn({3, 4});
  lin->forward(x).sum().backward();
  const torch::Tensor g = lin->weight.grad().clone();  // = sum of x over the batch, per row
  u.before_step(0);
  EXPECT_TRUE(torch::allclose(lin->weight.grad(), g * soft));
  EXPECT_TRUE(lin->weight.detach().equal(w0));
}

TEST(Train, ResumedRunEqualsAnUninterruptedOne) {
  for (RecipeKind k : {RecipeKind::SrSte, RecipeKind::MdgfExp, RecipeKind::SdgfSparsify}) {
    for (int64_t stop : {12, 27}) {  // in the sparse phase, and in the fine-tune
      const std::string ck = ::testing::TempDir() + "/train_resume_" + recipe_name(k) + ".pt";
      TrainOptions o = tiny("char-gpt", k, {1, 4});
      const TrainResult whole = train(o);
      TrainOptions first = o;
      first.checkpoint = ck;
      first.stop_after = stop;
      const TrainResult part = train(first);
      EXPECT_EQ(part.steps, stop);
      TrainOptions rest = o;
      rest.resume = ck;
      const TrainResult resumed = train(rest);
      EXPECT_TRUE(resumed.resumed);
      EXPECT_EQ(resumed.resumed_from, stop);
      ASSERT_EQ(resumed.final_params.size(), whole.final_params.size());
      EXPECT_TRUE(resumed.final_params == whole.final_params)
          << recipe_name(k) << " stopped at " << stop;  // bitwise
      EXPECT_EQ(resumed.metric, whole.metric);
      // The loss of the interval in progress and the evaluations before the stop are kept.
      EXPECT_EQ(resumed.train_loss, whole.train_loss);
      ASSERT_EQ(resumed.history.size(), whole.history.size());
      for (size_t i = 0; i < whole.history.size(); ++i) {
        EXPECT_EQ(resumed.history[i].step, whole.history[i].step);
        EXPECT_EQ(resumed.history[i].train_loss, whole.history[i].train_loss);
        EXPECT_EQ(resumed.history[i].metric, whole.history[i].metric);
      }
      std::remove(ck.c_str());
    }
  }
}

// Resuming a run that already finished trains nothing and reports what the run ended with:
// its train loss (not 0) and its whole evaluation history.
TEST(Train, ResumingAFinishedRunReportsItsLossAndHistory) {
  const std::string ck = ::testing::TempDir() + "/train_resume_finished.pt";
  TrainOptions o = tiny("vit-tiny", RecipeKind::SrSte, {2, 4});
  o.checkpoint = ck;
  const TrainResult whole = train(o);
  TrainOptions again = tiny("vit-tiny", RecipeKind::SrSte, {2, 4});
  again.resume = ck;
  const TrainResult r = train(again);
  std::remove(ck.c_str());
  EXPECT_EQ(r.resumed_from, 30);
  EXPECT_GT(whole.train_loss, 0.0);
  EXPECT_EQ(r.train_loss, whole.train_loss);
  EXPECT_EQ(r.metric, whole.metric);
  ASSERT_EQ(r.history.size(), whole.history.size());  // evaluations at 10, 20 and the end
  EXPECT_EQ(r.history.size(), 3u);
  for (size_t i = 0; i < whole.history.size(); ++i) {
    EXPECT_EQ(r.history[i].step, whole.history[i].step);
    EXPECT_EQ(r.history[i].train_loss, whole.history[i].train_loss);
  }
}

TEST(Train, BadInputAndNaN) {
  TrainOptions o = tiny("vit-tiny", RecipeKind::Ste, {2, 4});
  o.model = "resnet";
  EXPECT_THROW(train(o), InputError);
  o = tiny("vit-tiny", RecipeKind::Ste, {2, 4});
  o.data = "kjv";
  EXPECT_THROW(train(o), InputError);
  o = tiny("vit-tiny", RecipeKind::Ste, {2, 4});
  o.resume = "/nonexistent/checkpoint.pt";
  EXPECT_THROW(train(o), InputError);
  // A learning rate that blows up: the loss stops being finite and training refuses to go on,
  // leaving the last checkpoint as it was.
  o = tiny("vit-tiny", RecipeKind::Dense, {2, 4});
  o.lr = 1e30;
  o.weight_decay = 0;
  o.steps = 200;
  o.eval_every = 1;
  o.checkpoint = ::testing::TempDir() + "/train_nan.pt";
  try {
    train(o);
    FAIL() << "expected a refusal";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the loss became"), std::string::npos) << what;
    EXPECT_NE(what.find("last good checkpoint"), std::string::npos) << what;
  }
  std::remove(o.checkpoint.c_str());
}

}  // namespace
}  // namespace sparsemap::ml::train
