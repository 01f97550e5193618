// `sparsemap mse`: the map-space-exploration study (Kao et al., IISWC 2022 style): every search
// algorithm at every budget and seed on the distinct layers of several models; per algorithm
// and budget the geomean of latency / best found by any method, the samples to get within 5%
// of it, wall time, and convergence curves (CSV, gnuplot).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::cli {
namespace {

namespace mp = dse::mapper;

struct MseArgs {
  std::string models = "resnet50,mobilenet-v2,bert-base", hw = "gamma-edge";
  std::string algos = "gamma,random,sa,de,pso,cmaes,oneplusone,bo";
  std::string budgets = "1000,10000", objective = "latency";
  int seeds = 3, threads = 1, levels = 2, max_layers = 0;
  size_t population = 0;
  double mutation_rate = 0.6;
  bool maestro_compatible = false;
  uint64_t seed = 1;
  std::string json, csv, plot;
  bool quiet = false;
};

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

// Sample counts at which convergence curves are read: about 12 per decade, 1 .. budget.
std::vector<int64_t> curve_points(int64_t budget) {
  std::vector<int64_t> p;
  for (double x = 1; x < static_cast<double>(budget); x *= 1.2) {
    const auto v = static_cast<int64_t>(std::llround(x));
    if (p.empty() || v > p.back()) p.push_back(v);
  }
  p.push_back(budget);
  return p;
}

struct Run {  // one (algo, budget, seed) over every distinct layer
  std::string algo;
  int64_t budget = 0;  // as asked (BO runs min(budget, cap))
  int seed = 0;
  double wall_s = 0;
  std::vector<double> best;                  // per distinct layer
  std::vector<std::vector<double>> curve;    // per distinct layer, at curve_points(budget)
  std::vector<std::vector<double>> history;  // per distinct layer (kept for samples-to-5%)
};

std::vector<int64_t> parse_budgets(const std::string& text) {
  std::vector<int64_t> budgets;
  for (const auto& b : split_list(text)) {
    try {
      budgets.push_back(std::stoll(b));
    } catch (...) {
      throw InputError({"<flag --budgets>", 0, 0}, "expected a comma list of sample counts");
    }
    if (budgets.back() < 1)
      throw InputError({"<flag --budgets>", 0, 0}, "expected positive sample counts");
  }
  return budgets;
}

// The distinct GEMM-class layers of every model (the first max_layers of each), with the model
// each comes from.
void study_layers(const std::vector<std::string>& models, const arch::Arch& hw, int max_layers,
                  std::vector<workload::Layer>& layers, std::vector<std::string>& layer_model) {
  for (const auto& name : models) {
    const workload::Model m = load_model(name, {});
    std::vector<workload::Layer> gemm;
    for (const auto& l : m.layers)
      if (workload::is_gemm_class(l.kind)) gemm.push_back(l);
    mp::MapperOptions probe;
    probe.budget = 1;
    probe.algo = "random";
    // Distinct shapes, as map_layers sees them: run nothing, read them from a 1-sample pass.
    const mp::ModelOutcome o = mp::map_layers(gemm, hw, probe);
    int taken = 0;
    for (const auto& lo : o.layers) {
      if (lo.reused) continue;
      if (max_layers > 0 && taken >= max_layers) break;
      layers.push_back(lo.layer);
      layer_model.push_back(m.name);
      ++taken;
    }
  }
}

// One (algo, budget, seed) over every layer: best per layer, curves at curve_points(budget)
// (a curve stops past the samples it ran: BO's cap), histories and wall time.
Run run_one(const MseArgs& a, mp::Objective objective, const std::string& algo, int64_t b, int s,
            const std::vector<workload::Layer>& layers, const arch::Arch& hw, bool root) {
  mp::MapperOptions o;
  o.algo = algo;
  o.budget = b;
  o.seed = a.seed + static_cast<uint64_t>(s);
  o.threads = a.threads;
  o.objective = objective;
  o.space.max_levels = a.levels;
  o.space.maestro_compatible = a.maestro_compatible;
  o.keep_history = true;
  o.population = a.population;
  o.mutation_rate = a.mutation_rate;
  if (root && !a.quiet && isatty(fileno(stderr)))  // progress: on a terminal only
    std::cerr << "mse: " << algo << " budget " << b << " seed " << o.seed << " (" << layers.size()
              << " layers)\n";
  const auto t0 = std::chrono::steady_clock::now();
  const mp::ModelOutcome res = mp::map_layers(layers, hw, o);
  Run r;
  r.algo = algo;
  r.budget = b;
  r.seed = s;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<int64_t> pts = curve_points(b);
  for (const auto& lo : res.layers) {
    r.best.push_back(lo.fitness);
    std::vector<double> c;
    for (int64_t p : pts) {
      const auto& h = lo.history;
      c.push_back(h.empty() || p > static_cast<int64_t>(h.size()) ? search::kInfeasible
                                                                  : h[static_cast<size_t>(p - 1)]);
    }
    r.curve.push_back(std::move(c));
    r.history.push_back(lo.history);
  }
  return r;
}

// One row of the study: an algorithm at one budget, over its seeds and the layers some method
// found feasible.
struct Row {
  std::string algo;
  int64_t budget = 0;
  double geomean = 0;
  double median_samples = -1;  // samples to within 5% (median over layers x seeds)
  double reached_pct = 0;
  double wall_s = 0;  // per seed, mean
  std::vector<int64_t> points;
  std::vector<double> curve;  // geomean of best-so-far / best at points (NaN: infeasible)
};

// The row of (algo, b) against `best` (the best any method found, per layer); false when no
// layer is feasible for any method.
bool summarise(const std::string& algo, int64_t b, const std::vector<Run>& runs,
               const std::vector<double>& best, Row& row) {
  const size_t nl = best.size();
  row.algo = algo;
  row.budget = b;
  row.points = curve_points(b);
  double lg = 0;
  int64_t n = 0, reached = 0;
  std::vector<double> samples;
  std::vector<double> clog(row.points.size(), 0);
  std::vector<bool> cbad(row.points.size(), false);
  int nruns = 0;
  for (const Run& r : runs) {
    if (r.algo != algo || r.budget != b) continue;
    ++nruns;
    row.wall_s += r.wall_s;
    for (size_t i = 0; i < nl; ++i) {
      if (best[i] >= search::kInfeasible) continue;
      const double ratio = r.best[i] >= search::kInfeasible ? 1e3 : r.best[i] / best[i];
      lg += std::log(ratio);
      ++n;
      int64_t s = -1;
      for (size_t k = 0; k < r.history[i].size(); ++k)
        if (r.history[i][k] <= best[i] * 1.05) {
          s = static_cast<int64_t>(k) + 1;
          break;
        }
      if (s >= 0) ++reached;
      samples.push_back(s >= 0 ? static_cast<double>(s) : 1e300);
      for (size_t p = 0; p < row.points.size(); ++p) {
        if (r.curve[i][p] >= search::kInfeasible)
          cbad[p] = true;
        else
          clog[p] += std::log(r.curve[i][p] / best[i]);
      }
    }
  }
  if (n == 0) return false;
  row.geomean = std::exp(lg / static_cast<double>(n));
  std::sort(samples.begin(), samples.end());
  const double med = samples[samples.size() / 2];
  row.median_samples = med >= 1e300 ? -1 : med;
  row.reached_pct = 100.0 * static_cast<double>(reached) / static_cast<double>(n);
  row.wall_s /= std::max(1, nruns);
  for (size_t p = 0; p < row.points.size(); ++p)
    row.curve.push_back(cbad[p] ? std::nan("") : std::exp(clog[p] / static_cast<double>(n)));
  return true;
}

// --csv (every curve) and --plot (one curve per algorithm at the largest budget, with its data
// file and gnuplot script beside it).
void write_curves(const MseArgs& a, const std::vector<Row>& rows, int64_t bmax,
                  const arch::Arch& hw, const std::string& cap) {
  const std::string csv = !a.csv.empty() ? a.csv : a.plot + ".csv";
  std::ofstream out(csv);
  out << "algo,budget,samples,geomean_ratio\n";
  for (const Row& r : rows)
    for (size_t p = 0; p < r.points.size(); ++p)
      if (!std::isnan(r.curve[p]))
        out << r.algo << "," << r.budget << "," << r.points[p] << "," << r.curve[p] << "\n";
  if (!out) throw InputError({csv, 0, 0}, "cannot write the CSV");
  out.close();
  if (a.plot.empty()) return;
  const std::string data = a.plot + ".dat";
  std::ofstream d(data);
  std::vector<std::string> names;
  for (const Row& r : rows) {
    if (r.budget != bmax) continue;
    names.push_back(r.algo);
    d << "# " << r.algo << "\n";
    for (size_t p = 0; p < r.points.size(); ++p)
      if (!std::isnan(r.curve[p])) d << r.points[p] << " " << r.curve[p] << "\n";
    d << "\n\n";
  }
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  std::ostringstream gp;
  gp << plot::gnuplot_header(a.plot) << "set title "
     << plot::gnuplot_quote("Convergence on " + hw.name + " (geomean over layers; " + cap + ")")
     << " noenhanced\nset xlabel 'samples'\nset ylabel 'latency / best found'\n"
     << "set logscale x\nset logscale y\nset grid\nset key right top\nplot ";
  for (size_t i = 0; i < names.size(); ++i)
    gp << (i ? ", " : "") << plot::gnuplot_quote(data) << " index " << i
       << " using 1:2 with lines lw 2 title " << plot::gnuplot_quote(names[i]);
  gp << "\n";
  plot::render_gnuplot(gp.str(), a.plot + ".gp", data);
}

void run_mse(const MseArgs& a) {
  search::MpiSession mpi;
  const bool root = mpi.is_root();
  const std::vector<std::string> models = split_list(a.models), algos = split_list(a.algos);
  const std::vector<int64_t> budgets = parse_budgets(a.budgets);
  if (models.empty() || algos.empty() || budgets.empty())
    throw InputError({"<flags>", 0, 0}, "expected --models, --algos and --budgets lists");
  if (a.seeds < 1) throw InputError({"<flag --seeds>", 0, 0}, "expected at least 1 seed");
  for (const auto& al : algos) mp::check_algo(al);
  const mp::Objective objective = mp::parse_objective(a.objective);
  const arch::Arch hw = io::load_arch(a.hw);
  if (!a.plot.empty() && !ends_with(a.plot, ".png") && !ends_with(a.plot, ".svg"))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");

  std::vector<workload::Layer> layers;
  std::vector<std::string> layer_model;
  study_layers(models, hw, a.max_layers, layers, layer_model);
  const size_t nl = layers.size();

  std::vector<Run> runs;
  for (const auto& algo : algos)
    for (int64_t b : budgets)
      for (int s = 0; s < a.seeds; ++s)
        runs.push_back(run_one(a, objective, algo, b, s, layers, hw, root));
  if (!root) return;

  // The best any method found, per layer.
  std::vector<double> best(nl, search::kInfeasible);
  for (const Run& r : runs)
    for (size_t i = 0; i < nl; ++i) best[i] = std::min(best[i], r.best[i]);
  std::vector<Row> rows;
  for (const auto& algo : algos)
    for (int64_t b : budgets) {
      Row row;
      if (summarise(algo, b, runs, best, row)) rows.push_back(std::move(row));
    }

  const std::string cap = "bo capped at " + with_commas(search::kBoSampleCap) + " samples";
  const int64_t bmax = *std::max_element(budgets.begin(), budgets.end());
  Table t({"algo", "budget", "geomean latency / best", "samples to 5% (median)", "reached 5% %",
           "wall s / seed"});
  for (const Row& r : rows)
    t.add({r.algo, with_commas(r.budget), fixed(r.geomean, 4),
           r.median_samples < 0 ? "> budget" : with_commas(static_cast<int64_t>(r.median_samples)),
           fixed(r.reached_pct, 1), fixed(r.wall_s, 2)});
  std::cout << "map-space exploration on " << hw.name << " (" << hw.num_pes << " PEs), "
            << a.objective << ", " << nl << " distinct layers of " << a.models << ", " << a.seeds
            << " seeds"
            << (bmax > search::kBoSampleCap &&
                        std::find(algos.begin(), algos.end(), "bo") != algos.end()
                    ? "\n" + cap
                    : std::string())
            << "\n"
            << t.str();

  if (!a.csv.empty() || !a.plot.empty()) write_curves(a, rows, bmax, hw, cap);
  if (a.json.empty()) return;
  nlohmann::json jr = nlohmann::json::array();
  for (const Row& r : rows)
    jr.push_back(
        {{"algo", r.algo},
         {"budget", r.budget},
         {"samples_run", r.algo == "bo" ? std::min(r.budget, search::kBoSampleCap) : r.budget},
         {"geomean_ratio", r.geomean},
         {"median_samples_to_5pct", r.median_samples},
         {"reached_5pct_pct", r.reached_pct},
         {"wall_s_per_seed", r.wall_s}});
  nlohmann::json jl = nlohmann::json::array();
  for (size_t i = 0; i < nl; ++i)
    jl.push_back({{"model", layer_model[i]}, {"name", layers[i].name}, {"best", best[i]}});
  write_json({{"hw", hw.name},
              {"objective", a.objective},
              {"models", models},
              {"seeds", a.seeds},
              {"bo_sample_cap", search::kBoSampleCap},
              {"layers", jl},
              {"results", jr}},
             a.json);
}

}  // namespace

