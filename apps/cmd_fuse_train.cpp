// `sparsemap fuse-train`: trains the DNNFuser-style learned fusion mapper on the search
// mapper's trajectories, with progress on a terminal and checkpoint/resume. The work is
// ml::fusion::run (ml/fusion/run.h); this file is flags -> Options, then the table.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "option_table.h"
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
  add_options(c, mf::option_table(), a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
  c->callback([a]() { run(*a); });
}

}  // namespace sparsemap::cli
