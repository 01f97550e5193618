// `sparsemap mse`'s work as a library call: the checks, the layers, the grid of searches
// (algos x budgets x seeds), the summary rows, the curve files and the JSON (run.h).
#include "sparsemap/dse/mse/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/io/util.h"
#include "sparsemap/numbers.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/search/mpi.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::mse {

namespace {

namespace mp = dse::mapper;

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
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
  for (const auto& b : io::split_list(text)) {
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
    const workload::Model m = io::load_model(name, {});
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
// (a curve stops past the samples it ran: BO's cap), histories and wall time. The root reports
// the run's start and each batch to `observer`.
Run run_one(const Options& a, mp::Objective objective, const std::string& algo, int64_t b, int s,
            const std::vector<workload::Layer>& layers, const arch::Arch& hw, bool root,
            search::Observer& observer) {
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
  if (root) {
    const std::string label =
        algo + " budget " + std::to_string(b) + " seed " + std::to_string(o.seed);
    search::report_progress(observer, {0, layers.size(), 0, b, search::kInfeasible, label});
    o.progress = [&observer, label](size_t u, size_t n, int64_t done, int64_t total, double best) {
      search::report_progress(observer, {u, n, done, total, best, label});
    };
  }
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

}  // namespace

std::vector<int64_t> curve_points(int64_t budget) {
  std::vector<int64_t> p;
  for (double x = 1; x < static_cast<double>(budget); x *= 1.2) {
    const auto v = static_cast<int64_t>(std::llround(x));
    if (p.empty() || v > p.back()) p.push_back(v);
  }
  p.push_back(budget);
  return p;
}

Result run(const Options& a, search::Observer& observer) {
  search::MpiSession mpi;  // before any thread; only the root reports and returns a result
  Result r;
  r.root = mpi.is_root();
  r.options = a;
  r.models = io::split_list(a.models);
  r.algos = io::split_list(a.algos);
  r.budgets = parse_budgets(a.budgets);
  if (r.models.empty() || r.algos.empty() || r.budgets.empty())
    throw InputError({"<flags>", 0, 0}, "expected --models, --algos and --budgets lists");
  if (a.seeds < 1) throw InputError({"<flag --seeds>", 0, 0}, "expected at least 1 seed");
  for (const auto& al : r.algos) mp::check_algo(al);
  const mp::Objective objective = mp::parse_objective(a.objective);
  r.hw = io::load_arch(a.hw);
  if (!a.plot.empty() && !ends_with(a.plot, ".png") && !ends_with(a.plot, ".svg"))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");

  study_layers(r.models, r.hw, a.max_layers, r.layers, r.layer_model);
  const size_t nl = r.layers.size();

  std::vector<Run> runs;
  for (const auto& algo : r.algos)
    for (int64_t b : r.budgets)
      for (int s = 0; s < a.seeds; ++s)
        runs.push_back(run_one(a, objective, algo, b, s, r.layers, r.hw, r.root, observer));
  if (r.root) observer.on_search_done();
  if (!r.root) return r;

  // The best any method found, per layer.
  r.best.assign(nl, search::kInfeasible);
  for (const Run& run : runs)
    for (size_t i = 0; i < nl; ++i) r.best[i] = std::min(r.best[i], run.best[i]);
  for (const auto& algo : r.algos)
    for (int64_t b : r.budgets) {
      Row row;
      if (summarise(algo, b, runs, r.best, row)) r.rows.push_back(std::move(row));
    }
  return r;
}

std::string bo_cap_note() {
  return "bo capped at " + with_commas(search::kBoSampleCap) + " samples";
}

int64_t largest_budget(const Result& r) {
  return r.budgets.empty() ? 0 : *std::max_element(r.budgets.begin(), r.budgets.end());
}

void write_outputs(const Result& r) {
  const Options& a = r.options;
  if (a.csv.empty() && a.plot.empty()) return;
  const std::string csv = !a.csv.empty() ? a.csv : a.plot + ".csv";
  std::ofstream out(csv);
  out << "algo,budget,samples,geomean_ratio\n";
  for (const Row& row : r.rows)
    for (size_t p = 0; p < row.points.size(); ++p)
      if (!std::isnan(row.curve[p]))
        out << row.algo << "," << row.budget << "," << row.points[p] << "," << row.curve[p] << "\n";
  if (!out) throw InputError({csv, 0, 0}, "cannot write the CSV");
  out.close();
  if (a.plot.empty()) return;
  const int64_t bmax = largest_budget(r);
  const std::string data = a.plot + ".dat";
  std::ofstream d(data);
  std::vector<std::string> names;
  for (const Row& row : r.rows) {
    if (row.budget != bmax) continue;
    names.push_back(row.algo);
    d << "# " << row.algo << "\n";
    for (size_t p = 0; p < row.points.size(); ++p)
      if (!std::isnan(row.curve[p])) d << row.points[p] << " " << row.curve[p] << "\n";
    d << "\n\n";
  }
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  std::ostringstream gp;
  gp << plot::gnuplot_header(a.plot) << "set title "
     << plot::gnuplot_quote("Convergence on " + r.hw.name + " (geomean over layers; " +
                            bo_cap_note() + ")")
     << " noenhanced\nset xlabel 'samples'\nset ylabel 'latency / best found'\n"
     << "set logscale x\nset logscale y\nset grid\nset key right top\nplot ";
  for (size_t i = 0; i < names.size(); ++i)
    gp << (i ? ", " : "") << plot::gnuplot_quote(data) << " index " << i
       << " using 1:2 with lines lw 2 title " << plot::gnuplot_quote(names[i]);
  gp << "\n";
  plot::render_gnuplot(gp.str(), a.plot + ".gp", data);
}

nlohmann::json to_json(const Result& r) {
  nlohmann::json jr = nlohmann::json::array();
  for (const Row& row : r.rows)
    jr.push_back({{"algo", row.algo},
                  {"budget", row.budget},
                  {"samples_run",
                   row.algo == "bo" ? std::min(row.budget, search::kBoSampleCap) : row.budget},
                  {"geomean_ratio", row.geomean},
                  {"median_samples_to_5pct", row.median_samples},
                  {"reached_5pct_pct", row.reached_pct},
                  {"wall_s_per_seed", row.wall_s}});
  nlohmann::json jl = nlohmann::json::array();
  for (size_t i = 0; i < r.layers.size(); ++i)
    jl.push_back({{"model", r.layer_model[i]}, {"name", r.layers[i].name}, {"best", r.best[i]}});
  return {{"hw", r.hw.name},
          {"objective", r.options.objective},
          {"models", r.models},
          {"seeds", r.options.seeds},
          {"bo_sample_cap", search::kBoSampleCap},
          {"layers", jl},
          {"results", jr}};
}

}  // namespace sparsemap::dse::mse
