// `sparsemap mse`: the map-space-exploration study (Kao et al., IISWC 2022 style): every search
// algorithm at every budget and seed on the distinct layers of several models; per algorithm
// and budget the geomean of latency / best found by any method, the samples to get within 5%
// of it, wall time, and convergence curves (CSV, gnuplot). The work is dse::mse::run
// (dse/mse/run.h); this file is flags -> Options, then the table.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/dse/mse/run.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::cli {
namespace {

namespace ms = dse::mse;

// The flags of `mse` that only the CLI has (how to print), beside the run's Options.
struct MseArgs {
  ms::Options o;
  std::string json;
  bool quiet = false;
};

// One line on stderr as each (algo, budget, seed) run starts: "mse: gamma budget 1000 seed 1
// (12 layers)"; on a terminal only.
class RunLines : public search::Observer {
 public:
  explicit RunLines(bool show) : show_(show) {}
  void on_progress(const search::Progress& p) override {
    if (!show_ || p.done != 0 || p.label == last_) return;
    last_ = p.label;
    std::cerr << "mse: " << p.label << " (" << p.items << " layers)\n";
  }

 private:
  bool show_ = false;
  std::string last_;
};

void print_study(const ms::Result& r) {
  const ms::Options& a = r.options;
  const int64_t bmax = ms::largest_budget(r);
  Table t({"algo", "budget", "geomean latency / best", "samples to 5% (median)", "reached 5% %",
           "wall s / seed"});
  for (const ms::Row& row : r.rows)
    t.add({row.algo, with_commas(row.budget), fixed(row.geomean, 4),
           row.median_samples < 0 ? "> budget"
                                  : with_commas(static_cast<int64_t>(row.median_samples)),
           fixed(row.reached_pct, 1), fixed(row.wall_s, 2)});
  std::cout << "map-space exploration on " << r.hw.name << " (" << r.hw.num_pes << " PEs), "
            << a.objective << ", " << r.layers.size() << " distinct layers of " << a.models << ", "
            << a.seeds << " seeds"
            << (bmax > search::kBoSampleCap &&
                        std::find(r.algos.begin(), r.algos.end(), "bo") != r.algos.end()
                    ? "\n" + ms::bo_cap_note()
                    : std::string())
            << "\n"
            << t.str();
}

// Flags -> Options, run, print the table, write the curves and the JSON.
void run_mse(const MseArgs& a) {
  RunLines lines(!a.quiet && isatty(fileno(stderr)));
  const ms::Result r = ms::run(a.o, lines);
  if (!r.root) return;
  print_study(r);
  ms::write_outputs(r);
  if (!a.json.empty()) write_json(ms::to_json(r), a.json);
}

}  // namespace

void register_mse(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "mse", "Map-space exploration study: compare search algorithms on the layers of models");
  auto a = std::make_shared<MseArgs>();
  add_options(cmd, ms::option_table(), a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
  cmd->footer(
      "With no option, mse prints this help: the default study (3 models, 8 algorithms, 2 budgets, "
      "3 "
      "seeds) is a\nlong run. A small one: sparsemap mse --models resnet18 --budgets 300 --seeds 1 "
      "--max-layers 4");
  cmd->callback([a, cmd] {
    if (cmd->count_all() == cmd->count()) throw CLI::CallForHelp();  // no option given
    run_mse(*a);
  });
}

}  // namespace sparsemap::cli
