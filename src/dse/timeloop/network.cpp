// Whole networks on a Timeloop-described accelerator (include/sparsemap/dse/timeloop/network.h).
#include "sparsemap/dse/timeloop/network.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "network_checkpoint.h"
#include "sparsemap/error.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::dse::timeloop {
namespace {

// A warm genome for `space`: the order and keep genes of an earlier best genome (same layout
// on one accelerator), the factor and axis genes at the middle of their range.
search::Genome carry_over(const MapSpace& space, const MapSpace::Layout& from,
                          const search::Genome& g) {
  const MapSpace::Layout to = space.layout();
  search::Genome out(space.genes(), 0.5);
  if (to.levels != from.levels || to.dims != from.dims || to.keep != from.keep) return out;
  const size_t orders = static_cast<size_t>(to.levels) * to.dims;
  for (size_t j = 0; j < orders; ++j) out[to.order_base + j] = g[from.order_base + j];
  for (size_t j = 0; j < to.keep.size(); ++j) out[to.keep_base + j] = g[from.keep_base + j];
  return out;
}

// A layer's best genome and where it came from (the warm start of the layers after it).
struct Earlier {
  MapSpace::Layout layout;
  search::Genome genome;
};

// Checkpoint files are written and removed by MPI rank 0 only; every rank reads them.
void write_on_root(const nlohmann::json& j, const std::string& path) {
  if (search::mpi_rank() == 0) search::write_json_atomic(j, path);
}
void remove_on_root(const std::string& path) {
  if (search::mpi_rank() != 0) return;
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

nlohmann::json bound_json(const LowerBound& b) {
  return {{"cycles", b.cycles}, {"energy_pj", b.energy_pj}, {"edp", b.edp()}};
}

}  // namespace

NetworkResult map_network(const std::vector<NetworkLayer>& layers, const arch::Hierarchy& h,
                          const arch::EnergyTable* ert, const NetworkOptions& o,
                          const NetworkProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  // first[i]: the first layer of layer i's problem; distinct: the layers searched.
  std::vector<size_t> first(layers.size()), distinct;
  std::vector<size_t> genes;
  for (size_t i = 0; i < layers.size(); ++i) {
    first[i] = i;
    for (size_t j = 0; j < i && first[i] == i; ++j)
      if (layers[j].problem == layers[i].problem) first[i] = j;
    if (first[i] != i) continue;
    distinct.push_back(i);
    genes.push_back(MapSpace(layers[i].problem, h).genes());
  }
  const bool checkpoint = !o.checkpoint_file.empty();
  const nlohmann::json fp = checkpoint ? network_fingerprint(layers, h, ert, o) : nlohmann::json();
  const std::string search_file = checkpoint ? o.checkpoint_file + ".search" : "";
  std::vector<DoneLayer> done;
  if (o.resume) {
    if (!checkpoint) throw InputError({"<flag --resume>"}, "expected a checkpoint file");
    done = read_network_checkpoint(o.checkpoint_file, fp, genes);
  } else if (checkpoint) {  // a fresh run: no stale search state
    remove_on_root(search_file);
    write_on_root(network_checkpoint(fp, done), o.checkpoint_file);
  }
  std::vector<MapperResult> results;
  std::vector<Earlier> earlier;  // best genomes of searched layers, most recent last
  for (size_t d = 0; d < distinct.size(); ++d) {
    const workload::Einsum& p = layers[distinct[d]].problem;
    const MapSpace space(p, h);
    MapperOptions mo = o.mapper;
    if (o.warm_start)
      for (size_t k = 0; k < earlier.size() && k < o.warm_seeds; ++k) {
        const Earlier& e = earlier[earlier.size() - 1 - k];
        mo.warm.push_back(carry_over(space, e.layout, e.genome));
      }
    if (progress)
      mo.progress = [&progress, d, &distinct](int64_t n, int64_t budget, double best) {
        progress(d, distinct.size(), n, budget, best);
      };
    if (d < done.size() && done[d].algo != "exhaustive") {
      results.push_back(evaluate_genome(p, h, ert, done[d].genome));
      results.back().algo = done[d].algo;
      results.back().evaluations = done[d].evaluations;
      results.back().seconds = done[d].seconds;
    } else {
      mo.checkpoint_file = search_file;
      mo.resume = o.resume && d == done.size();
      results.push_back(map_problem(p, h, ert, mo));
    }
    const MapperResult& r = results.back();
    if (!r.genome.empty()) earlier.push_back({space.layout(), r.genome});
    if (d < done.size() || !checkpoint) continue;
    // A kill between the two steps re-runs this layer's search from its start: same result.
    remove_on_root(search_file);
    done.push_back({r.algo, r.genome, r.evaluations, r.seconds});
    write_on_root(network_checkpoint(fp, done), o.checkpoint_file);
  }
  NetworkResult out;
  for (size_t i = 0; i < layers.size(); ++i) {
    NetworkRow row;
    row.name = layers[i].name;
    const size_t d = static_cast<size_t>(std::find(distinct.begin(), distinct.end(), first[i]) -
                                         distinct.begin());
    row.r = results[d];
    if (first[i] != i) {
      row.same_as = layers[first[i]].name;
      row.r.evaluations = 0;
      row.r.seconds = 0;
    }
    out.all_found = out.all_found && row.r.found;
    out.cycles += row.r.result.cycles;
    out.energy_pj += row.r.result.energy_pj;
    out.bound.cycles += row.r.bound.cycles;
    out.bound.energy_pj += row.r.bound.energy_pj;
    out.evaluations += row.r.evaluations;
    out.rows.push_back(std::move(row));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

nlohmann::json to_json(const NetworkResult& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const NetworkRow& row : r.rows) {
    const MapperResult& m = row.r;
    nlohmann::json j = {{"name", row.name},
                        {"found", m.found},
                        {"algo", m.algo},
                        {"cycles", m.result.cycles},
                        {"energy_pj", m.result.energy_pj},
                        {"edp", static_cast<double>(m.result.cycles) * m.result.energy_pj},
                        {"utilization", m.result.utilization},
                        {"evaluations", m.evaluations},
                        {"seconds", m.seconds},
                        {"bound", bound_json(m.bound)}};
    if (!row.same_as.empty()) j["same_as"] = row.same_as;
    if (m.space_points) j["space_points"] = m.space_points;
    const double b = m.bound.edp();
    j["edp_over_bound"] = b > 0 ? j["edp"].get<double>() / b : 0.0;
    layers.push_back(j);
  }
  const double b = r.bound.edp();
  return {{"layers", layers},
          {"total",
           {{"cycles", r.cycles},
            {"energy_pj", r.energy_pj},
            {"edp", r.edp()},
            {"evaluations", r.evaluations},
            {"seconds", r.seconds},
            {"bound", bound_json(r.bound)},
            {"edp_over_bound", b > 0 ? r.edp() / b : 0.0}}}};
}

}  // namespace sparsemap::dse::timeloop
