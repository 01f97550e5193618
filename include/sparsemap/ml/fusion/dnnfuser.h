// DNNFuser-style learned fusion mapper: a small causal transformer in decision-transformer form
// (tokens condition/state/action per layer, the return-to-go replaced by the requested on-chip
// memory) trained on the fusion search mapper's best mappings, inferring a whole fusion mapping
// in one pass. Torch-free header (the CLI includes it); the implementation links libtorch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sparsemap/cost/fusion.h"
#include "sparsemap/dse/fusion/fuser_infer.h"
#include "sparsemap/dse/fusion/fusion_search.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::ml::fusion {

// The token features, actions, configuration and torch-free inference live in
// dse/fusion/fuser_infer.h; the names below keep ml::fusion's spelling.
using dse::fusion::action_of;
using dse::fusion::apply_action;
using dse::fusion::condition_features;
using dse::fusion::FuserConfig;
using dse::fusion::FuserWeights;
using dse::fusion::kActions;
using dse::fusion::kConditionDims;
using dse::fusion::kMicroBatchClasses;
using dse::fusion::kStateDims;
using dse::fusion::state_features;

// One training example: the expert's mapping of one (model, batch, buffer) as per-layer tokens.
struct Trajectory {
  std::string model;
  int64_t batch = 1, buffer_bytes = 0;
  std::vector<std::vector<float>> conditions, states;  // [n][kConditionDims], [n][kStateDims]
  std::vector<int> actions;                            // [n]
  double expert_objective = 0;
};
Trajectory trajectory_of(const cost::FusionCostModel& m, const cost::FusionMapping& expert,
                         double expert_objective);

// The trained model. Loading a file of another configuration or not written by save() throws
// InputError naming the file.
class Fuser {
 public:
  explicit Fuser(const FuserConfig& config = {}, uint64_t seed = 1);
  ~Fuser();
  Fuser(Fuser&&) noexcept;
  Fuser& operator=(Fuser&&) noexcept;
  static Fuser load(const std::string& path);
  // The torch archive (torch::save) for training and resuming.
  void save(const std::string& path) const;
  // The same parameters as plain arrays (dse::fusion::write_fuser_weights writes them).
  const FuserWeights& weights() const;
  const FuserConfig& config() const;
  int64_t parameters() const;
  // Autoregressive decoding: for each layer, the most likely action given the condition and
  // state tokens so far and the actions already chosen (no repair).
  // dse::fusion::infer_mapping on weights() (infer_reference() is the same decoding through the
  // libtorch network, for tests).
  cost::FusionMapping infer(const cost::FusionCostModel& m) const;

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

cost::FusionMapping infer_reference(const Fuser& fuser, const cost::FusionCostModel& m);

// dse::fusion::learned on fuser.weights().
dse::fusion::FusionResult learned(const cost::FusionCostModel& m, dse::fusion::Objective o,
                                  const Fuser& fuser, bool* repaired = nullptr);

// fuse-train: expert trajectories from a fusion mapper (dp by default) over (model, batch,
// buffer) draws, then teacher-forced cross-entropy training.
struct TrainOptions {
  std::vector<std::string> models;  // zoo CNNs and "synth:K" (K synthetic CNNs, seeds 1..K)
  std::vector<int64_t> batches = {4, 16, 64};
  std::vector<int64_t> buffers_kb = {128, 256, 512, 1024, 2048};
  std::string hw = "flat-edge";
  std::string dataflow = "best";
  dse::fusion::Objective objective = dse::fusion::Objective::Latency;
  // The expert: "dp" (fusion_search.h's DP; it reaches the GA's latency on 945 of the 966
  // default draws and never fuses on a tie, so its labels carry less noise) or "search" (the
  // GA, search_budget samples, seeded with dp). dp was chosen on the tuning set of
  // docs/dnnfuser.md.
  std::string expert = "dp";
  int64_t search_budget = 2000;
  int draws_per_model = 6;  // (batch, buffer) pairs drawn per model
  int epochs = 16;
  int64_t minibatch = 16;
  double lr = 1e-3;
  // Loss weight of the expert's "fuse with the next layer" actions (8% of dp's actions, 20% of
  // the GA's; the rest are cuts): chosen on training models only (docs/dnnfuser.md).
  double fuse_weight = 4.0;
  uint64_t seed = 1;
  int threads = 1;
  FuserConfig config;
  // The trained model (torch archive); its plain weights (dse::fusion::write_fuser_weights)
  // go beside it, at dse::fusion::fuser_weights_path(out). Both paths are checked writable
  // before any trajectory is generated.
  std::string out;
  std::string checkpoint;  // directory: trajectories.json and state.pt; resumed when present
};

struct TrainReport {
  int64_t trajectories = 0, parameters = 0;
  int epochs = 0;
  double data_s = 0, train_s = 0;
  double final_loss = 0, train_accuracy_pct = 0;  // per-action accuracy on the training set
  bool resumed = false;
};
// Generates the expert's trajectories (resumed from the checkpoint directory), then trains.
// Progress goes to `observer`: one report per trajectory (item 0 of 2; done of total: the
// trajectories so far; label: "MODEL batch B buffer K KiB"), and one per epoch (item 1 of 2;
// done of total: the epochs so far; best: the epoch's mean training loss; label: "training").
// Between trajectories and between training steps the observer may stop the run: Cancelled;
// the checkpoint directory keeps what it held at its last save.
TrainReport train(const TrainOptions& o, search::Observer& observer);
// The same without progress.
TrainReport train(const TrainOptions& o);

// The model names `--models` expands to (zoo CNNs and synthetic ones), in order.
std::vector<std::string> expand_models(const std::vector<std::string>& models);

}  // namespace sparsemap::ml::fusion