void register_mse(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "mse", "Map-space exploration study: compare search algorithms on the layers of models");
  auto a = std::make_shared<MseArgs>();
  cmd->add_option("--models", a->models, "Comma list of zoo models (or model files)");
  cmd->add_option("--hw", a->hw, "Accelerator: a preset name or file");
  cmd->add_option("--algos", a->algos, "Comma list: gamma, ga, random, sa, de, pso, cmaes, ...");
  cmd->add_option("--budgets", a->budgets, "Comma list of samples per layer");
  cmd->add_option("--seeds", a->seeds, "Seeds per algorithm and budget");
  cmd->add_option("--seed", a->seed, "First seed");
  cmd->add_option("--objective", a->objective, "latency, energy, edp or throughput");
  cmd->add_option("--threads", a->threads, "Evaluation threads");
  cmd->add_option("--levels", a->levels, "Maximum cluster levels (1 to 4)");
  cmd->add_flag("--maestro-compatible", a->maestro_compatible,
                "Only mappings MAESTRO runs as written (R, S untiled)");
  cmd->add_option("--max-layers", a->max_layers, "Only the first N distinct layers per model");
  cmd->add_option("--json", a->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option("--csv", a->csv, "Write the convergence curves as CSV");
  cmd->add_option("--plot", a->plot,
                  "Render the convergence curves to FILE.png or FILE.svg (also writes FILE.csv, "
                  "FILE.dat and FILE.gp beside it, replacing them)");
  cmd->add_option("--population", a->population, "GA/GAMMA population (0: from the budget)");
  cmd->add_option("--mutation-rate", a->mutation_rate, "GAMMA's per-level operator rate");
  cmd->add_flag("--quiet", a->quiet, "No progress lines");
  cmd->footer(
      "With no option, mse prints this help: the default study (3 models, 8 algorithms, 2 budgets, "
      "3 "
      "seeds) is a\nlong run. A small one: sparsemap mse --models resnet18 --budgets 300 --seeds 1 "
      "--max-layers 4");
  cmd->callback([a, cmd] {
    if (cmd->count_all() == cmd->count()) throw CLI::CallForHelp();  // no option given
    run_mse(*a);
  });
}

}  // namespace sparsemap::cli
