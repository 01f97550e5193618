// `sparsemap codesign`'s work as a library call: budgets, DiGamma and the baselines per case,
// and the table's cases (run.h).
#include "sparsemap/dse/codesign/run.h"

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

namespace sparsemap::dse::codesign {

namespace {

namespace mp = dse::mapper;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The platform (or explicit budget) of this run.
Budget resolve_budget(const Options& a, const std::string& platform_name) {
  Budget b;
  if (!platform_name.empty()) {
    const Platform p = platform(platform_name);
    b = {p.name, p.area_budget_mm2, p.pe_limit};
  }
  if (a.area_budget != -1 && !(a.area_budget > 0 && a.area_budget <= 1e6))
    throw InputError({"<flag --area-budget-mm2>", 0, 0},
                     "expected an area budget in (0, 1e6] mm^2, found " + fixed(a.area_budget, 3));
  if (a.pe_limit != -1 && (a.pe_limit < 1 || a.pe_limit > arch::kMaxPes))
    throw InputError({"<flag --pe-limit>", 0, 0}, "expected a PE limit in [1, " +
                                                      std::to_string(arch::kMaxPes) + "], found " +
                                                      std::to_string(a.pe_limit));
  if (a.pe_step != -1 && (a.pe_step < 1 || a.pe_step > arch::kMaxPes))
    throw InputError({"<flag --pe-step>", 0, 0}, "expected a PE step in [1, " +
                                                     std::to_string(arch::kMaxPes) + "], found " +
                                                     std::to_string(a.pe_step));
  if (a.area_budget != -1) b.area = a.area_budget;
  if (a.pe_limit != -1) b.pes = a.pe_limit;
  if (!(b.area > 0) || b.pes <= 0)
    throw InputError({"<flags>", 0, 0},
                     "expected --platform edge|cloud, or both --area-budget-mm2 and --pe-limit");
  if (b.name.empty()) b.name = "custom";
  return b;
}

// The baselines --baselines names, each checked.
std::vector<std::string> baseline_names(const std::string& baselines) {
  std::vector<std::string> names;
  if (baselines == "all")
    names = {"ga",    "random",     "sa", "de",          "pso",
             "cmaes", "oneplusone", "bo", "fixed-gamma", "fixed-gamma-seeds"};
  else if (baselines != "none")
    names = io::split_list(baselines);
  const auto& al = codesign_algos();
  for (const auto& n : names)
    if (!is_grid(n) && (n == "digamma" || std::find(al.begin(), al.end(), n) == al.end()))
      throw InputError({"<flag --baselines>", 0, 0},
                       "unknown baseline '" + n +
                           "'; expected all, none or a list of: ga, random, sa, de, pso, cmaes, "
                           "oneplusone, bo, fixed-gamma, fixed-gamma-seeds");
  return names;
}

// A search's progress as the observer's, labelled "MODEL WHAT" (root only; else none).
std::function<void(int64_t, double)> progress_for(search::Observer& observer, bool root,
                                                  const std::string& label, int64_t budget) {
  std::function<void(int64_t, double)> f;
  if (root)
    f = [&observer, label, budget](int64_t s, double best) {
      search::report_progress(observer, {0, 1, s, budget, best, label});
    };
  return f;
}

// One grid baseline: fixed-grid accelerators, each layer mapped by GAMMA.
BaselineOutcome grid_baseline(const Options& a, const CaseOutcome& out, const std::string& n,
                              const arch::Arch& base) {
  BaselineOutcome bo;
  bo.name = n;
  const size_t seeds = n == "fixed-gamma-seeds" ? kGridSpatialSeeds : 0;
  const FixedResult f = run_fixed_gamma(*out.space, a.budget, a.seed, a.threads, seeds);
  bo.feasible = feasible_fitness(f.fitness);
  bo.fitness = f.fitness;
  bo.runtime_cycles = f.runtime_cycles;
  bo.energy_nj = f.energy_nj;
  bo.area_mm2 = f.area_mm2;
  bo.pes = f.best_arch.num_pes;
  bo.l1_bytes = f.best_arch.l1_bytes;
  bo.l2_bytes = f.best_arch.l2_bytes;
  bo.power_mw = f.runtime_cycles > 0 ? f.energy_nj * base.clock_mhz / f.runtime_cycles : 0;
  bo.samples = f.samples;
  bo.note = std::to_string(f.grid_points) + " grid accelerators x " +
            std::to_string(f.samples_per_layer) + " GAMMA samples per distinct layer" +
            (seeds ? " (" + std::to_string(seeds) + " of them spatial seeds)" : "");
  return bo;
}

// One optimiser baseline on the same space and budget as DiGamma.
BaselineOutcome optimiser_baseline(const Options& a, const CaseOutcome& out, const std::string& n,
                                   const RunOptions& ro, const std::string& ckpt,
                                   search::Observer& observer, bool root) {
  BaselineOutcome bo;
  bo.name = n;
  RunOptions rb = ro;
  rb.algo = n;
  rb.checkpoint_file = ckpt.empty() ? "" : ckpt + "." + n;
  rb.progress = progress_for(observer, root, out.model + " " + n,
                             n == "bo" ? std::min(a.budget, search::kBoSampleCap) : a.budget);
  const CodesignResult r = run_codesign(out.space, rb);
  bo.feasible = r.design.feasible;
  bo.fitness = r.design.fitness;
  bo.runtime_cycles = r.design.runtime_cycles;
  bo.energy_nj = r.design.energy_nj;
  bo.area_mm2 = r.design.area_mm2;
  bo.power_mw = r.design.power_mw;
  bo.pes = r.design.pes;
  bo.l1_bytes = r.design.l1_bytes;
  bo.l2_bytes = r.design.l2_bytes;
  bo.samples = r.samples;
  if (n == "bo" && a.budget > search::kBoSampleCap)
    bo.note = "capped at " + with_commas(search::kBoSampleCap) + " samples";
  return bo;
}

CaseOutcome run_case(const Options& a, const std::string& model_name, const Budget& b, bool root,
                     const std::string& ckpt, bool resume, search::Observer& observer) {
  CaseOutcome out;
  out.model = model_name;
  out.budget = b;
  CodesignOptions o;
  o.area_budget_mm2 = b.area;
  o.pe_limit = b.pes;
  o.pe_step = a.pe_step > 0 ? a.pe_step : (b.pes > 1024 ? 64 : 8);
  o.buffers = parse_buffer_mode(a.buffers);
  o.objective = mp::parse_objective(a.objective);
  if (a.levels < 1 || a.levels > 4)
    throw InputError({"<flag --levels>", 0, 0}, "expected 1 to 4 cluster levels");
  o.space.max_levels = a.levels;
  o.space.maestro_compatible = a.maestro_compatible;
  const workload::Model m =
      a.model_object && !a.table ? *a.model_object : io::load_model(model_name, a.zoo);
  out.model = m.name;
  const arch::Arch base = a.hw_object ? *a.hw_object : io::load_arch(a.hw);
  out.space = std::make_shared<CodesignSpace>(m.layers, base, o);
  const std::vector<std::string> names = baseline_names(a.baselines);

  RunOptions ro;
  ro.budget = a.budget;
  ro.seed = a.seed;
  ro.threads = a.threads;
  ro.population = a.population;
  ro.checkpoint_file = ckpt;
  ro.checkpoint_every = a.checkpoint_every;
  ro.resume = resume;
  ro.progress = progress_for(observer, root, out.model + " digamma", a.budget);
  double t0 = now_s();
  out.codesign = run_codesign(out.space, ro);
  out.codesign_wall_s = now_s() - t0;
  for (const std::string& n : names) {
    t0 = now_s();
    BaselineOutcome bo = is_grid(n) ? grid_baseline(a, out, n, base)
                                    : optimiser_baseline(a, out, n, ro, ckpt, observer, root);
    bo.wall_s = now_s() - t0;
    out.baselines.push_back(bo);
  }
  if (root) observer.on_search_done();
  return out;
}

// The table: every model on every platform, a note after each case.
void run_table(const Options& a, bool root, Result& r, search::Observer& observer) {
  const std::vector<std::string> models = io::split_list(a.models),
                                 platforms = io::split_list(a.platforms);
  if (models.empty()) throw InputError({"<flag --models>", 0, 0}, "expected model names");
  if (platforms.empty()) throw InputError({"<flag --platforms>", 0, 0}, "expected platforms");
  for (const auto& p : platforms) r.budgets.push_back(resolve_budget(a, p));
  for (const Budget& b : r.budgets)
    for (const auto& m : models) {
      r.cases.push_back(run_case(a, m, b, root, "", false, observer));
      const CaseOutcome& c = r.cases.back();
      const BaselineOutcome* best = best_baseline(c, "", false);
      if (root)
        observer.on_note(c.model + " " + b.name + ": digamma " +
                         std::to_string(c.codesign.design.runtime_cycles) + " cycles, " +
                         (best ? best->name + " " + std::to_string(best->runtime_cycles) : "none"));
    }
}

}  // namespace

bool is_grid(const std::string& name) {
  return name == "fixed-gamma" || name == "fixed-gamma-seeds";
}

const BaselineOutcome* best_baseline(const CaseOutcome& c, const std::string& only,
                                     bool optimisers_only) {
  const BaselineOutcome* best = nullptr;
  for (const auto& b : c.baselines) {
    if (!b.feasible) continue;
    if (!only.empty() && b.name != only) continue;
    if (optimisers_only && is_grid(b.name)) continue;
    if (!best || b.fitness < best->fitness) best = &b;
  }
  return best;
}

double speedup(const CaseOutcome& c, const BaselineOutcome* x) {
  const DesignEval& d = c.codesign.design;
  return x && d.feasible ? static_cast<double>(x->runtime_cycles) / d.runtime_cycles : 0.0;
}

double bound_speedup(const CaseOutcome& c, const BaselineOutcome* best) {
  return best ? static_cast<double>(best->runtime_cycles) /
                    static_cast<double>(utilisation_bound_cycles(*c.space))
              : 0.0;
}

Geomeans geomeans(const Result& r, size_t k) {
  double log_all = 0, log_fixed = 0, log_seeded = 0, log_opt = 0, log_bound = 0;
  int n_all = 0, n_fixed = 0, n_seeded = 0, n_opt = 0;
  for (const CaseOutcome& c : r.cases) {
    if (c.budget.name != r.budgets[k].name) continue;
    const bool ok = c.codesign.design.feasible;
    const BaselineOutcome* best = best_baseline(c, "", false);
    const BaselineOutcome* fx = best_baseline(c, "fixed-gamma", false);
    const BaselineOutcome* fs = best_baseline(c, "fixed-gamma-seeds", false);
    const BaselineOutcome* op = best_baseline(c, "", true);
    if (best && ok) log_all += std::log(speedup(c, best)), ++n_all;
    if (fx && ok) log_fixed += std::log(speedup(c, fx)), ++n_fixed;
    if (fs && ok) log_seeded += std::log(speedup(c, fs)), ++n_seeded;
    if (op && ok) log_opt += std::log(speedup(c, op)), ++n_opt;
    if (best && ok) log_bound += std::log(bound_speedup(c, best));
  }
  const auto g = [](double s, int n) { return n ? std::exp(s / n) : 0.0; };
  return {g(log_all, n_all), g(log_fixed, n_fixed), g(log_seeded, n_seeded), g(log_opt, n_opt),
          g(log_bound, n_all)};
}

Result run(const Options& a, search::Observer& observer) {
  search::MpiSession mpi;
  Result r;
  r.root = mpi.is_root();
  r.options = a;
  r.options.model_object.reset();
  r.options.hw_object.reset();
  if (a.budget < 1) throw InputError({"<flag --budget>", 0, 0}, "expected a positive budget");
  if (a.threads < 1) throw InputError({"<flag --threads>", 0, 0}, "expected at least 1 thread");
  if (!a.checkpoint.empty() && !a.resume.empty() && a.checkpoint != a.resume)
    throw InputError({"<flag --resume>", 0, 0}, "--checkpoint and --resume name different files");
  const std::string ckpt = !a.resume.empty() ? a.resume : a.checkpoint;
  if (!a.table) {
    if (a.model.empty() && !a.model_object)
      throw InputError({"<flag --model>", 0, 0}, "expected --model NAME");
    const Budget b = resolve_budget(a, a.platform);
    r.cases.push_back(run_case(a, a.model, b, r.root, ckpt, !a.resume.empty(), observer));
    return r;
  }
  if (!ckpt.empty())
    throw InputError({"<flag --checkpoint>", 0, 0}, "--table does not take a checkpoint");
  run_table(a, r.root, r, observer);
  return r;
}

void write_plot(const CaseOutcome& c, const std::string& plot) {
  const std::string data = plot + ".csv";
  std::ofstream d(data);
  d << "area_mm2,runtime_cycles\n";
  for (const auto& p : c.codesign.pareto) d << p.first << "," << p.second << "\n";
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  std::ostringstream gp;
  gp << plot::gnuplot_header(plot) << "set datafile separator ','\n"
     << "set title "
     << plot::gnuplot_quote("Co-design of " + c.model + " (" + c.budget.name +
                            "): latency vs area, Pareto front of the designs evaluated")
     << " noenhanced\nset xlabel 'area (mm^2)'\nset ylabel 'runtime (cycles)'\nset logscale y\n"
     << "set grid\nset arrow from " << c.budget.area << ", graph 0 to " << c.budget.area
     << ", graph 1 nohead dt 2\n"
     << "plot " << plot::gnuplot_quote(data)
     << " every ::1 using 1:2 with linespoints lw 2 title 'Pareto front'\n";
  plot::render_gnuplot(gp.str(), plot + ".gp", data);
}

}  // namespace sparsemap::dse::codesign
