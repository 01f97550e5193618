// `sparsemap train`: N:M sparse training of the study's transformers (vit-tiny on Fashion-MNIST,
// char-gpt on the King James text) with one recipe, with a progress bar on a terminal, periodic
// evaluation, checkpoints and resume. The work is ml::train::run (ml/train/run.h); this file is
// flags -> Options, then the summary.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/train/run.h"

namespace sparsemap::cli {

namespace {

namespace tr = ml::train;

// The flags of `train` that only the CLI has (how to print), beside the run's Options.
struct TrainArgs {
  tr::Options o;
  std::string json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH

// On a terminal: a bar redrawn in place, and the evaluation lines. Into a file or a pipe: the
// evaluation lines only, with no carriage returns or escape codes. Nothing when quiet.
class TrainProgress : public search::Observer {
 public:
  TrainProgress(bool quiet, bool tty) : quiet_(quiet), tty_(tty) {}
  void on_progress(const search::Progress& p) override {
    if (quiet_ || !tty_) return;
    const int width = 30, done = static_cast<int>(width * p.done / p.total);
    std::cerr << "\r"
              << "[" + std::string(static_cast<size_t>(done), '=') +
                     std::string(static_cast<size_t>(width - done), ' ') + "] " +
                     std::to_string(p.done) + "/" + std::to_string(p.total) + " loss " +
                     fixed(p.best, 4) + " " + p.label
              << "\033[K" << std::flush;
  }
  void on_note(const std::string& line) override {
    if (quiet_) return;
    if (!tty_)
      std::cerr << line << "\n" << std::flush;
    else
      std::cerr << "\r" << line << "\033[K\n" << std::flush;
  }

 private:
  bool quiet_ = false, tty_ = false;
};

// Flags -> Options, run, print the summary, write to_json.
void run(const TrainArgs& a) {
  const bool tty = isatty(fileno(stderr));
  TrainProgress observer(a.quiet, tty);
  const tr::Result res = tr::run(a.o, observer);
  const tr::TrainResult& r = res.train;
  if (!a.quiet && tty) std::cerr << "\r\033[K" << std::flush;
  const bool gpt = r.metric_name == "valid_nats_per_char";
  if (!a.quiet && a.json != "-") {
    // Two lines, each under 120 columns: the result, then what it cost.
    std::cout << r.recipe << " " << r.nm << " " << r.model << " on " << r.data << ": "
              << (gpt ? "validation " + fixed(r.metric, 4) + " nats/char"
                      : "test accuracy " + fixed(r.metric, 2) + "%")
              << ", train loss " << fixed(r.train_loss, 4)
              << (r.layers.empty() ? ""
                  : res.nm_exact   ? ", N:M exact in every layer"
                                   : ", N:M NOT exact in some layer")
              << "\n  " << with_commas(r.params) << " parameters, " << r.steps << " steps of batch "
              << r.batch
              << (r.resumed ? " (resumed at step " + std::to_string(r.resumed_from) + ")" : "")
              << ", " << fixed(r.train_s, 1) << " s training (" << fixed(r.total_s, 1)
              << " s in all), " << fixed(r.training_flops / 1e12, 3) << " TFLOPs ("
              << fixed(100.0 * r.training_flops / r.dense_flops, 1) << "% of dense)\n";
  }
  if (!a.json.empty()) write_json(tr::to_json(res), a.json);
}

#endif  // SPARSEMAP_HAVE_TORCH

}  // namespace

void register_train(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "train", "N:M sparse training of vit-tiny (Fashion-MNIST) or char-gpt (King James text)");
  add_options(cmd, tr::option_table(), a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
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
