// `sparsemap fuse-train`'s options (run.h: option_table). Torch-free: compiled into the core
// library, since `sparsemap` built without libtorch registers these flags and hands the command
// over to `sparsemap-ml`.
#include "sparsemap/ml/fusion/run.h"

namespace sparsemap::ml::fusion {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--models", "zoo CNNs and synth:K (K synthetic CNNs)", F(models)},
      {"--batches", "batch sizes drawn from", F(batches)},
      {"--buffers-kb", "buffer budgets drawn from, KiB", F(buffers_kb)},
      {"--draws", "(batch, buffer) draws per model", F(draws)},
      {"--hw", "accelerator preset or file", F(hw)},
      {"--objective", "latency|energy|edp", F(objective)},
      {"--expert", "the mapper whose mappings are learned: search|dp", F(expert)},
      {"--search-budget", "GA samples per trajectory", F(search_budget)},
      {"--epochs", "training epochs", F(epochs)},
      {"--minibatch", "trajectories per step", F(minibatch)},
      {"--lr", "AdamW learning rate", F(lr)},
      {"--fuse-weight", "loss weight of the expert's fuse actions", F(fuse_weight)},
      {"--d-model", "transformer width", F(d_model)},
      {"--layers", "transformer blocks", F(layers)},
      {"--heads", "attention heads", F(heads)},
      {"--seed", "seed", F(seed)},
      {"--threads", "libtorch threads", F(threads)},
      Row{"--out", "the trained model, FILE.pt (the plain weights go to FILE.bin)", F(out)}
          .required(),
      {"--checkpoint",
       "directory for trajectories and training state (trajectories.json, state.pt, "
       "optimizer.pt); a directory from an earlier run is resumed. Training resumes from this "
       "directory only, never from a model (.pt or the shipped .bin)",
       F(checkpoint)},
      {"--json", "write JSON to FILE or - (stdout)", options::CliValue{}},
      {"--quiet", "no progress", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::ml::fusion
