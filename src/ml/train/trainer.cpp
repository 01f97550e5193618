// N:M recipe training of the ViT and the char-GPT: data, the step loop with its phases,
// evaluation, checkpoints and the final N:M check.
#include "sparsemap/ml/train/trainer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

#include "sparsemap/error.h"
#include "sparsemap/ml/data/kjv.h"
#include "sparsemap/ml/data/tensors.h"
#include "sparsemap/ml/prune/train.h"
#include "sparsemap/ml/prune/updater.h"
#include "sparsemap/ml/train/models.h"
#include "train_data.h"

namespace sparsemap::ml::train {

namespace {

using detail::canonical;
using detail::Data;
using detail::load_data;
using Clock = std::chrono::steady_clock;
constexpr double kPi = 3.14159265358979323846;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw InputError({where, 0, 0}, why);
}

// Fails before any training unless `path` can be written: its folder exists and PATH.tmp (what
// a checkpoint is written to first) can be created there; a directory at `path` is refused.
void check_writable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    fail(path, "cannot write the checkpoint: is a directory, expected a file name");
  const std::string tmp = path + ".tmp";
  const bool existed = std::filesystem::exists(tmp, ec);
  errno = 0;
  std::FILE* f = std::fopen(tmp.c_str(), "ab");
  if (!f) {
    const int err = errno;
    fail(path, std::string("cannot write the checkpoint: ") +
                   (err ? std::strerror(err) : "cannot create a file there"));
  }
  std::fclose(f);
  if (!existed) std::filesystem::remove(tmp, ec);
}

// ---------------------------------------------------------------------------------------------
// N:M groups.

struct Group {
  std::string name;  // "all", "attention" or "mlp"
  std::unique_ptr<Plan> plan;
  std::shared_ptr<prune::Updater> updater;
  std::vector<std::string> params;
  NmRatio current{0, 0};
  double pruned_macs = 0;  // forward multiply-adds per example of its weights
};

prune::SparsityType nm_type(NmRatio r) {
  prune::SparsityType t;
  t.kind = prune::SparsityKind::Nm;
  t.n = r.n;
  t.m = r.m;
  t.axis = sparse::NmAxis::Row;  // groups of M consecutive input weights of a Linear row
  return t;
}

bool is_mdgf(RecipeKind k) { return k == RecipeKind::MdgfLinear || k == RecipeKind::MdgfExp; }

// Exactness of a weight's final mask: every full group of M along the rows keeps N, a shorter
// last group min(N, its length), and the weight is 0 where the mask is.
LayerNm check_nm(const std::string& name, const torch::Tensor& param, const torch::Tensor& mask,
                 NmRatio r) {
  LayerNm l;
  l.name = name;
  l.ratio = r.str();
  const torch::Tensor m = mask.detach().to(torch::kFloat).contiguous();
  const torch::Tensor w = param.detach().contiguous();
  const int64_t rows = w.size(0), cols = w.numel() / rows;
  const float* mp = m.data_ptr<float>();
  const float* wp = w.data_ptr<float>();
  bool exact = true;
  int64_t kept = 0;
  for (int64_t i = 0; i < rows && exact; ++i)
    for (int64_t g = 0; g < cols; g += r.m) {
      const int64_t len = std::min<int64_t>(r.m, cols - g);
      int64_t k = 0;
      for (int64_t j = g; j < g + len; ++j) {
        const bool on = mp[i * cols + j] != 0;
        k += on;
        if (!on && wp[i * cols + j] != 0) exact = false;
      }
      kept += k;
      if (k != std::min<int64_t>(r.n, len)) exact = false;
    }
  l.exact = exact;
  l.sparsity_pct = 100.0 * (1.0 - static_cast<double>(kept) / static_cast<double>(rows * cols));
  return l;
}

}  // namespace

