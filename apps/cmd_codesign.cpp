// `sparsemap codesign`: DiGamma-style search of an accelerator (PEs, L1, L2) and the mappings
// of every layer of a model under an area budget, beside baselines at the same sample budget;
// `--table` runs several models on both platforms and prints DiGamma's speedup table. The work
// is dse::codesign::run (dse/codesign/run.h); this file is flags -> Options, then the tables.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/dse/codesign/run.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/dse/timeloop/commands.h"
#include "sparsemap/error.h"

namespace sparsemap::cli {
namespace {

namespace cd = dse::codesign;
namespace mp = dse::mapper;

// The flags of `codesign` that only the CLI has (how to print), beside the run's Options.
struct CodesignArgs {
  dse::timeloop::CodesignCommandOptions both;
  std::string json, plot;
  bool quiet = false, wide = false;
};

using cd::BaselineOutcome;
using cd::CaseOutcome;

// The progress line on stderr ("MODEL SEARCH: done/total"), cleared after each case; the
// table's per-case notes on stderr unless the JSON goes to stdout.
class ProgressLine : public search::Observer {
 public:
  ProgressLine(bool bar, bool notes) : bar_(bar), notes_(notes) {}
  void on_progress(const search::Progress& p) override {
    if (bar_)
      std::fprintf(stderr, "\r%s: %lld/%lld   ", p.label.c_str(), static_cast<long long>(p.done),
                   static_cast<long long>(p.total));
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\r%60s\r", "");
  }
  void on_note(const std::string& text) override {
    if (notes_) std::cerr << text << "\n";
  }

