// Search methods for hardware resource assignment: the RL environment that ConfuciuX's policy
// walks (torch-free), the GA fine-tuning stage, and the black-box baselines at equal calls.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "sparsemap/dse/hwalloc/hwalloc.h"

namespace sparsemap::dse::hwalloc {

using Rng = std::mt19937_64;

// Best-so-far bookkeeping shared by every method: convergence points (calls, best objective)
// are added whenever the best improves; the best design is kept in model order.
struct Tracker {
  Design best;
  DesignCost best_cost;
  bool has_best = false;
  int64_t calls_to_best = 0;
  std::vector<std::pair<int64_t, double>> convergence;
  std::vector<double> seconds;    // when each convergence point was found (if clock set)
  std::function<double()> clock;  // seconds since the run started; may be empty
  double seconds_to_best = 0;
  // Records `d` if it is feasible and better; returns true when it improved the best.
  bool offer(const Design& d, const DesignCost& c, int64_t calls);
  nlohmann::json to_json() const;
  void from_json(const nlohmann::json& j);
};

// Limits of a run. A run ends when the distinct states evaluated reach `calls`, or when
// `max_designs` designs have been evaluated (RL episodes and GA individuals; cached designs cost no
// call, so a converged search would otherwise never end). A run also ends after `stall` consecutive
// designs that brought neither a new state nor a better best (the space of reachable states is
// often far smaller than the call budget: 144 level pairs per distinct layer shape).
struct Budget {
  int64_t calls = 10000;
  int64_t max_designs = 0;  // 0: 2 x calls
  int64_t stall = 2000;     // 0: never
  int64_t designs_limit() const { return max_designs > 0 ? max_designs : 2 * calls; }
};

// Counts designs without progress (no new call, no better best) against Budget::stall.
struct StallCounter {
  int64_t last_calls = -1, count = 0;
  double last_best = 0;
  bool had_best = false;
  // Call after each design; returns true when the run should stop.
  bool update(int64_t calls, const Tracker& t, const Budget& b) {
    const bool progress = calls != last_calls || t.has_best != had_best ||
                          (t.has_best && t.best_cost.objective < last_best);
    last_calls = calls;
    had_best = t.has_best;
    if (t.has_best) last_best = t.best_cost.objective;
    count = progress ? 0 : count + 1;
    return b.stall > 0 && count >= b.stall;
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

// Baselines through the search engine's optimisers ("random", "ga", "sa", "bo"): genome = per
// layer (PE level, buffer level[, dataflow]) genes in [0, 1), each decoded to floor(g levels).
// Infeasible designs get the search engine's kInfeasible. Runs to the budget. `state`: a
// checkpoint to continue from (or null); `checkpoint(j)` is called after each batch with the
// state to save (may be empty).
void run_baseline(Problem& problem, const std::string& method, uint64_t seed, const Budget& budget,
                  Tracker& tracker, int64_t& designs, const nlohmann::json* state,
                  const std::function<void(const nlohmann::json&)>& checkpoint,
                  const std::function<void()>& progress);

// JSON of a design (per layer: name, pes, buffer_level (= KTileSz), dataflow) and back.
nlohmann::json design_json(const Problem& problem, const Design& d);
Design design_from_json(const Problem& problem, const nlohmann::json& j);

}  // namespace sparsemap::dse::hwalloc
