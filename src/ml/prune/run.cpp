// `sparsemap prune-train`, `prune-compare` and `prune-overhead`'s work as library calls: flags ->
// train.h's options, training or timing, the export, and the JSON (run.h).
#include "sparsemap/ml/prune/run.h"

#include <cctype>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/sparse/format/format_spec.h"
#include "sparsemap/sparse/kernels/spmm.h"

namespace sparsemap::ml::prune {

namespace {

DataOptions data_options(const Options& a) {
  DataOptions d;
  d.name = a.data;
  d.dir = a.data_dir;
  d.train_limit = a.train_limit;
  d.test_limit = a.test_limit;
  d.seed = a.seed;
  return d;
}

// train()'s options for algorithm `algo`. InputError at "<flag --mask-grads>" for a value
// other than auto, on or off.
TrainOptions train_options(const Options& a, const std::string& algo) {
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

// The non-empty items of a comma-separated list.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  for (std::string s; std::getline(ss, s, ',');)
    if (!s.empty()) items.push_back(s);
  return items;
}

// The number after "key " in a progress line (0 when absent).
double number_after(const std::string& line, const std::string& key) {
  const size_t at = line.find(key + " ");
  return at == std::string::npos ? 0.0 : std::atof(line.c_str() + at + key.size() + 1);
}

// train()'s / measure_overhead's progress lines to `observer`: each line a note, then a
// progress report of `item` of `items` (done: the lines so far, of `total`), whose best is the
// number after `key` in the line; throws Cancelled when the observer asks to stop.
ProgressFn reporter(search::Observer& observer, size_t item, size_t items, int64_t total,
                    const std::string& key) {
  auto done = std::make_shared<int64_t>(0);
  return [&observer, item, items, total, key, done](const std::string& line) {
    observer.on_note(line);
    search::Progress p;
    p.item = item;
    p.items = items;
    p.done = ++*done;
    p.total = total;
    p.best = number_after(line, key);
    p.label = line.substr(1, line.find(']') - 1);  // "[magnitude] ..."
    search::report_progress(observer, p);
    if (observer.stop_requested()) throw search::Cancelled();
  };
}

nlohmann::json layers_json(const TrainResult& r) {
  nlohmann::json layers = nlohmann::json::array();
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
  return layers;
}

// One training run's JSON (prune-train's, less command, data and seed; an entry of
// prune-compare's results).
nlohmann::json result_json(const TrainResult& r) {
  nlohmann::json history = nlohmann::json::array();
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
          {"layers", layers_json(r)},
          {"history", history}};
}

nlohmann::json export_json(const ExportRow& e) {
  return {{"layer", e.layer},
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
          {"error", e.error}};
}

std::string lower(std::string x) {
  for (char& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return x;
}

}  // namespace

TrainRunResult run_train(const Options& o, search::Observer& observer) {
  std::vector<sparse::FormatSpec> formats;
  for (const std::string& f : split_list(o.export_formats))
    formats.push_back(sparse::parse_format(f));  // fail before training
  TrainRunResult r;
  r.options = o;
  r.train = train(train_options(o, o.algo), reporter(observer, 0, 1, o.epochs, "loss"));
  r.exported = !formats.empty();
  if (r.exported) {
    ExportOptions eo;
    eo.formats = formats;
    eo.n = o.export_n;
    eo.threads = o.threads;
    eo.min_ms = o.export_ms;
    eo.seed = o.seed;
    r.export_rows = export_weights(r.train.weights, eo);
  }
  r.train.weights.clear();
  return r;
}

CompareResult run_compare(const Options& o, search::Observer& observer) {
  const std::vector<std::string> algos = split_list(o.algos);
  if (algos.empty()) throw InputError({"<flag --algos>", 0, 0}, "no algorithm given");
  for (const std::string& s : algos) parse_algorithm(s);  // fail before any training
  CompareResult r;
  r.options = o;
  for (size_t i = 0; i < algos.size(); ++i)
    r.runs.push_back(
        train(train_options(o, algos[i]), reporter(observer, i, algos.size(), o.epochs, "loss")));
  return r;
}

OverheadResult run_overhead(const Options& a, search::Observer& observer) {
  OverheadOptions o;
  o.model = a.model;
  o.data = data_options(a);
  o.algorithms.clear();
  for (const std::string& s : split_list(a.algos))
    if (s != "dense" && s != "no_prune") o.algorithms.push_back(s);
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
  OverheadResult r;
  r.options = a;
  r.openblas_core = sparse::openblas_core_name();
  const std::string& core = r.openblas_core;
  const std::string best = sparse::openblas_best_core();
  if (std::getenv("OPENBLAS_L2_SIZE"))
    observer.on_warning("OPENBLAS_L2_SIZE is set; measure with it unset");
  // Cooperlake's OpenBLAS kernels are SkylakeX's plus bf16 ones: SkylakeX is as fast for sgemm.
  const bool same =
      lower(core) == lower(best) || (best == "Cooperlake" && lower(core) == "skylakex");
  if (!best.empty() && !same)
    observer.on_warning("OpenBLAS runs its " + core + " kernel on a CPU that has " + best +
                        "'s; for a fair dense baseline\n  run this command alone with " +
                        "`env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=" + best +
                        " sparsemap prune-overhead ...`");
  // One progress line per algorithm: item i of n is the i-th line.
  auto line = std::make_shared<size_t>(0);
  const size_t n = o.algorithms.size();
  ProgressFn each = [&observer, line, n](const std::string& text) {
    reporter(observer, (*line)++, n, 1, "sparse")(text);
  };
  r.rows = measure_overhead(o, each);
  return r;
}

nlohmann::json to_json(const TrainRunResult& r) {
  nlohmann::json j = result_json(r.train);
  j["command"] = "prune-train";
  j["data"] = r.options.data;
  j["seed"] = r.options.seed;
  if (r.exported) {
    nlohmann::json rows = nlohmann::json::array();
    for (const ExportRow& e : r.export_rows) rows.push_back(export_json(e));
    j["export"] = rows;
  }
  return j;
}

nlohmann::json to_json(const CompareResult& r) {
  nlohmann::json results = nlohmann::json::array();
  for (const TrainResult& t : r.runs) results.push_back(result_json(t));
  return {{"command", "prune-compare"}, {"model", r.options.model},
          {"data", r.options.data},     {"target_sparsity_pct", 100.0 * r.options.sparsity},
          {"epochs", r.options.epochs}, {"batch", r.options.batch},
          {"seed", r.options.seed},     {"results", results}};
}

nlohmann::json to_json(const OverheadResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const OverheadRow& x : r.rows)
    rows.push_back({{"algorithm", x.algorithm},
                    {"dense_step_ms", x.dense_step_ms},
                    {"step_ms", x.step_ms},
                    {"overhead_pct", x.overhead_pct},
                    {"hook_ms", x.hook_ms},
                    {"hook_pct", x.hook_pct},
                    {"update_ms", x.update_ms},
                    {"update_every_steps", x.update_every},
                    {"amortized_pct", x.amortized_pct},
                    {"samples", x.samples}});
  return {{"command", "prune-overhead"},
          {"model", r.options.model},
          {"batch", r.options.batch},
          {"optimizer", r.options.optimizer},
          {"target_sparsity_pct", 100.0 * r.options.sparsity},
          {"openblas_core", r.openblas_core},
          {"rows", rows}};
}

}  // namespace sparsemap::ml::prune
