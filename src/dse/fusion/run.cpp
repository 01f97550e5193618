// `sparsemap fuse`'s work as a library call: checks, the fusion cost model, each method with
// its timing runs, and the JSON (run.h).
#include "sparsemap/dse/fusion/run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "sparsemap/dse/fusion/synthetic_models.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/io/util.h"
#include "sparsemap/search/driver.h"

namespace sparsemap::dse::fusion {

namespace {

// Every option that can be checked before any work.
void check_options(const Options& a) {
  if (a.model.empty() && !a.model_object)
    throw InputError({"<flag --model>", 0, 0}, "expected --model NAME");
  if (a.batch < 1 || a.batch > 4096)
    throw InputError({"<flag --batch>", 0, 0}, "expected a batch of 1 to 4096");
  if (a.buffer_kb < 0 || a.buffer_kb > (int64_t{1} << 30))
    throw InputError({"<flag --buffer-kb>", 0, 0}, "expected 0 (the arch's L2) to 2^30 KiB");
  if (a.budget < 1 || a.budget > search::kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0},
                     "expected 1 to " + std::to_string(search::kMaxBudget) + " samples");
  if (!a.checkpoint.empty() && !a.resume.empty() && a.checkpoint != a.resume)
    throw InputError({"<flag --resume>", 0, 0}, "--checkpoint and --resume name different files");
  if (!a.resume.empty() && !std::filesystem::is_regular_file(a.resume))
    throw InputError({a.resume, 0, 0}, std::filesystem::exists(a.resume)
                                           ? "not a regular file (expected a search checkpoint)"
                                           : "no such checkpoint to resume");
  if (a.population < 4 || a.population > 100000)
    throw InputError({"<flag --population>", 0, 0}, "expected a population of 4 to 100000");
  if (a.repeat < 1 || a.repeat > 1000)
    throw InputError({"<flag --repeat>", 0, 0}, "expected 1 to 1000 runs");
  if (a.repeat > 1 && (!a.checkpoint.empty() || !a.resume.empty()))
    throw InputError({"<flag --repeat>", 0, 0}, "--repeat does not go with --checkpoint/--resume");
  if (a.threads < 1 || a.threads > 1024)
    throw InputError({"<flag --threads>", 0, 0}, "expected 1 to 1024 threads");
  io::check_output_file(a.checkpoint, "--checkpoint");
}

// The model to fuse: synth-K, a model in memory, or a zoo name or file.
workload::Model load_fusion_model(const Options& a) {
  if (a.model_object) return *a.model_object;
  if (a.model.rfind("synth-", 0) == 0) {
    const std::string k = a.model.substr(6);
    if (k.empty() || k.size() > 9 || k.find_first_not_of("0123456789") != std::string::npos)
      throw InputError({"<flag --model>", 0, 0}, "expected synth-K with K a number");
    return synthetic_cnn(std::stoull(k), a.batch);
  }
  workload::ZooOptions zo;
  zo.batch = a.batch;
  zo.image_size = a.image_size;
  return io::load_model(a.model, zo);
}

// The learned mapper's weights: the caller's reader, else plain .bin weights only.
FuserWeights load_weights(const Options& a) {
  if (a.load_weights) return a.load_weights(a.weights);
  if (!is_fuser_weights_file(a.weights) && std::filesystem::path(a.weights).extension() == ".pt")
    throw InputError({a.weights, 0, 0},
                     "a torch archive needs a build with libtorch; give its "
                     ".bin (" +
                         fuser_weights_path(a.weights) + ")");
  return read_fuser_weights(a.weights);  // throws, naming the file and the problem
}

FusionResult run_method(const Options& a, const std::string& method, const cost::FusionCostModel& m,
                        Objective o, double* load_s, search::Observer& observer) {
  if (method == "none") return no_fusion(m, o);
  if (method == "greedy") return greedy(m, o);
  if (method == "dp") return dp(m, o);
  if (method == "exhaustive") return exhaustive(m, o);
  if (method == "search") {
    SearchOptions s;
    s.budget = a.budget;
    s.seed = a.seed;
    s.threads = a.threads;
    s.population = a.population;
    s.checkpoint_file = !a.resume.empty() ? a.resume : a.checkpoint;
    s.resume = !a.resume.empty();
    s.progress = [&observer, budget = a.budget](int64_t done, double best) {
      search::report_progress(observer, {0, 1, done, budget, best, "search"});
    };
    FusionResult r = search(m, o, s);
    observer.on_search_done();
    return r;
  }
  if (method == "learned") {
    const auto t0 = std::chrono::steady_clock::now();
    const FuserWeights w = load_weights(a);
    if (load_s)
      *load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return learned(m, o, w);  // wall_s: inference, repair and the final cost
  }
  throw InputError(
      {"<flag --method>", 0, 0},
      "unknown method '" + method + "'; expected none, greedy, dp, exhaustive, search or learned");
}

}  // namespace