namespace {

// Step 1: the options a run needs, checked before any data is loaded.
void check_options(const TrainOptions& o, const std::string& model_name) {
  if (model_name != "char-gpt" && model_name != "vit-tiny")
    fail("<flag --model>", "unknown model '" + o.model + "'; expected vit-tiny or char-gpt");
  if (o.epochs < 1 || o.epochs > 100000) fail("<flag --epochs>", "must be in [1, 100000]");
  if (o.steps < 0) fail("<flag --steps>", "expected steps >= 0 (0: --epochs)");
  if (o.batch < 0 || o.batch > 65536)
    fail("<flag --batch>", "expected a batch in [0, 65536] (0: the model's)");
  if (o.eval_every < 0) fail("<flag --eval-every>", "expected eval-every >= 0");
  if (o.stop_after < 0) fail("<option stop_after>", "expected stop_after >= 0");
  if (!o.checkpoint.empty()) check_writable(o.checkpoint);
  if (!(o.lr >= 0) || !(o.weight_decay >= 0))
    fail("<flag --lr>", "lr and weight decay must be >= 0");
  o.recipe.validate();
}

// One training run: the data, the network, its N:M groups and optimiser, and the state the
// step loop, the evaluations and the checkpoints share. run() is the whole of train().
class Run {
 public:
  Run(const TrainOptions& o, search::Observer& observer, Clock::time_point t_start)
      : o_(o), observer_(observer), t_start_(t_start), gpt_(canonical(o.model) == "char-gpt") {}

  TrainResult run() {
    prune::set_compute_threads(o_.threads);
    d_ = load_data(o_, gpt_);
    size_run();
    torch::manual_seed(o_.seed);
    net_ = Transformer(cfg_);
    build_groups();
    params_ = net_->parameters();
    opt_ = std::make_unique<torch::optim::AdamW>(
        params_, torch::optim::AdamWOptions(lr_).weight_decay(o_.weight_decay));
    describe_run();
    int64_t step = 0;
    if (!o_.resume.empty()) step = resume();
    step = train_steps(step);
    if (o_.stop_after > 0 && step < total_) {  // tests: an interrupted run
      save_checkpoint(step);
      r_.steps = step;
      r_.train_s = train_s_;
      return r_;
    }
    finish();
    return r_;
  }

 private:
  // The model's configuration, the batch, learning rate and step counts.
  void size_run() {
    cfg_ = gpt_ ? char_gpt_config(d_.vocab, o_.quick) : vit_tiny_config(o_.quick);
    if (o_.tiny) {
      cfg_.dim = 16;
      cfg_.depth = 1;
      cfg_.heads = 2;
      cfg_.mlp = 32;
      if (gpt_) cfg_.tokens = 16;
    }
    batch_ = o_.batch > 0 ? o_.batch : (gpt_ ? 64 : 128);
    lr_ = o_.lr > 0 ? o_.lr : (gpt_ ? 2e-3 : 1e-3);
    n_train_ = gpt_ ? d_.train_ids.size(0) - cfg_.tokens - 1 : d_.x_train.size(0);
    if (n_train_ < (gpt_ ? 1 : batch_))
      fail("<data>", gpt_ ? "the training text is shorter than one context window"
                          : "fewer training images than one batch");
    if (gpt_ && d_.valid_ids.size(0) < cfg_.tokens + 1)
      fail("<data>", "the validation text is shorter than one context window");
    per_epoch_ = gpt_ ? std::max<int64_t>(1, d_.train_ids.size(0) / (batch_ * cfg_.tokens))
                      : n_train_ / batch_;
    total_ = o_.steps > 0 ? o_.steps : per_epoch_ * o_.epochs;
    eval_every_ = o_.eval_every > 0 ? o_.eval_every : std::max<int64_t>(1, total_ / 10);
    dense_plan_ =
        std::make_unique<Plan>(Recipe{RecipeKind::Dense, o_.recipe.nm, 0, 0, 0, 0, {}}, total_);
  }

