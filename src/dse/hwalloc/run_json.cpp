// dse::hwalloc::to_json (the JSON of `sparsemap hwalloc --json`) and write_plot (--plot).
#include <fstream>
#include <sstream>

#include "sparsemap/dse/hwalloc/run.h"
#include "sparsemap/error.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::dse::hwalloc {

using nlohmann::json;

json to_json(const Result& r) {
  const Options& a = r.options;
  const Tracker& tr = r.tracker;
  json out = {{"model", r.model},
              {"method", a.method},
              {"dataflow", a.dataflow},
              {"deployment", a.deployment},
              {"edges", a.edges},
              {"objective", a.objective},
              {"seed", a.seed},
              {"constraint",
               {{"kind", a.constraint},
                {"value", r.constraint},
                {"fraction", r.fraction},
                {"min", r.constraint_min},
                {"max", r.constraint_max}}},
              {"budget_counts", std::string(budget_count_name(r.budget_count))},
              {"calls", r.calls},
              {"states", r.states},
              {"lookups", r.lookups},
              {"designs", r.designs},
              {"rl_episodes", r.rl_episodes},
              {"ga_generations", r.ga_generations},
              {"wall_s", r.wall_s}};
  json conv = json::array();
  // [calls (the budgeted count), best, distinct states, lookups]
  for (const Tracker::Point& q : tr.convergence)
    conv.push_back({r.budgeted(q.states, q.lookups), q.best, q.states, q.lookups});
  out["convergence"] = conv;
  out["convergence_seconds"] = tr.seconds;  // this process's clock (resets on resume)
  out["best"] = nullptr;
  out["layers"] = json::array();
  if (tr.has_best) {
    const DesignCost& c = tr.best_cost;
    out["best"] = {{"latency_cycles", c.latency_cycles},
                   {"energy_nj", c.energy_nj},
                   {"area", c.area},
                   {"power_mw", c.power_mw},
                   {"calls_to_best", r.budgeted(tr.states_to_best, tr.lookups_to_best)},
                   {"states_to_best", tr.states_to_best},
                   {"lookups_to_best", tr.lookups_to_best},
                   {"seconds_to_best", tr.seconds_to_best}};
    for (const LayerRow& row : r.layers)
      out["layers"].push_back({{"name", row.layer.name},
                               {"pes", row.choice.pes},
                               {"buffer_level", row.choice.k_tile},
                               {"dataflow", std::string(dataflow_name(row.choice.dataflow))},
                               {"latency_cycles", row.cost.latency_cycles},
                               {"area", row.cost.area}});
  }
  if (!r.note.empty()) out["note"] = r.note;
  return out;
}

// Convergence: best objective so far against cost-model calls, as a step line.
void write_plot(const Result& r, const std::string& plot) {
  const bool states = r.budget_count == BudgetCount::States;
  const bool energy = parse_objective(r.options.objective) == Objective::Energy;
  const std::string title = r.model + " / " + r.options.method + " / " + r.options.dataflow;
  const std::string data = plot + ".csv";
  std::ofstream d(data);
  d << "calls,best\n";
  for (const Tracker::Point& q : r.tracker.convergence)
    d << (states ? q.states : q.lookups) << "," << q.best << "\n";
  if (!r.tracker.convergence.empty())
    d << r.options.budget << "," << r.tracker.convergence.back().best << "\n";
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  std::ostringstream gp;
  gp << plot::gnuplot_header(plot) << "set datafile separator ','\n"
     << "set title " << plot::gnuplot_quote("hwalloc " + title + ": best design so far")
     << " noenhanced\nset xlabel "
     << (states ? "'cost-model calls (distinct states)'"
                : "'cost-model calls (lookups, cache hits included)'")
     << "\nset ylabel " << (energy ? "'energy (nJ)'" : "'latency (cycles)'")
     << "\nset logscale y\nset grid\n"
     << "plot " << plot::gnuplot_quote(data)
     << " every ::1 using 1:2 with steps lw 2 title 'best so far'\n";
  plot::render_gnuplot(gp.str(), plot + ".gp", data);
}

}  // namespace sparsemap::dse::hwalloc
