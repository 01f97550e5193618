// `sparsemap schedule`: multi-tenant scheduling of DNN layers on sub-accelerators that share
// DRAM bandwidth (G# / MAGMA), beside list heuristics and black-box optimisers.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "commands.h"
#include "sparsemap/dse/schedule/gsharp.h"
#include "sparsemap/dse/schedule/heuristics.h"
#include "sparsemap/dse/schedule/jobs.h"
#include "sparsemap/error.h"
#include "sparsemap/io/magma_csv.h"
#include "sparsemap/io/util.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::cli {
namespace {

namespace sc = dse::schedule;
using nlohmann::json;

struct ScheduleArgs {
  std::string jobs, platform, job_table, algo = "gsharp", warm_start, json, plot;
  double bw = 1.0;
  int64_t budget = 10000;
  uint64_t seed = 1;
  int population = sc::kGsharpPopulation;
  bool quiet = false;
  std::string init = "random";
  double local_search = -1;
  std::string core_draw = "speed";
  double climb_work_weight = -1;
  double warm_copies = -1;
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const std::vector<std::string>& blackbox_names() {
  static const std::vector<std::string> kNames = {"ga",  "random", "sa",        "de",
                                                  "pso", "cmaes",  "oneplusone"};
  return kNames;
}

struct Outcome {
  sc::SearchResult result;
  double wall_s = 0;
};

// The previous run's JSON (--warm-start): its schedule and job table, carried to this table.
sc::Schedule load_warm_start(const std::string& path, const sc::JobTable& to) {
  json j;
  try {
    j = json::parse(io::read_file(path));
    const auto& s = j.at("schedule");
    sc::JobTable from;
    if (s.at("core").size() > static_cast<size_t>(sc::kMaxScheduleJobs) ||
        s.at("latency_cycles").at(0).size() > static_cast<size_t>(io::kMaxCores))
      throw InputError({path, 0, 0}, "expected at most " + std::to_string(sc::kMaxScheduleJobs) +
                                         " jobs and " + std::to_string(io::kMaxCores) + " cores");
    from.num_jobs = static_cast<int>(s.at("core").size());
    from.num_cores = static_cast<int>(s.at("latency_cycles").at(0).size());
    sc::Schedule prev;
    for (const auto& row : s.at("latency_cycles"))
      for (const auto& v : row) {
        from.latency_cycles.push_back(v.get<double>());
        from.req_bw.push_back(0);
      }
    prev.core = s.at("core").get<std::vector<int>>();
    prev.priority = s.at("priority").get<std::vector<double>>();
    if (from.latency_cycles.size() != static_cast<size_t>(from.num_jobs) * from.num_cores ||
        prev.priority.size() != prev.core.size() || from.num_jobs < 1)
      throw InputError({path, 0, 0},
                       "schedule.core, .priority and .latency_cycles disagree in size");
    for (int c : prev.core)
      if (c < 0 || c >= from.num_cores)
        throw InputError({path, 0, 0}, "schedule.core out of range");
    for (double l : from.latency_cycles)
      if (!(l > 0) || !std::isfinite(l))
        throw InputError({path, 0, 0}, "expected schedule.latency_cycles finite and > 0");
    for (double p : prev.priority)
      if (!std::isfinite(p)) throw InputError({path, 0, 0}, "expected finite schedule.priority");
    return sc::transfer_schedule(from, prev, to);
  } catch (const json::exception& e) {
    // nlohmann's text without its "[json.exception.NAME] " prefix, printable and short.
    std::string what = e.what(), why;
    if (const size_t k = what.find("] "); k != std::string::npos) what = what.substr(k + 2);
    for (char ch : what.substr(0, 120)) why += (ch >= 32 && ch < 127) ? ch : '?';
    throw InputError({path, 0, 0}, "expected the JSON of a schedule run (" + why + ")");
  }
}

Outcome run_algo(const ScheduleArgs& a, const std::string& algo, sc::Simulator& sim,
                 const std::vector<sc::Schedule>& warm) {
  Outcome out;
  const double t0 = now_s();
  const bool bar = !a.quiet && isatty(2);
  if (algo == "gsharp" || algo == "magma-ga") {
    sc::GsharpOptions o;
    o.budget = a.budget;
    o.seed = a.seed;
    o.population = a.population;
    o.magma_exact = algo == "magma-ga";
    o.warm_start = warm;
    o.seed_heuristics = a.init == "heuristics";
    o.speed_weighted_cores = !o.magma_exact && a.core_draw == "speed";
    if (a.local_search >= 0)
      o.local_search_fraction = o.warm_local_search_fraction = a.local_search;
    if (a.warm_copies >= 0) {
      o.warm_copies_share = a.warm_copies;
      o.warm_in_population = true;
    }
    if (a.climb_work_weight >= 0) o.climb_work_weight = a.climb_work_weight;
    if (bar)
      o.progress = [&](int64_t e, double best) {
        std::fprintf(stderr, "\r%s: %lld / %lld evaluations, best %.0f cycles", algo.c_str(),
                     static_cast<long long>(e), static_cast<long long>(a.budget), best);
      };
    out.result = sc::run_gsharp(sim, o);
    if (bar) std::fprintf(stderr, "\n");
  } else {
    out.result = sc::run_blackbox(sim, algo, a.budget, a.seed);
  }
  out.wall_s = now_s() - t0;
  return out;
}

// The first line of each file written beside a plot: an existing file there is replaced only
// when it starts with it (an earlier run's), never a file of the user's.
constexpr const char* kPlotMarker = "# sparsemap schedule plot";

void check_plot_side_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  if (std::filesystem::is_directory(path, ec))
    throw InputError({path, 0, 0}, "is a directory; expected a file name for the plot data");
  std::ifstream f(path);
  std::string first;
  std::getline(f, first);
  if (first.rfind(kPlotMarker, 0) != 0)
    throw InputError({path, 0, 0},
                     "exists and was not written by sparsemap schedule; remove it or choose "
                     "another --plot name");
}

// Gantt chart (one row per core, one box per job, coloured by tenant) above the DRAM bandwidth
// in use over time, with the available bandwidth as a line. Data: PLOT.jobs.dat and
// PLOT.bw.dat; script: PLOT.gp (rerun with `gnuplot PLOT.gp`).
void write_plot(const std::string& path, const sc::JobTable& t, const sc::SimResult& r, double bw,
                const std::string& title) {
  if (!plot::is_plot_path(path))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");
  const std::string jobs_path = path + ".jobs.dat", bw_path = path + ".bw.dat";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError({path, 0, 0}, "is a directory; expected a .png or .svg file name");
  for (const auto& p : {jobs_path, bw_path, path + ".gp"}) check_plot_side_file(p);
  {
    std::ofstream f(jobs_path);
    if (!f) throw InputError({jobs_path, 0, 0}, "cannot write the plot data");
    f << kPlotMarker << ": core start_cycles end_cycles tenant job\n";
    for (const auto& j : r.jobs)
      f << j.core << " " << j.start_cycles << " " << j.end_cycles << " " << t.jobs[j.job].thread
        << " " << j.job << "\n";
  }
  {
    std::ofstream f(bw_path);
    if (!f) throw InputError({bw_path, 0, 0}, "cannot write the plot data");
    f << kPlotMarker << ": time_cycles bw_in_use (step starting at time)\n";
    for (const auto& s : r.bw_trace) {
      double total = 0;
      for (double v : s.bw_by_core) total += v;
      f << s.start_cycles << " " << total << "\n";
    }
    f << r.makespan_cycles << " 0\n";
  }
  std::string ytics;
  for (int c = 0; c < t.num_cores; ++c)
    ytics += (c ? ", " : "") + plot::gnuplot_quote(t.core_names[c]) + " " + std::to_string(c);
  std::string g =
      std::string(kPlotMarker) + ": Gantt chart\n" + plot::gnuplot_header(path, 1000, 650);
  g += "set termoption noenhanced\n";  // core names hold underscores
  g += "set multiplot layout 2,1 title " + plot::gnuplot_quote(title) + "\n";
  g += "set lmargin 22\nset xrange [0:" + std::to_string(r.makespan_cycles) + "]\n";
  g += "set ytics (" + ytics + ")\nset yrange [-0.6:" + std::to_string(t.num_cores - 0.4) + "]\n";
  g += "unset key\nset ylabel 'core'\nset style fill solid 0.8 border lc rgb 'black'\n";
  g += "plot " + plot::gnuplot_quote(jobs_path) +
       " using (($2+$3)/2):1:(($3-$2)/2):(0.38):4 with boxxyerror lc variable\n";
  g += "set ytics auto\nset yrange [0:*]\nset xlabel 'time (cycles)'\n";
  g += "set ylabel 'DRAM bandwidth in use'\nset key top right\n";
  g += "plot " + plot::gnuplot_quote(bw_path) +
       " using 1:2 with fillsteps lc rgb '#4477aa' title " + "'in use', " + std::to_string(bw) +
       " with lines lw 2 lc rgb '#cc3311' title 'available'\n";
  g += "unset multiplot\n";
  plot::render_gnuplot(g, path + ".gp", jobs_path);
}

void print_and_write(const ScheduleArgs& a, const sc::JobTable& t, const std::string& source,
                     sc::Simulator& sim, const std::vector<sc::HeuristicResult>& heur,
                     const std::vector<std::pair<std::string, Outcome>>& runs, int64_t cost_evals) {
  const double lb = sc::lower_bound_cycles(t, a.bw);
  const auto& main = runs.front();
  const sc::SimResult r = sim.run(main.second.result.best, true);
  const bool text = a.json != "-";
  if (text)
    std::printf("schedule: %d jobs (%s) on %d cores, DRAM bandwidth %g %s\n", t.num_jobs,
                source.c_str(), t.num_cores, a.bw, t.bw_unit.c_str());
  Table runs_table({"algorithm", "makespan_cycles", "vs_lower_bound", "evaluations", "wall_s"});
  for (const auto& [name, o] : runs)
    runs_table.add({name, with_commas(std::llround(o.result.makespan_cycles)),
                    fixed(o.result.makespan_cycles / lb, 4), with_commas(o.result.evaluations),
                    fixed(o.wall_s, 3)});
  const sc::HeuristicResult* best_h = &heur.front();
  for (const auto& h : heur)
    if (h.makespan_cycles < best_h->makespan_cycles) best_h = &h;
  runs_table.add({"best heuristic: " + best_h->name,
                  with_commas(std::llround(best_h->makespan_cycles)),
                  fixed(best_h->makespan_cycles / lb, 4), with_commas(1), "-"});
  runs_table.add({"lower bound", with_commas(std::llround(lb)), "1.0000", "-", "-"});
  if (text) std::printf("%s", runs_table.str().c_str());
  Table cores({"core", "jobs", "busy_cycles", "utilisation_pct"});
  std::vector<int> count(t.num_cores, 0);
  for (int j = 0; j < t.num_jobs; ++j) ++count[main.second.result.best.core[j]];
  for (int c = 0; c < t.num_cores; ++c)
    cores.add({t.core_names[c], std::to_string(count[c]),
               with_commas(std::llround(r.busy_cycles[c])),
               fixed(100 * r.busy_cycles[c] / r.makespan_cycles, 1)});
  if (text)
    std::printf("%s: makespan %s cycles, bandwidth in use %.1f%% of the time-average\n%s",
                main.first.c_str(), with_commas(std::llround(r.makespan_cycles)).c_str(),
                100 * r.bw_utilisation, cores.str().c_str());
  if (!a.plot.empty())
    write_plot(a.plot, t, r, a.bw,
               main.first + ": makespan " + with_commas(std::llround(r.makespan_cycles)) +
                   " cycles, lower bound " + with_commas(std::llround(lb)));
  if (a.json.empty()) return;
  json j;
  j["algo"] = main.first;
  j["makespan_cycles"] = r.makespan_cycles;
  j["lower_bound_cycles"] = lb;
  j["evaluations"] = main.second.result.evaluations;
  j["wall_s"] = main.second.wall_s;
  j["dram_bw"] = a.bw;
  j["bw_unit"] = t.bw_unit;
  j["num_jobs"] = t.num_jobs;
  j["cost_model_evaluations"] = cost_evals;
  j["bw_utilisation_pct"] = 100 * r.bw_utilisation;
  json cj = json::array();
  for (int c = 0; c < t.num_cores; ++c) {
    json jobs = json::array();
    for (const auto& jt : r.jobs)
      if (jt.core == c)
        jobs.push_back({{"job", jt.job},
                        {"name", t.jobs[jt.job].name},
                        {"start", jt.start_cycles},
                        {"end", jt.end_cycles}});
    cj.push_back({{"name", t.core_names[c]},
                  {"busy_cycles", r.busy_cycles[c]},
                  {"utilisation_pct", 100 * r.busy_cycles[c] / r.makespan_cycles},
                  {"jobs", jobs}});
  }
  j["cores"] = cj;
  json hj = json::object();
  for (const auto& h : heur) hj[h.name] = h.makespan_cycles;
  j["heuristics"] = hj;
  json rj = json::object();
  for (const auto& [name, o] : runs) {
    json conv = json::array();
    for (const auto& [e, b] : o.result.convergence) conv.push_back({e, b});
    rj[name] = {{"makespan_cycles", o.result.makespan_cycles},
                {"evaluations", o.result.evaluations},
                {"wall_s", o.wall_s},
                {"convergence", conv}};
  }
  j["results"] = rj;
  json bwj = json::array();
  for (const auto& s : r.bw_trace) {
    double total = 0;
    for (double v : s.bw_by_core) total += v;
    bwj.push_back({{"start", s.start_cycles}, {"end", s.end_cycles}, {"bw", total}});
  }
  j["bw_over_time"] = bwj;
  json lat = json::array();
  for (int k = 0; k < t.num_jobs; ++k) {
    json row = json::array();
    for (int c = 0; c < t.num_cores; ++c) row.push_back(t.latency(k, c));
    lat.push_back(row);
  }
  j["schedule"] = {{"core", main.second.result.best.core},
                   {"priority", main.second.result.best.priority},
                   {"latency_cycles", lat}};
  write_json(j, a.json);
}

void run_schedule_cmd(const ScheduleArgs& a) {
  if (!(a.bw > 0) || !std::isfinite(a.bw))
    throw InputError({"<flag --bw>", 0, 0}, "expected a DRAM bandwidth > 0");
  if (a.budget < 1 || a.budget > 100000000)
    throw InputError({"<flag --budget>", 0, 0}, "expected 1 to 100,000,000 evaluations");
  if (a.population < 2 || a.population > 100000)
    throw InputError({"<flag --population>", 0, 0}, "expected a population of 2 to 100,000");
  auto share = [](double v, double hi, const char* flag) {
    if (v != -1 && !(v >= 0 && v <= hi))
      throw InputError({flag, 0, 0}, "expected -1 (the default) or 0 to " + fixed(hi, 0));
  };
  share(a.local_search, 1, "<flag --local-search>");
  share(a.warm_copies, 1, "<flag --warm-copies>");
  share(a.climb_work_weight, 100, "<flag --climb-work-weight>");
  if (!a.plot.empty() && !plot::is_plot_path(a.plot))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");
  sc::JobTable table;
  std::string source;
  int64_t cost_evals = 0;
  if (!a.job_table.empty()) {
    if (!a.jobs.empty() || !a.platform.empty())
      throw InputError({"<flag --job-table>", 0, 0}, "a job table needs no --jobs or --platform");
    table = sc::job_table_from_magma(io::read_magma_job_table(a.job_table), a.job_table);
    source = a.job_table;
  } else {
    if (a.jobs.empty() || a.platform.empty())
      throw InputError({"<flags>", 0, 0}, "expected --jobs and --platform, or --job-table");
    const auto platform = sc::load_platform(a.platform);
    table = sc::build_job_table(sc::load_jobs(a.jobs), platform, &cost_evals);
    source = a.jobs + " on " + platform.name;
  }
  sc::validate(table, source);
  sc::Simulator sim(table, a.bw, source);
  std::vector<sc::Schedule> warm;
  if (!a.warm_start.empty()) {
    warm.push_back(load_warm_start(a.warm_start, table));
    warm.push_back(sc::repair_schedule(table, a.bw, warm.front()));
  }
  std::vector<std::string> algos;
  for (const auto& name : split_list(a.algo)) {
    if (name == "all") {
      algos.insert(algos.end(), {"gsharp", "magma-ga"});
      for (const auto& b : blackbox_names()) algos.push_back(b);
    } else {
      algos.push_back(name);
    }
  }
  if (algos.empty()) throw InputError({"<flag --algo>", 0, 0}, "expected an algorithm");
  const auto heur = sc::run_heuristics(sim, a.seed);
  std::vector<std::pair<std::string, Outcome>> runs;
  for (const auto& algo : algos) {
    bool heuristic = false;
    for (const auto& h : heur)
      if (h.name == algo) {
        Outcome o;
        o.result = {algo, h.schedule, h.makespan_cycles, 1, {{1, h.makespan_cycles}}};
        runs.push_back({algo, o});
        heuristic = true;
      }
    if (heuristic) continue;
    bool known = algo == "gsharp" || algo == "magma-ga";
    for (const auto& b : blackbox_names()) known |= algo == b;
    if (!known)
      throw InputError({"<flag --algo>", 0, 0},
                       "unknown algorithm '" + algo +
                           "' (expected gsharp, magma-ga, all, a heuristic such as FCFS-GREEDY, "
                           "herald, prema, ai-mt, or ga, random, sa, de, pso, cmaes, oneplusone)");
    runs.push_back({algo, run_algo(a, algo, sim, warm)});
  }
  print_and_write(a, table, source, sim, heur, runs, cost_evals);
}

}  // namespace

