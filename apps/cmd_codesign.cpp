// `sparsemap codesign`: DiGamma-style search of an accelerator (PEs, L1, L2) and the mappings
// of every layer of a model under an area budget, beside baselines at the same sample budget;
// `--table` runs several models on both platforms and prints DiGamma's speedup table.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::cli {
namespace {

namespace cd = dse::codesign;
namespace mp = dse::mapper;
using nlohmann::json;

struct CodesignArgs {
  std::string model, platform, objective = "latency", hw = "gamma-edge", buffers = "need";
  double area_budget = -1;              // -1: not given (the platform's)
  int64_t pe_limit = -1, pe_step = -1;  // -1: not given
  int64_t budget = 1000;
  uint64_t seed = 1;
  int threads = 1;
  int levels = 2;
  bool maestro_compatible = false;
  size_t population = 0;
  std::string baselines = "all";
  std::string checkpoint, resume;
  int64_t checkpoint_every = 1000;
  std::string json, plot;
  bool table = false, quiet = false, wide = false;
  std::string models = "resnet18,resnet50,mobilenet-v2,vgg16,mnasnet,bert-base,dlrm";
  std::string platforms = "edge,cloud";
  workload::ZooOptions zoo;
};

struct Budget {
  std::string name;
  double area = 0;
  int64_t pes = 0;
};

// The platform (or explicit budget) of this run.
Budget resolve_budget(const CodesignArgs& a, const std::string& platform) {
  Budget b;
  if (!platform.empty()) {
    const cd::Platform p = cd::platform(platform);
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

struct BaselineOutcome {
  std::string name;
  bool feasible = false;
  double fitness = cd::kPenalty;
  int64_t runtime_cycles = 0;
  double energy_nj = 0, area_mm2 = 0, power_mw = 0, wall_s = 0;
  int64_t pes = 0, l1_bytes = 0, l2_bytes = 0, samples = 0;
  std::string note;
  json to_json() const {
    json j = {{"feasible", feasible},
              {"runtime_cycles", runtime_cycles},
              {"energy_nj", energy_nj},
              {"fitness", feasible ? fitness : 0.0},
              {"pes", pes},
              {"l1_bytes", l1_bytes},
              {"l2_bytes", l2_bytes},
              {"area_mm2", area_mm2},
              {"power_mw", power_mw},
              {"samples", samples},
              {"wall_s", wall_s}};
    if (!note.empty()) j["note"] = note;
    return j;
  }
};

struct CaseOutcome {
  std::string model;
  Budget budget;
  std::shared_ptr<const cd::CodesignSpace> space;
  cd::CodesignResult codesign;
  double codesign_wall_s = 0;
  std::vector<BaselineOutcome> baselines;
};

// The grid baselines: fixed-grid + GAMMA, plain and opened with the spatial seeds.
bool is_grid(const std::string& name) {
  return name == "fixed-gamma" || name == "fixed-gamma-seeds";
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

CaseOutcome run_case(const CodesignArgs& a, const std::string& model_name, const Budget& b,
                     bool root, const std::string& ckpt, bool resume) {
  CaseOutcome out;
  out.model = model_name;
  out.budget = b;
  cd::CodesignOptions o;
  o.area_budget_mm2 = b.area;
  o.pe_limit = b.pes;
  o.pe_step = a.pe_step > 0 ? a.pe_step : (b.pes > 1024 ? 64 : 8);
  o.buffers = cd::parse_buffer_mode(a.buffers);
  o.objective = mp::parse_objective(a.objective);
  if (a.levels < 1 || a.levels > 4)
    throw InputError({"<flag --levels>", 0, 0}, "expected 1 to 4 cluster levels");
  o.space.max_levels = a.levels;
  o.space.maestro_compatible = a.maestro_compatible;
  const workload::Model m = load_model(model_name, a.zoo);
  out.model = m.name;
  const arch::Arch base = io::load_arch(a.hw);
  out.space = std::make_shared<cd::CodesignSpace>(m.layers, base, o);

  std::vector<std::string> names;
  if (a.baselines == "all")
    names = {"ga",    "random",     "sa", "de",          "pso",
             "cmaes", "oneplusone", "bo", "fixed-gamma", "fixed-gamma-seeds"};
  else if (a.baselines != "none")
    names = split_list(a.baselines);
  for (const auto& n : names)
    if (!is_grid(n) && (n == "digamma" || [&] {
          const auto& al = cd::codesign_algos();
          return std::find(al.begin(), al.end(), n) == al.end();
        }()))
      throw InputError({"<flag --baselines>", 0, 0},
                       "unknown baseline '" + n +
                           "'; expected all, none or a list of: ga, random, sa, de, pso, cmaes, "
                           "oneplusone, bo, fixed-gamma, fixed-gamma-seeds");

  const bool bar = root && !a.quiet && isatty(2);
  auto progress_for = [&](const std::string& what, int64_t budget) {
    std::function<void(int64_t, double)> f;
    if (bar)
      f = [what, budget, m = out.model](int64_t s, double) {
        std::fprintf(stderr, "\r%s %s: %lld/%lld   ", m.c_str(), what.c_str(),
                     static_cast<long long>(s), static_cast<long long>(budget));
      };
    return f;
  };
  cd::RunOptions ro;
  ro.budget = a.budget;
  ro.seed = a.seed;
  ro.threads = a.threads;
  ro.population = a.population;
  ro.checkpoint_file = ckpt;
  ro.checkpoint_every = a.checkpoint_every;
  ro.resume = resume;
  ro.progress = progress_for("digamma", a.budget);
  double t0 = now_s();
  out.codesign = cd::run_codesign(out.space, ro);
  out.codesign_wall_s = now_s() - t0;
  for (const std::string& n : names) {
    BaselineOutcome bo;
    bo.name = n;
    t0 = now_s();
    if (is_grid(n)) {
      const size_t seeds = n == "fixed-gamma-seeds" ? cd::kGridSpatialSeeds : 0;
      const cd::FixedResult f = cd::run_fixed_gamma(*out.space, a.budget, a.seed, a.threads, seeds);
      bo.feasible = cd::feasible_fitness(f.fitness);
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
    } else {
      cd::RunOptions rb = ro;
      rb.algo = n;
      rb.checkpoint_file = ckpt.empty() ? "" : ckpt + "." + n;
      rb.progress =
          progress_for(n, n == "bo" ? std::min(a.budget, search::kBoSampleCap) : a.budget);
      const cd::CodesignResult r = cd::run_codesign(out.space, rb);
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
    }
    bo.wall_s = now_s() - t0;
    out.baselines.push_back(bo);
  }
  if (bar) std::fprintf(stderr, "\r%60s\r", "");
  return out;
}

// Best feasible baseline by fitness (nullptr if none): of all, of one named baseline (`only`),
// or of the optimisers alone (not the grid baselines).
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

json case_json(const CodesignArgs& a, const CaseOutcome& c) {
  json j = cd::design_json(*c.space, c.codesign);
  j["model"] = c.model;
  j["platform"] = c.budget.name;
  j["area_budget_mm2"] = c.budget.area;
  j["pe_limit"] = c.budget.pes;
  j["pe_step"] = c.space->options().pe_step;
  j["buffers"] = cd::buffer_mode_name(c.space->options().buffers);
  j["objective"] = a.objective;
  j["budget"] = a.budget;
  j["seed"] = a.seed;
  j["wall_s"] = c.codesign_wall_s;
  j["distinct_layers"] = c.space->unique_layers();
  j["bo_sample_cap"] = search::kBoSampleCap;
  json bj = json::object();
  for (const auto& b : c.baselines) bj[b.name] = b.to_json();
  j["baselines"] = bj;
  const BaselineOutcome* best = best_baseline(c, "", false);
  if (best && c.codesign.design.feasible) {
    j["best_baseline"] = best->name;
    j["speedup_over_best_baseline"] =
        static_cast<double>(best->runtime_cycles) / c.codesign.design.runtime_cycles;
  }
  j["compute_bound_cycles"] = cd::compute_bound_cycles(*c.space);
  j["utilisation_bound_cycles"] = cd::utilisation_bound_cycles(*c.space);
  return j;
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

void print_case(const CodesignArgs& a, const CaseOutcome& c) {
  const cd::CodesignSpace& sp = *c.space;
  const cd::DesignEval& d = c.codesign.design;
  std::cout << "codesign " << c.model << " on " << c.budget.name << " (area budget "
            << fixed(c.budget.area, 3) << " mm^2, <= " << with_commas(c.budget.pes) << " PEs, step "
            << sp.options().pe_step << "),\n  " << a.objective << ", buffers "
            << cd::buffer_mode_name(sp.options().buffers) << ", " << with_commas(a.budget)
            << " samples (whole-model designs), " << sp.unique_layers() << " distinct of "
            << sp.model_layers().size() << " layers\n";
  if (!d.feasible) {
    std::cout << "no feasible design found\n";
  } else {
    std::cout << "accelerator: " << with_commas(d.pes) << " PEs, L1 " << with_commas(d.l1_bytes)
              << " B per PE, L2 " << with_commas(d.l2_bytes) << " B, area " << fixed(d.area_mm2, 4)
              << " mm^2, power " << fixed(d.power_mw, 1) << " mW\n";
    std::vector<std::string> header = {"#",  "layer",    "dims", "cycles",
                                       "nJ", "PEs used", "L1 B", "L2 B"};
    if (a.wide) header.push_back("mapping");
    Table t(header);
    for (size_t i = 0; i < sp.model_layers().size(); ++i) {
      const size_t u = sp.layer_index()[i];
      const cost::Cost& cst = d.layer_cost[u];
      std::vector<std::string> row = {
          std::to_string(i),
          sp.model_layers()[i].name,
          a.wide ? layer_dims_text(sp.model_layers()[i]) : layer_dims_short(sp.model_layers()[i]),
          with_commas(cst.runtime_cycles),
          fixed(cst.energy_nj, 1),
          with_commas(cst.pes_used),
          with_commas(cst.l1_bytes),
          with_commas(cst.l2_bytes)};
      if (a.wide) row.push_back(mp::mapping_text(c.codesign.mappings[u]));
      t.add(row);
    }
    t.add({"", "total", "", with_commas(d.runtime_cycles), fixed(d.energy_nj, 1)});
    std::cout << t.str(a.wide ? 0 : kColumns);
    if (!a.wide) std::cout << "(each layer's mapping: --wide, or --json)\n";
  }
  if (!c.baselines.empty()) {
    Table t({"method", "cycles", "nJ", "PEs", "L1 B", "L2 B", "area mm^2", "samples", "s",
             "digamma x", "note"});
    t.add({"digamma", d.feasible ? with_commas(d.runtime_cycles) : "infeasible",
           d.feasible ? fixed(d.energy_nj, 1) : "-", with_commas(d.pes), with_commas(d.l1_bytes),
           with_commas(d.l2_bytes), fixed(d.area_mm2, 4), with_commas(c.codesign.samples),
           fixed(c.codesign_wall_s, 1), "1.00", ""});
    for (const auto& b : c.baselines)
      t.add({b.name, b.feasible ? with_commas(b.runtime_cycles) : "none feasible",
             b.feasible ? fixed(b.energy_nj, 1) : "-", b.feasible ? with_commas(b.pes) : "-",
             b.feasible ? with_commas(b.l1_bytes) : "-", b.feasible ? with_commas(b.l2_bytes) : "-",
             b.feasible ? fixed(b.area_mm2, 4) : "-", with_commas(b.samples), fixed(b.wall_s, 1),
             b.feasible && d.feasible
                 ? fixed(static_cast<double>(b.runtime_cycles) / d.runtime_cycles, 2)
                 : "-",
             b.note});
    std::cout << "baselines at the same sample budget (digamma x = baseline cycles / digamma "
                 "cycles):\n"
              << t.str();
  }
  std::string front;
  for (const auto& p : c.codesign.pareto)
    front += (front.empty() ? "" : " ") + fixed(p.first, 4) + "->" + with_commas(p.second);
  std::cout << "Pareto front (area mm^2 -> cycles) of the " << c.codesign.pareto.size()
            << " non-dominated designs evaluated:\n";
  for (const std::string& l : wrap_text(front, kColumns - 2)) std::cout << "  " << l << "\n";
}

void run_codesign_cmd(const CodesignArgs& a) {
  search::MpiSession mpi;
  const bool root = mpi.is_root();
  if (a.budget < 1) throw InputError({"<flag --budget>", 0, 0}, "expected a positive budget");
  if (a.threads < 1) throw InputError({"<flag --threads>", 0, 0}, "expected at least 1 thread");
  if (!a.checkpoint.empty() && !a.resume.empty() && a.checkpoint != a.resume)
    throw InputError({"<flag --resume>", 0, 0}, "--checkpoint and --resume name different files");
  const std::string ckpt = !a.resume.empty() ? a.resume : a.checkpoint;
  if (!a.table) {
    if (a.model.empty()) throw InputError({"<flag --model>", 0, 0}, "expected --model NAME");
    const Budget b = resolve_budget(a, a.platform);
    const CaseOutcome c = run_case(a, a.model, b, root, ckpt, !a.resume.empty());
    if (!root) return;
    if (a.json != "-") print_case(a, c);
    if (!a.plot.empty()) write_plot(c, a.plot);
    if (!a.json.empty()) write_json(case_json(a, c), a.json);
    return;
  }
  // The table: every model on every platform.
  if (!ckpt.empty())
    throw InputError({"<flag --checkpoint>", 0, 0}, "--table does not take a checkpoint");
  const std::vector<std::string> models = split_list(a.models), platforms = split_list(a.platforms);
  if (models.empty()) throw InputError({"<flag --models>", 0, 0}, "expected model names");
  if (platforms.empty()) throw InputError({"<flag --platforms>", 0, 0}, "expected platforms");
  std::vector<Budget> budgets;
  for (const auto& p : platforms) budgets.push_back(resolve_budget(a, p));
  // The best baseline's cycles are digamma's times x (and in --json).
  Table t({"model", "platform", "digamma cycles", "PEs", "mm^2", "best baseline", "x", "grid x",
           "grid+s x", "best optimiser", "opt x", "bound x"});
  json cases = json::array();
  json geo = json::object();
  for (const Budget& b : budgets) {
    double log_all = 0, log_fixed = 0, log_seeded = 0, log_opt = 0, log_bound = 0;
    int n_all = 0, n_fixed = 0, n_seeded = 0, n_opt = 0;
    for (const auto& m : models) {
      const CaseOutcome c = run_case(a, m, b, root, "", false);
      const cd::DesignEval& d = c.codesign.design;
      const BaselineOutcome* best = best_baseline(c, "", false);
      const BaselineOutcome* fx = best_baseline(c, "fixed-gamma", false);
      const BaselineOutcome* fs = best_baseline(c, "fixed-gamma-seeds", false);
      const BaselineOutcome* op = best_baseline(c, "", true);
      auto sp = [&](const BaselineOutcome* x) {
        return x && d.feasible ? static_cast<double>(x->runtime_cycles) / d.runtime_cycles : 0.0;
      };
      if (best && d.feasible) log_all += std::log(sp(best)), ++n_all;
      if (fx && d.feasible) log_fixed += std::log(sp(fx)), ++n_fixed;
      if (fs && d.feasible) log_seeded += std::log(sp(fs)), ++n_seeded;
      if (op && d.feasible) log_opt += std::log(sp(op)), ++n_opt;
      // The most any design could gain over the best baseline (utilisation_bound_cycles).
      const double bound = best ? static_cast<double>(best->runtime_cycles) /
                                      static_cast<double>(cd::utilisation_bound_cycles(*c.space))
                                : 0.0;
      if (best && d.feasible) log_bound += std::log(bound);
      t.add({c.model, b.name, d.feasible ? with_commas(d.runtime_cycles) : "infeasible",
             with_commas(d.pes), fixed(d.area_mm2, 3), best ? best->name : "none feasible",
             best ? fixed(sp(best), 2) : "-", fx ? fixed(sp(fx), 2) : "-",
             fs ? fixed(sp(fs), 2) : "-", op ? op->name : "none feasible",
             op ? fixed(sp(op), 2) : "-", best ? fixed(bound, 2) : "-"});
      cases.push_back(case_json(a, c));
      if (root && a.json != "-")
        std::cerr << c.model << " " << b.name << ": digamma " << d.runtime_cycles << " cycles, "
                  << (best ? best->name + " " + std::to_string(best->runtime_cycles) : "none")
                  << "\n";
    }
    const auto g = [](double s, int n) { return n ? std::exp(s / n) : 0.0; };
    t.add({"geomean", b.name, "", "", "", "", fixed(g(log_all, n_all), 2),
           fixed(g(log_fixed, n_fixed), 2), fixed(g(log_seeded, n_seeded), 2), "",
           fixed(g(log_opt, n_opt), 2), fixed(g(log_bound, n_all), 2)});
    geo[b.name] = {{"speedup_over_best_baseline", g(log_all, n_all)},
                   {"speedup_over_fixed_gamma", g(log_fixed, n_fixed)},
                   {"speedup_over_fixed_gamma_seeds", g(log_seeded, n_seeded)},
                   {"speedup_over_best_optimiser", g(log_opt, n_opt)},
                   {"bound_over_best_baseline", g(log_bound, n_all)}};
  }
  if (!root) return;
  if (a.json != "-") {
    std::cout << "DiGamma co-design vs baselines at " << with_commas(a.budget)
              << " samples (whole-model designs), objective " << a.objective << ", seed " << a.seed
              << "\ngrid: fixed-gamma, 9 grid accelerators, budget split evenly; grid+s: "
                 "fixed-gamma-seeds, the same with\neach layer's GAMMA opened with "
              << cd::kGridSpatialSeeds << " spatial seeds; opt: the best optimiser"
              << (a.budget > search::kBoSampleCap
                      ? "; BO capped at " + with_commas(search::kBoSampleCap) + " samples"
                      : std::string())
              << "\nx = best baseline cycles / digamma cycles; bound x = best baseline cycles / "
                 "the utilisation bound\n(per layer, max of the fewest steps of whole loop "
                 "indices spread over the most PEs and\ncompulsory off-chip words / bandwidth), "
                 "the most any design could gain\n"
              << t.str();
  }
  if (!a.json.empty())
    write_json({{"budget", a.budget},
                {"seed", a.seed},
                {"objective", a.objective},
                {"bo_sample_cap", search::kBoSampleCap},
                {"cases", cases},
                {"geomean", geo}},
               a.json);
}

}  // namespace

void register_codesign(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "codesign",
      "Search an accelerator (PEs, L1, L2) and every layer's mapping together under an area "
      "budget (DiGamma), beside baseline optimisers at the same sample budget");
  auto a = std::make_shared<CodesignArgs>();
  cmd->add_option("--model", a->model, "Zoo model name or model file (.m, .csv, .onnx)");
  cmd->add_option("--platform", a->platform,
                  "edge: 0.2 mm^2 and <= 200 PEs (DiGamma's example); cloud: 7 mm^2 and <= "
                  "16,384 PEs (ours, not DiGamma's)");
  cmd->add_option("--area-budget-mm2", a->area_budget, "Area budget (overrides the platform's)");
  cmd->add_option("--pe-limit", a->pe_limit, "Most PEs (overrides the platform's)");
  cmd->add_option("--pe-step", a->pe_step,
                  "PEs are a multiple of this (0: 8, or 64 above 1,024 PEs)");
  cmd->add_option("--objective", a->objective,
                  "latency, energy or edp (summed over layers), or throughput (cycles per MAC)");
  cmd->add_option("--budget", a->budget, "Samples: evaluations of a whole-model design");
  cmd->add_option("--seed", a->seed, "Random seed");
  cmd->add_option("--threads", a->threads, "Evaluation threads (results do not depend on it)");
  cmd->add_option("--hw", a->hw,
                  "Template accelerator for bandwidths, energies, clock and area constants; its "
                  "PEs and buffers are searched");
  cmd->add_option("--buffers", a->buffers,
                  "need: L1/L2 sized to what the mappings need; genes: searched");
  cmd->add_option("--levels", a->levels, "Maximum cluster levels per mapping (1 to 4)");
  cmd->add_flag("--maestro-compatible", a->maestro_compatible,
                "Only mappings MAESTRO runs as written (R, S untiled)");
  cmd->add_option("--population", a->population,
                  "GA population (0: from the budget; digamma: each layer's GA)");
  cmd->add_option("--baselines", a->baselines,
                  "all, none, or a list of ga, random, sa, de, pso, cmaes, oneplusone, "
                  "bo, fixed-gamma, fixed-gamma-seeds (the grid's GAMMA opened with the "
                  "spatial seeds)");
  cmd->add_option("--checkpoint", a->checkpoint,
                  "Write the searches' state to FILE (baselines: FILE.NAME)");
  cmd->add_option("--checkpoint-every", a->checkpoint_every, "Samples between checkpoints");
  cmd->add_option("--resume", a->resume, "Continue from the checkpoint FILE");
  cmd->add_option("--json", a->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option(
      "--plot", a->plot,
      "Plot the latency-area Pareto front (FILE.png or .svg; also writes FILE.csv and FILE.gp "
      "beside it, replacing them)");
  cmd->add_flag("--table", a->table,
                "DiGamma's table: every --models on every --platforms, speedup over the best "
                "baseline and geomean");
  cmd->add_option("--models", a->models, "Models of --table (comma-separated)");
  cmd->add_option("--platforms", a->platforms, "Platforms of --table");
  cmd->add_flag("--quiet", a->quiet, "No progress line");
  cmd->add_flag("--wide", a->wide,
                "Also each layer's mapping in the table (wider than 120 columns)");
  add_zoo_options(cmd, a->zoo);
  auto t = std::make_shared<TimeloopCodesignArgs>();
  cmd->add_option("--ert", t->ert,
                  "Timeloop template: its Accelergy ERT (default: the *ERT.yaml beside it)");
  cmd->add_option("--art", t->art,
                  "Timeloop template: its Accelergy ART (default: the *ART.yaml beside it)");
  cmd->add_option("--map-budget", t->map_budget,
                  "Timeloop template: loop-nest evaluations per layer for each design");
  cmd->add_option("--final-budget", t->final_budget,
                  "Timeloop template: evaluations per layer mapping the template and the best "
                  "design for the figures reported");
  cmd->callback([a, t, cmd] {
    if (!is_timeloop_arch_file(a->hw)) return run_codesign_cmd(*a);
    refuse_flags(
        cmd,
        {"--platform", "--pe-limit", "--pe-step", "--buffers", "--levels", "--maestro-compatible",
         "--population", "--baselines", "--checkpoint", "--checkpoint-every", "--resume", "--plot",
         "--table", "--models", "--platforms", "--wide"},
        "applies to the built-in templates: expected it without a Timeloop architecture");
    if (!cmd->count("--area-budget-mm2"))
      throw InputError({"<flag --area-budget-mm2>"},
                       "expected --area-budget-mm2 with a Timeloop template");
    t->hw = a->hw;
    t->model = a->model;
    t->area_budget_mm2 = a->area_budget;
    if (cmd->count("--budget")) t->budget = a->budget;
    if (cmd->count("--objective")) t->objective = a->objective;
    t->seed = a->seed;
    t->threads = a->threads;
    t->json = a->json;
    t->quiet = a->quiet;
    t->zoo = a->zoo;
    run_codesign_timeloop(*t);
  });
}

}  // namespace sparsemap::cli
