// ConfuciuX's RL environment and GA fine-tuning, and the search engine's optimisers as
// baselines, all counting cost-model calls through the Problem's per-state cache.
#include "sparsemap/dse/hwalloc/methods.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sparsemap/error.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::hwalloc {

using nlohmann::json;

std::string_view budget_count_name(BudgetCount c) {
  return c == BudgetCount::States ? "states" : "lookups";
}

BudgetCount parse_budget_count(const std::string& s, const std::string& flag) {
  if (s == "lookups") return BudgetCount::Lookups;
  if (s == "states") return BudgetCount::States;
  throw InputError({"<flag " + flag + ">", 0, 0}, "expected lookups|states, got '" + s + "'");
}

bool Tracker::offer(const Design& d, const DesignCost& c, const Problem& p) {
  if (!c.feasible) return false;
  if (has_best && !(c.objective < best_cost.objective)) return false;
  best = d;
  best_cost = c;
  has_best = true;
  states_to_best = p.calls();
  lookups_to_best = p.lookups();
  convergence.push_back({states_to_best, lookups_to_best, c.objective});
  seconds_to_best = clock ? clock() : 0.0;
  seconds.push_back(seconds_to_best);
  return true;
}

json Tracker::to_json() const {
  json conv = json::array();
  for (const Point& q : convergence) conv.push_back({q.states, q.lookups, q.best});
  json j = {{"has_best", has_best},
            {"states_to_best", states_to_best},
            {"lookups_to_best", lookups_to_best},
            {"convergence", conv},
            {"seconds", seconds}};
  if (has_best) {
    json d = json::array();
    for (const LayerChoice& c : best) d.push_back({c.pes, c.k_tile, int(c.dataflow)});
    j["best"] = d;
    const DesignCost& c = best_cost;
    j["best_cost"] = {c.ok,       c.latency_cycles, c.energy_nj,  c.area,
                      c.power_mw, c.objective,      c.constraint, c.feasible};
  }
  return j;
}

void Tracker::from_json(const json& j) {
  has_best = j.at("has_best").get<bool>();
  states_to_best = j.at("states_to_best").get<int64_t>();
  lookups_to_best = j.at("lookups_to_best").get<int64_t>();
  convergence.clear();
  seconds = j.at("seconds").get<std::vector<double>>();
  if (!seconds.empty()) seconds_to_best = seconds.back();
  for (const auto& p : j.at("convergence"))
    convergence.push_back({p[0].get<int64_t>(), p[1].get<int64_t>(), p[2].get<double>()});
  best.clear();
  if (has_best) {
    for (const auto& c : j.at("best"))
      best.push_back({c[0].get<int64_t>(), c[1].get<int64_t>(), Dataflow(c[2].get<int>())});
    const auto& b = j.at("best_cost");
    best_cost.ok = b[0].get<bool>();
    best_cost.latency_cycles = b[1].get<int64_t>();
    best_cost.energy_nj = b[2].get<double>();
    best_cost.area = b[3].get<double>();
    best_cost.power_mw = b[4].get<double>();
    best_cost.objective = b[5].get<double>();
    best_cost.constraint = b[6].get<double>();
    best_cost.feasible = b[7].get<bool>();
  }
}

// ---------------------------------------------------------------- RL environment

std::vector<float> RlEnv::state_for(size_t pos, const std::vector<int>& prev) const {
  const size_t n = problem_.num_layers();
  const size_t layer = order_[std::min(pos, n - 1)];
  const auto f = problem_.features(layer);
  std::vector<float> s(f.begin(), f.end());
  s.push_back(static_cast<float>(pos) / static_cast<float>(n));
  const int na = problem_.actions_per_layer();
  for (int a = 0; a < na; ++a) {
    float v = 0;
    if (!prev.empty()) {
      if (a == 0) v = static_cast<float>(kPeLevels[prev[0]]) / float(kMaxPes);
      if (a == 1) v = static_cast<float>(prev[1] + 1) / float(kMaxKTile);
      if (a == 2) v = static_cast<float>(prev[2]) / 2.0f;
    }
    s.push_back(v);
  }
  for (size_t i = 0; i + 1 < s.size(); ++i) s[i] = (s[i] - 0.5f) * 2.0f;
  s.push_back(0.0f);
  return s;
}