  // Groups of N:M weights (all, or attention and MLP at their own ratios), their plans and
  // updaters.
  void build_groups() {
    if (!o_.recipe.sparse()) return;
    const RecipeKind kind = o_.recipe.kind;
    const std::vector<prune::NamedParam> named = prune::named_params(*net_);
    const NmRatio attn =
        o_.nm_attention.empty() ? o_.recipe.nm : parse_nm(o_.nm_attention, "<flag --nm-attention>");
    const NmRatio mlp = o_.nm_mlp.empty() ? o_.recipe.nm : parse_nm(o_.nm_mlp, "<flag --nm-mlp>");
    std::vector<std::pair<std::string, NmRatio>> spec;
    if (attn == mlp)
      spec = {{"all", attn}};
    else
      spec = {{"attention", attn}, {"mlp", mlp}};
    for (const auto& [gname, ratio] : spec) {
      Group g;
      g.name = gname;
      Recipe r = o_.recipe;
      r.nm = ratio;
      if (!(ratio == o_.recipe.nm)) r.sequence.clear();
      g.plan = std::make_unique<Plan>(r, total_);
      std::vector<prune::NamedParam> ps;
      for (const prune::NamedParam& p : named) {
        const bool a = is_attention_weight(p.name), m = is_mlp_weight(p.name);
        if ((gname == "all" && (a || m)) || (gname == "attention" && a) || (gname == "mlp" && m)) {
          ps.push_back(p);
          g.params.push_back(p.name);
          g.pruned_macs += static_cast<double>(cfg_.tokens * p.tensor.numel());
        }
      }
      prune::UpdaterConfig uc;
      uc.algorithm =
          kind == RecipeKind::SrSte ? prune::Algorithm::SrSte : prune::Algorithm::MagnitudeSte;
      uc.sparsity = 1.0 - static_cast<double>(ratio.n) / ratio.m;
      uc.type = nm_type(ratio);
      uc.schedule = prune::Schedule::no_update();
      uc.srste_decay = o_.recipe.srste_lambda;
      uc.seed = o_.seed;
      g.updater = std::make_shared<prune::Updater>(uc, ps);
      g.current = ratio;
      groups_.push_back(std::move(g));
    }
  }

  // The result's description of the run, and its FLOPs: each group's prunable multiply-adds by
  // its plan, the rest dense.
  void describe_run() {
    const RecipeKind kind = o_.recipe.kind;
    r_.model = gpt_ ? "char-gpt" : "vit-tiny";
    r_.data = canonical(o_.data);
    r_.recipe = recipe_name(kind);
    r_.nm = kind == RecipeKind::Dense ? "-" : o_.recipe.nm.str();
    r_.metric_name = gpt_ ? "valid_nats_per_char" : "test_accuracy_pct";
    r_.steps = total_;
    r_.batch = batch_;
    for (const torch::Tensor& p : params_) r_.params += p.numel();
    double all_linear = cfg_.block_linear_macs(), grouped = 0;
    for (Group& g : groups_) {
      r_.training_flops += training_flops(*g.plan, g.pruned_macs, 0.0, batch_);
      grouped += g.pruned_macs;
    }
    r_.training_flops +=
        training_flops(*dense_plan_, 0.0, cfg_.other_macs() + all_linear - grouped, batch_);
    r_.dense_flops = training_flops(*dense_plan_, 0.0, cfg_.other_macs() + all_linear, batch_);
  }

  // What a checkpoint must match: model, recipe, ratio, steps and parameter count.
  std::string signature() const {
    return r_.model + "/" + r_.recipe + "/" + r_.nm + "/" + std::to_string(total_) + "/" +
           std::to_string(r_.params);
  }

  bool frozen() const { return !groups_.empty() && groups_[0].updater->frozen(); }

  // Masked forward for an evaluation at `step` (sparse phase), undone by unmask().
  void mask_for_eval(int64_t step) {
    if (groups_.empty() || frozen() || groups_[0].plan->phase(step) != Phase::Sparse) return;
    for (Group& g : groups_) g.updater->pre_forward(step);
  }
  void unmask() {
    for (Group& g : groups_) g.updater->restore_dense();
  }

