// `sparsemap codesign --hw ARCH.yaml` as a library call (run.h): co-design on a Timeloop template
// (its fan-outs and buffer depths under an area budget priced by its ART; each candidate's
// network mapped on it), beside the template with its own best mappings.
#include <tuple>

#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/error.h"
#include "sparsemap/numbers.h"

namespace sparsemap::dse::timeloop {

namespace {

// The template's inputs with the ERT and ART beside it (or --ert / --art) where it holds none.
io::TimeloopInputs template_with_tables(const CodesignRunOptions& a, search::Observer& observer) {
  const io::TimeloopInputs* read = arch_inputs(a.hw);
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
  if (!hw.ert)
    observer.on_warning("no ERT beside " + a.hw + " or given with --ert: energies are 0");
  return hw;
}

nlohmann::json design_json(const Candidate& c, const NetworkResult& n) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& l : c.hierarchy.storage)
    if (!l.dummy)
      levels.push_back({{"name", l.name}, {"instances", l.instances}, {"depth", l.depth}});
  levels.push_back(
      {{"name", c.hierarchy.compute.name}, {"instances", c.hierarchy.compute.instances}});
  return {{"area_um2", c.area_um2}, {"levels", levels}, {"network", to_json(n)["total"]}};
}

}  // namespace

CodesignRunResult run_codesign(const CodesignRunOptions& a, search::Observer& observer) {
  CodesignRunResult r;
  r.options = a;
  r.options.model_object.reset();
  const io::TimeloopInputs hw = template_with_tables(a, observer);
  const auto layers = load_layers(a.model, a.model_object, a.zoo, hw, r.model_name);
  CodesignOptions o;
  o.area_budget_um2 = a.area_budget_mm2 * 1e6;
  o.designs = a.budget;
  o.algo = a.algo;
  o.seed = a.seed;
  o.threads = a.threads;
  o.objective =
      parse_metric(a.objective == "latency" ? "delay" : a.objective, "<flag --objective>");
  o.network.mapper.budget = a.map_budget;
  o.network.mapper.exhaustive_limit = static_cast<uint64_t>(a.map_budget);  // within the budget
  o.network.mapper.seed = a.seed;
  o.final_budget = a.final_budget;
  o.stop = [&observer] { return observer.stop_requested(); };
  r.codesign = codesign(layers, *hw.arch, hw.ert ? &*hw.ert : nullptr, *hw.art, o,
                        [&observer](int64_t done, int64_t total) {
                          search::report_progress(observer, {0, 1, done, total, 0.0, "designs"});
                        });
  observer.on_search_done();
  r.arch_name = hw.arch->name;
  r.layers = layers.size();
  return r;
}

std::string describe(const Candidate& c) {
  std::string s;
  for (const auto& l : c.hierarchy.storage) {
    if (l.dummy) continue;
    s += (s.empty() ? "" : ", ") + l.name + " " + with_commas(l.instances) + "x";
    if (l.depth > 0) s += " depth " + with_commas(l.depth);
  }
  return s + ", " + c.hierarchy.compute.name + " " + with_commas(c.hierarchy.compute.instances) +
         "x";
}

nlohmann::json to_json(const CodesignRunResult& r) {
  const CodesignResult& c = r.codesign;
  return {{"model", r.model_name},
          {"arch", r.options.hw},
          {"area_budget_um2", r.options.area_budget_mm2 * 1e6},
          {"objective", r.options.objective},
          {"designs", c.designs},
          {"feasible", c.feasible},
          {"evaluations", c.evaluations},
          {"seconds", c.seconds},
          {"template", design_json(c.base, c.base_network)},
          {"best", design_json(c.best, c.best_network)}};
}

}  // namespace sparsemap::dse::timeloop
