// `sparsemap schedule`'s work as a library call: checks, the job table, the warm start, the
// heuristics and each algorithm, and the JSON (run.h).
#include "sparsemap/dse/schedule/run.h"

#include <chrono>
#include <cmath>

#include "sparsemap/dse/schedule/jobs.h"
#include "sparsemap/error.h"
#include "sparsemap/io/magma_csv.h"
#include "sparsemap/io/util.h"
#include "sparsemap/numbers.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::dse::schedule {

namespace {

using nlohmann::json;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const std::vector<std::string>& blackbox_names() {
  static const std::vector<std::string> kNames = {"ga",  "random", "sa",        "de",
                                                  "pso", "cmaes",  "oneplusone"};
  return kNames;
}

// Every option that can be checked before any work.
void check_options(const Options& a) {
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
  // The CLI refuses these in its parser (CLI11's IsMember); a library caller gets this line.
  if (a.init != "random" && a.init != "heuristics")
    throw InputError({"<flag --init>", 0, 0}, "expected random or heuristics");
  if (a.core_draw != "speed" && a.core_draw != "uniform")
    throw InputError({"<flag --core-draw>", 0, 0}, "expected speed or uniform");
  if (!a.plot.empty() && !plot::is_plot_path(a.plot))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");
}

// The job table (--job-table, or --jobs priced on --platform by the cost model), its source
// and the cost-model calls that built it, checked.
void load_table(const Options& a, Result& r) {
  if (!a.job_table.empty()) {
    if (!a.jobs.empty() || !a.platform.empty())
      throw InputError({"<flag --job-table>", 0, 0}, "a job table needs no --jobs or --platform");
    r.table = job_table_from_magma(io::read_magma_job_table(a.job_table), a.job_table);
    r.source = a.job_table;
  } else {
    if (a.jobs.empty() || a.platform.empty())
      throw InputError({"<flags>", 0, 0}, "expected --jobs and --platform, or --job-table");
    const auto platform = load_platform(a.platform);
    r.table = build_job_table(load_jobs(a.jobs), platform, &r.cost_model_evaluations);
    r.source = a.jobs + " on " + platform.name;
  }
  validate(r.table, r.source);
}

// The previous run's JSON (--warm-start): its schedule and job table, carried to this table.
Schedule load_warm_start(const std::string& path, const JobTable& to) {
  json j;
  try {
    j = json::parse(io::read_file(path));
    const auto& s = j.at("schedule");
    JobTable from;
    if (s.at("core").size() > static_cast<size_t>(kMaxScheduleJobs) ||
        s.at("latency_cycles").at(0).size() > static_cast<size_t>(io::kMaxCores))
      throw InputError({path, 0, 0}, "expected at most " + std::to_string(kMaxScheduleJobs) +
                                         " jobs and " + std::to_string(io::kMaxCores) + " cores");
    from.num_jobs = static_cast<int>(s.at("core").size());
    from.num_cores = static_cast<int>(s.at("latency_cycles").at(0).size());
    Schedule prev;
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
    return transfer_schedule(from, prev, to);
  } catch (const json::exception& e) {
    // nlohmann's text without its "[json.exception.NAME] " prefix, printable and short.
    std::string what = e.what(), why;
    if (const size_t k = what.find("] "); k != std::string::npos) what = what.substr(k + 2);
    for (char ch : what.substr(0, 120)) why += (ch >= 32 && ch < 127) ? ch : '?';
    throw InputError({path, 0, 0}, "expected the JSON of a schedule run (" + why + ")");
  }
}

// --algo's list, "all" expanded.
std::vector<std::string> algo_list(const std::string& algo) {
  std::vector<std::string> algos;
  for (const auto& name : io::split_list(algo)) {
    if (name == "all") {
      algos.insert(algos.end(), {"gsharp", "magma-ga"});
      for (const auto& b : blackbox_names()) algos.push_back(b);
    } else {
      algos.push_back(name);
    }
  }
  if (algos.empty()) throw InputError({"<flag --algo>", 0, 0}, "expected an algorithm");
  return algos;
}

// One search (G#, MAGMA's GA or a black-box optimiser) on `sim`, timed. G#'s progress goes to
// `observer` after each generation.
AlgoRun run_algo(const Options& a, const std::string& algo, Simulator& sim,
                 const std::vector<Schedule>& warm, search::Observer& observer) {
  AlgoRun out;
  out.name = algo;
  const double t0 = now_s();
  if (algo == "gsharp" || algo == "magma-ga") {
    GsharpOptions o;
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
    o.progress = [&](int64_t e, double best) {
      search::Progress p;
      p.done = e;
      p.total = a.budget;
      p.best = best;
      p.label = algo;
      search::report_progress(observer, p);
    };
    out.result = run_gsharp(sim, o);
    observer.on_search_done();
  } else {
    out.result = run_blackbox(sim, algo, a.budget, a.seed);
  }
  out.wall_s = now_s() - t0;
  return out;
}

}  // namespace

Result run(const Options& a, search::Observer& observer) {
  check_options(a);
  Result r;
  r.options = a;
  load_table(a, r);
  Simulator sim(r.table, a.bw, r.source);
  std::vector<Schedule> warm;
  if (!a.warm_start.empty()) {
    warm.push_back(load_warm_start(a.warm_start, r.table));
    warm.push_back(repair_schedule(r.table, a.bw, warm.front()));
  }
  const std::vector<std::string> algos = algo_list(a.algo);
  r.heuristics = run_heuristics(sim, a.seed);
  for (const auto& algo : algos) {
    bool heuristic = false;
    for (const auto& h : r.heuristics)
      if (h.name == algo) {
        AlgoRun o;
        o.name = algo;
        o.result = {algo, h.schedule, h.makespan_cycles, 1, {{1, h.makespan_cycles}}};
        r.runs.push_back(o);
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
    r.runs.push_back(run_algo(a, algo, sim, warm, observer));
  }
  r.lower_bound_cycles = lower_bound_cycles(r.table, a.bw);
  r.detail = sim.run(r.runs.front().result.best, true);
  return r;
}

json to_json(const Result& res) {
  const JobTable& t = res.table;
  const SimResult& r = res.detail;
  const AlgoRun& main = res.runs.front();
  json j;
  j["algo"] = main.name;
  j["makespan_cycles"] = r.makespan_cycles;
  j["lower_bound_cycles"] = res.lower_bound_cycles;
  j["evaluations"] = main.result.evaluations;
  j["wall_s"] = main.wall_s;
  j["dram_bw"] = res.options.bw;
  j["bw_unit"] = t.bw_unit;
  j["num_jobs"] = t.num_jobs;
  j["cost_model_evaluations"] = res.cost_model_evaluations;
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
  for (const auto& h : res.heuristics) hj[h.name] = h.makespan_cycles;
  j["heuristics"] = hj;
  json rj = json::object();
  for (const auto& o : res.runs) {
    json conv = json::array();
    for (const auto& [e, b] : o.result.convergence) conv.push_back({e, b});
    rj[o.name] = {{"makespan_cycles", o.result.makespan_cycles},
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
  j["schedule"] = {{"core", main.result.best.core},
                   {"priority", main.result.best.priority},
                   {"latency_cycles", lat}};
  return j;
}

}  // namespace sparsemap::dse::schedule
