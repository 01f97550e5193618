// `sparsemap map --hw ARCH.yaml`: the mapper on a Timeloop-described accelerator (its map space
// and constraints, the loop-nest model), for one problem file, a folder of them, or any model
// of the zoo / ONNX / MAESTRO / GAMMA readers; per-layer table, totals, lower bounds, JSON.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "commands.h"
#include "sparsemap/dse/timeloop/network.h"
#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"
#include "sparsemap/search/mpi.h"
#include "timeloop_common.h"

namespace sparsemap::cli {
namespace {

namespace fs = std::filesystem;
namespace tl = dse::timeloop;

// A layer name as a file name: characters other than letters, digits, '-', '_' and '.' become
// '_' (a zoo layer named "layer1/conv" is written as layer1_conv.map.yaml).
std::string file_stem(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return name.empty() || name[0] == '.' ? "layer" + name : name;
}

bool is_yaml(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

}  // namespace

std::string table_beside(const std::string& arch_file, const std::string& suffix,
                         const std::string& flag) {
  const fs::path dir =
      fs::path(arch_file).parent_path().empty() ? fs::path(".") : fs::path(arch_file).parent_path();
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(e.path().string());
  }
  if (found.size() > 1)
    throw InputError({"<flag " + flag + ">"}, "several *" + suffix + " files beside " + arch_file +
                                                  ": expected " + flag + " naming one");
  return found.empty() ? "" : found[0];
}

std::vector<tl::NetworkLayer> load_timeloop_layers(const std::string& model,
                                                   const workload::ZooOptions& zoo,
                                                   const io::TimeloopInputs& hw,
                                                   std::string& model_name) {
  std::vector<tl::NetworkLayer> out;
  auto from_file = [&](const std::string& path) {
    const io::TimeloopInputs in = io::read_timeloop_files({path});
    if (!in.problem)
      throw InputError({path}, "expected a Timeloop problem (a top-level problem key)");
    out.push_back({fs::path(path).stem().string(), *in.problem});
  };
  if (model.empty()) {
    if (!hw.problem)
      throw InputError({"<flag --model>"},
                       "expected --model: the architecture file holds no problem");
    model_name = hw.problem->name;
    out.push_back({hw.problem->name, *hw.problem});
  } else if (fs::is_directory(model)) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(model))
      if (e.is_regular_file() && is_yaml(e.path().string())) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw InputError({model}, "expected a folder of Timeloop problem files (*.yaml)");
    for (const auto& f : files) from_file(f);
    model_name = fs::path(model).filename().string();
  } else if (is_yaml(model)) {
    from_file(model);
    model_name = out.back().name;
  } else {
    const workload::Model m = load_model(model, zoo);
    model_name = m.name;
    for (const auto& l : m.layers)
      if (workload::is_gemm_class(l.kind)) out.push_back({l.name, workload::to_einsum(l)});
  }
  return out;
}

namespace {

std::vector<tl::Metric> metrics(const TimeloopMapArgs& a, const io::TimeloopInputs& hw) {
  std::vector<tl::Metric> m;
  if (a.objective_given) {
    const std::string o = a.objective == "latency" ? "delay" : a.objective;
    m.push_back(tl::parse_metric(o, "<flag --objective>"));
    return m;
  }
  for (const auto& name : hw.optimization_metrics)
    m.push_back(tl::parse_metric(
        name, hw.sources.count("architecture") ? hw.sources.at("architecture") : "<mapper>"));
  if (m.empty()) m.push_back(tl::Metric::kEdp);
  return m;
}

std::string metrics_text(const std::vector<tl::Metric>& m) {
  std::string s;
  for (const auto x : m) s += (s.empty() ? "" : ", ") + tl::metric_name(x);
  return s;
}

void print_table(const tl::NetworkResult& r) {
  Table t(
      {"layer", "cycles", "energy uJ", "EDP J*cyc", "util %", "EDP/bound", "evals", "search", "s"});
  for (const auto& row : r.rows) {
    const auto& m = row.r;
    const double edp = static_cast<double>(m.result.cycles) * m.result.energy_pj * 1e-12;
    const double bound = m.bound.edp() * 1e-12;
    char e[32];
    std::snprintf(e, sizeof e, "%.4g", edp);
    t.add({row.name, with_commas(m.result.cycles), fixed(m.result.energy_pj * 1e-6, 3), e,
           fixed(100 * m.result.utilization, 1), bound > 0 ? fixed(edp / bound, 2) : "-",
           with_commas(m.evaluations),
           row.same_as.empty() ? (m.found ? m.algo : "none fits") : "= " + row.same_as,
           fixed(m.seconds, 2)});
  }
  char e[32];
  std::snprintf(e, sizeof e, "%.4g", r.edp() * 1e-12);
  const double bound = r.bound.edp() * 1e-12;
  t.add({"total", with_commas(r.cycles), fixed(r.energy_pj * 1e-6, 3), e, "",
         bound > 0 ? fixed(r.edp() * 1e-12 / bound, 2) : "-", with_commas(r.evaluations), "",
         fixed(r.seconds, 2)});
  std::cout << t.str();
}

}  // namespace

