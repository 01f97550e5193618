// map_network's checkpoint (src/dse/timeloop/network_checkpoint.h).
#include "network_checkpoint.h"

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::dse::timeloop {
namespace {

using nlohmann::json;

const char* const kKind = "sparsemap-timeloop-map-checkpoint";

json level_json(const arch::StorageLevel& s) {
  return {s.name,
          s.instances,
          s.mesh_x,
          s.mesh_y,
          s.depth,
          s.block_size,
          s.cluster_size,
          s.read_bandwidth,
          s.write_bandwidth,
          s.shared_bandwidth,
          s.multiple_buffering};
}

}  // namespace

json network_fingerprint(const std::vector<NetworkLayer>& layers, const arch::Hierarchy& h,
                         const arch::EnergyTable* ert, const NetworkOptions& o) {
  json ls = json::array();
  for (const NetworkLayer& l : layers)
    ls.push_back({l.name, l.problem.name, l.problem.bounds, l.problem.coefficient_values,
                  MapSpace(l.problem, h).genes()});
  json levels = json::array();
  for (const auto& s : h.storage) levels.push_back(level_json(s));
  json energies = json::array();
  if (ert)
    for (const auto& c : ert->components)
      for (const auto& a : c.actions) energies.push_back({c.name, a.name, a.energy_pj});
  json metrics = json::array();
  for (const Metric m : o.mapper.metrics) metrics.push_back(metric_name(m));
  const MapperOptions& m = o.mapper;
  return {{"layers", ls},
          {"arch", {h.name, levels, h.compute.name, h.compute.instances}},
          {"ert", energies},
          {"mapper",
           {m.algo, m.budget, m.exhaustive_limit, metrics, m.seed, m.mutation_rate, m.population}},
          {"warm", {o.warm_start, o.warm_seeds}}};
}

json DoneLayer::to_json() const {
  return {{"algo", algo}, {"genome", genome}, {"evaluations", evaluations}, {"seconds", seconds}};
}

json network_checkpoint(const json& fingerprint, const std::vector<DoneLayer>& done) {
  json d = json::array();
  for (const DoneLayer& l : done) d.push_back(l.to_json());
  return {{"kind", kKind}, {"fingerprint", fingerprint}, {"done", d}};
}

std::vector<DoneLayer> read_network_checkpoint(const std::string& path, const json& fingerprint,
                                               const std::vector<size_t>& genes) {
  const json j = io::read_json(path, "a checkpoint of map --hw ARCH.yaml");
  auto fail = [&](const std::string& what) { return InputError({path, 0, 0}, what); };
  if (!j.is_object() || j.value("kind", json()) != kKind)
    throw fail(
        std::string("not a checkpoint of map on a Timeloop architecture (expected \"kind\": \"") +
        kKind + "\")");
  if (j.value("fingerprint", json()) != fingerprint)
    throw fail(
        "the checkpoint belongs to another run (layers, architecture, ERT or options "
        "differ); resume with the same inputs and flags");
  const json done = j.value("done", json());
  if (!done.is_array() || done.size() > genes.size())
    throw fail("expected \"done\": an array of at most " + std::to_string(genes.size()) +
               " finished layers");
  std::vector<DoneLayer> out;
  for (const json& e : done) {
    const std::string at = "finished layer " + std::to_string(out.size()) + ": ";
    DoneLayer l;
    if (!e.is_object() || !e.value("algo", json()).is_string() ||
        !e.value("genome", json()).is_array() ||
        !e.value("evaluations", json()).is_number_integer() ||
        !e.value("seconds", json()).is_number())
      throw fail(at + "expected algo (string), genome (array), evaluations (integer), seconds");
    l.algo = e["algo"].get<std::string>();
    l.evaluations = e["evaluations"].get<int64_t>();
    l.seconds = e["seconds"].get<double>();
    for (const json& g : e["genome"]) {
      if (!g.is_number() || !(g.get<double>() >= 0.0 && g.get<double>() <= 1.0))
        throw fail(at + "a gene that is not a number in [0, 1]");
      l.genome.push_back(g.get<double>());
    }
    const size_t want = l.algo == "exhaustive" ? 0 : genes[out.size()];
    if (l.genome.size() != want || l.evaluations < 0)
      throw fail(at + "a genome of " + std::to_string(l.genome.size()) + " genes, expected " +
                 std::to_string(want));
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace sparsemap::dse::timeloop