std::vector<float> RlEnv::reset(Rng& rng, bool shuffle) {
  const size_t n = problem_.num_layers();
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), size_t{0});
  if (shuffle)  // Fisher-Yates with our own draws (std::shuffle is not portable across libs)
    for (size_t i = n; i > 1; --i) std::swap(order_[i - 1], order_[rng() % i]);
  pos_ = 0;
  design_ = problem_.minimum_design();
  costs_.assign(n, LayerCost{});
  cost_ = DesignCost{};
  used_ = 0;
  episode_rewards_ = 0;
  return state_for(0, {});
}

RlEnv::Step RlEnv::step(const std::vector<int>& levels) {
  Step out;
  const size_t layer = order_[pos_];
  const LayerChoice c = problem_.choice_from_levels(layer, levels.at(0), levels.at(1),
                                                    levels.size() > 2 ? levels[2] : 0);
  design_[layer] = c;
  const LayerCost lc = problem_.layer_cost(layer, c);
  costs_[layer] = lc;
  if (!lc.ok) {  // the cost model refused the state: end the episode, no credit
    out.done = true;
    out.refused = true;
    out.reward = -1;
    out.state = state_for(pos_, levels);
    return out;
  }
  const bool energy = problem_.options().objective == Objective::Energy;
  const double value = energy ? lc.energy_nj : static_cast<double>(lc.latency_cycles);
  worst_ = std::max(worst_, value);
  double r = worst_ - value;
  const double cons = problem_.options().constraint == ConstraintKind::Area ? lc.area : lc.power_mw;
  used_ =
      problem_.options().deployment == Deployment::Pipelined ? used_ + cons : std::max(used_, cons);
  const double budget = problem_.budget();
  ++pos_;
  if (used_ > budget) {
    r = (r - episode_rewards_) * (used_ - budget) / budget;
    out.done = true;
  } else if (pos_ == problem_.num_layers()) {
    out.done = true;
    out.succeeded = true;
    cost_ = problem_.combine(costs_);
  }
  episode_rewards_ += r;
  out.reward = r;
  out.state = state_for(pos_, levels);
  return out;
}

// ---------------------------------------------------------------- GA fine-tuning

namespace {

struct Individual {
  Design d;
  std::vector<LayerCost> costs;
  DesignCost cost;
};

bool better(const DesignCost& a, const DesignCost& b) {
  if (a.feasible != b.feasible) return a.feasible;
  return a.objective < b.objective;
}

bool out_of_budget(const Problem& p, const Budget& b, int64_t designs) {
  return b.spent(p) >= b.calls || designs >= b.designs_limit();
}

}  // namespace

json GaState::to_json() const {
  json pop = json::array();
  for (const Design& d : population) {
    json dj = json::array();
    for (const LayerChoice& c : d) dj.push_back({c.pes, c.k_tile, int(c.dataflow)});
    pop.push_back(dj);
  }
  return {{"generation", generation}, {"population", pop}};
}

void GaState::from_json(const json& j) {
  generation = j.at("generation").get<int>();
  population.clear();
  for (const auto& dj : j.at("population")) {
    Design d;
    for (const auto& c : dj)
      d.push_back({c[0].get<int64_t>(), c[1].get<int64_t>(), Dataflow(c[2].get<int>())});
    population.push_back(d);
  }
}

