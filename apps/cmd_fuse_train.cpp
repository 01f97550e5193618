// `sparsemap fuse-train`: trains the DNNFuser-style learned fusion mapper on the search
// mapper's trajectories, with progress on a terminal and checkpoint/resume. The work is
// ml::fusion::run (ml/fusion/run.h); this file is flags -> Options, then the table.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/fusion/run.h"

namespace sparsemap::cli {

namespace {

namespace mf = ml::fusion;

// The flags of `fuse-train` that only the CLI has (how to print), beside the run's Options.
struct FuseTrainArgs {
  mf::Options o;
  std::string json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH
// On a terminal, one line redrawn in place: the trajectory being generated, then the epoch.
class TrainLine : public search::Observer {
 public:
  explicit TrainLine(bool tty) : tty_(tty) {}
  void on_progress(const search::Progress& p) override {
    if (!tty_) return;
    const std::string counts = std::to_string(p.done) + "/" + std::to_string(p.total);
    const std::string line = p.item == 0 ? "data " + counts + " " + p.label
                                         : "epoch " + counts + " loss " + std::to_string(p.best);
    std::fprintf(stderr, "\r%-100s", line.c_str());
    std::fflush(stderr);
  }

 private:
  bool tty_ = false;
};
#endif

void run(const FuseTrainArgs& a) {
#ifdef SPARSEMAP_HAVE_TORCH
  mf::check_lists(a.o);
  check_output_file(a.json, "--json");
  const bool tty = !a.quiet && isatty(2);
  TrainLine observer(tty);
  const mf::Result res = mf::run(a.o, observer);
  const mf::TrainReport& r = res.report;
  if (tty) std::fprintf(stderr, "\n");
  Table t({"trajectories", "parameters", "epochs", "data s", "train s", "loss", "accuracy %"});
  t.add({std::to_string(r.trajectories), with_commas(r.parameters), std::to_string(r.epochs),
         fixed(r.data_s, 1), fixed(r.train_s, 1), fixed(r.final_loss, 4),
         fixed(r.train_accuracy_pct, 1)});
  std::cout << "fuse-train -> " << a.o.out << (r.resumed ? " (resumed)" : "") << "\n" << t.str();
  if (!a.json.empty()) write_json(mf::to_json(res), a.json);
#else
  (void)a;
  hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
  throw InputError({"<fuse-train>", 0, 0},
                   "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
}

}  // namespace

void register_fuse_train(CLI::App& app) {
  auto a = std::make_shared<FuseTrainArgs>();
  CLI::App* c = app.add_subcommand(
      "fuse-train", "Train the learned fusion mapper (DNNFuser) on search trajectories");
  c->add_option("--models", a->o.models, "zoo CNNs and synth:K (K synthetic CNNs)")
      ->capture_default_str();
  c->add_option("--batches", a->o.batches, "batch sizes drawn from")->capture_default_str();
  c->add_option("--buffers-kb", a->o.buffers_kb, "buffer budgets drawn from, KiB")
      ->capture_default_str();
  c->add_option("--draws", a->o.draws, "(batch, buffer) draws per model")->capture_default_str();
  c->add_option("--hw", a->o.hw, "accelerator preset or file")->capture_default_str();
  c->add_option("--objective", a->o.objective, "latency|energy|edp")->capture_default_str();
  c->add_option("--expert", a->o.expert, "the mapper whose mappings are learned: search|dp")
      ->capture_default_str();
  c->add_option("--search-budget", a->o.search_budget, "GA samples per trajectory")
      ->capture_default_str();
  c->add_option("--epochs", a->o.epochs, "training epochs")->capture_default_str();
  c->add_option("--minibatch", a->o.minibatch, "trajectories per step")->capture_default_str();
  c->add_option("--lr", a->o.lr, "AdamW learning rate")->capture_default_str();
  c->add_option("--fuse-weight", a->o.fuse_weight, "loss weight of the expert's fuse actions")
      ->capture_default_str();
  c->add_option("--d-model", a->o.d_model, "transformer width")->capture_default_str();
  c->add_option("--layers", a->o.layers, "transformer blocks")->capture_default_str();
  c->add_option("--heads", a->o.heads, "attention heads")->capture_default_str();
  c->add_option("--seed", a->o.seed, "seed")->capture_default_str();
  c->add_option("--threads", a->o.threads, "libtorch threads")->capture_default_str();
  c->add_option("--out", a->o.out, "the trained model, FILE.pt (the plain weights go to FILE.bin)")
      ->required();
  c->add_option("--checkpoint", a->o.checkpoint,
                "directory for trajectories and training state (trajectories.json, state.pt, "
                "optimizer.pt); a directory from an earlier run is resumed. Training resumes "
                "from this directory only, never from a model (.pt or the shipped .bin)");
  c->add_option("--json", a->json, "write JSON to FILE or - (stdout)");
  c->add_flag("--quiet", a->quiet, "no progress");
  c->callback([a]() { run(*a); });
}

}  // namespace sparsemap::cli
