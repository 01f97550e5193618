// The learned fusion mapper: token features and actions, the cached decoder against the
// libtorch network, save/load, repair to the buffer, and a tiny fuse-train with resume.
#include "sparsemap/ml/fusion/dnnfuser.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "dnnfuser_net.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/dse/fusion/synthetic_models.h"
#include "sparsemap/error.h"

namespace sparsemap::ml::fusion {
namespace {

cost::FusionCostModel model_of(uint64_t seed, int64_t batch, int64_t buffer_kb) {
  cost::FusionOptions o;
  o.buffer_bytes = buffer_kb * 1024;
  return cost::FusionCostModel(cost::fusion_graph(dse::fusion::synthetic_cnn(seed, batch), batch),
                               arch::preset("flat-edge"), o);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("sparsemap_dnnfuser_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(DnnFuser, ActionsRoundTrip) {
  const cost::FusionCostModel m = model_of(3, 16, 512);
  cost::FusionMapping f = cost::FusionMapping::no_fusion(m.size(), 16);
  f.micro_batch[0] = 4;
  f.cut[0] = 0;
  EXPECT_EQ(action_of(m, f, 0), 2 * 2 + 0);
  EXPECT_EQ(action_of(m, f, 1), 2 * 4 + 1);         // 16 samples: class 4, group ends
  EXPECT_EQ(action_of(m, f, m.size() - 1) % 2, 1);  // the last layer always ends its group
  cost::FusionMapping g = cost::FusionMapping::no_fusion(m.size(), 16);
  for (int i = 0; i < m.size(); ++i) apply_action(m, i, action_of(m, f, i), g);
  EXPECT_EQ(g, f);
  // Classes above the batch clip to it.
  apply_action(m, 0, 2 * 7, g);
  EXPECT_EQ(g.micro_batch[0], 16);
  EXPECT_EQ(state_features(m, 0).size(), static_cast<size_t>(kStateDims));
  EXPECT_EQ(condition_features(m, 0).size(), static_cast<size_t>(kConditionDims));
}

TEST(DnnFuser, CachedDecoderMatchesTheNetworkAndSurvivesSaveLoad) {
  FuserConfig c;
  c.d_model = 32;
  c.heads = 4;
  Fuser f(c, 7);
  const std::string path = temp_path("model.pt");
  f.save(path);
  const Fuser g = Fuser::load(path);
  std::filesystem::remove(path);
  EXPECT_EQ(g.config().d_model, 32);
  EXPECT_EQ(g.parameters(), f.parameters());
  for (uint64_t s : {1, 2, 5}) {
    const cost::FusionCostModel m = model_of(s, 8, 256);
    const cost::FusionMapping a = f.infer(m);
    EXPECT_EQ(a, infer_reference(f, m)) << s;
    EXPECT_EQ(a, g.infer(m)) << s;
  }
}

TEST(DnnFuser, LearnedMapperRepairsToTheBuffer) {
  Fuser f({}, 3);  // untrained: its raw mappings ignore the buffer
  int feasible = 0;
  for (uint64_t s = 1; s <= 6; ++s) {
    const cost::FusionCostModel m = model_of(s, 16, 128);
    bool repaired = false;
    const dse::fusion::FusionResult r = learned(m, dse::fusion::Objective::Latency, f, &repaired);
    EXPECT_EQ(r.method, "learned");
    EXPECT_GE(r.samples, 1);
    // Whenever some mapping meets the buffer (dp finds one), the repaired one does too.
    if (dse::fusion::dp(m, dse::fusion::Objective::Latency).cost.meets_buffer) {
      ++feasible;
      EXPECT_TRUE(r.cost.meets_buffer) << s;
    }
  }
  EXPECT_GE(feasible, 4);
}

TEST(DnnFuser, BadFiles) {
  const std::string path = temp_path("bad.pt");
  { std::ofstream(path) << "not a model"; }
  EXPECT_THROW(Fuser::load(path), InputError);
  std::filesystem::remove(path);
  EXPECT_THROW(Fuser::load(temp_path("missing.pt")), InputError);
  EXPECT_THROW(expand_models({"synth:x"}), InputError);
  EXPECT_THROW(expand_models({"no-such-model"}), InputError);
  EXPECT_EQ(expand_models({"synth:2", "ResNet18"}),
            std::vector<std::string>({"synth-1", "synth-2", "resnet18"}));
}

TEST(DnnFuser, TinyTrainingResumes) {
  TrainOptions o;
  o.models = {"synth:2"};
  o.batches = {4};
  o.buffers_kb = {256};
  o.draws_per_model = 2;
  o.search_budget = 60;
  o.epochs = 2;
  o.minibatch = 2;
  o.config.d_model = 16;
  o.config.heads = 2;
  o.config.layers = 1;
  o.out = temp_path("tiny.pt");
  o.checkpoint = temp_path("ck");
  const TrainReport r = train(o);
  EXPECT_EQ(r.trajectories, 4);
  EXPECT_EQ(r.epochs, 2);
  EXPECT_FALSE(r.resumed);
  EXPECT_TRUE(std::isfinite(r.final_loss));
  o.epochs = 3;  // continue one more epoch from the checkpoint
  const TrainReport r2 = train(o);
  EXPECT_TRUE(r2.resumed);
  EXPECT_EQ(r2.epochs, 3);
  const Fuser trained = Fuser::load(o.out);
  EXPECT_EQ(trained.config().d_model, 16);
  // The plain weights written beside the torch archive decode exactly as the libtorch network.
  const std::string bin = dse::fusion::fuser_weights_path(o.out);
  const FuserWeights w = dse::fusion::read_fuser_weights(bin);
  for (uint64_t s : {1, 3, 6}) {
    const cost::FusionCostModel m = model_of(s, 16, 512);
    EXPECT_EQ(dse::fusion::infer_mapping(w, m), infer_reference(trained, m)) << s;
  }
  // A garbled optimizer state and garbled trajectories in the checkpoint are one InputError.
  { std::ofstream(o.checkpoint + "/optimizer.pt") << "garbled"; }
  o.epochs = 4;
  EXPECT_THROW(train(o), InputError);
  { std::ofstream(o.checkpoint + "/trajectories.json") << "[{\"model\": 1}]"; }
  EXPECT_THROW(train(o), InputError);
  std::filesystem::remove(o.out);
  std::filesystem::remove(bin);
  std::filesystem::remove_all(o.checkpoint);
}

// --out into a folder that does not exist (or a directory, or a .bin name) fails before any
// trajectory is generated: a budget this large would otherwise run for hours.
TEST(DnnFuser, TrainRefusesUnwritableOutputFirst) {
  TrainOptions o;
  o.models = {"synth:100"};
  o.search_budget = 100000000;
  for (const std::string& out :
       std::vector<std::string>{temp_path("no-such-folder") + "/model.pt",
                                std::filesystem::temp_directory_path().string(), "model.bin"}) {
    o.out = out;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(train(o), InputError) << out;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  }
  o.out = temp_path("model.pt");
  o.expert = "magic";
  EXPECT_THROW(train(o), InputError);
}

// A torch archive whose header declares one width but whose tensors have another: libtorch's
// load would take the tensors as they are; the reader compares every shape.
TEST(DnnFuser, ArchiveOfAnotherShapeIsRefused) {
  Fuser f({}, 1);  // d_model 32
  const std::string path = temp_path("mixed.pt");
  f.save(path);
  torch::serialize::InputArchive in;
  in.load_from(path);
  FuserConfig small;
  small.d_model = 16;
  small.heads = 2;
  DtNet net(small);
  torch::serialize::OutputArchive out;
  out.write("sparsemap_dnnfuser", torch::tensor({kFileVersion, int64_t{32}, int64_t{2}, int64_t{4},
                                                 int64_t{128}, int64_t{-1}}));
  net->save(out);  // width 16 tensors under a width-32 header
  out.save_to(path);
  EXPECT_THROW(Fuser::load(path), InputError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sparsemap::ml::fusion
