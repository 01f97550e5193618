// `sparsemap hwalloc`: ConfuciuX-style hardware resource assignment (per-layer PEs and buffer
// level under an area or power budget): REINFORCE + GA fine-tuning, and baselines at equal
// cost-model calls.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/dse/hwalloc/checkpoint.h"
#include "sparsemap/dse/hwalloc/hwalloc.h"
#include "sparsemap/dse/hwalloc/methods.h"
#include "sparsemap/error.h"
#include "sparsemap/io/confuciux_csv.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/search/driver.h"
#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/hwalloc/policy.h"
#endif

namespace sparsemap::cli {
namespace {

namespace hw = dse::hwalloc;
using nlohmann::json;

struct HwallocArgs {
  std::string model, dataflow = "dla", platform = "cloud", constraint = "area",
                     objective = "latency", method = "confuciux", deployment = "pipelined",
                     edges = "padded", budget_counts = "lookups";
  double fraction = -1;
  int64_t budget = 10000;
  uint64_t seed = 1;
  double rl_fraction = 0.5;
  int64_t checkpoint_every = 20;
  int64_t episodes = 300;   // RL episode cap (0: none); tuned on ResNet-18/dla (docs)
  int64_t max_designs = 0;  // designs cap (0: 2 x budget)
  int64_t rl_stall = 100;   // RL stops after this many episodes without progress
  int64_t stall = 2000;     // GA / baselines stop after this many designs without progress
  std::string checkpoint, resume, json, plot;
  bool quiet = false;
};

bool is_rl_method(const std::string& m) { return m == "confuciux" || m == "rl" || m == "a2c"; }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The run's identity: a checkpoint only resumes the same run.
std::string signature(const HwallocArgs& a, double fraction) {
  std::ostringstream s;
  s << a.model << "/" << a.dataflow << "/" << fraction << "/" << a.constraint << "/" << a.objective
    << "/" << a.method << "/" << a.deployment << "/" << a.edges << "/" << a.budget << "/" << a.seed
    << "/" << a.rl_fraction << "/" << a.episodes << "/" << a.rl_stall << "/" << a.stall << "/"
    << a.max_designs << "/" << a.budget_counts;
  return s.str();
}

// An output file named by `flag` must be creatable: not a folder, in a folder that exists.
// Checked before the run, so a typo never costs a whole search.
void check_output_path(const std::string& path, const std::string& flag) {
  if (path.empty() || path == "-") return;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw InputError({path, 0, 0}, flag + " names a folder; expected a file");
  const fs::path dir = fs::path(path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw InputError({path, 0, 0}, flag + ": folder '" + dir.string() + "' does not exist");
}

std::string rng_text(const hw::Rng& r) {
  std::ostringstream s;
  s << r;
  return s.str();
}

// Convergence: best objective so far against cost-model calls, as a step line.
void write_plot(const std::string& plot, const std::string& title, const hw::Tracker& t,
                const hw::Budget& budget, bool energy) {
  const bool states = budget.count == hw::BudgetCount::States;
  const std::string data = plot + ".csv";
  std::ofstream d(data);
  d << "calls,best\n";
  for (const hw::Tracker::Point& q : t.convergence)
    d << (states ? q.states : q.lookups) << "," << q.best << "\n";
  if (!t.convergence.empty()) d << budget.calls << "," << t.convergence.back().best << "\n";
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  std::ostringstream gp;
  gp << plot::gnuplot_header(plot) << "set datafile separator ','\n"
     << "set title " << plot::gnuplot_quote("hwalloc " + title + ": best design so far")
     << " noenhanced\nset xlabel "
     << (states ? "'cost-model calls (distinct states)'"
                : "'cost-model calls (lookups, cache hits included)'")
     << "\nset ylabel " << (energy ? "'energy (nJ)'" : "'latency (cycles)'")
     << "\nset logscale y\nset grid\n"
     << "plot " << plot::gnuplot_quote(data)
     << " every ::1 using 1:2 with steps lw 2 title 'best so far'\n";
  plot::render_gnuplot(gp.str(), plot + ".gp", data);
}

// The flags' checks, before any work (the RL methods hand over to sparsemap-ml here when this
// build has no libtorch).
void check_args(const HwallocArgs& a) {
  if (!a.plot.empty() && !plot::is_plot_path(a.plot))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file, got '" + a.plot + "'");
  if (a.budget < 1 || a.budget > search::kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0},
                     "expected a call budget from 1 to " + with_commas(search::kMaxBudget));
  if (a.checkpoint_every < 1)
    throw InputError({"<flag --checkpoint-every>", 0, 0}, "expected a positive count");
  for (const auto& [flag, v] : {std::pair{"--episodes", a.episodes},
                                {"--max-designs", a.max_designs},
                                {"--rl-stall", a.rl_stall},
                                {"--stall", a.stall}})
    if (v < 0) throw InputError({std::string("<flag ") + flag + ">", 0, 0}, "expected 0 or more");
  hw::parse_budget_count(a.budget_counts);
  check_output_path(a.json, "--json");
  check_output_path(a.plot, "--plot");
  check_output_path(a.checkpoint, "--checkpoint");
  if (!(a.rl_fraction > 0 && a.rl_fraction <= 1))
    throw InputError({"<flag --rl-fraction>", 0, 0}, "expected a fraction in (0, 1]");
  static const std::vector<std::string> kMethods = {"confuciux", "rl", "a2c",   "ga",
                                                    "sa",        "bo", "random"};
  if (std::find(kMethods.begin(), kMethods.end(), a.method) == kMethods.end())
    throw InputError({"<flag --method>", 0, 0},
                     "expected confuciux|rl|a2c|ga|sa|bo|random, got '" + a.method + "'");
#ifndef SPARSEMAP_HAVE_TORCH
  if (is_rl_method(a.method)) {
    hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
    throw InputError({"<flag --method>", 0, 0},
                     "the RL methods need libtorch: this sparsemap was built without libtorch");
  }
#endif
}

hw::ProblemOptions problem_options(const HwallocArgs& a, double fraction) {
  hw::ProblemOptions po;
  po.dataflow = a.dataflow;
  po.objective = hw::parse_objective(a.objective);
  po.constraint = hw::parse_constraint(a.constraint);
  po.deployment = hw::parse_deployment(a.deployment);
  po.edges = hw::parse_edges(a.edges);
  po.fraction = fraction;
  return po;
}

// One run's state shared by its phases: the problem, the resumable state, checkpoints and the
// progress line.
struct Session {
  Session(const HwallocArgs& args, hw::Problem& p, std::string signature)
      : a(args), problem(p), rng(args.seed), sig(std::move(signature)) {}
  const HwallocArgs& a;
  hw::Problem& problem;
  hw::RunState st;
  hw::Rng rng;
  hw::Budget budget;
  std::string sig;
  bool bar = false;
  std::string note;
  int64_t episodes = 0, generations = 0;

