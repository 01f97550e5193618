// Sparse training on Fashion-MNIST and the masking-overhead measurement.
#include "sparsemap/ml/prune/train.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

#include "sparsemap/error.h"
#include "sparsemap/ml/data/tensors.h"
#include "sparsemap/ml/prune/models.h"
#include "sparsemap/ml/prune/updater.h"
#include "text_util.h"

namespace sparsemap::ml::prune {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kPi = 3.14159265358979323846;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

struct Tensors {
  torch::Tensor x_train, y_train, x_test, y_test;
};

Tensors load_tensors(const DataOptions& d) {
  if (d.train_limit < 0 || d.test_limit < 0)
    throw InputError({"<flag --train-limit>", 0, 0}, "limits must be >= 0");
  data::FashionMnist fm;
  const std::string name = canonical_name(d.name);
  if (name == "fashion_mnist") {
    fm = data::load_fashion_mnist(d.dir, d.train_limit, d.test_limit);
  } else if (name == "synthetic") {
    fm.train = data::synthetic_images(d.train_limit > 0 ? d.train_limit : 6000, d.seed, 1);
    fm.test = data::synthetic_images(d.test_limit > 0 ? d.test_limit : 1000, d.seed, 2);
  } else {
    throw InputError({"<flag --data>", 0, 0},
                     "unknown data set '" + d.name + "'; expected fashion-mnist or synthetic");
  }
  if (fm.train.rows != 28 || fm.train.cols != 28 || fm.test.rows != 28 || fm.test.cols != 28)
    throw InputError({d.dir, 0, 0}, "expected 28 x 28 images");
  return {images_tensor(fm.train), labels_tensor(fm.train), images_tensor(fm.test),
          labels_tensor(fm.test)};
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name, double lr,
                                                        double momentum, double weight_decay,
                                                        std::vector<torch::Tensor> params) {
  const std::string n = canonical_name(name);
  if (!(lr > 0)) throw InputError({"<flag --lr>", 0, 0}, "the learning rate must be > 0");
  if (n == "sgd")
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(lr).momentum(momentum).weight_decay(weight_decay));
  if (n == "adam")
    return std::make_unique<torch::optim::Adam>(
        params, torch::optim::AdamOptions(lr).weight_decay(weight_decay));
  if (n == "adamw")
    return std::make_unique<torch::optim::AdamW>(
        params, torch::optim::AdamWOptions(lr).weight_decay(weight_decay));
  throw InputError({"<flag --optimizer>", 0, 0},
                   "unknown optimiser '" + name + "'; expected sgd, adam or adamw");
}

// Test-set accuracy in percent (STE: with the masks of the next step).
double evaluate(Classifier& model, SparseOptimizer& opt, const Tensors& t) {
  opt.updater().pre_forward(opt.count());
  model.eval();
  int64_t correct = 0;
  {
    torch::NoGradGuard no_grad;
    const int64_t n = t.x_test.size(0);
    for (int64_t i = 0; i < n; i += 1000) {
      const int64_t e = std::min(n, i + 1000);
      const auto pred = model.forward(t.x_test.slice(0, i, e)).argmax(1);
      correct += pred.eq(t.y_test.slice(0, i, e)).sum().item<int64_t>();
    }
  }
  model.train();
  opt.updater().restore_dense();
  return t.x_test.size(0) ? 100.0 * static_cast<double>(correct) / t.x_test.size(0) : 0.0;
}

// The sparsity of the pruned parameters' masks (zeros where no mask exists yet): what the
// forward sees, also for straight-through algorithms whose stored weights stay dense.
double mask_sparsity(const std::vector<LayerSparsity>& layers) {
  double dropped = 0, n = 0;
  for (const LayerSparsity& l : layers)
    if (l.target >= 0) {
      dropped += l.mask_sparsity >= 0 ? l.mask_sparsity * l.numel : l.zeros;
      n += l.numel;
    }
  return n > 0 ? dropped / n : 0.0;
}

double pruned_sparsity(const std::vector<LayerSparsity>& layers, bool all) {
  int64_t zeros = 0, n = 0;
  for (const LayerSparsity& l : layers)
    if (all || l.target >= 0) {
      zeros += l.zeros;
      n += l.numel;
    }
  return n ? static_cast<double>(zeros) / n : 0.0;
}

}  // namespace

