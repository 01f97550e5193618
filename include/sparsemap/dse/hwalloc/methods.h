// Search methods for hardware resource assignment: the RL environment that ConfuciuX's policy
// walks (torch-free), the GA fine-tuning stage, and the black-box baselines at equal calls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sparsemap/dse/hwalloc/hwalloc.h"

namespace sparsemap::dse::hwalloc {

using Rng = std::mt19937_64;

// What a run's budget caps (--budget-counts): every cost-model lookup, cache hits included
// (the default: the workplace's rule, a design of L layers evaluated whole costs L), or only the
// distinct states (cache misses; ConfuciuX's exp_table count, the looser one).
enum class BudgetCount : uint8_t { Lookups, States };
std::string_view budget_count_name(BudgetCount c);  // "lookups", "states"
// Parses "lookups|states"; throws InputError at `flag`.
BudgetCount parse_budget_count(const std::string& s, const std::string& flag = "--budget-counts");

// Best-so-far bookkeeping shared by every method: a convergence point (distinct states and
// lookups when found, best objective) is added whenever the best improves; the best design is
// kept in model order.
struct Tracker {
  struct Point {
    int64_t states = 0, lookups = 0;
    double best = 0;
  };
  Design best;
  DesignCost best_cost;
  bool has_best = false;
  int64_t states_to_best = 0, lookups_to_best = 0;
  std::vector<Point> convergence;
  std::vector<double> seconds;    // when each convergence point was found (if clock set)
  std::function<double()> clock;  // seconds since the run started; may be empty
  double seconds_to_best = 0;
  // Records `d` if it is feasible and better (with `p`'s counts); returns true when it improved.
  bool offer(const Design& d, const DesignCost& c, const Problem& p);
  nlohmann::json to_json() const;
  void from_json(const nlohmann::json& j);
};

// Limits of a run. A run ends when the count named by `count` reaches `calls`, or when
// `max_designs` designs have been evaluated (RL episodes and GA individuals). Counting states,
// cached designs cost nothing, so a converged search would otherwise never end: a run then
// also ends after `stall` consecutive designs that brought neither a new state nor a better best.
// Counting lookups every design spends budget, so the stall rule does not apply (stall_limit()).
struct Budget {
  int64_t calls = 10000;
  BudgetCount count = BudgetCount::Lookups;
  int64_t max_designs = 0;  // 0: 2 x calls
  int64_t stall = 2000;     // 0: never
  int64_t designs_limit() const { return max_designs > 0 ? max_designs : 2 * calls; }
  int64_t spent(const Problem& p) const {
    return count == BudgetCount::States ? p.calls() : p.lookups();
  }
  int64_t stall_limit() const { return count == BudgetCount::States ? stall : 0; }
};

// Counts designs without progress (no new distinct state, no better best) against `limit`.
struct StallCounter {
  int64_t last_calls = -1, count = 0;
  double last_best = 0;
  bool had_best = false;
  // Call after each design with the problem's distinct states; returns true when the run should
  // stop (limit 0: never).
  bool update(int64_t calls, const Tracker& t, int64_t limit) {
    const bool progress = calls != last_calls || t.has_best != had_best ||
                          (t.has_best && t.best_cost.objective < last_best);
    last_calls = calls;
    had_best = t.has_best;
    if (t.has_best) last_best = t.best_cost.objective;
    count = progress ? 0 : count + 1;
    return limit > 0 && count >= limit;
  }
};

// ConfuciuX's RL environment, one episode = one pass over the layers in a shuffled order.
// State (after each step, 7 + 1 + actions + 1 floats): the next layer's normalised K, C, Y,
// X, R, S, T, its position / L, the previous step's action values (PEs / 128, KTileSz / 12
// [, dataflow index / 2]), and 0; rescaled to [-1, 1] except the last entry (as upstream).
// Reward of a step (latency objective; energy alike):
//   r = worst - latency,  worst = the largest layer latency seen so far in the run;
// when the design's constraint exceeds the budget the episode ends with
//   r = (r - sum of the episode's earlier rewards) * (used - budget) / budget.
class RlEnv {
 public:
  explicit RlEnv(Problem& problem) : problem_(problem) {}
  int state_size() const { return 7 + 1 + problem_.actions_per_layer() + 1; }
  // Starts an episode with the layer order drawn from `rng` (shuffle) or model order.
  std::vector<float> reset(Rng& rng, bool shuffle = true);
  struct Step {
    std::vector<float> state;
    double reward = 0;
    bool done = false;
    bool succeeded = false;  // the last layer was assigned within the budget
    bool refused = false;    // the cost model refused the state (no learning from it)
  };
  // Applies one layer's action levels (PE level, buffer level[, dataflow index]).
  Step step(const std::vector<int>& levels);
  // The episode's design in model order (complete only when the episode succeeded).
  const Design& design() const { return design_; }
  const DesignCost& design_cost() const { return cost_; }
  double worst() const { return worst_; }
  void set_worst(double w) { worst_ = w; }

