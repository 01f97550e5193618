// `sparsemap prune-train`, `prune-compare` and `prune-overhead`: sparse training of a small
// classifier on Fashion-MNIST with the JaxPruner-style algorithms of ml/prune, the comparison
// of algorithms in one table, and the masking overhead per training step.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "sparsemap/error.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/prune/export.h"
#include "sparsemap/ml/prune/train.h"
#include "sparsemap/sparse/format/format_spec.h"
#include "sparsemap/sparse/kernels/spmm.h"
#endif

namespace sparsemap::cli {

namespace {

struct PruneArgs {
  std::string model = "mlp";
  std::string data = "fashion-mnist";
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  int64_t train_limit = 0;
  int64_t test_limit = 0;
  std::string algo = "magnitude";
  std::string algos = "dense,magnitude,random,set,rigl,magnitude_ste";
  double sparsity = 0.8;
  std::string type = "unstructured";
  std::string dist = "uniform";
  std::string layer_sparsity;
  std::string keep_dense;
  std::string schedule = "auto";
  std::string mask_grads = "auto";
  std::string grow;
  double drop_fraction = 0.3;
  std::string optimizer = "adam";
  double lr = 1e-3;
  double momentum = 0.9;
  double weight_decay = 0.0;
  bool constant_lr = false;
  int epochs = 5;
  int64_t batch = 256;
  uint64_t seed = 1;
  int threads = 0;
  std::string export_formats;
  int64_t export_n = 256;
  double export_ms = 100;
  int steps = 10;
  int rounds = 6;
  int64_t schedule_steps = 2350;
  std::string json;
  bool quiet = false;
};

void add_common(CLI::App* cmd, PruneArgs* a) {
  cmd->add_option("--model", a->model, "mlp (784-300-100-10) or cnn (2 conv + 2 fc)")
      ->capture_default_str();
  cmd->add_option("--data", a->data, "fashion-mnist, or synthetic (tests, no package)")
      ->capture_default_str();
  cmd->add_option("--data-dir", a->data_dir,
                  "Folder of the IDX files (Debian package dataset-fashion-mnist)")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "libtorch (and kernel) threads; 0: all cores")
      ->capture_default_str();
  cmd->add_option("--sparsity", a->sparsity, "Target sparsity of the pruned weights, in [0, 1]")
      ->capture_default_str();
  cmd->add_option("--optimizer", a->optimizer, "sgd, adam or adamw")->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the model, the batches and the masks")
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "Batch size")->capture_default_str();
  cmd->add_option("--json", a->json, "Write JSON to FILE, or - for stdout");
  cmd->add_flag("--quiet", a->quiet, "No table or progress output");
}

void add_training(CLI::App* cmd, PruneArgs* a) {
  add_common(cmd, a);
  cmd->add_option("--epochs", a->epochs, "Training epochs")->capture_default_str();
  cmd->add_option("--train-limit", a->train_limit, "Use the first N training images (0: all)")
      ->capture_default_str();
  cmd->add_option("--test-limit", a->test_limit, "Use the first N test images (0: all)")
      ->capture_default_str();
  cmd->add_option("--type", a->type,
                  "unstructured, block:HxW[:avg|max|l2], nm:N:M[:row|col], "
                  "channel[:out|in][:avg|max|l2] or cvse:V")
      ->capture_default_str();
  cmd->add_option("--dist", a->dist, "Sparsity distribution: uniform or erk")
      ->capture_default_str();
  cmd->add_option("--layer-sparsity", a->layer_sparsity,
                  "Per-parameter sparsity, NAME=S,... (e.g. fc3.weight=0.5)");
  cmd->add_option("--keep-dense", a->keep_dense,
                  "Leave parameters whose name contains one of SUBSTR,... dense");
  cmd->add_option("--schedule", a->schedule,
                  "auto, none, one-shot[:STEP], periodic:FREQ:START[:END] or "
                  "poly:FREQ:START:END[:POWER] (optimiser steps)")
      ->capture_default_str();
  cmd->add_option("--mask-grads", a->mask_grads, "Zero gradients of masked weights: auto, on, off")
      ->capture_default_str();
  cmd->add_option("--lr", a->lr, "Learning rate (cosine-decayed to 0)")->capture_default_str();
  cmd->add_option("--momentum", a->momentum, "SGD momentum")->capture_default_str();
  cmd->add_option("--weight-decay", a->weight_decay, "Weight decay")->capture_default_str();
  cmd->add_flag("--constant-lr", a->constant_lr, "No cosine decay of the learning rate");
}