UpdaterConfig make_config(const TrainOptions& o, int64_t total_steps) {
  UpdaterConfig c = default_config(parse_algorithm(o.algorithm), o.sparsity, total_steps);
  c.type = parse_sparsity_type(o.type);
  c.distribution.kind = parse_distribution(o.dist);
  c.distribution.custom = parse_custom_map(o.layer_sparsity);
  for (const std::string& k : split(o.keep_dense, ','))
    if (!k.empty()) c.distribution.keep_dense.push_back(k);
  if (o.schedule != "auto") c.schedule = parse_schedule(o.schedule);
  if (o.mask_gradients >= 0) c.mask_gradients = o.mask_gradients != 0;
  if (!o.grow.empty()) {
    const std::string g = canonical_name(o.grow);
    if (g == "random")
      c.grow = GrowKind::Random;
    else if (g == "gradient")
      c.grow = GrowKind::Gradient;
    else
      throw InputError({"<flag --grow>", 0, 0}, "'" + o.grow + "': expected random or gradient");
  }
  c.drop_fraction = o.drop_fraction;
  c.seed = o.seed;
  c.validate();
  return c;
}

TrainResult train(const TrainOptions& o, const ProgressFn& progress) {
  if (o.epochs < 1 || o.epochs > 10000)
    throw InputError({"<flag --epochs>", 0, 0}, "must be in [1, 10000]");
  if (o.batch < 1 || o.batch > 65536)
    throw InputError({"<flag --batch>", 0, 0}, "must be in [1, 65536]");
  if (o.threads < 0) throw InputError({"<flag --threads>", 0, 0}, "must be >= 0");
  set_compute_threads(o.threads);
  const Tensors t = load_tensors(o.data);
  const int64_t n = t.x_train.size(0);
  const int64_t per_epoch = (n + o.batch - 1) / o.batch;
  const int64_t total = per_epoch * o.epochs;
  const UpdaterConfig cfg = make_config(o, total);

  torch::manual_seed(o.seed);
  std::shared_ptr<Classifier> model = make_classifier(o.model);
  auto updater = std::make_shared<Updater>(cfg, named_params(*model));
  SparseOptimizer opt(
      make_optimizer(o.optimizer, o.lr, o.momentum, o.weight_decay, model->parameters()), updater);

  TrainResult r;
  r.model = o.model;
  r.algorithm = algorithm_name(cfg.algorithm);
  r.type = cfg.type.str();
  r.dist = distribution_name(cfg.distribution.kind);
  r.schedule = cfg.schedule.str();
  r.optimizer = canonical_name(o.optimizer);
  r.target_sparsity = o.sparsity;
  r.epochs = o.epochs;
  r.batch = o.batch;
  r.train_examples = n;
  r.test_examples = t.x_test.size(0);
  const auto start = Clock::now();
  double train_ms = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const torch::Tensor perm = torch::randperm(n, torch::kLong);
    double loss_sum = 0;
    for (int64_t b = 0; b < per_epoch; ++b) {
      const torch::Tensor idx = perm.slice(0, b * o.batch, std::min(n, (b + 1) * o.batch));
      const torch::Tensor x = t.x_train.index_select(0, idx), y = t.y_train.index_select(0, idx);
      if (o.cosine_lr) {
        const double lr = o.lr * 0.5 * (1.0 + std::cos(kPi * opt.count() / total));
        for (auto& g : opt.inner().param_groups()) g.options().set_lr(lr);
      }
      const auto t0 = Clock::now();
      opt.pre_forward();
      const torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
      opt.zero_grad();
      loss.backward();
      opt.step();
      train_ms += ms_between(t0, Clock::now());
      if (opt.last().mask_update) ++r.mask_updates;
      loss_sum += loss.item<double>();
    }
    EpochStats e;
    e.epoch = epoch;
    e.train_loss = loss_sum / static_cast<double>(per_epoch);
    e.test_accuracy_pct = evaluate(*model, opt, t);
    e.pruned_sparsity_pct = 100.0 * mask_sparsity(updater->sparsity());
    e.elapsed_s = ms_between(start, Clock::now()) / 1000.0;
    r.history.push_back(e);
    if (progress)
      progress("[" + r.algorithm + "] epoch " + std::to_string(epoch) + "/" +
               std::to_string(o.epochs) + ": loss " + fmt("%.4f", e.train_loss) + ", test " +
               fmt("%.2f", e.test_accuracy_pct) + "%, sparsity " +
               fmt("%.1f", e.pruned_sparsity_pct) + "%, " + fmt("%.1f", e.elapsed_s) + " s");
  }
  opt.finalize();
  r.steps = opt.count();
  r.train_ms = train_ms;
  r.step_ms = r.steps ? train_ms / static_cast<double>(r.steps) : 0;
  r.hook_ms_per_step = r.steps ? opt.hook_ms() / static_cast<double>(r.steps) : 0;
  r.train_loss = r.history.back().train_loss;
  r.test_accuracy_pct = evaluate(*model, opt, t);
  r.layers = updater->sparsity();
  r.pruned_sparsity = pruned_sparsity(r.layers, false);
  r.model_sparsity = pruned_sparsity(r.layers, true);
  if (o.keep_weights) {
    for (const LayerState& l : updater->layers()) {
      if (l.param.dim() < 2) continue;
      const torch::Tensor w = l.param.detach().contiguous();
      TrainedWeight tw;
      tw.name = l.name;
      tw.shape = l.shape;
      tw.weight = sparse::to_dense(matrix_view(w));
      tw.mask = l.mask.defined() ? tensor_to_mask(l.mask) : tensor_to_mask(w);
      r.weights.push_back(std::move(tw));
    }
  }
  return r;
}

