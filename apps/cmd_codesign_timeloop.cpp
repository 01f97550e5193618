// `sparsemap codesign --hw ARCH.yaml`: co-design on a Timeloop template (its fan-outs and buffer
// depths under an area budget priced by its ART; each candidate's network mapped on it), beside
// the template with its own best mappings.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "sparsemap/dse/timeloop/codesign.h"
#include "sparsemap/error.h"
#include "timeloop_common.h"

namespace sparsemap::cli {
namespace {

namespace tl = dse::timeloop;

// "shared_glb depth 16,384; PE columns 14 x 12 ..." : each level's instances and depth.
std::string describe(const tl::Candidate& c) {
  std::string s;
  for (const auto& l : c.hierarchy.storage) {
    if (l.dummy) continue;
    s += (s.empty() ? "" : ", ") + l.name + " " + with_commas(l.instances) + "x";
    if (l.depth > 0) s += " depth " + with_commas(l.depth);
  }
  return s + ", " + c.hierarchy.compute.name + " " + with_commas(c.hierarchy.compute.instances) +
         "x";
}

nlohmann::json design_json(const tl::Candidate& c, const tl::NetworkResult& n) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : c.hierarchy.storage)
    if (!l.dummy)
      levels.push_back({{"name", l.name}, {"instances", l.instances}, {"depth", l.depth}});
  levels.push_back(
      {{"name", c.hierarchy.compute.name}, {"instances", c.hierarchy.compute.instances}});
  return {{"area_um2", c.area_um2}, {"levels", levels}, {"network", tl::to_json(n)["total"]}};
}

}  // namespace

void run_codesign_timeloop(const TimeloopCodesignArgs& a) {
  const io::TimeloopInputs* read = timeloop_arch_inputs(a.hw);
  io::TimeloopInputs hw = read ? *read : io::read_timeloop_files({a.hw});
  for (const auto& [suffix, flag, file] :
       {std::tuple<std::string, std::string, std::string>{"ERT.yaml", "--ert", a.ert},
        {"ART.yaml", "--art", a.art}}) {
    const std::string path = file.empty() ? table_beside(a.hw, suffix, flag) : file;
    if (path.empty()) continue;
    const io::TimeloopInputs t = io::read_timeloop_files({path});
    if (suffix == "ERT.yaml" && !hw.ert) hw.ert = t.ert;
    if (suffix == "ART.yaml" && !hw.art) hw.art = t.art;
  }
  if (!hw.art)
    throw InputError({a.hw},
                     "expected an ART (an area table) beside the architecture or --art: "
                     "co-design prices candidates with it");
  if (!hw.ert) print_warning("no ERT beside " + a.hw + " or given with --ert: energies are 0");
  std::string model_name;
  const auto layers = load_timeloop_layers(a.model, a.zoo, hw, model_name);
  tl::CodesignOptions o;
  o.area_budget_um2 = a.area_budget_mm2 * 1e6;
  o.designs = a.budget;
  o.algo = a.algo;
  o.seed = a.seed;
  o.threads = a.threads;
  o.objective =
      tl::parse_metric(a.objective == "latency" ? "delay" : a.objective, "<flag --objective>");
  o.network.mapper.budget = a.map_budget;
  o.network.mapper.exhaustive_limit = static_cast<uint64_t>(a.map_budget);  // within the budget
  o.network.mapper.seed = a.seed;
  o.final_budget = a.final_budget;
  const bool bar = !a.quiet && a.json != "-" && isatty(2);
  const tl::CodesignResult r = tl::codesign(
      layers, *hw.arch, hw.ert ? &*hw.ert : nullptr, *hw.art, o, [&](int64_t done, int64_t total) {
        if (bar) std::fprintf(stderr, "\rdesigns %lld of %lld", (long long)done, (long long)total);
      });
  if (bar) std::fprintf(stderr, "\n");
  if (a.json != "-") {
    std::cout << model_name << " (" << layers.size() << " layers) on templates of " << hw.arch->name
              << " (" << a.hw << "), area budget " << fixed(a.area_budget_mm2, 4)
              << " mm^2, objective " << a.objective << ", " << with_commas(r.designs)
              << " designs (" << with_commas(r.feasible) << " within the budget and mappable), "
              << with_commas(a.map_budget) << " evaluations per layer per design, final mappings "
              << with_commas(a.final_budget) << " per layer, seed " << a.seed << "\n";
    Table t({"design", "area mm^2", "cycles", "energy uJ", "EDP J*cyc"});
    for (const auto& [name, c, n] :
         {std::tuple<std::string, const tl::Candidate*, const tl::NetworkResult*>{
              "template", &r.base, &r.base_network},
          {"co-designed", &r.best, &r.best_network}}) {
      char e[32];
      std::snprintf(e, sizeof e, "%.4g", n->edp() * 1e-12);
      t.add({name, fixed(c->area_um2 * 1e-6, 4), with_commas(n->cycles),
             fixed(n->energy_pj * 1e-6, 3), e});
    }
    std::cout << t.str() << "template:    " << describe(r.base) << "\n"
              << "co-designed: " << describe(r.best) << "\n"
              << "latency "
              << fixed(static_cast<double>(r.base_network.cycles) / r.best_network.cycles, 3)
              << "x, EDP " << fixed(r.base_network.edp() / r.best_network.edp(), 3)
              << "x of the template's; " << with_commas(r.evaluations) << " loop-nest evaluations, "
              << fixed(r.seconds, 1) << " s\n";
  }
  if (!a.json.empty())
    write_json({{"model", model_name},
                {"arch", a.hw},
                {"area_budget_um2", o.area_budget_um2},
                {"objective", a.objective},
                {"designs", r.designs},
                {"feasible", r.feasible},
                {"evaluations", r.evaluations},
                {"seconds", r.seconds},
                {"template", design_json(r.base, r.base_network)},
                {"best", design_json(r.best, r.best_network)}},
               a.json);
}

}  // namespace sparsemap::cli
