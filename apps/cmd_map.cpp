// `sparsemap map`: searches the best mapping of every layer of a model on an accelerator (GAMMA
// or a baseline optimiser), with warm-start, density ranges, checkpoints and MPI; a per-layer
// table (beside the built-in dataflow templates with --compare-dataflows) and JSON. The work is
// dse::mapper::run (dse/mapper/run.h); this file is flags -> Options, then the tables.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/cost/utilisation.h"
#include "sparsemap/dse/mapper/run.h"
#include "sparsemap/dse/timeloop/commands.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::cli {
namespace {

namespace mp = dse::mapper;

// The flags of `map` that only the CLI has (how to print), beside the run's Options.
struct MapArgs {
  dse::timeloop::MapCommandOptions both;
  std::string json;
  bool quiet = false, wide = false;
};

// The progress line on stderr (distinct layer, samples of its budget, best fitness); reader
// warnings and notes as "sparsemap: ..." lines.
class ProgressBar : public search::Observer {
 public:
  explicit ProgressBar(bool bar) : bar_(bar) {}
  ~ProgressBar() override {
    if (shown_) std::fprintf(stderr, "\n");
  }
  void on_progress(const search::Progress& p) override {
    if (!bar_) return;
    shown_ = true;
    const int w = 30;
    const int fill =
        static_cast<int>(w * static_cast<double>(p.done) / static_cast<double>(p.total));
    std::fprintf(stderr, "\r[%3zu/%zu] [%s%s] %lld/%lld best %.4g   ", p.item + 1, p.items,
                 std::string(static_cast<size_t>(fill), '#').c_str(),
                 std::string(static_cast<size_t>(w - fill), '.').c_str(),
                 static_cast<long long>(p.done), static_cast<long long>(p.total),
                 p.best >= search::kInfeasible ? 0.0 : p.best);
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\n");
    shown_ = false;
  }