#ifdef SPARSEMAP_HAVE_TORCH

using namespace sparsemap::ml::prune;

ProgressFn progress_fn(const PruneArgs& a) {
  if (a.quiet) return nullptr;
  return [](const std::string& line) { std::cerr << line << "\n" << std::flush; };
}

DataOptions data_options(const PruneArgs& a) {
  DataOptions d;
  d.name = a.data;
  d.dir = a.data_dir;
  d.train_limit = a.train_limit;
  d.test_limit = a.test_limit;
  d.seed = a.seed;
  return d;
}

TrainOptions train_options(const PruneArgs& a, const std::string& algo) {
  TrainOptions o;
  o.model = a.model;
  o.data = data_options(a);
  o.algorithm = algo;
  o.sparsity = a.sparsity;
  o.type = a.type;
  o.dist = a.dist;
  o.layer_sparsity = a.layer_sparsity;
  o.keep_dense = a.keep_dense;
  o.schedule = a.schedule;
  if (a.mask_grads == "auto")
    o.mask_gradients = -1;
  else if (a.mask_grads == "on")
    o.mask_gradients = 1;
  else if (a.mask_grads == "off")
    o.mask_gradients = 0;
  else
    throw InputError({"<flag --mask-grads>", 0, 0}, "expected auto, on or off");
  o.grow = a.grow;
  o.drop_fraction = a.drop_fraction;
  o.optimizer = a.optimizer;
  o.lr = a.lr;
  o.momentum = a.momentum;
  o.weight_decay = a.weight_decay;
  o.cosine_lr = !a.constant_lr;
  o.epochs = a.epochs;
  o.batch = a.batch;
  o.seed = a.seed;
  o.threads = a.threads;
  o.keep_weights = !a.export_formats.empty();
  return o;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

nlohmann::json result_json(const TrainResult& r) {
  nlohmann::json layers = nlohmann::json::array(), history = nlohmann::json::array();
  for (const LayerSparsity& l : r.layers)
    layers.push_back(
        {{"name", l.name},
         {"shape", l.shape},
         {"params", l.numel},
         {"zeros", l.zeros},
         {"sparsity_pct", 100.0 * l.sparsity()},
         {"mask_sparsity_pct",
          l.mask_sparsity >= 0 ? nlohmann::json(100.0 * l.mask_sparsity) : nlohmann::json()},
         {"target_sparsity_pct",
          l.target >= 0 ? nlohmann::json(100.0 * l.target) : nlohmann::json()}});
  for (const EpochStats& e : r.history)
    history.push_back({{"epoch", e.epoch},
                       {"train_loss", e.train_loss},
                       {"test_accuracy_pct", e.test_accuracy_pct},
                       {"pruned_sparsity_pct", e.pruned_sparsity_pct},
                       {"elapsed_s", e.elapsed_s}});
  return {{"model", r.model},
          {"algorithm", r.algorithm},
          {"sparsity_type", r.type},
          {"distribution", r.dist},
          {"schedule", r.schedule},
          {"optimizer", r.optimizer},
          {"target_sparsity_pct", 100.0 * r.target_sparsity},
          {"epochs", r.epochs},
          {"batch", r.batch},
          {"steps", r.steps},
          {"train_examples", r.train_examples},
          {"test_examples", r.test_examples},
          {"test_accuracy_pct", r.test_accuracy_pct},
          {"train_loss", r.train_loss},
          {"step_ms", r.step_ms},
          {"hook_ms_per_step", r.hook_ms_per_step},
          {"train_ms", r.train_ms},
          {"mask_updates", r.mask_updates},
          {"pruned_sparsity_pct", 100.0 * r.pruned_sparsity},
          {"model_sparsity_pct", 100.0 * r.model_sparsity},
          {"layers", layers},
          {"history", history}};
}

// "fc1 80.0 / fc2 80.0 / fc3 80.0": the sparsity of each pruned weight.
std::string layers_text(const TrainResult& r) {
  std::string t;
  for (const LayerSparsity& l : r.layers) {
    if (l.shape.size() < 2) continue;
    std::string name = l.name.substr(0, l.name.rfind(".weight"));
    t += (t.empty() ? "" : " / ") + name + " " + fixed(100.0 * l.sparsity(), 1);
  }
  return t;
}

void run_train(const PruneArgs& a) {
  std::vector<sparse::FormatSpec> formats;
  std::stringstream ss(a.export_formats);
  for (std::string f; std::getline(ss, f, ',');)
    if (!f.empty()) formats.push_back(sparse::parse_format(f));
  const TrainResult r = train(train_options(a, a.algo), progress_fn(a));
  nlohmann::json j = result_json(r);
  j["command"] = "prune-train";
  j["data"] = a.data;
  j["seed"] = a.seed;
  const bool table = !a.quiet && a.json != "-";
  if (table) {
    std::cout << r.algorithm << " on " << r.model << ", " << a.data << ": test accuracy "
              << fixed(r.test_accuracy_pct, 2) << "%, pruned sparsity "
              << fixed(100.0 * r.pruned_sparsity, 2) << "%, " << fixed(r.step_ms, 2)
              << " ms/step (updater " << fixed(r.hook_ms_per_step, 3) << " ms), " << r.steps
              << " steps\n";
    Table t({"parameter", "shape", "params", "target %", "mask %", "zeros %"});
    for (const LayerSparsity& l : r.layers)
      t.add({l.name, shape_text(l.shape), with_commas(l.numel),
             l.target >= 0 ? fixed(100.0 * l.target, 2) : "dense",
             l.mask_sparsity >= 0 ? fixed(100.0 * l.mask_sparsity, 2) : "-",
             fixed(100.0 * l.sparsity(), 2)});
    std::cout << t.str();
  }
  if (!formats.empty()) {
    ExportOptions eo;
    eo.formats = formats;
    eo.n = a.export_n;
    eo.threads = a.threads;
    eo.min_ms = a.export_ms;
    eo.seed = a.seed;
    const std::vector<ExportRow> rows = export_weights(r.weights, eo);
    nlohmann::json ej = nlohmann::json::array();
    Table t({"layer", "M x K x N", "format", "sparsity %", "bytes", "dense bytes", "dense ms",
             "sparse ms", "speedup", "max rel err", "note"});
    for (const ExportRow& e : rows) {
      ej.push_back({{"layer", e.layer},
                    {"rows", e.rows},
                    {"cols", e.cols},
                    {"n", e.n},
                    {"format", e.format},
                    {"sparsity_pct", 100.0 * e.sparsity},
                    {"stored_values", e.stored_values},
                    {"footprint_bytes", e.footprint_bytes},
                    {"dense_bytes", e.dense_bytes},
                    {"dense_ms", e.dense_ms},
                    {"sparse_ms", e.error.empty() ? nlohmann::json(e.sparse_ms) : nlohmann::json()},
                    {"speedup", e.error.empty() ? nlohmann::json(e.speedup) : nlohmann::json()},
                    {"max_rel_err", e.max_rel_err},
                    {"error", e.error}});
      const std::string dims =
          std::to_string(e.rows) + "x" + std::to_string(e.cols) + "x" + std::to_string(e.n);
      if (e.error.empty())
        t.add({e.layer, dims, e.format, fixed(100.0 * e.sparsity, 1),
               with_commas(e.footprint_bytes), with_commas(e.dense_bytes), fixed(e.dense_ms, 4),
               fixed(e.sparse_ms, 4), fixed(e.speedup, 2), fixed(e.max_rel_err, 7), ""});
      else
        t.add({e.layer, dims, e.format, fixed(100.0 * e.sparsity, 1), "-",
               with_commas(e.dense_bytes), fixed(e.dense_ms, 4), "-", "-", "-", e.error});
    }
    j["export"] = ej;
    if (table)
      std::cout << "\nexport (C = W x B, B random " << a.export_n << " columns):\n" << t.str();
  }
  if (!a.json.empty()) write_json(j, a.json);
}

void run_compare(const PruneArgs& a) {
  std::vector<std::string> algos;
  std::stringstream ss(a.algos);
  for (std::string s; std::getline(ss, s, ',');)
    if (!s.empty()) algos.push_back(s);
  if (algos.empty()) throw InputError({"<flag --algos>", 0, 0}, "no algorithm given");
  for (const std::string& s : algos) parse_algorithm(s);  // fail before any training
  nlohmann::json results = nlohmann::json::array();
  Table t({"algorithm", "test acc %", "sparsity % per layer", "pruned %", "ms/step", "updater ms",
           "train s"});
  for (const std::string& s : algos) {
    const TrainResult r = train(train_options(a, s), progress_fn(a));
    results.push_back(result_json(r));
    t.add({r.algorithm, fixed(r.test_accuracy_pct, 2), layers_text(r),
           fixed(100.0 * r.pruned_sparsity, 2), fixed(r.step_ms, 2), fixed(r.hook_ms_per_step, 3),
           fixed(r.train_ms / 1000.0, 1)});
  }
  if (!a.quiet && a.json != "-") {
    std::cout << a.model << " on " << a.data << ", target sparsity " << fixed(100.0 * a.sparsity, 1)
              << "%, " << a.epochs << " epochs, batch " << a.batch << ", " << a.optimizer << " lr "
              << a.lr << ", seed " << a.seed << "\n"
              << t.str();
  }
  if (!a.json.empty())
    write_json({{"command", "prune-compare"},
                {"model", a.model},
                {"data", a.data},
                {"target_sparsity_pct", 100.0 * a.sparsity},
                {"epochs", a.epochs},
                {"batch", a.batch},
                {"seed", a.seed},
                {"results", results}},
               a.json);
}

void run_overhead(const PruneArgs& a) {
  OverheadOptions o;
  o.model = a.model;
  o.data = data_options(a);
  o.algorithms.clear();
  std::stringstream ss(a.algos);
  for (std::string s; std::getline(ss, s, ',');)
    if (!s.empty() && s != "dense" && s != "no_prune") o.algorithms.push_back(s);
  if (o.algorithms.empty()) throw InputError({"<flag --algos>", 0, 0}, "no algorithm given");
  o.sparsity = a.sparsity;
  o.batch = a.batch;
  o.steps = a.steps;
  o.rounds = a.rounds;
  o.schedule_steps = a.schedule_steps;
  o.optimizer = a.optimizer;
  o.seed = a.seed;
  o.threads = a.threads;
  // The dense baseline must run OpenBLAS's best kernel for this CPU. Some virtual machines hide
  // the CPU model, and OpenBLAS's own detection then falls back to Prescott (SSE3, about 4x
  // slower than its AVX-512 kernel here), which would flatter the overhead.
  const std::string core = sparse::openblas_core_name(), best = sparse::openblas_best_core();
  auto lower = [](std::string x) {
    for (char& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return x;
  };
  if (!a.quiet && std::getenv("OPENBLAS_L2_SIZE"))
    std::cerr << "sparsemap: warning: OPENBLAS_L2_SIZE is set; measure with it unset\n";
  // Cooperlake's OpenBLAS kernels are SkylakeX's plus bf16 ones: SkylakeX is as fast for sgemm.
  const bool same =
      lower(core) == lower(best) || (best == "Cooperlake" && lower(core) == "skylakex");
  if (!a.quiet && !best.empty() && !same)
    std::cerr << "sparsemap: warning: OpenBLAS runs its " << core << " kernel on a CPU that has "
              << best << "'s; for a fair dense baseline\n  run this command alone with "
              << "`env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=" << best
              << " sparsemap prune-overhead ...`\n";
  const std::vector<OverheadRow> rows = measure_overhead(o, progress_fn(a));
  nlohmann::json jr = nlohmann::json::array();
  Table t({"algorithm", "dense ms", "sparse ms", "overhead %", "hooks ms", "hooks %", "update ms",
           "every", "amortised %"});
  for (const OverheadRow& r : rows) {
    jr.push_back({{"algorithm", r.algorithm},
                  {"dense_step_ms", r.dense_step_ms},
                  {"step_ms", r.step_ms},
                  {"overhead_pct", r.overhead_pct},
                  {"hook_ms", r.hook_ms},
                  {"hook_pct", r.hook_pct},
                  {"update_ms", r.update_ms},
                  {"update_every_steps", r.update_every},
                  {"amortized_pct", r.amortized_pct},
                  {"samples", r.samples}});
    t.add({r.algorithm, fixed(r.dense_step_ms, 3), fixed(r.step_ms, 3), fixed(r.overhead_pct, 1),
           fixed(r.hook_ms, 3), fixed(r.hook_pct, 1), fixed(r.update_ms, 2),
           r.update_every ? std::to_string(r.update_every) : "-", fixed(r.amortized_pct, 2)});
  }
  if (!a.quiet && a.json != "-")
    std::cout << a.model << ", batch " << a.batch << ", " << a.optimizer << ", "
              << a.rounds * a.steps << " timed steps per contender (medians), OpenBLAS " << core
              << "\n"
              << t.str();
  if (!a.json.empty())
    write_json({{"command", "prune-overhead"},
                {"model", a.model},
                {"batch", a.batch},
                {"optimizer", a.optimizer},
                {"target_sparsity_pct", 100.0 * a.sparsity},
                {"openblas_core", core},
                {"rows", jr}},
               a.json);
}

#endif  // SPARSEMAP_HAVE_TORCH

template <typename F>
void set_callback(CLI::App* cmd, const std::string& name, F f) {
  cmd->callback([name, f] {
#ifdef SPARSEMAP_HAVE_TORCH
    f();
#else
    (void)f;
    hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
    throw InputError({"<command " + name + ">", 0, 0},
                     "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
  });
}

}  // namespace

void register_prune_train(CLI::App& app) {
  auto args = std::make_shared<PruneArgs>();
  CLI::App* train_cmd = app.add_subcommand(
      "prune-train", "Train a small classifier on Fashion-MNIST with a pruning algorithm");
  add_training(train_cmd, args.get());
  train_cmd
      ->add_option("--algo", args->algo,
                   "no_prune (dense), magnitude, random, saliency, magnitude_ste, random_ste, "
                   "global_magnitude, global_saliency, static_sparse, set, rigl, sr_ste")
      ->capture_default_str();
  train_cmd->add_option("--grow", args->grow, "SET/RigL regrowth: random or gradient");
  train_cmd->add_option("--drop-fraction", args->drop_fraction, "SET/RigL drop fraction")
      ->capture_default_str();
  train_cmd->add_option("--export", args->export_formats,
                        "After training, store the pruned weights in these formats "
                        "(csr,cvse:4,bsr:4x4,nm:2:4,...) and time their SpMM against OpenBLAS");
  train_cmd->add_option("--export-n", args->export_n, "Columns of B in the export timing")
      ->capture_default_str();
  train_cmd->add_option("--export-ms", args->export_ms, "Minimum timing per kernel (ms)")
      ->capture_default_str();
  set_callback(train_cmd, "prune-train", [args] {
#ifdef SPARSEMAP_HAVE_TORCH
    run_train(*args);
#endif
  });

  auto cargs = std::make_shared<PruneArgs>();
  CLI::App* compare_cmd = app.add_subcommand(
      "prune-compare", "Train with several algorithms and print one comparison table");
  add_training(compare_cmd, cargs.get());
  compare_cmd->add_option("--algos", cargs->algos, "Algorithms, comma-separated")
      ->capture_default_str();
  set_callback(compare_cmd, "prune-compare", [cargs] {
#ifdef SPARSEMAP_HAVE_TORCH
    run_compare(*cargs);
#endif
  });

  auto oargs = std::make_shared<PruneArgs>();
  oargs->algos = "magnitude,random,static_sparse,set,rigl,magnitude_ste,sr_ste";
  CLI::App* overhead_cmd = app.add_subcommand(
      "prune-overhead", "Time a training step with each algorithm's masking against a dense one");
  add_common(overhead_cmd, oargs.get());
  overhead_cmd->add_option("--algos", oargs->algos, "Algorithms, comma-separated")
      ->capture_default_str();
  overhead_cmd->add_option("--steps", oargs->steps, "Timed steps per round and contender")
      ->capture_default_str();
  overhead_cmd->add_option("--rounds", oargs->rounds, "Rounds (dense and sparse alternate)")
      ->capture_default_str();
  overhead_cmd
      ->add_option("--schedule-steps", oargs->schedule_steps,
                   "Training length the default schedules are made for (update frequency)")
      ->capture_default_str();
  set_callback(overhead_cmd, "prune-overhead", [oargs] {
#ifdef SPARSEMAP_HAVE_TORCH
    run_overhead(*oargs);
#endif
  });
}

}  // namespace sparsemap::cli