  void save(const std::string& phase) {
    if (a.checkpoint.empty()) return;
    st.phase = phase;
    st.rng = rng_text(rng);
    hw::write_run_state(a.checkpoint, sig, st, problem);
  }
  void progress(const char* what, int64_t step) const {
    if (!bar) return;
    std::fprintf(stderr, "\r%s %lld  calls %lld/%lld  best %s        ", what,
                 static_cast<long long>(step), static_cast<long long>(budget.spent(problem)),
                 static_cast<long long>(a.budget),
                 st.tracker.has_best
                     ? with_commas(static_cast<int64_t>(st.tracker.best_cost.objective)).c_str()
                     : "none");
    std::fflush(stderr);
  }
};

#ifdef SPARSEMAP_HAVE_TORCH
// REINFORCE or A2C episodes to the RL share of the budget; for confuciux, then the GA fine-tune
// from the RL's best (or the minimum design) to the whole budget.
void run_rl(Session& s, double fraction) {
  const HwallocArgs& a = s.a;
  hw::RunState& st = s.st;
  ml::hwalloc::PolicyOptions popt;
  popt.algorithm = a.method == "a2c" ? "a2c" : "reinforce";
  hw::RlEnv env(s.problem);
  ml::hwalloc::Agent agent(env.state_size(), s.problem.actions_per_layer(), popt, a.seed);
  if (!st.policy.empty()) agent.load(st.policy);
  if (st.extra.contains("worst")) env.set_worst(st.extra["worst"].get<double>());
  hw::Budget rl_budget = s.budget;
  if (a.method == "confuciux")
    rl_budget.calls = std::max<int64_t>(1, static_cast<int64_t>(a.rl_fraction * double(a.budget)));
  if (st.phase == "start" || st.phase == "rl") {
    // confuciux's RL stage hands over to the GA at its episode cap or after --rl-stall episodes
    // without a new state or a better design; rl and a2c run to the budget (the stall rule only
    // when counting states, where cached episodes cost nothing).
    const bool cx = a.method == "confuciux";
    const int64_t stall_limit = cx || rl_budget.count == hw::BudgetCount::States ? a.rl_stall : 0;
    hw::StallCounter stall;
    while (rl_budget.spent(s.problem) < rl_budget.calls && st.designs < rl_budget.designs_limit() &&
           (!cx || a.episodes <= 0 || agent.episodes() < a.episodes)) {
      const bool ok = agent.episode(env, s.rng);
      ++st.designs;
      if (ok) st.tracker.offer(env.design(), env.design_cost(), s.problem);
      if (stall.update(s.problem.calls(), st.tracker, stall_limit)) break;
      s.progress("episode", agent.episodes());
      if (!a.checkpoint.empty() && agent.episodes() % a.checkpoint_every == 0) {
        st.policy = agent.save();
        st.extra = {{"worst", env.worst()}};
        s.save("rl");
      }
    }
    st.extra = json::object();
    st.policy.clear();
    if (a.method == "confuciux") s.save("ga");
  }
  s.episodes = agent.episodes();
  if (a.method != "confuciux") return;
  if (!st.tracker.has_best)
    s.note = "no RL episode was feasible: the GA starts from the minimum design";
  const hw::Design seed_design = st.tracker.has_best ? st.tracker.best : s.problem.minimum_design();
  hw::GaState gs;
  if (st.extra.contains("ga")) gs.from_json(st.extra["ga"]);
  hw::GaFineTuneOptions go;
  go.generations = 1 << 30;  // to the budget
  go.alpha = std::max(0.05, fraction);
  hw::ga_finetune(s.problem, seed_design, go, s.budget, s.rng, st.tracker, st.designs, gs,
                  [&](const hw::GaState& g) {
                    s.progress("generation", g.generation);
                    if (!a.checkpoint.empty() && g.generation % a.checkpoint_every == 0) {
                      st.extra = {{"ga", g.to_json()}};
                      s.save("ga");
                    }
                  });
  s.generations = gs.generation;
}
#endif

// The search engine's optimisers (ga, sa, bo, random) on the same problem and budget.
void run_baseline_method(Session& s) {
  hw::RunState& st = s.st;
  const json* resume_state = st.extra.contains("optimizer") ? &st.extra["optimizer"] : nullptr;
  const json copy = resume_state ? *resume_state : json();
  int64_t batches = 0;
  hw::run_baseline(
      s.problem, s.a.method, s.a.seed, s.budget, st.tracker, st.designs,
      resume_state ? &copy : nullptr,
      [&](const json& opt) {
        if (!s.a.checkpoint.empty() && ++batches % s.a.checkpoint_every == 0) {
          st.extra = {{"optimizer", opt}};
          s.save("baseline");
        }
      },
      [&]() { s.progress("design", st.designs); });
}

// The JSON; fills `t` with the best design's per-layer rows.
// The run's counts, taken when the search ended (the report's own lookups are not the run's).
struct Counts {
  int64_t calls = 0, states = 0, lookups = 0;
};
Counts counts_of(const Session& s) {
  return {s.budget.spent(s.problem), s.problem.calls(), s.problem.lookups()};
}
int64_t budgeted(const Session& s, int64_t states, int64_t lookups) {
  return s.budget.count == hw::BudgetCount::States ? states : lookups;
}

json result_json(const Session& s, const workload::Model& model, double fraction, double wall_s,
                 const Counts& n, Table& t) {
  const HwallocArgs& a = s.a;
  hw::Problem& problem = s.problem;  // layer_cost() caches
  const hw::Tracker& tr = s.st.tracker;
  json out = {{"model", model.name},
              {"method", a.method},
              {"dataflow", a.dataflow},
              {"deployment", a.deployment},
              {"edges", a.edges},
              {"objective", a.objective},
              {"seed", a.seed},
              {"constraint",
               {{"kind", a.constraint},
                {"value", problem.budget()},
                {"fraction", fraction},
                {"min", problem.min_constraint()},
                {"max", problem.max_constraint()}}},
              {"budget_counts", std::string(hw::budget_count_name(s.budget.count))},
              {"calls", n.calls},
              {"states", n.states},
              {"lookups", n.lookups},
              {"designs", s.st.designs},
              {"rl_episodes", s.episodes},
              {"ga_generations", s.generations},
              {"wall_s", wall_s}};
  json conv = json::array();
  // [calls (the budgeted count), best, distinct states, lookups]
  for (const hw::Tracker::Point& q : tr.convergence)
    conv.push_back({budgeted(s, q.states, q.lookups), q.best, q.states, q.lookups});
  out["convergence"] = conv;
  out["convergence_seconds"] = tr.seconds;  // this process's clock (resets on resume)
  out["best"] = nullptr;
  out["layers"] = json::array();
  if (tr.has_best) {
    const hw::DesignCost& c = tr.best_cost;
    out["best"] = {{"latency_cycles", c.latency_cycles},
                   {"energy_nj", c.energy_nj},
                   {"area", c.area},
                   {"power_mw", c.power_mw},
                   {"calls_to_best", budgeted(s, tr.states_to_best, tr.lookups_to_best)},
                   {"states_to_best", tr.states_to_best},
                   {"lookups_to_best", tr.lookups_to_best},
                   {"seconds_to_best", tr.seconds_to_best}};
    for (size_t i = 0; i < problem.num_layers(); ++i) {
      const hw::LayerChoice& ch = tr.best[i];
      const hw::LayerCost lc = problem.layer_cost(i, ch);
      out["layers"].push_back({{"name", problem.layer(i).name},
                               {"pes", ch.pes},
                               {"buffer_level", ch.k_tile},
                               {"dataflow", std::string(hw::dataflow_name(ch.dataflow))},
                               {"latency_cycles", lc.latency_cycles},
                               {"area", lc.area}});
      t.add({problem.layer(i).name, layer_dims_text(problem.layer(i)),
             std::string(hw::dataflow_name(ch.dataflow)), std::to_string(ch.pes),
             std::to_string(ch.k_tile), with_commas(lc.latency_cycles), fixed(lc.area, 0)});
    }
  }
  if (!s.note.empty()) out["note"] = s.note;
  return out;
}

void print_result(const Session& s, const workload::Model& model, double fraction, double wall_s,
                  const Counts& n, const Table& t, bool energy) {
  const HwallocArgs& a = s.a;
  const hw::Problem& problem = s.problem;
  const hw::Tracker& tr = s.st.tracker;
  std::printf(
      "hwalloc %s: %s, %s, %s %s budget %.6g\n  (%.3g of the way from min %.6g to max %.6g)\n",
      a.method.c_str(), model.name.c_str(), a.dataflow.c_str(), a.deployment.c_str(),
      a.constraint.c_str(), problem.budget(), fraction, problem.min_constraint(),
      problem.max_constraint());
  if (tr.has_best) {
    std::printf("%s", t.str().c_str());
    const hw::DesignCost& c = tr.best_cost;
    std::printf(
        "best %s %s (latency %s cycles, energy %.4g nJ)\n%s %.6g = %.2f%% of the budget,"
        " found after %s calls\n",
        energy ? "energy" : "latency",
        energy ? fixed(c.energy_nj, 1).c_str() : with_commas(c.latency_cycles).c_str(),
        with_commas(c.latency_cycles).c_str(), c.energy_nj, a.constraint.c_str(), c.constraint,
        100 * c.constraint / problem.budget(),
        with_commas(budgeted(s, tr.states_to_best, tr.lookups_to_best)).c_str());
  }
  if (!s.note.empty()) std::printf("note: %s\n", s.note.c_str());
  std::printf(
      "calls %s (%s; the budget counts %s): lookups %s, distinct states %s; designs %s, wall %.2f "
      "s\n",
      with_commas(n.calls).c_str(),
      s.budget.count == hw::BudgetCount::States ? "distinct states" : "lookups",
      std::string(hw::budget_count_name(s.budget.count)).c_str(), with_commas(n.lookups).c_str(),
      with_commas(n.states).c_str(), with_commas(s.st.designs).c_str(), wall_s);
}

void run_hwalloc(const HwallocArgs& a) {
  check_args(a);
  const double fraction = a.fraction >= 0 ? a.fraction : hw::platform_fraction(a.platform);
  const hw::ProblemOptions po = problem_options(a, fraction);
  const workload::Model model =
      ends_with(a.model, ".csv") ? io::read_confuciux_csv(a.model) : load_model(a.model, {});
  const auto t0 = std::chrono::steady_clock::now();
  hw::Problem problem(model, po);
  Session s(a, problem, signature(a, fraction));
  s.budget.calls = a.budget;
  s.budget.stall = a.stall;
  s.budget.max_designs = a.max_designs;
  s.budget.count = hw::parse_budget_count(a.budget_counts);
  // The budget's corner designs are evaluated (and counted) before any search: a budget they
  // already spend would run no design at all.
  const int64_t setup =
      s.budget.count == hw::BudgetCount::States ? problem.setup_calls() : problem.setup_lookups();
  if (a.budget <= setup)
    throw InputError({"<flag --budget>", 0, 0},
                     "expected more than the " + with_commas(setup) + " " +
                         std::string(hw::budget_count_name(s.budget.count)) +
                         " the budget's corner designs take on this model");
  if (!a.resume.empty()) {
    s.st = hw::read_run_state(a.resume, s.sig, a.method, problem);
    std::istringstream in(s.st.rng);
    in >> s.rng;
  }
  s.st.tracker.clock = [t0]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  s.bar = !a.quiet && isatty(2);
  if (is_rl_method(a.method)) {
#ifdef SPARSEMAP_HAVE_TORCH
    run_rl(s, fraction);
#endif
  } else {
    run_baseline_method(s);
  }
  if (s.bar) std::fprintf(stderr, "\n");
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.st.extra = json::object();
  s.save("done");

  const bool energy = po.objective == hw::Objective::Energy;
  Table t({"layer", "dims", "dataflow", "pes", "buffer", "latency_cycles", "area"});
  const Counts n = counts_of(s);
  json out = result_json(s, model, fraction, wall_s, n, t);
  if (!s.st.tracker.has_best) {
    s.note = "no feasible design found within the budget";
    out["note"] = s.note;
  }
  if (a.json != "-") print_result(s, model, fraction, wall_s, n, t, energy);
  if (!a.json.empty()) write_json(out, a.json);
  if (!a.plot.empty())
    write_plot(a.plot, model.name + " / " + a.method + " / " + a.dataflow, s.st.tracker, s.budget,
               energy);
}

}  // namespace

void register_hwalloc(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "hwalloc", "ConfuciuX: per-layer PEs and buffer level under an area or power budget");
  auto a = std::make_shared<HwallocArgs>();
  sub->add_option("--model", a->model, "zoo model or ConfuciuX model CSV (K,C,Y,X,R,S,T)")
      ->required();
  sub->add_option("--dataflow", a->dataflow, "dla|shi|eye|mixed (depthwise layers use dpt)")
      ->capture_default_str();
  sub->add_option("--platform", a->platform, "cloud (0.5), iot (0.1), eiot (0.05)")
      ->capture_default_str();
  sub->add_option("--fraction", a->fraction, "constraint fraction in [0,1] (overrides --platform)");
  sub->add_option("--constraint", a->constraint, "area|power")->capture_default_str();
  sub->add_option("--objective", a->objective, "latency|energy")->capture_default_str();
  sub->add_option("--deployment", a->deployment, "pipelined (sum over layers)|sequential (max)")
      ->capture_default_str();
  sub->add_option(
         "--edges", a->edges,
         "padded (MAESTRO parity: an edge tile costs a full tile)|physical (the shared cost "
         "model's rule: a partial tile costs what it needs)")
      ->capture_default_str();
  sub->add_option("--method", a->method, "confuciux|rl|a2c|ga|sa|bo|random")->capture_default_str();
  sub->add_option("--budget", a->budget,
                  "cost-model calls, counted as --budget-counts says (every method spends it)")
      ->capture_default_str();
  sub->add_option("--budget-counts", a->budget_counts,
                  "lookups (every cost-model lookup, cache hits included: a design of L layers "
                  "costs L)|states (distinct states only, ConfuciuX's exp_table count)")
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "seed")->capture_default_str();
  sub->add_option("--rl-fraction", a->rl_fraction, "confuciux: share of the calls for RL")
      ->capture_default_str();
  sub->add_option("--episodes", a->episodes,
                  "confuciux: episode cap of its RL stage (0: none; rl and a2c run to the budget)")
      ->capture_default_str();
  sub->add_option("--max-designs", a->max_designs,
                  "designs evaluated at most (RL episodes + GA individuals; 0: 2 x budget)")
      ->capture_default_str();
  sub->add_option("--rl-stall", a->rl_stall,
                  "confuciux's RL stage (rl, a2c: only with --budget-counts states) ends after "
                  "this many episodes without a new state or a better design")
      ->capture_default_str();
  sub->add_option("--stall", a->stall,
                  "with --budget-counts states: GA/baselines end after this many designs without "
                  "a new state or a better one")
      ->capture_default_str();
  sub->add_option("--checkpoint", a->checkpoint, "write the run state to FILE");
  sub->add_option("--checkpoint-every", a->checkpoint_every,
                  "episodes / generations / batches between checkpoints")
      ->capture_default_str();
  sub->add_option("--resume", a->resume, "continue from a checkpoint of the same run");
  sub->add_option("--json", a->json, "write JSON to FILE or - (stdout)");
  sub->add_option("--plot", a->plot, "convergence plot (PNG or SVG)");
  sub->add_flag("--quiet", a->quiet, "no progress line");
  sub->callback([a]() {
    try {
      run_hwalloc(*a);
    } catch (const InputError& e) {
      // A state the checkpoint holds that does not fit (raised where it is loaded: the problem's
      // replay, the policy, the optimiser) names the --resume file.
      if (e.where().file != "<checkpoint>" || a->resume.empty()) throw;
      throw InputError({a->resume, 0, 0}, e.message());
    }
  });
}

}  // namespace sparsemap::cli
