// `sparsemap map --hw ARCH.yaml` as a library call (run.h): the mapper on a Timeloop-described
// accelerator (its map space and constraints, the loop-nest model) for every layer of --model.
#include <cctype>
#include <filesystem>

#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/error.h"
#include "sparsemap/io/util.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::dse::timeloop {

namespace fs = std::filesystem;

namespace {

// A layer name as a file name: characters other than letters, digits, '-', '_' and '.' become
// '_' (a zoo layer named "layer1/conv" is written as layer1_conv.map.yaml).
std::string file_stem(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return name.empty() || name[0] == '.' ? "layer" + name : name;
}

// --objective when given ("latency" is Timeloop's "delay"), else the architecture's
// optimization_metrics, else EDP.
std::vector<Metric> metrics(const MapOptions& a, const io::TimeloopInputs& hw) {
  std::vector<Metric> m;
  if (!a.objective.empty()) {
    const std::string o = a.objective == "latency" ? "delay" : a.objective;
    m.push_back(parse_metric(o, "<flag --objective>"));
    return m;
  }
  for (const auto& name : hw.optimization_metrics)
    m.push_back(parse_metric(
        name, hw.sources.count("architecture") ? hw.sources.at("architecture") : "<mapper>"));
  if (m.empty()) m.push_back(Metric::kEdp);
  return m;
}

// The architecture file's inputs with the ERT beside it (or --ert) when it holds none.
io::TimeloopInputs arch_with_ert(const MapOptions& a, search::Observer& observer) {
  const std::string ert = a.ert.empty() ? table_beside(a.hw, "ERT.yaml", "--ert") : a.ert;
  const io::TimeloopInputs* read = arch_inputs(a.hw);
  io::TimeloopInputs hw = read ? *read : io::read_timeloop_files({a.hw});
  if (!hw.ert && !ert.empty()) hw.ert = io::read_timeloop_files({ert}).ert;
  if (!hw.ert)
    observer.on_warning("no ERT beside " + a.hw + " or given with --ert: energies are 0");
  return hw;
}

}  // namespace

std::string metrics_text(const std::vector<Metric>& m) {
  std::string s;
  for (const auto x : m) s += (s.empty() ? "" : ", ") + metric_name(x);
  return s;
}

MapResult run_map(const MapOptions& a, search::Observer& observer) {
  search::MpiSession mpi;  // before any thread; only the root returns a result
  MapResult r;
  r.root = mpi.is_root();
  r.mpi_ranks = mpi.size();
  r.options = a;
  r.options.model_object.reset();
  if (!a.checkpoint.empty() && !a.resume.empty() && a.checkpoint != a.resume)
    throw InputError({"<flag --resume>"}, "--checkpoint and --resume name different files");
  if (a.checkpoint_every < 1)
    throw InputError({"<flag --checkpoint-every>"}, "expected a positive number of evaluations");
  const io::TimeloopInputs hw = arch_with_ert(a, observer);
  const std::vector<NetworkLayer> layers =
      load_layers(a.model, a.model_object, a.zoo, hw, r.model_name);
  NetworkOptions o;
  o.mapper.algo = a.algo;
  o.mapper.budget = a.budget;
  o.mapper.exhaustive_limit = a.exhaustive_limit;
  o.mapper.metrics = metrics(a, hw);
  o.mapper.seed = a.seed;
  o.mapper.threads = a.threads;
  o.mapper.use_mpi = mpi.size() > 1;
  o.mapper.checkpoint_every = a.checkpoint_every;
  o.warm_start = a.warm_start;
  o.checkpoint_file = a.resume.empty() ? a.checkpoint : a.resume;
  o.resume = !a.resume.empty();
  r.network =
      map_network(layers, *hw.arch, hw.ert ? &*hw.ert : nullptr, o,
                  [&observer](size_t u, size_t n, int64_t evals, int64_t budget, double best) {
                    search::report_progress(observer, {u, n, evals, budget, best, ""});
                  });
  observer.on_search_done();
  if (!r.root) return r;
  for (const auto& row : r.network.rows)
    if (!row.r.found)
      throw InputError({a.hw}, "no mapping of layer " + row.name +
                                   " fits this architecture: expected a problem whose tiles fit "
                                   "some level's capacity under its constraints");
  r.arch_name = hw.arch->name;
  r.layers = layers.size();
  r.metrics = o.mapper.metrics;
  return r;
}

void write_outputs(const MapResult& r) {
  if (!r.root || r.options.emit_dir.empty()) return;
  io::make_output_dir(r.options.emit_dir, "--emit-timeloop");
  for (const auto& row : r.network.rows)
    io::write_text_file(
        (fs::path(r.options.emit_dir) / (file_stem(row.name) + ".map.yaml")).string(),
        io::write_timeloop_mapping(row.r.mapping));
}

nlohmann::json to_json(const MapResult& r) {
  nlohmann::json j = to_json(r.network);
  j["model"] = r.model_name;
  j["arch"] = r.options.hw;
  j["algo"] = r.options.algo;
  j["budget"] = r.options.budget;
  j["seed"] = r.options.seed;
  nlohmann::json m = nlohmann::json::array();
  for (const auto x : r.metrics) m.push_back(metric_name(x));
  j["metrics"] = m;
  return j;
}

}  // namespace sparsemap::dse::timeloop
