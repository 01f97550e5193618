// `sparsemap timeloop FILES... [--hw PRESET|FILE] [--json FILE|-]`: Timeloop's inputs
// (architecture, problem, mapping, optional ERT/ART, in any order) through the loop-nest model;
// Timeloop's summary. --hw takes the architecture and ERT from a preset or MAESTRO/YAML file
// as arch::to_hierarchy builds them (levels DRAM, L2, L1, MAC).
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/timeloop.h"

namespace sparsemap::cli {

namespace {

struct TimeloopArgs {
  std::vector<std::string> files;
  std::string hw;
  std::string json;
};

// JSON: cycles, utilization (0..1), energy_pj, fj_per_compute {component: fJ}, and levels
// (outermost first, the fan-out placeholders left out as Timeloop leaves them out), each with
// its counts per instance as Timeloop prints them.
nlohmann::json result_json(const cost::LoopNestResult& r) {
  nlohmann::json levels = nlohmann::json::array();
  nlohmann::json fj = {{r.compute_name, r.fj_per_compute(r.compute_name)}};
  for (const auto& l : r.levels) {
    if (l.dummy) continue;
    nlohmann::json ds = nlohmann::json::object();
    for (const auto& d : l.dataspaces)
      ds[d.name] = {{"reads", d.reads},
                    {"fills", d.fills},
                    {"updates", d.updates},
                    {"tile_words", d.tile_words},
                    {"energy_pj", d.energy_pj}};
    levels.push_back({{"name", l.name},
                      {"instances", l.instances},
                      {"utilized_instances", l.utilized_instances},
                      {"energy_pj", l.energy_pj},
                      {"leak_energy_pj", l.leak_energy_pj},
                      {"dataspaces", ds}});
    fj[l.name] = r.fj_per_compute(l.name);
  }
  fj["Total"] = r.fj_per_compute("Total");
  return {{"macs", r.macs},
          {"cycles", r.cycles},
          {"utilization", r.utilization},
          {"energy_pj", r.energy_pj},
          {"compute",
           {{"name", r.compute_name},
            {"instances", r.compute_instances},
            {"utilized_instances", r.utilized_compute_instances},
            {"energy_pj", r.compute_energy_pj}}},
          {"fj_per_compute", fj},
          {"levels", levels}};
}

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

}  // namespace

void register_timeloop(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "timeloop",
      "Evaluate Timeloop inputs (architecture, problem, mapping, optional ERT/ART YAML, in any "
      "order; or one parsed-processed-input.yaml) with the loop-nest model and print "
      "timeloop-model's summary");
  auto args = std::make_shared<TimeloopArgs>();
  cmd->add_option("files", args->files, "Timeloop/Accelergy YAML files")->required();
  cmd->add_option(
      "--hw", args->hw,
      "Accelerator preset or MAESTRO/YAML file as the architecture and ERT (its "
      "three-level hierarchy: DRAM, L2, L1, MAC; `sparsemap arch --hierarchy` shows it)");
  cmd->add_option("--json", args->json, "Write JSON to FILE, or - for stdout");
  cmd->callback([args] {
    auto in = io::read_timeloop_files(args->files);
    if (!args->hw.empty()) {
      if (in.arch || in.ert)
        throw InputError(
            {"<flag --hw>"},
            "expected either --hw or an architecture and ERT among the files, not both");
      const arch::ArchHierarchy v = arch::to_hierarchy(io::load_arch(args->hw));
      in.arch = v.hierarchy;
      in.ert = v.ert;
    }
    std::string missing;
    if (!in.arch) missing += " an architecture,";
    if (!in.problem) missing += " a problem,";
    if (!in.mapping) missing += " a mapping,";
    if (!missing.empty()) {
      missing.pop_back();
      throw InputError({"<arguments>"}, "expected" + missing + " among the files");
    }
    if (!in.ert)
      print_warning("no ERT (Accelergy's energy table) among the files: every energy is 0");
    const auto r =
        cost::evaluate_loopnest(*in.problem, *in.arch, *in.mapping, in.ert ? &*in.ert : nullptr);
    if (!r.ok()) throw InputError({in.sources.at("mapping")}, r.reason);
    if (!args->json.empty()) write_json(result_json(r), args->json);
    if (args->json != "-") std::cout << result_text(r);
  });
}

}  // namespace sparsemap::cli