Result run(const Options& a, search::Observer& observer) {
  check_options(a);
  const Objective o = parse_objective(a.objective);
  const arch::Arch hw = a.hw_object ? *a.hw_object : io::load_arch(a.hw);
  const workload::Model model = load_fusion_model(a);
  Result r;
  r.options = a;
  r.options.model_object.reset();
  r.options.hw_object.reset();
  r.options.load_weights = nullptr;
  cost::FusionOptions fo;
  fo.dataflow = a.dataflow;
  fo.buffer_bytes = a.buffer_kb * 1024;
  r.model =
      std::make_shared<const cost::FusionCostModel>(cost::fusion_graph(model, a.batch), hw, fo);
  const cost::FusionCostModel& m = *r.model;
  r.none = m.evaluate(cost::FusionMapping::no_fusion(m.size(), m.graph().batch));
  const std::vector<std::string> methods = io::split_list(a.method);
  if (methods.empty()) throw InputError({"<flag --method>", 0, 0}, "expected a method");
  for (const std::string& method : methods) {
    MethodRun mr;
    mr.result = run_method(a, method, m, o, &mr.load_s, observer);
    mr.first_s = mr.result.wall_s;
    if (a.repeat > 1) {  // wall_s: the median of the runs (every run gives the same mapping)
      std::vector<double> walls = {mr.result.wall_s};
      for (int k = 1; k < a.repeat; ++k)
        walls.push_back(run_method(a, method, m, o, nullptr, observer).wall_s);
      std::sort(walls.begin(), walls.end());
      mr.result.wall_s = walls[walls.size() / 2];
    }
    r.runs.push_back(std::move(mr));
  }
  return r;
}

nlohmann::json run_json(const Result& res, const MethodRun& run) {
  const Options& a = res.options;
  const cost::FusionCostModel& m = *res.model;
  const FusionResult& r = run.result;
  const cost::FusionCost& none = res.none;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : r.cost.groups) {
    nlohmann::json layers = nlohmann::json::array(), mbs = nlohmann::json::array();
    for (int i = g.first; i <= g.last; ++i) {
      layers.push_back(m.graph().nodes[i].layer.name);
      mbs.push_back(r.mapping.micro_batch[i]);
    }
    groups.push_back({{"layers", layers},
                      {"micro_batch", mbs},
                      {"latency_cycles", g.latency_cycles},
                      {"energy_nj", g.energy_nj},
                      {"dram_bytes", g.dram_bytes},
                      {"requested_bytes", g.requested_bytes},
                      {"meets_buffer", g.meets_buffer}});
  }
  const double ms = r.cost.latency_cycles / (m.arch().clock_mhz * 1e3);
  nlohmann::json j = {{"model", m.graph().name},
                      {"method", r.method},
                      {"objective", a.objective},
                      {"hw", m.arch().name},
                      {"batch", m.graph().batch},
                      {"buffer_bytes", m.buffer_bytes()},
                      {"latency_cycles", r.cost.latency_cycles},
                      {"latency_ms", ms},
                      {"energy_nj", r.cost.energy_nj},
                      {"dram_bytes", r.cost.dram_bytes},
                      {"no_fusion_latency_cycles", none.latency_cycles},
                      {"no_fusion_dram_bytes", none.dram_bytes},
                      {"dram_saved_bytes", none.dram_bytes - r.cost.dram_bytes},
                      {"peak_buffer_bytes", r.cost.peak_buffer_bytes},
                      {"meets_buffer", r.cost.meets_buffer},
                      {"samples", r.samples},
                      {"wall_s", r.wall_s},
                      {"groups", groups}};
  j["repeat"] = a.repeat;
  j["wall_s_first"] = run.first_s;  // the first run (cold caches; what a single run costs)
  if (r.method == "learned") {
    j["weights"] = a.weights;
    j["load_s"] = run.load_s;
  }
  return j;
}

nlohmann::json to_json(const Result& r) {
  nlohmann::json runs = nlohmann::json::array();
  for (const MethodRun& run : r.runs) runs.push_back(run_json(r, run));
  return runs.size() == 1 ? runs[0] : runs;
}

}  // namespace sparsemap::dse::fusion
