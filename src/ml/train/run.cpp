// `sparsemap train`'s work as a library call: flags -> TrainOptions, training, and the JSON
// (run.h).
#include "sparsemap/ml/train/run.h"

namespace sparsemap::ml::train {

namespace {

// The trainer's options from the command's.
TrainOptions train_options(const Options& a) {
  TrainOptions o;
  o.model = a.model;
  o.data = a.data.empty()
               ? (a.model == "char-gpt" || a.model == "char_gpt" ? "kjv" : "fashion-mnist")
               : a.data;
  o.data_dir = a.data_dir;
  o.recipe.kind = parse_recipe(a.recipe);
  o.recipe.nm = parse_nm(a.nm);
  o.recipe.dense_fraction = a.dense_fraction;
  o.recipe.fine_fraction = a.fine_fraction;
  o.recipe.srste_lambda = a.lambda;
  o.recipe.alpha = a.alpha;
  if (!a.sequence.empty()) {
    size_t start = 0;
    while (start <= a.sequence.size()) {
      size_t comma = a.sequence.find(',', start);
      if (comma == std::string::npos) comma = a.sequence.size();
      o.recipe.sequence.push_back(
          parse_nm(a.sequence.substr(start, comma - start), "<flag --sequence>"));
      start = comma + 1;
    }
  }
  o.nm_attention = a.nm_attention;
  o.nm_mlp = a.nm_mlp;
  o.quick = a.quick;
  o.epochs = a.epochs;
  o.steps = a.steps;
  o.batch = a.batch;
  o.lr = a.lr;
  o.weight_decay = a.weight_decay;
  o.train_limit = a.train_limit;
  o.test_limit = a.test_limit;
  o.eval_every = a.eval_every;
  o.seed = a.seed;
  o.threads = a.threads;
  o.checkpoint = a.checkpoint;
  o.resume = a.resume;
  return o;
}

}  // namespace

Result run(const Options& o, search::Observer& observer) {
  Result r;
  r.options = o;
  r.train = train(train_options(o), observer);
  for (const LayerNm& l : r.train.layers) r.nm_exact = r.nm_exact && l.exact;
  return r;
}

nlohmann::json to_json(const Result& res) {
  const TrainResult& r = res.train;
  nlohmann::json layers = nlohmann::json::array(), history = nlohmann::json::array();
  for (const LayerNm& l : r.layers)
    layers.push_back(
        {{"name", l.name}, {"nm", l.ratio}, {"exact", l.exact}, {"sparsity_pct", l.sparsity_pct}});
  for (const EvalPoint& e : r.history)
    history.push_back({{"step", e.step},
                       {"train_loss", e.train_loss},
                       {r.metric_name, e.metric},
                       {"elapsed_s", e.elapsed_s}});
  return {{"command", "train"},
          {"model", r.model},
          {"data", r.data},
          {"recipe", r.recipe},
          {"nm", r.nm},
          {"seed", res.options.seed},
          {"quick", res.options.quick},
          {"params", r.params},
          {"steps", r.steps},
          {"batch", r.batch},
          {r.metric_name, r.metric},
          {"train_loss", r.train_loss},
          {"train_s", r.train_s},
          {"total_s", r.total_s},
          {"training_flops", r.training_flops},
          {"dense_training_flops", r.dense_flops},
          {"resumed_from_step", r.resumed ? nlohmann::json(r.resumed_from) : nlohmann::json()},
          {"nm_exact", res.nm_exact},
          {"layers", layers},
          {"history", history}};
}

}  // namespace sparsemap::ml::train