  // ViT: test accuracy in percent, in batches of 1000 images.
  double test_accuracy_pct() {
    int64_t correct = 0;
    const int64_t n = d_.x_test.size(0);
    for (int64_t i = 0; i < n; i += 1000) {
      const int64_t e = std::min(n, i + 1000);
      correct += net_->forward(d_.x_test.slice(0, i, e))
                     .argmax(1)
                     .eq(d_.y_test.slice(0, i, e))
                     .sum()
                     .item<int64_t>();
    }
    return n ? 100.0 * static_cast<double>(correct) / static_cast<double>(n) : 0.0;
  }

  // GPT: non-overlapping windows of the held-out text (all of them at the end, evenly spaced
  // 256 at most before), mean cross entropy over every predicted character, in nats.
  double valid_nats_per_char(bool final_eval) {
    const int64_t t = cfg_.tokens, n = (d_.valid_ids.size(0) - 1) / t;
    const int64_t use = final_eval ? n : std::min<int64_t>(n, 256);
    double sum = 0;
    int64_t count = 0;
    for (int64_t i = 0; i < use; i += 64) {
      const int64_t e = std::min(use, i + 64);
      std::vector<torch::Tensor> xs, ys;
      for (int64_t k = i; k < e; ++k) {
        const int64_t w = use == n ? k : k * n / use;
        xs.push_back(d_.valid_ids.slice(0, w * t, w * t + t));
        ys.push_back(d_.valid_ids.slice(0, w * t + 1, w * t + t + 1));
      }
      const torch::Tensor logits = net_->forward(torch::stack(xs));
      const torch::Tensor y = torch::stack(ys);
      sum += torch::nn::functional::cross_entropy(
                 logits.reshape({-1, cfg_.classes}), y.reshape({-1}),
                 torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                 .item<double>();
      count += y.numel();
    }
    return count ? sum / static_cast<double>(count) : 0.0;
  }

  // The metric at `step`, with the masks the sparse phase would apply.
  double evaluate(int64_t step, bool final_eval) {
    torch::NoGradGuard no_grad;
    mask_for_eval(step);
    net_->eval();
    const double metric = gpt_ ? valid_nats_per_char(final_eval) : test_accuracy_pct();
    net_->train();
    unmask();
    return metric;
  }

  // The batch of `step`: ViT, a permutation per epoch; GPT, random windows per step. Both
  // depend only on (seed, step), so a resumed run sees the same batches.
  void get_batch(int64_t step, torch::Tensor& x, torch::Tensor& y) {
    if (!gpt_) {
      const int64_t epoch = step / per_epoch_, b = step % per_epoch_;
      if (epoch != perm_epoch_) {
        perm_.resize(static_cast<size_t>(n_train_));
        for (int64_t i = 0; i < n_train_; ++i) perm_[static_cast<size_t>(i)] = i;
        std::mt19937_64 rng(o_.seed * 1000003ull + static_cast<uint64_t>(epoch));
        std::shuffle(perm_.begin(), perm_.end(), rng);
        perm_epoch_ = epoch;
      }
      const torch::Tensor idx =
          torch::from_blob(perm_.data() + b * batch_, {batch_}, torch::kLong).clone();
      x = d_.x_train.index_select(0, idx);
      y = d_.y_train.index_select(0, idx);
      return;
    }
    std::mt19937_64 rng(o_.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step));
    std::uniform_int_distribution<int64_t> start(0, n_train_ - 1);
    std::vector<torch::Tensor> xs, ys;
    for (int64_t i = 0; i < batch_; ++i) {
      const int64_t s = start(rng);
      xs.push_back(d_.train_ids.slice(0, s, s + cfg_.tokens));
      ys.push_back(d_.train_ids.slice(0, s + 1, s + cfg_.tokens + 1));
    }
    x = torch::stack(xs);
    y = torch::stack(ys);
  }

  // Linear warm-up over min(200, steps / 20) steps, then cosine decay to 0.
  double lr_at(int64_t step) const {
    const int64_t warm = std::max<int64_t>(1, std::min<int64_t>(200, total_ / 20));
    if (step < warm) return lr_ * static_cast<double>(step + 1) / static_cast<double>(warm);
    const double p =
        static_cast<double>(step - warm) / static_cast<double>(std::max<int64_t>(1, total_ - warm));
    return lr_ * 0.5 * (1.0 + std::cos(kPi * p));
  }

