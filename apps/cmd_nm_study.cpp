// `sparsemap nm-study`: every N:M recipe at several ratios and seeds on the ViT and the char-GPT,
// one cell at a time: each finished cell is written to the results JSON at once, and a rerun
// skips the cells already there, so the study can finish across several runs. Prints the table
// (mean and spread over seeds beside the training FLOPs) and plots it with gnuplot. The work is
// ml::nm_study::run (ml/nm_study/run.h); this file is flags -> Options, then the tables.
#include <iostream>
#include <memory>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/nm_study/run.h"

namespace sparsemap::cli {

namespace {

namespace ns = ml::nm_study;

// The flags of `nm-study` that only the CLI has (how to print), beside the run's Options.
struct StudyArgs {
  ns::Options o;
  std::string json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH

// One line per cell on stderr: "[k/N] KEY ..." when it starts, its outcome when it ends.
class CellLines : public search::Observer {
 public:
  explicit CellLines(bool quiet) : quiet_(quiet) {}
  void on_progress(const search::Progress& p) override {
    if (!quiet_)
      std::cerr << "[" << p.item + 1 << "/" << p.items << "] " << p.label << " ..." << std::flush;
  }
  void on_note(const std::string& text) override {
    if (!quiet_) std::cerr << " " << text << "\n";
  }

 private:
  bool quiet_ = false;
};

// One model's table: a row per recipe, a column per ratio. A recipe with no metric yet gets an
// empty entry in res.table, which write_plot then draws as an empty series (as it always has).
void print_table(ns::Result& res, const std::string& m) {
  std::vector<std::string> head = {"recipe"};
  for (const std::string& nm : res.ratios) head.push_back(nm);
  Table t(head);
  for (const std::string& r : res.recipes) {
    std::vector<std::string> row = {r};
    for (const std::string& nm : res.ratios) {
      auto& cells = res.table[m][r];
      auto it = cells.find(r == "dense" ? "-" : nm);
      if (it == cells.end()) {
        row.push_back("-");
        continue;
      }
      const ns::Stat& s = it->second;
      const int digits = m == "char-gpt" ? 3 : 2;
      row.push_back(fixed(s.mean, digits) + (s.n > 1 ? " +-" + fixed(s.spread, digits) : "") +
                    " (" + fixed(100.0 * s.flops, 0) + "%)");
    }
    t.add(row);
  }
  std::cout << m << ": " << (m == "char-gpt" ? "validation nats/char" : "test accuracy %")
            << " (mean +- half range over seeds; training FLOPs as % of dense)\n"
            << t.str() << "\n";
}

// Flags -> Options, run, print the tables, write to_json, then the plot.
void run(const StudyArgs& a) {
  CellLines observer(a.quiet);
  ns::Result res = ns::run(a.o, observer);
  if (!a.quiet && a.json != "-") {
    for (const std::string& m : res.models)
      if (res.table.count(m)) print_table(res, m);
    std::cout << res.ran << " cells run now, " << res.grid << " in the grid; results in "
              << a.o.results << "\n";
  }
  if (!a.json.empty()) write_json(ns::to_json(res), a.json);
  ns::write_plot(res);
}

#endif  // SPARSEMAP_HAVE_TORCH

}  // namespace

void register_nm_study(CLI::App& app) {
  auto a = std::make_shared<StudyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "nm-study", "Every N:M recipe x ratio x seed on vit-tiny and char-gpt (resumable)");
  add_options(cmd, ns::option_table(), a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
  cmd->callback([a] {
#ifdef SPARSEMAP_HAVE_TORCH
    run(*a);
#else
    hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
    throw InputError({"<command nm-study>", 0, 0},
                     "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
  });
}

}  // namespace sparsemap::cli
