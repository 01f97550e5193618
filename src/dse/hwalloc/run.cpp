// dse::hwalloc::run: the options' checks, the problem, and one method to the budget (RL then the
// GA fine-tune for confuciux, RL alone for rl and a2c, the search engine's optimisers for the
// baselines), with checkpoints and resume.
#include "sparsemap/dse/hwalloc/run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "sparsemap/dse/hwalloc/checkpoint.h"
#include "sparsemap/error.h"
#include "sparsemap/io/confuciux_csv.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/numbers.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::hwalloc {

namespace {

using nlohmann::json;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The model's name as the options give it (a Python object: its name).
std::string model_spec(const Options& a) { return a.model_object ? a.model_object->name : a.model; }

// The run's identity: a checkpoint only resumes the same run.
std::string signature(const Options& a, double fraction) {
  std::ostringstream s;
  s << model_spec(a) << "/" << a.dataflow << "/" << fraction << "/" << a.constraint << "/"
    << a.objective << "/" << a.method << "/" << a.deployment << "/" << a.edges << "/" << a.budget
    << "/" << a.seed << "/" << a.rl_fraction << "/" << a.episodes << "/" << a.rl_stall << "/"
    << a.stall << "/" << a.max_designs << "/" << a.budget_counts;
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

std::string rng_text(const Rng& r) {
  std::ostringstream s;
  s << r;
  return s.str();
}

ProblemOptions problem_options(const Options& a, double fraction) {
  ProblemOptions po;
  po.dataflow = a.dataflow;
  po.objective = parse_objective(a.objective);
  po.constraint = parse_constraint(a.constraint);
  po.deployment = parse_deployment(a.deployment);
  po.edges = parse_edges(a.edges);
  po.fraction = fraction;
  return po;
}

// One run's state shared by its phases: the problem, the resumable state, checkpoints and the
// progress reports.
struct Session {
  Session(const Options& options, Problem& p, std::string signature, search::Observer& obs)
      : a(options), problem(p), rng(options.seed), sig(std::move(signature)), observer(obs) {}
  const Options& a;
  Problem& problem;
  RunState st;
  Rng rng;
  Budget budget;
  std::string sig;
  search::Observer& observer;
  std::string note;
  int64_t episodes = 0, generations = 0;

  void save(const std::string& phase) {
    if (a.checkpoint.empty()) return;
    st.phase = phase;
    st.rng = rng_text(rng);
    write_run_state(a.checkpoint, sig, st, problem);
  }
  // After each episode / generation / design: `what` and its count, the budgeted calls spent.
  void progress(const char* what, int64_t step) const {
    search::Progress p;
    p.item = static_cast<size_t>(step);
    p.items = 0;
    p.done = budget.spent(problem);
    p.total = a.budget;
    p.best = st.tracker.has_best ? st.tracker.best_cost.objective : search::kInfeasible;
    p.label = what;
    search::report_progress(observer, p);
  }
};

// The GA fine-tune of confuciux from the RL's best (or the minimum design) to the whole budget.
void run_ga_finetune(Session& s, double fraction) {
  const Options& a = s.a;
  RunState& st = s.st;
  if (!st.tracker.has_best)
    s.note = "no RL episode was feasible: the GA starts from the minimum design";
  const Design seed_design = st.tracker.has_best ? st.tracker.best : s.problem.minimum_design();
  GaState gs;
  if (st.extra.contains("ga")) gs.from_json(st.extra["ga"]);
  GaFineTuneOptions go;
  go.generations = 1 << 30;  // to the budget
  go.alpha = std::max(0.05, fraction);
  ga_finetune(s.problem, seed_design, go, s.budget, s.rng, st.tracker, st.designs, gs,
              [&](const GaState& g) {
                s.progress("generation", g.generation);
                if (!a.checkpoint.empty() && g.generation % a.checkpoint_every == 0) {
                  st.extra = {{"ga", g.to_json()}};
                  s.save("ga");
                }
              });
  s.generations = gs.generation;
}

// REINFORCE or A2C episodes to the RL share of the budget; for confuciux, then the GA fine-tune
// from the RL's best (or the minimum design) to the whole budget.
void run_rl(Session& s, double fraction) {
  const Options& a = s.a;
  RunState& st = s.st;
  RlEnv env(s.problem);
  const std::unique_ptr<RlAgent> agent = a.rl(env.state_size(), s.problem.actions_per_layer(),
                                              a.method == "a2c" ? "a2c" : "reinforce", a.seed);
  if (!st.policy.empty()) agent->load(st.policy);
  if (st.extra.contains("worst")) env.set_worst(st.extra["worst"].get<double>());
  Budget rl_budget = s.budget;
  if (a.method == "confuciux")
    rl_budget.calls = std::max<int64_t>(1, static_cast<int64_t>(a.rl_fraction * double(a.budget)));
  if (st.phase == "start" || st.phase == "rl") {
    // confuciux's RL stage hands over to the GA at its episode cap or after --rl-stall episodes
    // without a new state or a better design; rl and a2c run to the budget (the stall rule only
    // when counting states, where cached episodes cost nothing).
    const bool cx = a.method == "confuciux";
    const int64_t stall_limit = cx || rl_budget.count == BudgetCount::States ? a.rl_stall : 0;
    StallCounter stall;
    while (rl_budget.spent(s.problem) < rl_budget.calls && st.designs < rl_budget.designs_limit() &&
           (!cx || a.episodes <= 0 || agent->episodes() < a.episodes)) {
      const bool ok = agent->episode(env, s.rng);
      ++st.designs;
      if (ok) st.tracker.offer(env.design(), env.design_cost(), s.problem);
      if (stall.update(s.problem.calls(), st.tracker, stall_limit)) break;
      s.progress("episode", agent->episodes());
      if (!a.checkpoint.empty() && agent->episodes() % a.checkpoint_every == 0) {
        st.policy = agent->save();
        st.extra = {{"worst", env.worst()}};
        s.save("rl");
      }
    }
    st.extra = json::object();
    st.policy.clear();
    if (a.method == "confuciux") s.save("ga");
  }
  s.episodes = agent->episodes();
  if (a.method == "confuciux") run_ga_finetune(s, fraction);
}

// The search engine's optimisers (ga, sa, bo, random) on the same problem and budget.
void run_baseline_method(Session& s) {
  RunState& st = s.st;
  const json* resume_state = st.extra.contains("optimizer") ? &st.extra["optimizer"] : nullptr;
  const json copy = resume_state ? *resume_state : json();
  int64_t batches = 0;
  run_baseline(
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

// The session's budget from the options; InputError when the budget's corner designs, which
// are evaluated (and counted) before any search, already spend it: the run would try no design.
Budget session_budget(const Options& a, const Problem& problem) {
  Budget b;
  b.calls = a.budget;
  b.stall = a.stall;
  b.max_designs = a.max_designs;
  b.count = parse_budget_count(a.budget_counts);
  const int64_t setup =
      b.count == BudgetCount::States ? problem.setup_calls() : problem.setup_lookups();
  if (a.budget <= setup)
    throw InputError({"<flag --budget>", 0, 0},
                     "expected more than the " + with_commas(setup) + " " +
                         std::string(budget_count_name(b.count)) +
                         " the budget's corner designs take on this model");
  return b;
}

// The result of a finished session: its counts (taken when the search ended: the best design's
// rows below look layers up again) and the best design's layers.
Result result_of(Session& s, const std::string& model_name, double fraction, double wall_s) {
  Result r;
  r.options = s.a;
  r.options.model_object.reset();
  r.options.rl = nullptr;
  r.model = model_name;
  r.fraction = fraction;
  r.constraint = s.problem.budget();
  r.constraint_min = s.problem.min_constraint();
  r.constraint_max = s.problem.max_constraint();
  r.budget_count = s.budget.count;
  r.calls = s.budget.spent(s.problem);
  r.states = s.problem.calls();
  r.lookups = s.problem.lookups();
  r.designs = s.st.designs;
  r.rl_episodes = s.episodes;
  r.ga_generations = s.generations;
  r.wall_s = wall_s;
  r.tracker = s.st.tracker;
  r.tracker.clock = nullptr;
  if (r.tracker.has_best)
    for (size_t i = 0; i < s.problem.num_layers(); ++i) {
      const LayerChoice& ch = r.tracker.best[i];
      r.layers.push_back({s.problem.layer(i), ch, s.problem.layer_cost(i, ch)});
    }
  r.note = r.tracker.has_best ? s.note : "no feasible design found within the budget";
  return r;
}

Result run_unchecked(const Options& a, search::Observer& observer) {
  check_options(a);
  if (is_rl_method(a.method) && !a.rl)
    throw InputError({"<flag --method>", 0, 0},
                     "the RL methods need libtorch: this sparsemap was built without libtorch");
  if (a.model.empty() && !a.model_object)
    throw InputError({"<flag --model>", 0, 0}, "expected a model");
  const double fraction = a.fraction >= 0 ? a.fraction : platform_fraction(a.platform);
  const ProblemOptions po = problem_options(a, fraction);
  const workload::Model model = a.model_object               ? *a.model_object
                                : ends_with(a.model, ".csv") ? io::read_confuciux_csv(a.model)
                                                             : io::load_model(a.model, {});
  const auto t0 = std::chrono::steady_clock::now();
  Problem problem(model, po);
  Session s(a, problem, signature(a, fraction), observer);
  s.budget = session_budget(a, problem);
  if (!a.resume.empty()) {
    s.st = read_run_state(a.resume, s.sig, a.method, problem);
    std::istringstream in(s.st.rng);
    in >> s.rng;
  }
  s.st.tracker.clock = [t0]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  if (is_rl_method(a.method))
    run_rl(s, fraction);
  else
    run_baseline_method(s);
  observer.on_search_done();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.st.extra = json::object();
  s.save("done");
  return result_of(s, model.name, fraction, wall_s);
}

}  // namespace

bool is_rl_method(const std::string& m) { return m == "confuciux" || m == "rl" || m == "a2c"; }

void check_options(const Options& a, const std::string& json, const std::string& plot) {
  if (!plot.empty() && !plot::is_plot_path(plot))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file, got '" + plot + "'");
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
  parse_budget_count(a.budget_counts);
  check_output_path(json, "--json");
  check_output_path(plot, "--plot");
  check_output_path(a.checkpoint, "--checkpoint");
  if (!(a.rl_fraction > 0 && a.rl_fraction <= 1))
    throw InputError({"<flag --rl-fraction>", 0, 0}, "expected a fraction in (0, 1]");
  static const std::vector<std::string> kMethods = {"confuciux", "rl", "a2c",   "ga",
                                                    "sa",        "bo", "random"};
  if (std::find(kMethods.begin(), kMethods.end(), a.method) == kMethods.end())
    throw InputError({"<flag --method>", 0, 0},
                     "expected confuciux|rl|a2c|ga|sa|bo|random, got '" + a.method + "'");
}

Result run(const Options& o, search::Observer& observer) {
  try {
    return run_unchecked(o, observer);
  } catch (const InputError& e) {
    // A state the checkpoint holds that does not fit (raised where it is loaded: the problem's
    // replay, the policy, the optimiser) names the --resume file.
    if (e.where().file != "<checkpoint>" || o.resume.empty()) throw;
    throw InputError({o.resume, 0, 0}, e.message());
  }
}

}  // namespace sparsemap::dse::hwalloc
