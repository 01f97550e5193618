// `sparsemap timeloop FILES... [--hw PRESET|FILE] [--json FILE|-] [--emit-map FILE]`: Timeloop's
// inputs (architecture, problem, mapping, optional ERT/ART, in any order) through the loop-nest
// model; Timeloop's summary. Inputs with sparse_optimizations (Sparseloop's) go through the
// sparse model and print its figures too (algorithmic / actual / gated / skipped); densities
// without sparse_optimizations change nothing, as in Timeloop. --hw takes the architecture and ERT
// from a preset or MAESTRO/YAML file as arch::to_hierarchy builds them (levels DRAM, L2, L1, MAC).
// The work is dse::eval::run_timeloop (dse/eval/timeloop.h); this file is flags -> Options, then
// timeloop-model's summary.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/dse/eval/timeloop.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::cli {

namespace {

// The flags of `timeloop` that only the CLI has (where the JSON goes), beside the run's Options.
struct TimeloopArgs {
  dse::eval::TimeloopOptions o;
  std::string json;
};

// Warnings as "sparsemap: warning: ..." lines.
class Warnings : public search::Observer {
 public:
  void on_warning(const std::string& text) override { print_warning(text); }
};

std::string result_text(const cost::LoopNestResult& r) {
  std::ostringstream os;
  os << "Cycles:      " << with_commas(r.cycles)
     << "\nUtilization: " << fixed(r.utilization * 100, 2)
     << "%\nEnergy:      " << fixed(r.energy_pj, 2) << " pJ\nComputes:    " << with_commas(r.macs)
     << " on " << r.utilized_compute_instances << " of " << r.compute_instances << " "
     << r.compute_name << "\n\n";
  Table counts({"level", "instances", "dataspace", "reads", "fills", "updates", "tile_words"});
  for (const auto& l : r.levels) {
    if (l.dummy) continue;
    bool first = true;
    for (const auto& d : l.dataspaces) {
      counts.add({first ? l.name : "", first ? std::to_string(l.instances) : "", d.name,
                  with_commas(d.reads), with_commas(d.fills), with_commas(d.updates),
                  with_commas(d.tile_words)});
      first = false;
    }
  }
  os << "Scalar accesses per instance (outermost level first)\n" << counts.str() << "\n";
  Table fj({"component", "fJ/compute", "energy_pj"});
  fj.add(
      {r.compute_name, fixed(r.fj_per_compute(r.compute_name), 2), fixed(r.compute_energy_pj, 2)});
  for (const auto& l : r.levels)
    if (!l.dummy) fj.add({l.name, fixed(r.fj_per_compute(l.name), 2), fixed(l.energy_pj, 2)});
  fj.add({"Total", fixed(r.fj_per_compute("Total"), 2), fixed(r.energy_pj, 2)});
  os << fj.str();
  return os.str();
}

std::string counts_text(const cost::SparseCounts& c) {
  return with_commas(c.actual) + " / " + with_commas(c.gated) + " / " + with_commas(c.skipped);
}

std::string ranks_text(const std::vector<cost::RankUnits>& v) {
  std::string s;
  for (size_t r = v.size(); r-- > 0;)  // outermost rank first, as Timeloop prints them
    s += (s.empty() ? "" : " ") + std::string("(") + std::to_string(v[r].metadata) + "," +
         std::to_string(v[r].payload) + ")";
  return s.empty() ? "-" : s;
}

std::string sparse_text(const cost::SparseLoopResult& r) {
  std::ostringstream os;
  os << "Cycles:      " << with_commas(r.cycles)
     << "\nUtilization: " << fixed(r.utilization * 100, 2)
     << "%\nEnergy:      " << fixed(r.energy_pj, 2)
     << " pJ\nComputes:    " << with_commas(r.algorithmic_computes) << " algorithmic, "
     << with_commas(r.actual_computes) << " actual, " << with_commas(r.gated_computes) << " gated, "
     << with_commas(r.skipped_computes) << " skipped on " << r.dense.utilized_compute_instances
     << " of " << r.dense.compute_instances << " " << r.compute_name << "\n\n";
  Table counts({"level", "dataspace", "format", "reads", "fills", "updates", "metadata reads",
                "metadata fills"});
  for (const auto& l : r.levels) {
    if (l.dummy) continue;
    bool first = true;
    for (const auto& d : l.dataspaces) {
      counts.add({first ? l.name : "", d.name, d.format, counts_text(d.reads), counts_text(d.fills),
                  counts_text(d.updates), ranks_text(d.format_reads), ranks_text(d.format_fills)});
      first = false;
    }
  }
  os << "Scalar accesses per instance, actual / gated / skipped (outermost level first; "
        "metadata per rank, outermost first, as (metadata,payload))\n"
     << counts.str() << "\n";
  Table fj({"component", "fJ/algorithmic-compute", "fJ/compute", "energy_pj"});
  fj.add({r.compute_name, fixed(r.fj_per_algorithmic_compute(r.compute_name), 2),
          fixed(r.fj_per_compute(r.compute_name), 2), fixed(r.compute_energy_pj, 2)});
  for (const auto& l : r.levels)
    if (!l.dummy)
      fj.add({l.name, fixed(r.fj_per_algorithmic_compute(l.name), 2),
              fixed(r.fj_per_compute(l.name), 2), fixed(l.energy_pj, 2)});
  fj.add({"Total", fixed(r.fj_per_algorithmic_compute("Total"), 2),
          fixed(r.fj_per_compute("Total"), 2), fixed(r.energy_pj, 2)});
  os << fj.str();
  return os.str();
}

}  // namespace

void print_timeloop(const dse::eval::TimeloopResult& r, const std::string& json) {
  dse::eval::write_outputs(r);
  if (!json.empty()) write_json(dse::eval::to_json(r), json);
  if (json != "-") std::cout << (r.sparse ? sparse_text(*r.sparse) : result_text(*r.dense));
}

void register_timeloop(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "timeloop",
      "Evaluate Timeloop inputs (architecture, problem, mapping, optional ERT/ART YAML, in any "
      "order; or one parsed-processed-input.yaml) with the loop-nest model and print "
      "timeloop-model's summary");
  auto args = std::make_shared<TimeloopArgs>();
  add_options(cmd, dse::eval::timeloop_option_table(), args->o, {{"--json", &args->json}});
  cmd->callback([args] {
    Warnings observer;
    print_timeloop(dse::eval::run_timeloop(args->o, observer), args->json);
  });
}

}  // namespace sparsemap::cli
