// `sparsemap train`: N:M sparse training of the study's transformers (vit-tiny on Fashion-MNIST,
// char-gpt on the King James text) with one recipe (ml/train), with a progress bar on a
// terminal, periodic evaluation, checkpoints and resume.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "sparsemap/error.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/train/trainer.h"
#endif

namespace sparsemap::cli {

namespace {

struct TrainArgs {
  std::string model = "vit-tiny";
  std::string data;  // default by model
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::string recipe = "srste";
  std::string nm = "2:4";
  std::string nm_attention, nm_mlp, sequence;
  double dense_fraction = 0.0, fine_fraction = 0.2, lambda = 2e-4, alpha = 0.0;
  bool quick = false;
  int epochs = 10;
  int64_t steps = 0, batch = 0, train_limit = 0, test_limit = 0, eval_every = 0;
  double lr = 0, weight_decay = 0.05;
  uint64_t seed = 1;
  int threads = 0;
  std::string checkpoint, resume, json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH

using namespace sparsemap::ml::train;

void run(const TrainArgs& a) {
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
  // On a terminal: a bar redrawn in place, and the evaluation lines. Into a file or a pipe:
  // the evaluation lines only, with no carriage returns or escape codes.
  const bool tty = isatty(fileno(stderr));
  ProgressFn progress;
  if (!a.quiet)
    progress = [tty](const std::string& line, bool transient) {
      if (!tty) {
        if (!transient) std::cerr << line << "\n" << std::flush;
      } else if (transient) {
        std::cerr << "\r" << line << "\033[K" << std::flush;
      } else {
        std::cerr << "\r" << line << "\033[K\n" << std::flush;
      }
    };
  const TrainResult r = train(o, progress);
  if (!a.quiet && tty) std::cerr << "\r\033[K" << std::flush;
  const bool gpt = r.metric_name == "valid_nats_per_char";
  nlohmann::json layers = nlohmann::json::array(), history = nlohmann::json::array();
  bool exact = true;
  for (const LayerNm& l : r.layers) {
    layers.push_back(
        {{"name", l.name}, {"nm", l.ratio}, {"exact", l.exact}, {"sparsity_pct", l.sparsity_pct}});
    exact = exact && l.exact;
  }
  for (const EvalPoint& e : r.history)
    history.push_back({{"step", e.step},
                       {"train_loss", e.train_loss},
                       {r.metric_name, e.metric},
                       {"elapsed_s", e.elapsed_s}});
  if (!a.quiet && a.json != "-") {
    // Two lines, each under 120 columns: the result, then what it cost.
    std::cout << r.recipe << " " << r.nm << " " << r.model << " on " << r.data << ": "
              << (gpt ? "validation " + fixed(r.metric, 4) + " nats/char"
                      : "test accuracy " + fixed(r.metric, 2) + "%")
              << ", train loss " << fixed(r.train_loss, 4)
              << (r.layers.empty() ? ""
                  : exact          ? ", N:M exact in every layer"
                                   : ", N:M NOT exact in some layer")
              << "\n  " << with_commas(r.params) << " parameters, " << r.steps << " steps of batch "
              << r.batch
              << (r.resumed ? " (resumed at step " + std::to_string(r.resumed_from) + ")" : "")
              << ", " << fixed(r.train_s, 1) << " s training (" << fixed(r.total_s, 1)
              << " s in all), " << fixed(r.training_flops / 1e12, 3) << " TFLOPs ("
              << fixed(100.0 * r.training_flops / r.dense_flops, 1) << "% of dense)\n";
  }
  if (!a.json.empty())
    write_json(
        {{"command", "train"},
         {"model", r.model},
         {"data", r.data},
         {"recipe", r.recipe},
         {"nm", r.nm},
         {"seed", a.seed},
         {"quick", a.quick},
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
         {"nm_exact", exact},
         {"layers", layers},
         {"history", history}},
        a.json);
}

#endif  // SPARSEMAP_HAVE_TORCH

}  // namespace

void register_train(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "train", "N:M sparse training of vit-tiny (Fashion-MNIST) or char-gpt (King James text)");
  cmd->add_option("--model", a->model, "vit-tiny or char-gpt")->capture_default_str();
  cmd->add_option("--data", a->data,
                  "fashion-mnist (vit-tiny), kjv (char-gpt; Debian bible-kjv), or synthetic");
  cmd->add_option("--data-dir", a->data_dir, "Folder of Fashion-MNIST's IDX files")
      ->capture_default_str();
  cmd->add_option("--recipe", a->recipe,
                  "dense, ste, srste, mdgf-linear, mdgf-exp, sdgf-sparsify or sdgf-fine")
      ->capture_default_str();
  cmd->add_option("--nm", a->nm, "Target N:M of every Linear in the blocks")->capture_default_str();
  cmd->add_option("--nm-attention", a->nm_attention, "N:M of the attention Linears (else --nm)");
  cmd->add_option("--nm-mlp", a->nm_mlp, "N:M of the MLP Linears (else --nm)");
  cmd->add_option("--sequence", a->sequence,
                  "Structure decay: the ratios to step through, N:M,N:M,... (ending at --nm)");
  cmd->add_option("--dense-fraction", a->dense_fraction, "Dense phase, fraction of the run")
      ->capture_default_str();
  cmd->add_option("--fine-fraction", a->fine_fraction,
                  "Fine-tune phase with a fixed binary mask, fraction of the run")
      ->capture_default_str();
  cmd->add_option("--lambda", a->lambda, "SR-STE lambda_W")->capture_default_str();
  cmd->add_option("--alpha", a->alpha,
                  "Mask decay rate per step (0: beta reaches 0, or exp(-5), at 3/4 of the "
                  "sparse phase)")
      ->capture_default_str();
  cmd->add_flag("--quick", a->quick, "The small model configuration");
  cmd->add_option("--epochs", a->epochs, "Epochs (char-gpt: train characters / (batch x context))")
      ->capture_default_str();
  cmd->add_option("--steps", a->steps, "Optimiser steps instead of --epochs (0: epochs)")
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "Batch (0: 128 images or 64 windows)")
      ->capture_default_str();
  cmd->add_option("--lr", a->lr, "Peak learning rate of AdamW (0: 1e-3 ViT, 2e-3 GPT)")
      ->capture_default_str();
  cmd->add_option("--weight-decay", a->weight_decay, "AdamW weight decay")->capture_default_str();
  cmd->add_option("--train-limit", a->train_limit, "First N training images / characters (0: all)")
      ->capture_default_str();
  cmd->add_option("--test-limit", a->test_limit, "First N test images / held-out characters")
      ->capture_default_str();
  cmd->add_option("--eval-every", a->eval_every, "Steps between evaluations (0: 10 per run)")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the model and the batches")->capture_default_str();
  cmd->add_option("--threads", a->threads, "libtorch threads (0: all cores)")
      ->capture_default_str();
  cmd->add_option("--checkpoint", a->checkpoint, "Write a checkpoint here at every evaluation");
  cmd->add_option("--resume", a->resume, "Continue from this checkpoint");
  cmd->add_option("--json", a->json, "Write JSON to FILE, or - for stdout");
  cmd->add_flag("--quiet", a->quiet, "No progress or summary");
  cmd->callback([a] {
#ifdef SPARSEMAP_HAVE_TORCH
    run(*a);
#else
    hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
    throw InputError({"<command train>", 0, 0},
                     "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
  });
}

}  // namespace sparsemap::cli