 private:
  bool bar_ = false, notes_ = false;
};

// One case: the design, its per-layer table, the baselines and the Pareto front.
void print_case(const CodesignArgs& args, const CaseOutcome& c) {
  const cd::Options& a = args.both.maestro;
  const cd::CodesignSpace& sp = *c.space;
  const cd::DesignEval& d = c.codesign.design;
  std::cout << "codesign " << c.model << " on " << c.budget.name << " (area budget "
            << fixed(c.budget.area, 3) << " mm^2, <= " << with_commas(c.budget.pes) << " PEs, step "
            << sp.options().pe_step << "),\n  " << a.objective << ", buffers "
            << cd::buffer_mode_name(sp.options().buffers) << ", " << with_commas(a.budget)
            << " samples (whole-model designs), " << sp.unique_layers() << " distinct of "
            << sp.model_layers().size() << " layers\n";
  if (!d.feasible) {
    std::cout << "no feasible design found\n";
  } else {
    std::cout << "accelerator: " << with_commas(d.pes) << " PEs, L1 " << with_commas(d.l1_bytes)
              << " B per PE, L2 " << with_commas(d.l2_bytes) << " B, area " << fixed(d.area_mm2, 4)
              << " mm^2, power " << fixed(d.power_mw, 1) << " mW\n";
    std::vector<std::string> header = {"#",  "layer",    "dims", "cycles",
                                       "nJ", "PEs used", "L1 B", "L2 B"};
    if (args.wide) header.push_back("mapping");
    Table t(header);
    for (size_t i = 0; i < sp.model_layers().size(); ++i) {
      const size_t u = sp.layer_index()[i];
      const cost::Cost& cst = d.layer_cost[u];
      std::vector<std::string> row = {std::to_string(i),
                                      sp.model_layers()[i].name,
                                      args.wide ? layer_dims_text(sp.model_layers()[i])
                                                : layer_dims_short(sp.model_layers()[i]),
                                      with_commas(cst.runtime_cycles),
                                      fixed(cst.energy_nj, 1),
                                      with_commas(cst.pes_used),
                                      with_commas(cst.l1_bytes),
                                      with_commas(cst.l2_bytes)};
      if (args.wide) row.push_back(mp::mapping_text(c.codesign.mappings[u]));
      t.add(row);
    }
    t.add({"", "total", "", with_commas(d.runtime_cycles), fixed(d.energy_nj, 1)});
    std::cout << t.str(args.wide ? 0 : kColumns);
    if (!args.wide) std::cout << "(each layer's mapping: --wide, or --json)\n";
  }
  if (!c.baselines.empty()) {
    Table t({"method", "cycles", "nJ", "PEs", "L1 B", "L2 B", "area mm^2", "samples", "s",
             "digamma x", "note"});
    t.add({"digamma", d.feasible ? with_commas(d.runtime_cycles) : "infeasible",
           d.feasible ? fixed(d.energy_nj, 1) : "-", with_commas(d.pes), with_commas(d.l1_bytes),
           with_commas(d.l2_bytes), fixed(d.area_mm2, 4), with_commas(c.codesign.samples),
           fixed(c.codesign_wall_s, 1), "1.00", ""});
    for (const auto& b : c.baselines)
      t.add({b.name, b.feasible ? with_commas(b.runtime_cycles) : "none feasible",
             b.feasible ? fixed(b.energy_nj, 1) : "-", b.feasible ? with_commas(b.pes) : "-",
             b.feasible ? with_commas(b.l1_bytes) : "-", b.feasible ? with_commas(b.l2_bytes) : "-",
             b.feasible ? fixed(b.area_mm2, 4) : "-", with_commas(b.samples), fixed(b.wall_s, 1),
             b.feasible && d.feasible
                 ? fixed(static_cast<double>(b.runtime_cycles) / d.runtime_cycles, 2)
                 : "-",
             b.note});
    std::cout << "baselines at the same sample budget (digamma x = baseline cycles / digamma "
                 "cycles):\n"
              << t.str();
  }
  std::string front;
  for (const auto& p : c.codesign.pareto)
    front += (front.empty() ? "" : " ") + fixed(p.first, 4) + "->" + with_commas(p.second);
  std::cout << "Pareto front (area mm^2 -> cycles) of the " << c.codesign.pareto.size()
            << " non-dominated designs evaluated:\n";
  for (const std::string& l : wrap_text(front, kColumns - 2)) std::cout << "  " << l << "\n";
}

// DiGamma's table: every model on every platform, speedups and geomeans.
void print_table(const CodesignArgs& args, const cd::Result& r) {
  const cd::Options& a = args.both.maestro;
  Table t({"model", "platform", "digamma cycles", "PEs", "mm^2", "best baseline", "x", "grid x",
           "grid+s x", "best optimiser", "opt x", "bound x"});
  for (size_t k = 0; k < r.budgets.size(); ++k) {
    const cd::Budget& b = r.budgets[k];
    for (const CaseOutcome& c : r.cases) {
      if (c.budget.name != b.name) continue;
      const cd::DesignEval& d = c.codesign.design;
      const BaselineOutcome* best = cd::best_baseline(c, "", false);
      const BaselineOutcome* fx = cd::best_baseline(c, "fixed-gamma", false);
      const BaselineOutcome* fs = cd::best_baseline(c, "fixed-gamma-seeds", false);
      const BaselineOutcome* op = cd::best_baseline(c, "", true);
      t.add({c.model, b.name, d.feasible ? with_commas(d.runtime_cycles) : "infeasible",
             with_commas(d.pes), fixed(d.area_mm2, 3), best ? best->name : "none feasible",
             best ? fixed(cd::speedup(c, best), 2) : "-", fx ? fixed(cd::speedup(c, fx), 2) : "-",
             fs ? fixed(cd::speedup(c, fs), 2) : "-", op ? op->name : "none feasible",
             op ? fixed(cd::speedup(c, op), 2) : "-",
             best ? fixed(cd::bound_speedup(c, best), 2) : "-"});
    }
    const cd::Geomeans g = cd::geomeans(r, k);
    t.add({"geomean", b.name, "", "", "", "", fixed(g.all, 2), fixed(g.fixed, 2),
           fixed(g.seeded, 2), "", fixed(g.optimiser, 2), fixed(g.bound, 2)});
  }
  std::cout << "DiGamma co-design vs baselines at " << with_commas(a.budget)
            << " samples (whole-model designs), objective " << a.objective << ", seed " << a.seed
            << "\ngrid: fixed-gamma, 9 grid accelerators, budget split evenly; grid+s: "
               "fixed-gamma-seeds, the same with\neach layer's GAMMA opened with "
            << cd::kGridSpatialSeeds << " spatial seeds; opt: the best optimiser"
            << (a.budget > search::kBoSampleCap
                    ? "; BO capped at " + with_commas(search::kBoSampleCap) + " samples"
                    : std::string())
            << "\nx = best baseline cycles / digamma cycles; bound x = best baseline cycles / "
               "the utilisation bound\n(per layer, max of the fewest steps of whole loop "
               "indices spread over the most PEs and\ncompulsory off-chip words / bandwidth), "
               "the most any design could gain\n"
            << t.str();
}

// Flags -> Options, run, print the case or the table, the plot and the JSON.
void run_codesign_cmd(const CodesignArgs& args) {
  ProgressLine observer(!args.quiet && isatty(2), args.json != "-");
  const cd::Result r = cd::run(args.both.maestro, observer);
  if (!r.root) return;
  if (!args.both.maestro.table) {
    if (args.json != "-") print_case(args, r.cases.at(0));
    if (!args.plot.empty()) cd::write_plot(r.cases.at(0), args.plot);
  } else if (args.json != "-") {
    print_table(args, r);
  }
  if (!args.json.empty()) write_json(cd::to_json(r), args.json);
}

}  // namespace

void register_codesign(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "codesign",
      "Search an accelerator (PEs, L1, L2) and every layer's mapping together under an area "
      "budget (DiGamma), beside baseline optimisers at the same sample budget");
  auto a = std::make_shared<CodesignArgs>();
  const auto& table = dse::timeloop::codesign_option_table();
  add_options(
      cmd, table, a->both,
      {{"--json", &a->json}, {"--plot", &a->plot}, {"--quiet", &a->quiet}, {"--wide", &a->wide}});
  cmd->callback([a, cmd, &table] {
    if (!dse::timeloop::is_arch_file(a->both.maestro.hw)) return run_codesign_cmd(*a);
    refuse_with_timeloop(cmd, table, dse::timeloop::kCodesignRefusal);
    if (!cmd->count("--area-budget-mm2"))
      throw InputError({"<flag --area-budget-mm2>"},
                       "expected --area-budget-mm2 with a Timeloop template");
    copy_mirrors(cmd, table, a->both);
    run_codesign_timeloop(a->both.timeloop, a->json, a->quiet);
  });
}

}  // namespace sparsemap::cli