void register_schedule(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "schedule",
      "Schedule the layers of several DNNs on sub-accelerators sharing DRAM bandwidth (G#), "
      "beside heuristics and black-box optimisers at equal evaluations");
  auto a = std::make_shared<ScheduleArgs>();
  cmd->add_option("--jobs", a->jobs,
                  "vision, language, recommendation, mix, or a MAGMA job file (.csv)");
  cmd->add_option("--platform", a->platform,
                  "magma-s2, magma-s3, magma-s5, magma-s7, or a platform .csv "
                  "(name,pes,dataflow[,l1_bytes,l2_bytes])");
  cmd->add_option("--bw", a->bw,
                  "DRAM bandwidth shared by the cores (bytes/cycle; MAGMA's unit "
                  "for --job-table)")
      ->capture_default_str();
  cmd->add_option("--algo", a->algo,
                  "gsharp, magma-ga, a heuristic (FCFS-GREEDY, ..., herald, prema, ai-mt), ga, "
                  "random, sa, de, pso, cmaes, oneplusone, or all; a comma-separated list runs "
                  "each (the first is reported in detail)")
      ->capture_default_str();
  cmd->add_option("--budget", a->budget, "Evaluations (simulator calls) per search")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Random seed")->capture_default_str();
  cmd->add_option("--population", a->population, "G# population")->capture_default_str();
  cmd->add_option("--job-table", a->job_table,
                  "MAGMA job-table CSV (job, core, latency_cycles, req_dram_bw, ...)");
  cmd->add_option("--warm-start", a->warm_start,
                  "JSON of an earlier run (another batch): its schedule seeds G#");
  cmd->add_option("--json", a->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option("--plot", a->plot, "Gantt chart with the bandwidth in use (FILE.png or .svg)");
  cmd->add_option("--init", a->init,
                  "G#'s first generation: random, or heuristics (their schedules join it)")
      ->check(CLI::IsMember({"random", "heuristics"}))
      ->capture_default_str();
  cmd->add_option(
      "--local-search", a->local_search,
      "Share of G#'s budget for its final hill climbing (-1: 0.2, or 0.4 with --warm-start)");
  cmd->add_option("--climb-work-weight", a->climb_work_weight,
                  "Weight of the mean busy cycles in the climb's acceptance (-1: default)");
  cmd->add_option(
      "--warm-copies", a->warm_copies,
      "Put the warm schedules into G#'s first generation with this share of mutated copies "
      "(an experiment of docs/gsharp.md; -1: default, after the GA)");
  cmd->add_option("--core-draw", a->core_draw,
                  "G#'s random core for a job: speed (weighted by 1 / latency) or uniform")
      ->check(CLI::IsMember({"speed", "uniform"}))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress line");
  cmd->callback([a] { run_schedule_cmd(*a); });
}

}  // namespace sparsemap::cli