const io::TimeloopInputs* timeloop_arch_inputs(const std::string& path) {
  // Read once per process: `map` and `codesign` ask before they run, then run on the result.
  static std::map<std::string, std::optional<io::TimeloopInputs>> read;
  auto it = read.find(path);
  if (it == read.end()) {
    std::optional<io::TimeloopInputs> in;
    if (is_yaml(path) && fs::is_regular_file(path)) {
      try {
        in = io::read_timeloop_files({path});
        if (!in->arch) in.reset();
      } catch (const InputError&) {
        // not a Timeloop file: the other readers say what is wrong with it
      }
    }
    it = read.emplace(path, std::move(in)).first;
  }
  return it->second ? &*it->second : nullptr;
}

bool is_timeloop_arch_file(const std::string& path) { return timeloop_arch_inputs(path); }

void run_map_timeloop(const TimeloopMapArgs& a) {
  search::MpiSession mpi;  // before any thread; only the root prints and writes
  const bool root = mpi.is_root();
  if (!a.checkpoint.empty() && !a.resume.empty() && a.checkpoint != a.resume)
    throw InputError({"<flag --resume>"}, "--checkpoint and --resume name different files");
  if (a.checkpoint_every < 1)
    throw InputError({"<flag --checkpoint-every>"}, "expected a positive number of evaluations");
  const std::string ert = a.ert.empty() ? table_beside(a.hw, "ERT.yaml", "--ert") : a.ert;
  const io::TimeloopInputs* read = timeloop_arch_inputs(a.hw);
  io::TimeloopInputs hw = read ? *read : io::read_timeloop_files({a.hw});
  if (!hw.ert && !ert.empty()) hw.ert = io::read_timeloop_files({ert}).ert;
  if (!hw.ert) print_warning("no ERT beside " + a.hw + " or given with --ert: energies are 0");
  std::string model_name;
  const std::vector<tl::NetworkLayer> layers = load_timeloop_layers(a.model, a.zoo, hw, model_name);
  tl::NetworkOptions o;
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
  const bool bar = root && !a.quiet && a.json != "-" && isatty(2);
  const tl::NetworkResult r = tl::map_network(
      layers, *hw.arch, hw.ert ? &*hw.ert : nullptr, o,
      [&](size_t u, size_t n, int64_t evals, int64_t budget, double best) {
        if (!bar) return;
        if (budget > 0) return print_search_progress(u, n, evals, budget, best);
        std::fprintf(stderr, "\r[%3zu/%zu] enumerating: %lld points, best %.4g   ", u + 1, n,
                     static_cast<long long>(evals), best >= search::kInfeasible ? 0.0 : best);
      });
  if (bar) std::fprintf(stderr, "\n");
  if (!root) return;
  for (const auto& row : r.rows)
    if (!row.r.found)
      throw InputError({a.hw}, "no mapping of layer " + row.name +
                                   " fits this architecture: expected a problem whose tiles fit "
                                   "some level's capacity under its constraints");
  if (a.json != "-") {
    std::cout << model_name << " on " << hw.arch->name << " (" << a.hw << "): " << layers.size()
              << " layers, objective " << metrics_text(o.mapper.metrics) << ", search " << a.algo
              << " (" << with_commas(a.budget) << " evaluations per layer, exhaustive up to "
              << with_commas(static_cast<int64_t>(a.exhaustive_limit)) << " points), seed "
              << a.seed << ", " << a.threads << " thread(s)"
              << (mpi.size() > 1 ? " x " + std::to_string(mpi.size()) + " MPI ranks" : "") << "\n";
    print_table(r);
    std::cout << "EDP/bound: the mapping's EDP over a lower bound (compute, and the outermost "
                 "level's compulsory traffic and energy)\n";
  }
  if (!a.emit_dir.empty()) {
    make_output_dir(a.emit_dir, "--emit-timeloop");
    for (const auto& row : r.rows)
      write_text_file((fs::path(a.emit_dir) / (file_stem(row.name) + ".map.yaml")).string(),
                      io::write_timeloop_mapping(row.r.mapping));
  }
  if (!a.json.empty()) {
    nlohmann::json j = tl::to_json(r);
    j["model"] = model_name;
    j["arch"] = a.hw;
    j["algo"] = a.algo;
    j["budget"] = a.budget;
    j["seed"] = a.seed;
    nlohmann::json m = nlohmann::json::array();
    for (const auto x : o.mapper.metrics) m.push_back(tl::metric_name(x));
    j["metrics"] = m;
    write_json(j, a.json);
  }
}

}  // namespace sparsemap::cli
