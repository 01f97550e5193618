// `sparsemap fuse`'s options (run.h: option_table).
#include "sparsemap/dse/fusion/run.h"

namespace sparsemap::dse::fusion {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      Row{"--model",
          "zoo CNN (resnet18, resnet50, mobilenet-v2, vgg16, mnasnet), a model file, or synth-K",
          F(model)}
          .required(),
      {"--hw", "accelerator preset or file", F(hw)},
      {"--batch", "samples", F(batch)},
      {"--image-size", "pixels per side (0: the model's)", F(image_size)},
      {"--buffer-kb", "on-chip buffer for fusion, KiB (0: the arch's L2)", F(buffer_kb)},
      {"--method", "none|greedy|dp|exhaustive|search|learned, or a comma list", F(method)},
      {"--objective", "latency|energy|edp", F(objective)},
      {"--dataflow", "per-layer dataflow: a template name or best (the fastest per layer)",
       F(dataflow)},
      {"--budget", "search: samples", F(budget)},
      {"--population", "search: GA population", F(population)},
      {"--seed", "search: seed", F(seed)},
      {"--threads", "search: threads", F(threads)},
      {"--weights",
       "learned: the trained weights, .bin (or a fuse-train .pt with libtorch); default: the "
       "shipped data/dnnfuser/fuser.bin",
       F(weights)},
      {"--checkpoint", "search: checkpoint file", F(checkpoint)},
      {"--resume", "search: resume from this checkpoint", F(resume)},
      {"--repeat", "run each method N times; wall s is the median (for timing comparisons)",
       F(repeat)},
      {"--groups", "print each method's groups", options::CliSwitch{}},
      {"--json", "write JSON to FILE or - (stdout)", options::CliValue{}},
      {"--quiet", "no progress", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::dse::fusion
