// The updater API on libtorch: exact sparsity for every algorithm, N:M exactness, SET/RigL
// with a constant sparsity, a changing mask and zeroed moments, STE and SR-STE, the wrapper.
#include "sparsemap/ml/prune/updater.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::ml::prune {
namespace {

struct TinyNet : torch::nn::Module {
  TinyNet() {
    fc1 = register_module("fc1", torch::nn::Linear(20, 16));
    fc2 = register_module("fc2", torch::nn::Linear(16, 8));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};

struct Trainer {
  std::shared_ptr<TinyNet> net;
  std::shared_ptr<Updater> updater;
  std::unique_ptr<SparseOptimizer> opt;
  torch::Tensor x, y;

  explicit Trainer(const UpdaterConfig& cfg, const std::string& optimizer = "adam") {
    torch::manual_seed(3);
    net = std::make_shared<TinyNet>();
    updater = std::make_shared<Updater>(cfg, named_params(*net));
    std::unique_ptr<torch::optim::Optimizer> inner;
    if (optimizer == "sgd")
      inner = std::make_unique<torch::optim::SGD>(net->parameters(),
                                                  torch::optim::SGDOptions(0.1).momentum(0.9));
    else
      inner =
          std::make_unique<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(0.01));
    opt = std::make_unique<SparseOptimizer>(std::move(inner), updater);
    x = torch::randn({32, 20});
    y = torch::randint(0, 8, {32}, torch::kLong);
  }
  void step() {
    opt->pre_forward();
    auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    opt->zero_grad();
    loss.backward();
    opt->step();
  }
};

UpdaterConfig config(Algorithm a, double sparsity = 0.7) {
  UpdaterConfig c = default_config(a, sparsity, 12);
  c.seed = 5;
  if (c.schedule.kind == ScheduleKind::Polynomial) c.schedule = Schedule::polynomial(2, 0, 6);
  if (c.schedule.kind == ScheduleKind::Periodic) c.schedule = Schedule::periodic(2, 2, 8);
  return c;
}

int64_t kept(const torch::Tensor& mask) { return mask.sum().item<int64_t>(); }

// Every weight the mask drops is 0 in the parameter.
bool masked_out_is_zero(const LayerState& l) {
  return (l.param.detach() * (1 - l.mask)).abs().sum().item<double>() == 0.0;
}

TEST(Updater, EveryAlgorithmReachesTheSparsityExactlyInEveryLayer) {
  for (Algorithm a : all_algorithms()) {
    if (a == Algorithm::NoPrune) continue;
    Trainer run(config(a));
    for (int i = 0; i < 12; ++i) run.step();
    run.opt->finalize();
    int64_t total_kept = 0, total = 0;
    for (const LayerState& l : run.updater->layers()) {
      if (l.param.dim() < 2) {  // biases stay dense and unmasked
        EXPECT_FALSE(l.target) << l.name;
        EXPECT_FALSE(l.mask.defined()) << l.name;
        continue;
      }
      ASSERT_TRUE(l.mask.defined()) << algorithm_name(a) << " " << l.name;
      EXPECT_TRUE(masked_out_is_zero(l)) << algorithm_name(a) << " " << l.name;
      const int64_t n = l.param.numel();
      total_kept += kept(l.mask);
      total += n;
      if (!is_global(a)) {
        EXPECT_EQ(kept(l.mask), n - std::llround(0.7 * n)) << algorithm_name(a) << " " << l.name;
      }
    }
    if (is_global(a)) {
      EXPECT_EQ(total_kept, total - std::llround(0.7 * total)) << algorithm_name(a);
    }
  }
}

TEST(Updater, NoPruneLeavesEverythingDense) {
  Trainer run(config(Algorithm::NoPrune));
  for (int i = 0; i < 4; ++i) run.step();
  for (const LayerState& l : run.updater->layers()) {
    EXPECT_FALSE(l.target);
    EXPECT_FALSE(l.mask.defined());
    EXPECT_EQ((l.param == 0).sum().item<int64_t>(), 0);
  }
}

TEST(Updater, NmMasksHaveExactlyNInEveryGroupOfM) {
  for (Algorithm a :
       {Algorithm::Magnitude, Algorithm::Random, Algorithm::Saliency, Algorithm::MagnitudeSte,
        Algorithm::RandomSte, Algorithm::SrSte, Algorithm::StaticSparse}) {
    for (const char* type : {"nm:2:4", "nm:1:4:col"}) {
      UpdaterConfig c = config(a, 0.3);  // N:M fixes its own sparsity
      c.type = parse_sparsity_type(type);
      Trainer run(c);
      for (int i = 0; i < 10; ++i) run.step();
      run.opt->finalize();
      for (const LayerState& l : run.updater->layers()) {
        if (!l.target) continue;
        EXPECT_DOUBLE_EQ(*l.target, c.type.intrinsic_sparsity());
        const auto m = l.mask.to(torch::kInt);
        const bool row = c.type.axis == sparse::NmAxis::Row;
        // Groups of M along the rows (over the columns) or down the columns.
        const auto groups = row ? m.reshape({m.size(0), -1, c.type.m}).sum(2)
                                : m.t().reshape({m.size(1), -1, c.type.m}).sum(2);
        EXPECT_TRUE(groups.eq(c.type.n).all().item<bool>()) << algorithm_name(a) << " " << type;
        EXPECT_TRUE(masked_out_is_zero(l));
      }
    }
  }
}

TEST(Updater, StructuredTypesAreExact) {
  for (const char* type : {"block:4x2", "channel", "cvse:4", "channel:in"}) {
    UpdaterConfig c = config(Algorithm::Magnitude, 0.5);
    c.type = parse_sparsity_type(type);
    Trainer run(c);
    for (int i = 0; i < 8; ++i) run.step();
    for (const LayerState& l : run.updater->layers()) {
      if (!l.target) continue;
      const int64_t units = unit_count(c.type, l.shape);
      const int64_t unit_size = l.param.numel() / units;  // these shapes divide evenly
      EXPECT_EQ(kept(l.mask), (units - std::llround(0.5 * units)) * unit_size) << type;
    }
  }
}

// SET and RigL: the number of active weights never changes, the mask does, and the weights
// an update activates start at 0 with zeroed optimiser moments.
void check_dynamic(Algorithm a, const std::string& optimizer) {
  UpdaterConfig c = config(a);
  c.cosine_drop = false;  // 30% at every update (the cosine reaches 0 at the end step)
  Trainer run(c, optimizer);
  std::vector<torch::Tensor> before;
  for (const LayerState& l : run.updater->layers())
    before.push_back(l.mask.defined() ? l.mask.clone() : torch::Tensor());
  int updates = 0, changed = 0;
  for (int i = 0; i < 10; ++i) {
    run.step();
    const StepInfo& info = run.opt->last();
    const auto& layers = run.updater->layers();
    for (size_t k = 0; k < layers.size(); ++k) {
      const LayerState& l = layers[k];
      if (!l.target) continue;
      EXPECT_EQ(kept(l.mask), l.param.numel() - std::llround(0.7 * l.param.numel()));
      if (!info.mask_update) continue;
      if (!l.mask.equal(before[k])) ++changed;
      const torch::Tensor act = l.mask * (1 - before[k]);
      if (info.activated[k].defined()) {
        EXPECT_TRUE(info.activated[k].equal(act));
      }
      if (kept(act) > 0) {
        EXPECT_EQ((l.param.detach() * act).abs().sum().item<double>(), 0.0);
        auto& state = run.opt->inner().state();
        auto* s = state.at(c10::guts::to_string(l.param.unsafeGetTensorImpl())).get();
        if (auto* adam = dynamic_cast<torch::optim::AdamParamState*>(s)) {
          EXPECT_EQ((adam->exp_avg() * act).abs().sum().item<double>(), 0.0);
          EXPECT_EQ((adam->exp_avg_sq() * act).abs().sum().item<double>(), 0.0);
          // Weights that stayed active keep their moments.
          EXPECT_GT((adam->exp_avg_sq() * (l.mask - act)).abs().sum().item<double>(), 0.0);
        } else {
          auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(s);
          ASSERT_NE(sgd, nullptr);
          EXPECT_EQ((sgd->momentum_buffer() * act).abs().sum().item<double>(), 0.0);
        }
      }
      before[k] = l.mask.clone();
    }
    if (info.mask_update) {
      ++updates;
      EXPECT_TRUE(info.skip_inner);
      EXPECT_EQ(info.dropped, info.regrown);
      EXPECT_GT(info.regrown, 0);
    }
  }
  EXPECT_EQ(updates, 4);  // steps 2, 4, 6, 8
  EXPECT_GE(changed, 4);
}

TEST(Updater, SetKeepsSparsityWhileTheMaskChanges) {
  check_dynamic(Algorithm::Set, "adam");
  check_dynamic(Algorithm::Set, "sgd");
}

TEST(Updater, RiglKeepsSparsityWhileTheMaskChanges) {
  check_dynamic(Algorithm::Rigl, "adam");
  check_dynamic(Algorithm::Rigl, "sgd");
}

TEST(Updater, RiglRegrowsTheLargestGradients) {
  UpdaterConfig c = config(Algorithm::Rigl);
  c.schedule = Schedule::periodic(1, 1, 1);
  c.cosine_drop = false;
  Trainer run(c);
  run.step();  // step 0: no update
  const LayerState& l = run.updater->layers()[0];
  const torch::Tensor old = l.mask.clone();
  run.opt->pre_forward();
  auto loss = torch::nn::functional::cross_entropy(run.net->forward(run.x), run.y);
  run.opt->zero_grad();
  loss.backward();
  const torch::Tensor g = l.param.grad().abs().clone();
  run.opt->step();
  const torch::Tensor grown = l.mask * (1 - old);
  ASSERT_GT(kept(grown), 0);
  // Every regrown weight's |g| is at least that of any inactive, not regrown weight that was
  // inactive before the update (the candidates that lost).
  const torch::Tensor lost = (1 - l.mask) * (1 - old);
  const double min_grown = (g + (1 - grown) * 1e9).min().item<double>();
  const double max_lost = (g * lost).max().item<double>();
  EXPECT_GE(min_grown, max_lost);
}

TEST(Updater, SteMasksTheForwardAndKeepsDenseWeights) {
  Trainer run(config(Algorithm::MagnitudeSte));
  for (int i = 0; i < 10; ++i) run.step();
  const LayerState& l = run.updater->layers()[0];
  EXPECT_EQ((l.param == 0).sum().item<int64_t>(), 0);  // dense between steps
  run.opt->pre_forward();                              // the forward sees the top-|w| at the target
  EXPECT_EQ((l.param == 0).sum().item<int64_t>(), std::llround(0.7 * l.param.numel()));
  run.updater->restore_dense();
  EXPECT_EQ((l.param == 0).sum().item<int64_t>(), 0);
  run.opt->finalize();
  EXPECT_EQ((l.param == 0).sum().item<int64_t>(), std::llround(0.7 * l.param.numel()));
}

TEST(Updater, SrSteAddsTheDecayOfPrunedWeightsToTheGradient) {
  UpdaterConfig c = config(Algorithm::SrSte);
  c.srste_decay = 0.5;
  c.schedule = Schedule::no_update();  // the target from step 0
  Trainer run(c);
  const LayerState& l = run.updater->layers()[0];
  const torch::Tensor dense = l.param.detach().clone();
  run.opt->pre_forward();
  // The forward sees the dense weights times the magnitude mask at the target.
  const torch::Tensor mask =
      mask_to_tensor(sparse::magnitude_mask(matrix_view(dense), 0.7), dense.sizes(), torch::kFloat);
  EXPECT_TRUE(l.param.detach().equal(dense * mask));
  // No mask tensor during training, but the reported sparsity is the forward's.
  EXPECT_DOUBLE_EQ(run.updater->sparsity()[0].mask_sparsity,
                   1.0 - mask.sum().item<double>() / static_cast<double>(mask.numel()));
  auto loss = torch::nn::functional::cross_entropy(run.net->forward(run.x), run.y);
  run.opt->zero_grad();
  loss.backward();
  const torch::Tensor g = l.param.grad().clone();
  run.updater->before_step(0);
  EXPECT_TRUE(l.param.detach().equal(dense));  // dense weights restored
  EXPECT_TRUE(torch::allclose(l.param.grad(), g + 0.5 * dense * (1 - mask)));
}

TEST(Updater, GradientsAreMaskedWhereAsked) {
  UpdaterConfig c = config(Algorithm::StaticSparse);
  ASSERT_TRUE(c.mask_gradients);
  Trainer run(c);
  run.opt->pre_forward();
  auto loss = torch::nn::functional::cross_entropy(run.net->forward(run.x), run.y);
  run.opt->zero_grad();
  loss.backward();
  run.updater->before_step(0);
  const LayerState& l = run.updater->layers()[0];
  EXPECT_EQ((l.param.grad() * (1 - l.mask)).abs().sum().item<double>(), 0.0);
  EXPECT_GT((l.param.grad() * l.mask).abs().sum().item<double>(), 0.0);
}

TEST(Updater, GlobalPruningSharesOneTopK) {
  Trainer run(config(Algorithm::GlobalMagnitude, 0.6));
  for (int i = 0; i < 8; ++i) run.step();
  const auto s = run.updater->sparsity();
  const double fc1 = s[0].mask_sparsity, fc2 = s[2].mask_sparsity;
  EXPECT_NE(fc1, fc2);  // per-layer sparsity follows the normalised scores
  EXPECT_EQ(
      s[0].numel - std::llround(s[0].numel * fc1) + s[2].numel - std::llround(s[2].numel * fc2),
      448 - std::llround(0.6 * 448));
}

TEST(Updater, DeterministicForASeedAndSaliencyNeedsGradients) {
  Trainer a(config(Algorithm::Random)), b(config(Algorithm::Random));
  for (int i = 0; i < 6; ++i) {
    a.step();
    b.step();
  }
  EXPECT_TRUE(a.updater->layers()[0].mask.equal(b.updater->layers()[0].mask));
  UpdaterConfig c = config(Algorithm::Saliency);
  Trainer s(c);
  EXPECT_THROW(s.updater->before_step(0), InputError);  // no backward yet
}

TEST(Updater, WrapperTakesSgdAdamAdamWOnly) {
  TinyNet net;
  auto updater = std::make_shared<Updater>(config(Algorithm::Magnitude), named_params(net));
  EXPECT_THROW(SparseOptimizer(std::make_unique<torch::optim::RMSprop>(
                                   net.parameters(), torch::optim::RMSpropOptions(0.1)),
                               updater),
               InputError);
  EXPECT_NO_THROW(SparseOptimizer(
      std::make_unique<torch::optim::AdamW>(net.parameters(), torch::optim::AdamWOptions(0.1)),
      updater));
}

TEST(Updater, TensorMaskRoundTrip) {
  const torch::Tensor t = torch::tensor({1.0f, 0.0f, 2.0f, 0.0f, 3.0f, 4.0f}).reshape({2, 3});
  const sparse::Mask m = tensor_to_mask(t);
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.keep, (std::vector<uint8_t>{1, 0, 1, 0, 1, 1}));
  EXPECT_TRUE(mask_to_tensor(m, {2, 3}).equal(t.ne(0).to(torch::kFloat)));
  const sparse::ConstMatrixView v = matrix_view(t);
  EXPECT_EQ(v.rows, 2);
  EXPECT_EQ(v.cols, 3);
  EXPECT_FLOAT_EQ(v.data[5], 4.0f);
}

}  // namespace
}  // namespace sparsemap::ml::prune
