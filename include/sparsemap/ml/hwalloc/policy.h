// ConfuciuX's policies in libtorch: an LSTM-cell policy with one softmax head per action
// (PE level, buffer level[, dataflow]) trained by REINFORCE, and an actor-critic variant.
// The header is torch-free so the CLI and tests include it cheaply.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sparsemap/dse/hwalloc/methods.h"

namespace sparsemap::ml::hwalloc {

struct PolicyOptions {
  std::string algorithm = "reinforce";  // "reinforce" (ConfuciuX) or "a2c" (actor-critic)
  int hidden = 128;                     // LSTM width (upstream 128)
  double lr = 1e-3;                     // Adam (upstream 1e-3)
  double gamma = 0.9;                   // discount (upstream 0.9)
  double entropy = 0.01;                // a2c only: entropy bonus
  bool shuffle = true;                  // ConfuciuX shuffles the layer order every episode
};

// One agent. Network (upstream's sizes): the state's 7 layer features, its position and its
// previous actions each go through a Linear to 10 units; the 30 units through three
// Linear(128)+ReLU, an LSTMCell(128), and per action a Linear(12)+ReLU, Linear(12), softmax.
// a2c adds a Linear(128 -> 1) value head on the LSTM output.
// Actions are drawn from the softmax with the caller's Rng (not torch's), so a run is a
// function of the seed; parameters are initialised from torch::manual_seed(seed).
// REINFORCE update after every episode (as upstream): rewards standardised, discounted returns
// G_t = r_t + gamma G_{t+1}, standardised again, loss = -sum_t G_t sum_heads log p(a_t);
// gradients clipped to norm 100 (all) and 10 (LSTM); the learning rate x0.8 every 100 episodes
// once an episode has succeeded. a2c: loss = -sum_t A_t log p + 0.5 sum_t (G_t - V_t)^2 - beta H
// with A_t = G_t - V_t (detached).
class Agent : public dse::hwalloc::RlAgent {
 public:
  // `actions` heads (2, or 3 with a dataflow choice), head a with levels_of(a) outputs.
  Agent(int state_size, int actions, const PolicyOptions& options, uint64_t seed);
  ~Agent() override;
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Runs one episode on `env` (reset with `rng`), learns from it, returns whether it succeeded.
  // The episode's design and cost are env.design() / env.design_cost().
  bool episode(dse::hwalloc::RlEnv& env, dse::hwalloc::Rng& rng) override;
  int64_t episodes() const override;

  // Parameters, optimiser state, episode count and learning rate as bytes, and back.
  std::string save() const override;
  void load(const std::string& bytes) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The RL methods' agents for dse::hwalloc::Options::rl: an Agent with PolicyOptions' defaults
// and the algorithm asked.
dse::hwalloc::RlMethod rl_method();

// Levels of each action: 12 PE levels, 12 buffer levels, 3 dataflows.
inline int levels_of(int action) { return action < 2 ? 12 : 3; }

}  // namespace sparsemap::ml::hwalloc