 private:
  bool bar_ = false, shown_ = false;
};

double utilisation_pct(const cost::Cost& c, const arch::Arch& hw) {
  return cost::pe_utilisation_pct(c, hw.num_pes);
}

// What was mapped, the total, and the comparison with the templates.
void print_summary(const mp::Result& r) {
  const mp::Options& a = r.options;
  const mp::Totals& tot = r.totals;
  std::cout << "mapped " << r.model_name << " on " << r.hw.name << " (" << r.hw.num_pes
            << " PEs) with " << a.algo << ", " << a.objective << ", budget "
            << with_commas(r.mapper.budget) << " per distinct layer"
            << (a.algo == "bo" && r.mapper.budget > search::kBoSampleCap
                    ? " (BO capped at " + with_commas(search::kBoSampleCap) + ")"
                    : "")
            << "\n"
            << r.outcome.layers.size() << " layers, " << r.outcome.unique_layers
            << " distinct; total: " << with_commas(tot.runtime) << " cycles, "
            << fixed(tot.energy / 1e3, 1) << " uJ; geomean PE utilisation "
            << fixed(tot.geo_util, 1) << "%; " << fixed(r.wall_s, 2) << " s\n";
  if (r.references.empty()) return;
  Table c({"dataflow", "layers it maps", "its cycles", "its uJ", "searched cycles there",
           "searched is faster"});
  for (size_t k = 0; k < r.references.size(); ++k)
    c.add({r.references[k].name,
           std::to_string(tot.ref_ok[k]) + "/" + std::to_string(r.references[k].costs.size()),
           with_commas(tot.ref_rt[k]), fixed(tot.ref_en[k] / 1e3, 1), with_commas(tot.ours_rt[k]),
           tot.ref_ok[k] ? fixed(static_cast<double>(tot.ref_rt[k]) /
                                     static_cast<double>(std::max<int64_t>(1, tot.ours_rt[k])),
                                 2) +
                               "x"
                         : "-"});
  std::cout << "\nbeside the built-in dataflow templates (same buffer rule), on the layers each "
               "can map:\n"
            << c.str();
}

// The per-layer table's header: the search's columns, then per template one (--wide: two).
std::vector<std::string> layers_header(const mp::Result& r, bool wide) {
  std::vector<std::string> header = {"#", "layer", "dims", "cycles", wide ? "nJ" : "uJ"};
  if (wide) header.push_back("PEs");
  header.insert(header.end(), {"util %", "samples"});
  for (const mp::Reference& ref : r.references) {
    if (wide) {
      header.push_back(ref.name + " cycles");
      header.push_back(ref.name + " nJ");
    } else {
      header.push_back(ref.name + " x");
    }
  }
  return header;
}

// Layer i's row of the per-layer table.
std::vector<std::string> layer_row(const mp::Result& r, size_t i, bool wide) {
  const auto& lo = r.outcome.layers[i];
  const cost::Cost& c = lo.cost;
  std::vector<std::string> row = {
      std::to_string(i), lo.layer.name,
      wide ? layer_dims_text(lo.layer) : layer_dims_short(lo.layer),
      c.ok() ? with_commas(c.runtime_cycles) : std::string(cost::status_name(c.status)),
      c.ok() ? fixed(wide ? c.energy_nj : c.energy_nj / 1e3, wide ? 1 : 2) : "-"};
  if (wide) row.push_back(c.ok() ? with_commas(c.pes_used) : "-");
  row.push_back(c.ok() ? fixed(utilisation_pct(c, r.hw), 1) : "-");
  row.push_back(lo.reused ? "=" + std::to_string(lo.unique) : with_commas(lo.samples));
  for (const mp::Reference& ref : r.references) {
    const cost::Cost& rc = ref.costs[i];
    const std::string status(cost::status_name(rc.status));
    if (wide) {
      row.push_back(rc.ok() ? with_commas(rc.runtime_cycles) : status);
      row.push_back(rc.ok() ? fixed(rc.energy_nj, 1) : "-");
    } else {
      row.push_back(!rc.ok() || !c.ok()
                        ? "-"
                        : fixed(static_cast<double>(rc.runtime_cycles) /
                                    static_cast<double>(std::max<int64_t>(1, c.runtime_cycles)),
                                2));
    }
  }
  return row;
}

// The per-layer table's total row.
std::vector<std::string> total_row(const mp::Result& r, bool wide) {
  const mp::Totals& tot = r.totals;
  std::vector<std::string> total = {"", "total", "", with_commas(tot.runtime),
                                    fixed(wide ? tot.energy : tot.energy / 1e3, wide ? 1 : 2)};
  if (wide) total.push_back("");
  total.insert(total.end(), {fixed(tot.geo_util, 1), ""});
  for (size_t k = 0; k < r.references.size(); ++k) {
    const size_t n = r.references[k].costs.size();
    if (wide) {
      total.push_back(with_commas(tot.ref_rt[k]) +
                      (tot.ref_ok[k] < static_cast<int64_t>(n)
                           ? " (" + std::to_string(n - tot.ref_ok[k]) + " not ok)"
                           : ""));
      total.push_back(fixed(tot.ref_en[k], 1));
    } else {
      total.push_back(tot.ref_ok[k]
                          ? fixed(static_cast<double>(tot.ref_rt[k]) /
                                      static_cast<double>(std::max<int64_t>(1, tot.ours_rt[k])),
                                  2)
                          : "-");
    }
  }
  return total;
}

// Per layer. Default: the search's result and, per template, its cycles / ours (the template's
// status when it cannot map the layer); --wide: every column. Energy in uJ by default
// (narrower), nJ with --wide (as in the JSON).
void print_layers(const mp::Result& r, bool wide) {
  Table t(layers_header(r, wide));
  for (size_t i = 0; i < r.outcome.layers.size(); ++i) t.add(layer_row(r, i, wide));
  t.add(total_row(r, wide));
  std::cout << "\nper layer (samples: '=N' reuses distinct layer N's search"
            << (r.references.empty() || wide
                    ? ""
                    : ";\nTEMPLATE x: its cycles / the searched cycles, '-' "
                      "where it cannot map the layer (why: --wide or --json)")
            << "):\n"
            << t.str(wide ? 0 : kColumns);
  if (!r.outcome.skipped.empty())
    std::cout << "skipped " << r.outcome.skipped.size()
              << " layers without MACs (softmax, norms, activations, ...)\n";
}

// Flags -> Options, run, print the tables, write the files and the JSON.
void run_map(const MapArgs& a) {
  ProgressBar bar(!a.quiet && isatty(2));
  const mp::Result r = mp::run(a.both.maestro, bar);
  bar.finish();
  if (!r.root) return;
  if (a.json != "-") {
    print_summary(r);
    print_layers(r, a.wide);
    if (r.mapper.warm_start) {
      const mp::WarmStartSums w = mp::warm_start_sums(r.outcome, r.mapper.budget);
      if (w.layers)
        std::cout << "warm-start: samples to reach the cold search's best, summed over " << w.layers
                  << " distinct layers: cold " << with_commas(w.cold) << ", warm "
                  << with_commas(w.warm) << " (" << w.faster << " layers faster)\n";
    }
  }
  mp::write_outputs(r);
  if (!a.json.empty()) write_json(mp::to_json(r), a.json);
  mp::require_some_feasible(r);
}

}  // namespace

void register_map(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "map", "Search the best mapping of every layer of a model (GAMMA or a baseline optimiser)");
  auto a = std::make_shared<MapArgs>();
  const auto& table = dse::timeloop::map_option_table();
  add_options(cmd, table, a->both,
              {{"--json", &a->json}, {"--quiet", &a->quiet}, {"--wide", &a->wide}});
  cmd->callback([a, cmd, &table] {
    if (!dse::timeloop::is_arch_file(a->both.maestro.hw)) return run_map(*a);
    refuse_with_timeloop(cmd, table, dse::timeloop::kMapRefusal);
    copy_mirrors(cmd, table, a->both);
    run_map_timeloop(a->both.timeloop, a->json, a->quiet);
  });
}

}  // namespace sparsemap::cli
