// `sparsemap nongemm`'s options (run.h: option_table). Torch-free: compiled into the core
// library, since `sparsemap` built without libtorch registers these flags and hands the command
// over to `sparsemap-ml`.
#include "sparsemap/ml/nongemm/run.h"

namespace sparsemap::ml::nongemm {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--model",
       "Suite model: vit-b16, vit-l16, vit-h14, swin-t, swin-s, swin-b, resnet50, detr-r50, "
       "faster-rcnn-r50-fpn, segformer-b0, bert-base, gpt2, gpt2-large, gpt2-xl, llama2-7b, "
       "mixtral-8x7b",
       F(model)},
      {"--all", "Profile the whole suite (one table, one plot)", F(all)},
      {"--batch", "Batch size (NonGEMM Bench uses 1, 2, 4, 8)", F(batch)},
      Row{"--seq", "Tokens per sequence (not given: BERT 128, GPT-2 256, GPT-2-XL 512, LLMs 2048)",
          F(seq)}
          .positive_only(),
      {"--layers",
       "Blocks to run; op times inside them are scaled to the full depth (0: all; 1 for "
       "llama2-7b and mixtral-8x7b)",
       F(layers)},
      {"--threads", "Intra-op threads (0: libtorch's)", F(threads)},
      {"--iters", "Active (recorded) runs", F(iters)},
      Row{"--schedule", "SKIP,WAIT,WARMUP runs before the active ones (torch.profiler's schedule)",
          F(schedule)}
          .delimiter(','),
      {"--seed", "Seed of the weights and inputs", F(seed)},
      Row{"--gemm-speedup",
          "Horizon: also report the split as if GEMMs ran F times faster (repeat or "
          "comma-separate: 10,100)",
          F(gemm_speedup)}
          .delimiter(','),
      {"--hw",
       "Horizon on an accelerator: preset, MAESTRO .m or YAML file; GEMM times become the cost "
       "model's runtime at the arch's clock",
       F(hw)},
      {"--dataflow", "With --hw: a dataflow template (kcp_ws, xp_ws, yxp_os) or best", F(dataflow)},
      {"--taxonomy", "Taxonomy JSON (none: the built-in data/nongemm_taxonomy.json)", F(taxonomy)},
      {"--json", options::kJsonHelp, options::CliValue{}},
      {"--trace", "Write a Chrome trace (JSON) of the active runs", F(trace)},
      {"--plot",
       "Stacked-bar plot of the groups, FILE.png or FILE.svg (also writes FILE.csv and FILE.gp "
       "beside it, replacing them)",
       F(plot)},
      {"--top", "Operators listed in the table", F(top)},
      {"--tiny", "Tiny configurations of the same architectures (tests)", F(tiny)},
      {"--stat",
       "How the active runs combine per operator: mean (torch.profiler's averages), median or "
       "min (robust on a shared machine)",
       F(stat)},
      {"--reuse-memory,!--no-reuse-memory",
       "On by default: keep freed memory in the process (as a caching allocator would, and as "
       "glibc already does in a Python process), so operators stop paying first-touch page "
       "faults for their outputs; --no-reuse-memory measures them",
       F(reuse_memory)},
      {"--quiet", "No table or progress output", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::ml::nongemm