  void save_checkpoint(int64_t step) {
    if (o_.checkpoint.empty()) return;
    torch::serialize::OutputArchive ar;
    net_->save(ar);
    torch::serialize::OutputArchive optim;
    opt_->save(optim);
    ar.write("optimizer", optim);
    ar.write("step", c10::IValue(step));
    ar.write("frozen", c10::IValue(frozen()));
    // The evaluations so far (step, train loss, metric, elapsed s per row) and the loss of the
    // interval in progress: a resumed run reports the whole history, even one resumed at its end.
    torch::Tensor hist = torch::zeros({static_cast<int64_t>(r_.history.size()), 4}, torch::kDouble);
    for (size_t i = 0; i < r_.history.size(); ++i) {
      const EvalPoint& e = r_.history[i];
      hist[static_cast<int64_t>(i)] = torch::tensor(
          {static_cast<double>(e.step), e.train_loss, e.metric, e.elapsed_s}, torch::kDouble);
    }
    ar.write("history", hist);
    ar.write("loss_sum", c10::IValue(loss_sum_));
    ar.write("loss_count", c10::IValue(loss_count_));
    ar.write("signature", c10::IValue(signature()));
    if (frozen())
      for (size_t gi = 0; gi < groups_.size(); ++gi)
        for (size_t i = 0; i < groups_[gi].updater->layers().size(); ++i)
          ar.write("mask." + std::to_string(gi) + "." + std::to_string(i),
                   groups_[gi].updater->layers()[i].mask);
    const std::string tmp = o_.checkpoint + ".tmp";
    try {
      ar.save_to(tmp);
    } catch (const std::exception&) {  // libtorch's message is a multi-line stack trace
      fail(o_.checkpoint, "cannot write the checkpoint (" + tmp + ")");
    }
    if (std::rename(tmp.c_str(), o_.checkpoint.c_str()) != 0)
      fail(o_.checkpoint, "cannot write the checkpoint");
  }

  // --resume: weights, optimiser, step, frozen masks, loss of the interval in progress and the
  // evaluations so far, from a checkpoint of this run. Returns the step to continue from.
  int64_t resume() {
    const std::string& file = o_.resume;
    torch::serialize::InputArchive ar;
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
      fail(file, "cannot read: is a directory, expected a train checkpoint");
    try {
      ar.load_from(file);
    } catch (const std::exception&) {
      fail(file, "cannot read the checkpoint (missing, or not a libtorch archive)");
    }
    c10::IValue sig, st, fr;
    if (!ar.try_read("signature", sig) || !ar.try_read("step", st) || !ar.try_read("frozen", fr))
      fail(file, "not a sparsemap train checkpoint");
    const std::string want = signature();
    if (!sig.isString() || !st.isInt() || !fr.isBool())
      fail(file, "not a sparsemap train checkpoint (signature, step or frozen of a wrong type)");
    if (sig.toStringRef() != want)
      fail(file, "the checkpoint is of another run (" + sig.toStringRef() + ", this one is " +
                     want + ")");
    try {
      net_->load(ar);
      torch::serialize::InputArchive optim;
      ar.read("optimizer", optim);
      opt_->load(optim);
    } catch (const std::exception&) {
      fail(file, "the checkpoint's weights or optimizer state do not fit this model");
    }
    const int64_t step = st.toInt();
    if (step < 0 || step > total_)
      fail(file, "the checkpoint's step " + std::to_string(step) + " is outside [0, " +
                     std::to_string(total_) + "]");
    if (fr.toBool())
      for (size_t gi = 0; gi < groups_.size(); ++gi) {
        std::vector<torch::Tensor> masks(groups_[gi].updater->layers().size());
        for (size_t i = 0; i < masks.size(); ++i)
          ar.read("mask." + std::to_string(gi) + "." + std::to_string(i), masks[i]);
        groups_[gi].updater->set_sparsity_type(nm_type(groups_[gi].plan->recipe().nm));
        groups_[gi].current = groups_[gi].plan->recipe().nm;
        groups_[gi].updater->freeze_with(masks);
      }
    c10::IValue ls, lc;
    torch::Tensor hist;
    if (ar.try_read("loss_sum", ls) && ar.try_read("loss_count", lc)) {
      loss_sum_ = ls.toDouble();
      loss_count_ = lc.toInt();
    }
    if (ar.try_read("history", hist) && hist.dim() == 2 && hist.size(1) == 4) {
      const torch::Tensor h = hist.to(torch::kDouble).contiguous();
      for (int64_t i = 0; i < h.size(0); ++i) {
        EvalPoint e;
        e.step = static_cast<int64_t>(h[i][0].item<double>());
        e.train_loss = h[i][1].item<double>();
        e.metric = h[i][2].item<double>();
        e.elapsed_s = h[i][3].item<double>();
        if (e.step < total_) r_.history.push_back(e);  // the final point is measured again below
      }
    }
    r_.resumed = true;
    r_.resumed_from = step;
    return step;
  }

