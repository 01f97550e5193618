// `sparsemap prune-train`, `prune-compare` and `prune-overhead`: sparse training of a small
// classifier on Fashion-MNIST with the JaxPruner-style algorithms of ml/prune, the comparison
// of algorithms in one table, and the masking overhead per training step. The work is
// ml::prune's run_train / run_compare / run_overhead (ml/prune/run.h); this file is flags ->
// Options, then the tables.
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/prune/run.h"

namespace sparsemap::cli {

namespace {

namespace pr = ml::prune;

// The flags of the prune commands that only the CLI has (how to print), beside the Options.
struct PruneArgs {
  pr::Options o;
  std::string json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH

// The progress lines and the warnings ("sparsemap: warning: ...") on stderr, nothing when
// quiet.
class PruneProgress : public search::Observer {
 public:
  explicit PruneProgress(bool quiet) : quiet_(quiet) {}
  void on_note(const std::string& line) override {
    if (!quiet_) std::cerr << line << "\n" << std::flush;
  }
  void on_warning(const std::string& text) override {
    if (!quiet_) std::cerr << "sparsemap: warning: " << text << "\n";
  }

 private:
  bool quiet_ = false;
};

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

// "fc1 80.0 / fc2 80.0 / fc3 80.0": the sparsity of each pruned weight.
std::string layers_text(const pr::TrainResult& r) {
  std::string t;
  for (const pr::LayerSparsity& l : r.layers) {
    if (l.shape.size() < 2) continue;
    std::string name = l.name.substr(0, l.name.rfind(".weight"));
    t += (t.empty() ? "" : " / ") + name + " " + fixed(100.0 * l.sparsity(), 1);
  }
  return t;
}

// The export table of prune-train --export.
void print_export(const pr::TrainRunResult& res) {
  Table t({"layer", "M x K x N", "format", "sparsity %", "bytes", "dense bytes", "dense ms",
           "sparse ms", "speedup", "max rel err", "note"});
  for (const pr::ExportRow& e : res.export_rows) {
    const std::string dims =
        std::to_string(e.rows) + "x" + std::to_string(e.cols) + "x" + std::to_string(e.n);
    if (e.error.empty())
      t.add({e.layer, dims, e.format, fixed(100.0 * e.sparsity, 1), with_commas(e.footprint_bytes),
             with_commas(e.dense_bytes), fixed(e.dense_ms, 4), fixed(e.sparse_ms, 4),
             fixed(e.speedup, 2), fixed(e.max_rel_err, 7), ""});
    else
      t.add({e.layer, dims, e.format, fixed(100.0 * e.sparsity, 1), "-", with_commas(e.dense_bytes),
             fixed(e.dense_ms, 4), "-", "-", "-", e.error});
  }
  std::cout << "\nexport (C = W x B, B random " << res.options.export_n << " columns):\n"
            << t.str();
}

void run_train(const PruneArgs& a) {
  PruneProgress observer(a.quiet);
  const pr::TrainRunResult res = pr::run_train(a.o, observer);
  const pr::TrainResult& r = res.train;
  if (!a.quiet && a.json != "-") {
    std::cout << r.algorithm << " on " << r.model << ", " << a.o.data << ": test accuracy "
              << fixed(r.test_accuracy_pct, 2) << "%, pruned sparsity "
              << fixed(100.0 * r.pruned_sparsity, 2) << "%, " << fixed(r.step_ms, 2)
              << " ms/step (updater " << fixed(r.hook_ms_per_step, 3) << " ms), " << r.steps
              << " steps\n";
    Table t({"parameter", "shape", "params", "target %", "mask %", "zeros %"});
    for (const pr::LayerSparsity& l : r.layers)
      t.add({l.name, shape_text(l.shape), with_commas(l.numel),
             l.target >= 0 ? fixed(100.0 * l.target, 2) : "dense",
             l.mask_sparsity >= 0 ? fixed(100.0 * l.mask_sparsity, 2) : "-",
             fixed(100.0 * l.sparsity(), 2)});
    std::cout << t.str();
    if (res.exported) print_export(res);
  }
  if (!a.json.empty()) write_json(pr::to_json(res), a.json);
}

void run_compare(const PruneArgs& a) {
  PruneProgress observer(a.quiet);
  const pr::CompareResult res = pr::run_compare(a.o, observer);
  if (!a.quiet && a.json != "-") {
    Table t({"algorithm", "test acc %", "sparsity % per layer", "pruned %", "ms/step", "updater ms",
             "train s"});
    for (const pr::TrainResult& r : res.runs)
      t.add({r.algorithm, fixed(r.test_accuracy_pct, 2), layers_text(r),
             fixed(100.0 * r.pruned_sparsity, 2), fixed(r.step_ms, 2), fixed(r.hook_ms_per_step, 3),
             fixed(r.train_ms / 1000.0, 1)});
    const pr::Options& o = a.o;
    std::cout << o.model << " on " << o.data << ", target sparsity " << fixed(100.0 * o.sparsity, 1)
              << "%, " << o.epochs << " epochs, batch " << o.batch << ", " << o.optimizer << " lr "
              << o.lr << ", seed " << o.seed << "\n"
              << t.str();
  }
  if (!a.json.empty()) write_json(pr::to_json(res), a.json);
}

void run_overhead(const PruneArgs& a) {
  PruneProgress observer(a.quiet);
  const pr::OverheadResult res = pr::run_overhead(a.o, observer);
  if (!a.quiet && a.json != "-") {
    Table t({"algorithm", "dense ms", "sparse ms", "overhead %", "hooks ms", "hooks %", "update ms",
             "every", "amortised %"});
    for (const pr::OverheadRow& r : res.rows)
      t.add({r.algorithm, fixed(r.dense_step_ms, 3), fixed(r.step_ms, 3), fixed(r.overhead_pct, 1),
             fixed(r.hook_ms, 3), fixed(r.hook_pct, 1), fixed(r.update_ms, 2),
             r.update_every ? std::to_string(r.update_every) : "-", fixed(r.amortized_pct, 2)});
    std::cout << a.o.model << ", batch " << a.o.batch << ", " << a.o.optimizer << ", "
              << a.o.rounds * a.o.steps << " timed steps per contender (medians), OpenBLAS "
              << res.openblas_core << "\n"
              << t.str();
  }
  if (!a.json.empty()) write_json(pr::to_json(res), a.json);
}

#endif  // SPARSEMAP_HAVE_TORCH

// A prune command: its flags from `table`, and its run (or, without libtorch, the hand-over to
// sparsemap-ml).
template <class F>
void add_command(CLI::App& app, const std::string& name, const std::string& help,
                 const options::Table<pr::Options>& table, pr::Options defaults, F f) {
  auto a = std::make_shared<PruneArgs>();
  a->o = std::move(defaults);
  CLI::App* cmd = app.add_subcommand(name, help);
  add_options(cmd, table, a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
  cmd->callback([name, f, a] {
#ifdef SPARSEMAP_HAVE_TORCH
    f(*a);
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
#ifdef SPARSEMAP_HAVE_TORCH
  const auto train = run_train, compare = run_compare, overhead = run_overhead;
#else
  const auto train = [](const PruneArgs&) {}, compare = train, overhead = train;
#endif
  add_command(app, "prune-train",
              "Train a small classifier on Fashion-MNIST with a pruning algorithm",
              pr::train_option_table(), pr::Options(), train);
  add_command(app, "prune-compare", "Train with several algorithms and print one comparison table",
              pr::compare_option_table(), pr::Options(), compare);
  add_command(app, "prune-overhead",
              "Time a training step with each algorithm's masking against a dense one",
              pr::overhead_option_table(), pr::overhead_defaults(), overhead);
}

}  // namespace sparsemap::cli