int ga_finetune(Problem& problem, const Design& seed_design, const GaFineTuneOptions& o,
                const Budget& budget, Rng& rng, Tracker& tracker, int64_t& designs, GaState& state,
                const std::function<void(const GaState&)>& on_generation) {
  const size_t n = problem.num_layers();
  auto individual = [&](const Design& d) {
    Individual ind;
    ind.d = d;
    ind.costs.resize(n);
    for (size_t i = 0; i < n; ++i) ind.costs[i] = problem.layer_cost(i, ind.d[i]);
    ind.cost = problem.combine(ind.costs);
    return ind;
  };
  std::vector<Individual> pop;
  if (state.population.empty()) {
    pop.assign(static_cast<size_t>(std::max(2, o.population)), individual(seed_design));
  } else {
    for (const Design& d : state.population) {
      if (d.size() != n) throw InputError({"<checkpoint>", 0, 0}, "GA population of another model");
      pop.push_back(individual(d));
    }
  }
  std::uniform_real_distribution<double> unif(-o.alpha, o.alpha);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  const int actions = problem.actions_per_layer();
  int g = state.generation;
  StallCounter stall;
  bool stalled = false;
  for (; g < o.generations && !stalled && !out_of_budget(problem, budget, designs); ++g) {
    std::stable_sort(pop.begin(), pop.end(), [](const Individual& a, const Individual& b) {
      return better(a.cost, b.cost);
    });
    const size_t np = static_cast<size_t>(std::clamp(o.parents, 1, int(pop.size())));
    const std::vector<Individual> parents(pop.begin(), pop.begin() + long(np));
    for (size_t idx = 0; idx < pop.size(); ++idx) {
      Individual child = parents[idx % np];
      for (int t = 0; t < 3; ++t) {
        const int pick = static_cast<int>(rng() % uint64_t(actions));
        const size_t i = rng() % n;
        const LayerChoice saved = child.d[i];
        const LayerCost saved_cost = child.costs[i];
        LayerChoice& c = child.d[i];
        if (pick == 2) {
          const auto& dfs = problem.dataflows(i);
          c.dataflow = dfs[rng() % dfs.size()];
        } else {
          const int64_t bound = pick == 0 ? kMaxPes : kMaxKTile;
          const int64_t thr = std::max<int64_t>(1, bound / 2);
          const auto delta = static_cast<int64_t>(unif(rng) * double(thr));  // toward zero
          int64_t& v = pick == 0 ? c.pes : c.k_tile;
          v = std::clamp<int64_t>(v + delta, 1, bound);
        }
        child.costs[i] = problem.layer_cost(i, c);
        const DesignCost dc = problem.combine(child.costs);
        if (!child.costs[i].ok || dc.constraint > problem.budget()) {
          child.d[i] = saved;
          child.costs[i] = saved_cost;
        }
      }
      if (idx > 0 && coin(rng) < o.swap_rate) {  // self-crossover: swap one action of 2 layers
        const size_t a = rng() % n, b = rng() % n;
        const bool pes = rng() % 2 == 0;
        if (pes)
          std::swap(child.d[a].pes, child.d[b].pes);
        else
          std::swap(child.d[a].k_tile, child.d[b].k_tile);
        child.costs[a] = problem.layer_cost(a, child.d[a]);
        child.costs[b] = problem.layer_cost(b, child.d[b]);
      }
      if (idx == 0) child = parents[0];
      child.cost = problem.combine(child.costs);
      ++designs;
      tracker.offer(child.d, child.cost, problem);
      pop[idx] = std::move(child);
      stalled = stall.update(problem.calls(), tracker, budget.stall_limit());
      if (stalled || out_of_budget(problem, budget, designs)) break;
    }
    state.generation = g + 1;
    state.population.clear();
    for (const Individual& ind : pop) state.population.push_back(ind.d);
    if (on_generation) on_generation(state);
  }
  return g;
}

// ---------------------------------------------------------------- baselines

LayerChoice choice_from_genes(const Problem& problem, size_t layer, const double* g) {
  auto raw = [](double gene, int64_t n) {
    return std::clamp<int64_t>(static_cast<int64_t>(std::floor(gene * double(n))), 0, n - 1);
  };
  const auto& dfs = problem.dataflows(layer);
  LayerChoice c;
  c.pes = 1 + raw(g[0], kMaxPes);
  c.k_tile = 1 + raw(g[1], kMaxKTile);
  c.dataflow =
      problem.actions_per_layer() > 2 ? dfs[size_t(raw(g[2], int64_t(dfs.size())))] : dfs[0];
  return c;
}