  // The phase of `step` and the masks it asks for: in the sparse phase each group's ratio at
  // that step (SDGF), its mask decay (MDGF) and STE masks; entering the fine-tune, the masks at
  // the target ratio frozen.
  Phase enter_phase(int64_t step) {
    const Phase phase = groups_.empty() ? Phase::Dense : groups_[0].plan->phase(step);
    if (phase == Phase::Sparse) {
      for (Group& g : groups_) {
        const NmRatio want = g.plan->ratio_at(step);
        if (!(want == g.current)) {
          g.updater->set_sparsity_type(nm_type(want));
          g.current = want;
        }
        g.updater->set_pruned_scale(g.plan->beta(step), is_mdgf(o_.recipe.kind));
        g.updater->pre_forward(step);
      }
    } else if (phase == Phase::Fine && !frozen()) {
      for (Group& g : groups_) {
        g.updater->set_sparsity_type(nm_type(g.plan->recipe().nm));
        g.current = g.plan->recipe().nm;
        g.updater->set_pruned_scale(0.0, false);
        g.updater->freeze(step);
      }
    }
    return phase;
  }

  // One optimiser step; returns the training loss (a NaN or infinite loss stops the run).
  double step_once(int64_t step, Phase phase, torch::Tensor& x, torch::Tensor& y) {
    for (auto& pg : opt_->param_groups()) pg.options().set_lr(lr_at(step));
    get_batch(step, x, y);
    const torch::Tensor logits = net_->forward(x);
    const torch::Tensor loss = gpt_ ? torch::nn::functional::cross_entropy(
                                          logits.reshape({-1, cfg_.classes}), y.reshape({-1}))
                                    : torch::nn::functional::cross_entropy(logits, y);
    const double lv = loss.item<double>();
    if (!std::isfinite(lv)) {
      unmask();
      fail("<training>", "the loss became " + std::string(std::isnan(lv) ? "NaN" : "infinite") +
                             " at step " + std::to_string(step) + "; stopped" +
                             (o_.checkpoint.empty()
                                  ? std::string(" (no checkpoint was asked for)")
                                  : "; the last good checkpoint " + o_.checkpoint + " is kept"));
    }
    opt_->zero_grad();
    loss.backward();
    if (phase != Phase::Dense)
      for (Group& g : groups_) g.updater->before_step(step);
    torch::nn::utils::clip_grad_norm_(params_, 1.0);
    opt_->step();
    if (phase != Phase::Dense)
      for (Group& g : groups_) g.updater->after_step(step);
    return lv;
  }

  // An evaluation between steps (after `step` steps): recorded, checkpointed and reported.
  void evaluate_between(int64_t step) {
    EvalPoint e;
    e.step = step;
    e.train_loss = loss_sum_ / static_cast<double>(std::max<int64_t>(1, loss_count_));
    e.metric = evaluate(step, false);
    e.elapsed_s = seconds_between(t_start_, Clock::now());
    r_.history.push_back(e);
    loss_sum_ = 0;
    loss_count_ = 0;
    save_checkpoint(step);
    observer_.on_note("[" + r_.recipe + " " + r_.nm + "] step " + std::to_string(e.step) + "/" +
                      std::to_string(total_) + ": train loss " + fmt("%.4f", e.train_loss) + ", " +
                      (gpt_ ? "valid " + fmt("%.4f", e.metric) + " nats/char"
                            : "test " + fmt("%.2f", e.metric) + "%") +
                      ", " + fmt("%.1f", e.elapsed_s) + " s");
  }