 private:
  std::vector<float> state_for(size_t pos, const std::vector<int>& prev) const;
  Problem& problem_;
  std::vector<size_t> order_;
  size_t pos_ = 0;
  Design design_;
  std::vector<LayerCost> costs_;
  DesignCost cost_;
  double used_ = 0, episode_rewards_ = 0, worst_ = -1;
};

// The learning policy of the RL methods (ml::hwalloc::Agent, which needs libtorch; dse/ only
// sees this interface, so it stays torch-free).
class RlAgent {
 public:
  virtual ~RlAgent() = default;
  // Runs one episode on `env` (reset with `rng`), learns from it, returns whether it succeeded.
  // The episode's design and cost are env.design() / env.design_cost().
  virtual bool episode(RlEnv& env, Rng& rng) = 0;
  virtual int64_t episodes() const = 0;
  // Parameters, optimiser state, episode count and learning rate as bytes, and back.
  virtual std::string save() const = 0;
  virtual void load(const std::string& bytes) = 0;
};

// Makes the agent of an RL method: `algorithm` "reinforce" (confuciux, rl) or "a2c", for states
// of `state_size` floats and `actions` heads, its parameters drawn from `seed`
// (ml::hwalloc::rl_method()).
using RlMethod = std::function<std::unique_ptr<RlAgent>(
    int state_size, int actions, const std::string& algorithm, uint64_t seed)>;

// ConfuciuX's GA fine-tuning, in model order (the upstream pairing bug fixed): population 20
// started from `seed_design`, the best 8 as parents; each child is a parent with up to three
// tries of one gene moved by int(U(-alpha, alpha) * max(1, bound / 2)) (bound 128 PEs or 12
// KTileSz), clipped to [1, bound], a try rejected when the design's constraint would exceed
// the budget; then with p = 0.2 a swap of one action between two layers; the best parent is
// kept. Runs `generations` generations or until the budget ends; offers every design to
// `tracker`; `on_generation(g)` after each (may be empty). Returns the generations run.
struct GaFineTuneOptions {
  int generations = 20;
  int population = 20;
  int parents = 8;
  double alpha = 0.5;  // ConfuciuX uses the constraint fraction (--mul)
  double swap_rate = 0.2;
};
// The GA's population between generations (for checkpoints): empty = start from the seed.
struct GaState {
  std::vector<Design> population;
  int generation = 0;
  nlohmann::json to_json() const;
  void from_json(const nlohmann::json& j);
};
int ga_finetune(Problem& problem, const Design& seed_design, const GaFineTuneOptions& options,
                const Budget& budget, Rng& rng, Tracker& tracker, int64_t& designs, GaState& state,
                const std::function<void(const GaState&)>& on_generation);

// Baselines through the search engine's optimisers ("random", "ga", "sa", "bo") over the space
// ConfuciuX's GA searches: genome = per layer (PEs, KTileSz[, dataflow]) genes in [0, 1),
// decoded to raw values PEs = 1 + floor(128 g), KTileSz = 1 + floor(12 g) (dataflow: floor(g n)
// of the layer's n). Infeasible designs get the search engine's kInfeasible. Runs to the budget.
// The optimiser's schedule is sized to the designs the budget buys: planned_designs() (SA's
// cooling spans them, BO's initial sample is a quarter at most, the GA's population is
// clamp(planned / 20, 8, 50) so it runs about 20 generations or more). `state`: a checkpoint to
// continue from (or null); `checkpoint(j)` is called after each batch with the state to save
// (may be empty).
LayerChoice choice_from_genes(const Problem& problem, size_t layer, const double* genes);
// Designs a baseline evaluates within `budget`: counting lookups, every design costs L lookups,
// so ceil((calls - the problem's setup lookups) / L) (at least 1); counting states, the design
// cap. BO: at most kBoSampleCap.
int64_t planned_designs(const Problem& problem, const std::string& method, const Budget& budget);
void run_baseline(Problem& problem, const std::string& method, uint64_t seed, const Budget& budget,
                  Tracker& tracker, int64_t& designs, const nlohmann::json* state,
                  const std::function<void(const nlohmann::json&)>& checkpoint,
                  const std::function<void()>& progress);

// JSON of a design (per layer: name, pes, buffer_level (= KTileSz), dataflow) and back.
nlohmann::json design_json(const Problem& problem, const Design& d);
Design design_from_json(const Problem& problem, const nlohmann::json& j);

}  // namespace sparsemap::dse::hwalloc
