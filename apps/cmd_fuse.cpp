// `sparsemap fuse`: inter-layer fusion mapping of a CNN (DNNFuser's map space: a micro-batch per
// layer and fusion groups under an on-chip buffer) by no fusion, greedy, DP, exhaustive, the GA
// search or the learned decision transformer; a table against no fusion and JSON.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/fusion.h"
#include "sparsemap/dse/fusion/fuser_infer.h"
#include "sparsemap/dse/fusion/fusion_search.h"
#include "sparsemap/dse/fusion/synthetic_models.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/search/driver.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/fusion/dnnfuser.h"
#endif

namespace sparsemap::cli {

// Fails before any work when `path` (a file to write at the end) cannot be: a directory, or in
// a folder that does not exist or is not writable. "-" (stdout) and "" (none) pass.
void check_output_file(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-") return;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw InputError({"<flag " + flag + ">", 0, 0}, "'" + path + "' is a directory");
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw InputError({"<flag " + flag + ">", 0, 0},
                     "cannot write '" + path + "': its folder does not exist or is not writable");
}

namespace {

namespace fu = dse::fusion;

struct FuseArgs {
  std::string model, hw = "flat-edge", method = "dp", objective = "latency";
  std::string dataflow = "best", weights;  // "" = the shipped model (plain weights, .bin)
  std::string checkpoint, resume, json;
  int64_t batch = 1, buffer_kb = 0, budget = 6000, image_size = 0;
  uint64_t seed = 1;
  int threads = 1, repeat = 1;
  size_t population = 64;
  bool groups = false, quiet = false;
};

nlohmann::json result_json(const FuseArgs& a, const cost::FusionCostModel& m,
                           const fu::FusionResult& r, const cost::FusionCost& none) {
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
  return {{"model", m.graph().name},
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
}

// The learned mapper's weights: the plain file fuse-train writes beside its torch archive
// (no libtorch needed), or, in a build with libtorch, the torch archive itself.
dse::fusion::FuserWeights load_weights(const std::string& path) {
  if (dse::fusion::is_fuser_weights_file(path)) return dse::fusion::read_fuser_weights(path);
#ifdef SPARSEMAP_HAVE_TORCH
  if (std::filesystem::is_regular_file(path))
    return ml::fusion::Fuser::load(path).weights();  // a torch archive (.pt)
#else
  if (std::filesystem::path(path).extension() == ".pt")
    throw InputError({path, 0, 0}, "a torch archive needs a build with libtorch; give its .bin (" +
                                       dse::fusion::fuser_weights_path(path) + ")");
#endif
  return dse::fusion::read_fuser_weights(path);  // throws, naming the file and the problem
}

fu::FusionResult run_method(const FuseArgs& a, const std::string& method,
                            const cost::FusionCostModel& m, fu::Objective o, double* load_s) {
  if (method == "none") return fu::no_fusion(m, o);
  if (method == "greedy") return fu::greedy(m, o);
  if (method == "dp") return fu::dp(m, o);
  if (method == "exhaustive") return fu::exhaustive(m, o);
  if (method == "search") {
    fu::SearchOptions s;
    s.budget = a.budget;
    s.seed = a.seed;
    s.threads = a.threads;
    s.population = a.population;
    s.checkpoint_file = !a.resume.empty() ? a.resume : a.checkpoint;
    s.resume = !a.resume.empty();
    if (!a.quiet && isatty(2))
      s.progress = [budget = a.budget](int64_t done, double best) {
        std::fprintf(stderr, "\rsearch %lld/%lld best %.6g   ", static_cast<long long>(done),
                     static_cast<long long>(budget), best);
      };
    fu::FusionResult r = fu::search(m, o, s);
    if (s.progress) std::fprintf(stderr, "\n");
    return r;
  }
  if (method == "learned") {
    const auto t0 = std::chrono::steady_clock::now();
    const dse::fusion::FuserWeights w = load_weights(a.weights);
    if (load_s)
      *load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return fu::learned(m, o, w);  // wall_s: inference, repair and the final cost
  }
  throw InputError(
      {"<flag --method>", 0, 0},
      "unknown method '" + method + "'; expected none, greedy, dp, exhaustive, search or learned");
}

void run_fuse(const FuseArgs& a) {
  if (a.model.empty()) throw InputError({"<flag --model>", 0, 0}, "expected --model NAME");
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
  check_output_file(a.json, "--json");
  check_output_file(a.checkpoint, "--checkpoint");
  const fu::Objective o = fu::parse_objective(a.objective);
  const arch::Arch hw = io::load_arch(a.hw);
  workload::Model model;
  if (a.model.rfind("synth-", 0) == 0) {
    const std::string k = a.model.substr(6);
    if (k.empty() || k.size() > 9 || k.find_first_not_of("0123456789") != std::string::npos)
      throw InputError({"<flag --model>", 0, 0}, "expected synth-K with K a number");
    model = fu::synthetic_cnn(std::stoull(k), a.batch);
  } else {
    workload::ZooOptions zo;
    zo.batch = a.batch;
    zo.image_size = a.image_size;
    model = load_model(a.model, zo);
  }
  cost::FusionOptions fo;
  fo.dataflow = a.dataflow;
  fo.buffer_bytes = a.buffer_kb * 1024;
  const cost::FusionCostModel m(cost::fusion_graph(model, a.batch), hw, fo);
  const cost::FusionCost none =
      m.evaluate(cost::FusionMapping::no_fusion(m.size(), m.graph().batch));

  std::vector<std::string> methods = split_list(a.method);
  if (methods.empty()) throw InputError({"<flag --method>", 0, 0}, "expected a method");
  Table t({"method", "groups", "latency cycles", "ms", "vs none", "energy mJ", "DRAM MB",
           "saved MB", "peak KiB", "meets", "samples", "wall s"});
  nlohmann::json runs = nlohmann::json::array();
  std::string notes;
  // With --json -, stdout carries the JSON alone and the table is left out (as every command).
  std::ostringstream unused;
  std::ostream& text = a.json == "-" ? static_cast<std::ostream&>(unused) : std::cout;
  for (const std::string& method : methods) {
    double load_s = 0;
    fu::FusionResult r = run_method(a, method, m, o, &load_s);
    const double first_s = r.wall_s;
    if (a.repeat > 1) {  // wall_s: the median of the runs (every run gives the same mapping)
      std::vector<double> walls = {r.wall_s};
      for (int k = 1; k < a.repeat; ++k)
        walls.push_back(run_method(a, method, m, o, nullptr).wall_s);
      std::sort(walls.begin(), walls.end());
      r.wall_s = walls[walls.size() / 2];
    }
    nlohmann::json j = result_json(a, m, r, none);
    j["repeat"] = a.repeat;
    j["wall_s_first"] = first_s;  // the first run (cold caches; what a single run costs)
    if (r.method == "learned") {
      j["weights"] = a.weights;
      j["load_s"] = load_s;
      notes += "learned: weights " + a.weights + " loaded in " + fixed(load_s, 3) +
               " s (not in wall s)\n";
    }
    runs.push_back(j);
    t.add({r.method, std::to_string(r.cost.groups.size()),
           with_commas(static_cast<int64_t>(r.cost.latency_cycles)),
           fixed(j["latency_ms"].get<double>(), 3),
           fixed(none.latency_cycles / std::max(1.0, r.cost.latency_cycles), 2) + "x",
           fixed(r.cost.energy_nj / 1e6, 3), fixed(r.cost.dram_bytes / 1e6, 2),
           fixed((none.dram_bytes - r.cost.dram_bytes) / 1e6, 2),
           fixed(static_cast<double>(r.cost.peak_buffer_bytes) / 1024.0, 1),
           r.cost.meets_buffer ? "yes" : "NO", with_commas(r.samples), fixed(r.wall_s, 3)});
    if (a.groups) {
      text << r.method << " groups:\n";
      for (const auto& g : r.cost.groups) {
        text << "  [" << g.first << ".." << g.last << "] " << m.graph().nodes[g.first].layer.name
             << " .. " << m.graph().nodes[g.last].layer.name << "  micro-batch";
        for (int i = g.first; i <= g.last; ++i) text << " " << r.mapping.micro_batch[i];
        text << "  " << fixed(static_cast<double>(g.requested_bytes) / 1024.0, 1) << " KiB\n";
      }
    }
  }
  text << "fuse " << m.graph().name << " (" << m.size() << " layers, " << m.graph().skip_edges()
       << " skip edges), batch " << m.graph().batch << ", on " << hw.name << ", buffer "
       << m.buffer_bytes() / 1024 << " KiB,\nobjective " << a.objective << ", dataflow "
       << a.dataflow << " (" << m.evaluations() << " single-layer evaluations cached)\n"
       << t.str() << notes;
  if (!a.json.empty()) write_json(runs.size() == 1 ? runs[0] : runs, a.json);
}

}  // namespace

void register_fuse_train(CLI::App& app);  // apps/cmd_fuse_train.cpp

void register_fuse(CLI::App& app) {
  register_fuse_train(app);
  auto a = std::make_shared<FuseArgs>();
  CLI::App* c = app.add_subcommand(
      "fuse", "Inter-layer fusion mapping (DNNFuser): micro-batches and fusion groups");
  c->add_option("--model", a->model,
                "zoo CNN (resnet18, resnet50, mobilenet-v2, vgg16, mnasnet), "
                "a model file, or synth-K")
      ->required();
  c->add_option("--hw", a->hw, "accelerator preset or file")->capture_default_str();
  c->add_option("--batch", a->batch, "samples")->capture_default_str();
  c->add_option("--image-size", a->image_size, "pixels per side (0: the model's)")
      ->capture_default_str();
  c->add_option("--buffer-kb", a->buffer_kb, "on-chip buffer for fusion, KiB (0: the arch's L2)")
      ->capture_default_str();
  c->add_option("--method", a->method, "none|greedy|dp|exhaustive|search|learned, or a comma list")
      ->capture_default_str();
  c->add_option("--objective", a->objective, "latency|energy|edp")->capture_default_str();
  c->add_option("--dataflow", a->dataflow,
                "per-layer dataflow: a template name or best (the fastest per layer)")
      ->capture_default_str();
  c->add_option("--budget", a->budget, "search: samples")->capture_default_str();
  c->add_option("--population", a->population, "search: GA population")->capture_default_str();
  c->add_option("--seed", a->seed, "search: seed")->capture_default_str();
  c->add_option("--threads", a->threads, "search: threads")->capture_default_str();
  c->add_option("--weights", a->weights,
                "learned: the trained weights, .bin (or a fuse-train .pt with libtorch); "
                "default: the shipped data/dnnfuser/fuser.bin");
  c->add_option("--checkpoint", a->checkpoint, "search: checkpoint file");
  c->add_option("--resume", a->resume, "search: resume from this checkpoint");
  c->add_option("--repeat", a->repeat,
                "run each method N times; wall s is the median (for timing comparisons)")
      ->capture_default_str();
  c->add_flag("--groups", a->groups, "print each method's groups");
  c->add_option("--json", a->json, "write JSON to FILE or - (stdout)");
  c->add_flag("--quiet", a->quiet, "no progress");
  c->callback([a]() {
    if (a->weights.empty()) a->weights = shipped_data_file("data/dnnfuser/fuser.bin");
    run_fuse(*a);
  });
}

}  // namespace sparsemap::cli