void set_compute_threads(int threads) {
  // More threads than the machine has hardware threads only adds contention (10,000 would start
  // that many OpenMP and OpenBLAS workers): refused, with the bound in the message.
  const int most = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (threads < 0 || threads > most)
    throw InputError({"<flag --threads>", 0, 0},
                     "expected 0 (all cores) to " + std::to_string(most) +
                         " (this machine's hardware threads), found " + std::to_string(threads));
  if (threads == 0) return;
  torch::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (auto* f = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    f(threads);
}

// ----------------------------------------------------------------------------------------------

std::vector<OverheadRow> measure_overhead(const OverheadOptions& o, const ProgressFn& progress) {
  if (o.batch < 1 || o.steps < 1 || o.rounds < 1)
    throw InputError({"<flag --batch>", 0, 0}, "batch, steps and rounds must be >= 1");
  if (o.threads < 0) throw InputError({"<flag --threads>", 0, 0}, "must be >= 0");
  set_compute_threads(o.threads);
  DataOptions d = o.data;
  d.train_limit = o.batch * 4;
  d.test_limit = 10;
  const Tensors t = load_tensors(d);
  const int64_t n = t.x_train.size(0);
  std::vector<torch::Tensor> xs, ys;
  for (int64_t i = 0; i + o.batch <= n; i += o.batch) {
    xs.push_back(t.x_train.slice(0, i, i + o.batch).contiguous());
    ys.push_back(t.y_train.slice(0, i, i + o.batch).contiguous());
  }
  if (xs.empty()) throw InputError({"<data>", 0, 0}, "fewer images than one batch");

  struct Contender {
    std::shared_ptr<Classifier> model;
    std::unique_ptr<SparseOptimizer> opt;
    std::unique_ptr<torch::optim::Optimizer> plain;  // the dense reference: no updater at all
    size_t batch = 0;
  };
  auto make = [&](const std::string& algo) {
    Contender c;
    torch::manual_seed(o.seed);
    c.model = make_classifier(o.model);
    auto params = c.model->parameters();
    if (algo.empty()) {
      c.plain = make_optimizer(o.optimizer, 1e-3, 0.9, 0.0, params);
      return c;
    }
    UpdaterConfig cfg = default_config(parse_algorithm(algo), o.sparsity, o.schedule_steps);
    if (cfg.schedule.kind == ScheduleKind::Polynomial)  // masks from the first step on
      cfg.schedule.start_step = 0;
    cfg.seed = o.seed;
    auto updater = std::make_shared<Updater>(cfg, named_params(*c.model));
    c.opt = std::make_unique<SparseOptimizer>(make_optimizer(o.optimizer, 1e-3, 0.9, 0.0, params),
                                              updater);
    return c;
  };
  // One timed step; returns {ms, hook ms, was an update}.
  auto step = [&](Contender& c) {
    const torch::Tensor& x = xs[c.batch % xs.size()];
    const torch::Tensor& y = ys[c.batch % ys.size()];
    ++c.batch;
    const double hook0 = c.opt ? c.opt->hook_ms() : 0;
    const auto t0 = Clock::now();
    if (c.opt) c.opt->pre_forward();
    const torch::Tensor loss = torch::nn::functional::cross_entropy(c.model->forward(x), y);
    if (c.opt)
      c.opt->zero_grad();
    else
      c.plain->zero_grad();
    loss.backward();
    if (c.opt)
      c.opt->step();
    else
      c.plain->step();
    const double ms = ms_between(t0, Clock::now());
    const bool update = c.opt && c.opt->last().mask_update;
    return std::make_tuple(ms, c.opt ? c.opt->hook_ms() - hook0 : 0.0, update);
  };
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
  };

  std::vector<OverheadRow> rows;
  for (const std::string& algo : o.algorithms) {
    const Algorithm a = parse_algorithm(algo);
    Contender dense = make(""), sparse = make(algo);
    for (int i = 0; i < 3; ++i) {  // warm-up (the sparse one's first step makes its masks)
      step(dense);
      step(sparse);
    }
    std::vector<double> dense_ms, step_ms, hook_ms, update_ms;
    for (int r = 0; r < o.rounds; ++r) {
      for (int i = 0; i < o.steps; ++i) dense_ms.push_back(std::get<0>(step(dense)));
      for (int i = 0; i < o.steps; ++i) {
        const auto [ms, hook, update] = step(sparse);
        if (update) {
          update_ms.push_back(hook);
        } else {
          step_ms.push_back(ms);
          hook_ms.push_back(hook);
        }
      }
    }
    // Time a few mask updates directly when the timed steps held none.
    const UpdaterConfig& cfg = sparse.opt->updater().config();
    if (update_ms.empty() && cfg.schedule.kind != ScheduleKind::NoUpdate && !is_ste(a)) {
      for (int i = 0; i < 3; ++i) {
        const torch::Tensor loss =
            torch::nn::functional::cross_entropy(sparse.model->forward(xs[0]), ys[0]);
        sparse.opt->zero_grad();
        loss.backward();
        const auto t0 = Clock::now();
        const int64_t at = std::max(cfg.schedule.start_step, cfg.schedule.target_step);
        sparse.opt->updater().before_step(at);
        update_ms.push_back(ms_between(t0, Clock::now()));
      }
    }
    OverheadRow row;
    row.algorithm = algorithm_name(a);
    row.dense_step_ms = median(dense_ms);
    row.step_ms = median(step_ms);
    row.overhead_pct = 100.0 * (row.step_ms - row.dense_step_ms) / row.dense_step_ms;
    row.hook_ms = median(hook_ms);
    row.hook_pct = 100.0 * row.hook_ms / row.dense_step_ms;
    row.update_ms = median(update_ms);
    // Straight-through algorithms make their masks in every step's hooks (no separate update).
    const bool periodic = cfg.schedule.kind == ScheduleKind::Periodic ||
                          cfg.schedule.kind == ScheduleKind::Polynomial;
    row.update_every = periodic && !is_ste(a) ? cfg.schedule.update_freq : 0;
    if (row.update_every > 0)
      row.amortized_pct = 100.0 * row.update_ms / row.update_every / row.dense_step_ms;
    row.samples = static_cast<int>(step_ms.size());
    rows.push_back(row);
    if (progress)
      progress("[" + row.algorithm + "] dense " + fmt("%.2f", row.dense_step_ms) + " ms, sparse " +
               fmt("%.2f", row.step_ms) + " ms (" + fmt("%+.1f", row.overhead_pct) + "%), hooks " +
               fmt("%.3f", row.hook_ms) + " ms (" + fmt("%.1f", row.hook_pct) + "%)");
  }
  return rows;
}

}  // namespace sparsemap::ml::prune
