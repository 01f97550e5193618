// `sparsemap hwalloc`: ConfuciuX-style hardware resource assignment (per-layer PEs and buffer
// level under an area or power budget): REINFORCE + GA fine-tuning, and baselines at equal
// cost-model calls. The work is dse::hwalloc::run (dse/hwalloc/run.h); this file is flags ->
// Options, then the table.
#include <unistd.h>

#include <cstdio>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/dse/hwalloc/run.h"
#include "sparsemap/error.h"
#include "sparsemap/search/optimizer.h"
#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/hwalloc/policy.h"
#endif

namespace sparsemap::cli {
namespace {

namespace hw = dse::hwalloc;

// The flags of `hwalloc` that only the CLI has (what to write, how to print), beside the run's
// Options.
struct HwallocArgs {
  hw::Options o;
  std::string json, plot;
  bool quiet = false;
};

// The progress line on stderr ("episode N  calls X/Y  best Z"), ended by a newline.
class ProgressLine : public search::Observer {
 public:
  explicit ProgressLine(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (!bar_) return;
    std::fprintf(
        stderr, "\r%s %lld  calls %lld/%lld  best %s        ", p.label.c_str(),
        static_cast<long long>(p.item), static_cast<long long>(p.done),
        static_cast<long long>(p.total),
        p.best < search::kInfeasible ? with_commas(static_cast<int64_t>(p.best)).c_str() : "none");
    std::fflush(stderr);
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\n");
  }

 private:
  bool bar_ = false;
};

void print_result(const hw::Result& r) {
  const hw::Options& a = r.options;
  const hw::Tracker& tr = r.tracker;
  const bool energy = hw::parse_objective(a.objective) == hw::Objective::Energy;
  std::printf(
      "hwalloc %s: %s, %s, %s %s budget %.6g\n  (%.3g of the way from min %.6g to max %.6g)\n",
      a.method.c_str(), r.model.c_str(), a.dataflow.c_str(), a.deployment.c_str(),
      a.constraint.c_str(), r.constraint, r.fraction, r.constraint_min, r.constraint_max);
  if (tr.has_best) {
    Table t({"layer", "dims", "dataflow", "pes", "buffer", "latency_cycles", "area"});
    for (const hw::LayerRow& row : r.layers)
      t.add({row.layer.name, layer_dims_text(row.layer),
             std::string(hw::dataflow_name(row.choice.dataflow)), std::to_string(row.choice.pes),
             std::to_string(row.choice.k_tile), with_commas(row.cost.latency_cycles),
             fixed(row.cost.area, 0)});
    std::printf("%s", t.str().c_str());
    const hw::DesignCost& c = tr.best_cost;
    std::printf(
        "best %s %s (latency %s cycles, energy %.4g nJ)\n%s %.6g = %.2f%% of the budget,"
        " found after %s calls\n",
        energy ? "energy" : "latency",
        energy ? fixed(c.energy_nj, 1).c_str() : with_commas(c.latency_cycles).c_str(),
        with_commas(c.latency_cycles).c_str(), c.energy_nj, a.constraint.c_str(), c.constraint,
        100 * c.constraint / r.constraint,
        with_commas(r.budgeted(tr.states_to_best, tr.lookups_to_best)).c_str());
  }
  if (!r.note.empty()) std::printf("note: %s\n", r.note.c_str());
  std::printf(
      "calls %s (%s; the budget counts %s): lookups %s, distinct states %s; designs %s, wall %.2f "
      "s\n",
      with_commas(r.calls).c_str(),
      r.budget_count == hw::BudgetCount::States ? "distinct states" : "lookups",
      std::string(hw::budget_count_name(r.budget_count)).c_str(), with_commas(r.lookups).c_str(),
      with_commas(r.states).c_str(), with_commas(r.designs).c_str(), r.wall_s);
}

// Flags -> Options, run, print the table, write to_json and the plot.
void run_hwalloc(HwallocArgs& a) {
  hw::check_options(a.o, a.json, a.plot);
#ifdef SPARSEMAP_HAVE_TORCH
  a.o.rl = ml::hwalloc::rl_method();
#else
  // Without libtorch the RL methods hand over to sparsemap-ml (run() refuses them when there is
  // none).
  if (hw::is_rl_method(a.o.method)) hand_over_to_torch_build();
#endif
  ProgressLine observer(!a.quiet && isatty(2));
  const hw::Result r = hw::run(a.o, observer);
  if (a.json != "-") print_result(r);
  if (!a.json.empty()) write_json(hw::to_json(r), a.json);
  if (!a.plot.empty()) hw::write_plot(r, a.plot);
}

}  // namespace

void register_hwalloc(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "hwalloc", "ConfuciuX: per-layer PEs and buffer level under an area or power budget");
  auto a = std::make_shared<HwallocArgs>();
  add_options(sub, hw::option_table(), a->o,
              {{"--json", &a->json}, {"--plot", &a->plot}, {"--quiet", &a->quiet}});
  sub->callback([a]() { run_hwalloc(*a); });
}

}  // namespace sparsemap::cli
