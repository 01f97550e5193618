// `sparsemap fuse-train` as a library call: Options (the command's flags, with its defaults),
// run() (the expert's trajectories, then DNNFuser's training, dnnfuser.h), Result, and to_json(),
// the one place the command's JSON is built. The CLI (apps/cmd_fuse_train.cpp) prints the table.
// Torch-free header (the CLI includes it); the implementation links libtorch.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sparsemap/ml/fusion/dnnfuser.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::ml::fusion {

// One field per flag of `sparsemap fuse-train` (but --json and --quiet, which only the CLI has),
// same names and defaults.
struct Options {
  std::string models = "synth:160,resnet50";         // zoo CNNs and synth:K (K synthetic CNNs)
  std::string batches = "4,16,64";                   // batch sizes drawn from
  std::string buffers_kb = "128,256,512,1024,2048";  // buffer budgets drawn from, KiB
  int draws = 6;                                     // (batch, buffer) draws per model
  std::string hw = "flat-edge";                      // accelerator preset or file
  std::string objective = "latency";                 // latency | energy | edp
  std::string expert = "dp";     // the mapper whose mappings are learned: search | dp
  int64_t search_budget = 2000;  // GA samples per trajectory
  int epochs = 16;
  int64_t minibatch = 16;                   // trajectories per step
  double lr = 1e-3;                         // AdamW learning rate
  double fuse_weight = 4.0;                 // loss weight of the expert's fuse actions
  int d_model = 32, layers = 2, heads = 4;  // transformer width, blocks, attention heads
  uint64_t seed = 1;
  int threads = 1;  // libtorch threads
  std::string out;  // the trained model, FILE.pt (the plain weights go to FILE.bin); required
  // Directory for trajectories and training state (trajectories.json, state.pt, optimizer.pt);
  // a directory from an earlier run is resumed, never a model (.pt or the shipped .bin).
  std::string checkpoint;
};

// `sparsemap fuse-train`'s flags and sparsemap.fuse_train's keywords (sparsemap/option_table.h):
// the Options' fields with their help, beside --json and --quiet of the CLI. Defined in
// options.cpp, torch-free and compiled into the core library: `sparsemap` built without
// libtorch registers these flags and hands the command over.
const options::Table<Options>& option_table();

struct Result {
  Options options;
  TrainReport report;
};

// The checks run() makes first, in this order: the lists, the objective, the expert, the fuse
// weight, the transformer's shape and the checkpoint directory; throws InputError blaming the
// flag by name. The CLI calls it before its own check of --json.
void check_lists(const Options& o);

// Checks every option, generates the expert's trajectories and trains (dnnfuser.h's train, whose
// progress goes to `observer`; Cancelled when it asks to stop), writing `out`, its .bin and the
// checkpoint directory. Throws InputError for bad options or files.
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap fuse-train --json` writes.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::ml::fusion