  // The step loop from `step`; returns the step it stopped at (total, or stop_after). Reports
  // progress every total / 200 steps and polls the observer after every step.
  int64_t train_steps(int64_t step) {
    torch::Tensor x, y;
    for (; step < total_; ++step) {
      if (o_.stop_after > 0 && step >= o_.stop_after) break;
      const auto t0 = Clock::now();
      const Phase phase = enter_phase(step);
      const double lv = step_once(step, phase, x, y);
      train_s_ += seconds_between(t0, Clock::now());
      loss_sum_ += lv;
      ++loss_count_;
      if (step % std::max<int64_t>(1, total_ / 200) == 0) {
        search::Progress p;
        p.done = step + 1;
        p.total = total_;
        p.best = lv;
        p.label = phase_name(phase);
        search::report_progress(observer_, p);
      } else if (observer_.cancelled()) {
        throw search::Cancelled();
      }
      if ((step + 1) % eval_every_ == 0 && step + 1 < total_) evaluate_between(step + 1);
    }
    return step;
  }

  // The end: STE masks at the target from the final weights (when no fine-tune fixed them),
  // their N:M check, the final evaluation, checkpoint and weights.
  void finish() {
    for (Group& g : groups_) {
      if (!g.updater->frozen()) {
        g.updater->set_sparsity_type(nm_type(g.plan->recipe().nm));
        g.updater->set_pruned_scale(0.0, false);
        g.updater->freeze(total_);
      }
      for (const prune::LayerState& l : g.updater->layers())
        r_.layers.push_back(check_nm(l.name, l.param, l.mask, g.plan->recipe().nm));
    }
    r_.train_loss = loss_count_ ? loss_sum_ / static_cast<double>(loss_count_)
                                : (r_.history.empty() ? 0.0 : r_.history.back().train_loss);
    r_.metric = evaluate(total_, true);
    EvalPoint e;
    e.step = total_;
    e.train_loss = r_.train_loss;
    e.metric = r_.metric;
    r_.train_s = train_s_;
    r_.total_s = seconds_between(t_start_, Clock::now());
    e.elapsed_s = r_.total_s;
    r_.history.push_back(e);
    save_checkpoint(total_);
    for (const torch::Tensor& p : params_) {
      const torch::Tensor c = p.detach().contiguous();
      r_.final_params.insert(r_.final_params.end(), c.data_ptr<float>(),
                             c.data_ptr<float>() + c.numel());
    }
  }

  const TrainOptions& o_;
  search::Observer& observer_;
  const Clock::time_point t_start_;
  const bool gpt_;
  Data d_;
  TransformerConfig cfg_;
  int64_t batch_ = 0, n_train_ = 0, per_epoch_ = 0, total_ = 0, eval_every_ = 0;
  double lr_ = 0;
  Transformer net_{nullptr};
  std::vector<Group> groups_;
  std::unique_ptr<Plan> dense_plan_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<torch::optim::AdamW> opt_;
  TrainResult r_;
  std::vector<int64_t> perm_;  // ViT: the permutation of the current epoch
  int64_t perm_epoch_ = -1;
  double loss_sum_ = 0;  // training loss summed since the last evaluation
  int64_t loss_count_ = 0;
  double train_s_ = 0;
};

}  // namespace

TrainResult train(const TrainOptions& o, search::Observer& observer) {
  const auto t_start = Clock::now();
  check_options(o, canonical(o.model));
  return Run(o, observer, t_start).run();
}

TrainResult train(const TrainOptions& o) {
  search::Observer quiet;
  return train(o, quiet);
}

}  // namespace sparsemap::ml::train