int64_t planned_designs(const Problem& problem, const std::string& method, const Budget& b) {
  int64_t designs = b.designs_limit();
  if (b.count == BudgetCount::Lookups) {
    const auto n = static_cast<int64_t>(problem.num_layers());
    const int64_t left = std::max<int64_t>(0, b.calls - problem.setup_lookups());
    designs = std::min(designs, std::max<int64_t>(1, (left + n - 1) / n));
  }
  if (method == "bo") designs = std::min<int64_t>(designs, search::kBoSampleCap);
  return designs;
}

void run_baseline(Problem& problem, const std::string& method, uint64_t seed, const Budget& budget,
                  Tracker& tracker, int64_t& designs, const json* state,
                  const std::function<void(const json&)>& checkpoint,
                  const std::function<void()>& progress) {
  const size_t n = problem.num_layers();
  const int actions = problem.actions_per_layer();
  const size_t dims = n * size_t(actions);
  // The schedule is sized to what the budget buys (a function of the run's settings only, so a
  // resumed run builds the same optimiser).
  const int64_t planned = planned_designs(problem, method, budget);
  search::OptimizerOptions opts;
  opts.seed = seed;
  // GA population: about 20 generations of what the budget buys, 8 to 50 (50 is ConfuciuX's
  // own GA population). Set by that reasoning, not by trying values; nothing here is tuned.
  opts.ga.population = static_cast<size_t>(std::clamp<int64_t>(planned / 20, 8, 50));
  opts.budget = planned;
  Budget b = budget;
  if (method == "bo") b.max_designs = std::min<int64_t>(b.designs_limit(), search::kBoSampleCap);
  auto opt = search::make_optimizer(method, dims, opts);
  if (state) opt->load(*state);
  const size_t batch = method == "bo" ? 8 : 16;
  StallCounter stall;
  bool stalled = false;
  while (!stalled && !out_of_budget(problem, b, designs)) {
    const std::vector<search::Genome> xs = opt->ask(batch);
    std::vector<double> fit(xs.size(), search::kInfeasible);
    for (size_t k = 0; k < xs.size(); ++k) {
      // Equal cost: stop inside a batch once the budget is spent (the rest stay unevaluated and
      // are told as infeasible); the last design can overshoot by at most its layers.
      if (out_of_budget(problem, b, designs)) break;
      Design d(n);
      for (size_t i = 0; i < n; ++i)
        d[i] = choice_from_genes(problem, i, &xs[k][i * size_t(actions)]);
      const DesignCost c = problem.evaluate(d);
      ++designs;
      tracker.offer(d, c, problem);
      if (c.feasible) fit[k] = c.objective;
      stalled = stall.update(problem.calls(), tracker, b.stall_limit()) || stalled;
    }
    opt->tell(xs, fit);
    if (checkpoint) checkpoint(opt->save());
    if (progress) progress();
  }
}

json design_json(const Problem& problem, const Design& d) {
  json layers = json::array();
  for (size_t i = 0; i < d.size(); ++i)
    layers.push_back({{"name", problem.layer(i).name},
                      {"pes", d[i].pes},
                      {"buffer_level", d[i].k_tile},
                      {"dataflow", std::string(dataflow_name(d[i].dataflow))}});
  return layers;
}

Design design_from_json(const Problem& problem, const json& j) {
  if (!j.is_array() || j.size() != problem.num_layers())
    throw InputError({"<design>", 0, 0}, "expected one entry per layer");
  Design d;
  for (size_t i = 0; i < j.size(); ++i) {
    LayerChoice c;
    c.pes = j[i].at("pes").get<int64_t>();
    c.k_tile = j[i].at("buffer_level").get<int64_t>();
    const std::string df = j[i].at("dataflow").get<std::string>();
    c.dataflow = df == "dla"   ? Dataflow::Dla
                 : df == "shi" ? Dataflow::Shi
                 : df == "eye" ? Dataflow::Eye
                               : Dataflow::Dpt;
    if (c.pes < 1 || c.pes > kMaxPes || c.k_tile < 1 || c.k_tile > kMaxKTile)
      throw InputError({"<design>", 0, 0}, "PEs or buffer level out of range");
    d.push_back(c);
  }
  return d;
}

}  // namespace sparsemap::dse::hwalloc
