// `sparsemap nongemm`: NonGEMM Bench. Profiles a model (or the suite) operator by operator with
// libtorch, splits GEMM from NonGEMM time by the taxonomy file, and projects the split onto
// faster GEMMs (--gemm-speedup) or a modelled accelerator (--hw). The work is ml::nongemm::run
// (ml/nongemm/run.h); this file is flags -> Options, then the tables.
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/nongemm/run.h"

namespace sparsemap::cli {

namespace {

// The flags of `nongemm` that only the CLI has (what to write, how to print), beside the run's
// Options (ml/nongemm/run.h, torch-free: `sparsemap`, built without libtorch, reads the flags
// and hands the command over).
struct NongemmArgs {
  ml::nongemm::Options o;
  std::string json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH
namespace ng = ml::nongemm;

// "profiling NAME ..." before each model of --all, on stdout (stderr when the JSON goes to
// stdout); the busy-machine warning wrapped as every warning.
class SuiteProgress : public search::Observer {
 public:
  SuiteProgress(bool all, bool quiet, bool to_stdout)
      : all_(all), quiet_(quiet), to_stdout_(to_stdout) {}
  void on_progress(const search::Progress& p) override {
    if (all_) say("profiling " + p.label + " ...\n");
  }
  void on_warning(const std::string& text) override { print_warning(text); }
  void say(const std::string& s) const {
    if (!quiet_) (to_stdout_ ? std::cerr : std::cout) << s << std::flush;
  }

 private:
  bool all_ = false, quiet_ = false, to_stdout_ = false;
};

// Flags -> Options, run, print the table, write the trace, the JSON and the plot.
void run(const NongemmArgs& a) {
  SuiteProgress observer(a.o.all, a.quiet, a.json == "-");
  const ng::Result r = ng::run(a.o, observer);
  if (a.o.all) {
    observer.say("\n" + ng::suite_text(r.profiles, a.o.gemm_speedup, r.horizons));
  } else {
    std::optional<ng::HwHorizon> hw;
    if (!r.horizons.empty()) hw = r.horizons[0];
    observer.say(ng::profile_text(r.profiles[0], a.o.gemm_speedup, hw, a.o.top));
  }
  ng::write_trace(r);
  if (!a.json.empty()) write_json(ng::to_json(r), a.json);
  ng::write_plot(r);
}
#endif

}  // namespace

void register_nongemm(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "nongemm",
      "NonGEMM Bench: GEMM vs NonGEMM operator time of a model (libtorch, seeded random "
      "weights), by taxonomy group, and its horizon on faster GEMMs or an accelerator");
  auto args = std::make_shared<NongemmArgs>();
  cmd->add_option("--model", args->o.model,
                  "Suite model: vit-b16, vit-l16, vit-h14, swin-t, swin-s, swin-b, resnet50, "
                  "detr-r50, faster-rcnn-r50-fpn, segformer-b0, bert-base, gpt2, gpt2-large, "
                  "gpt2-xl, llama2-7b, mixtral-8x7b");
  cmd->add_flag("--all", args->o.all, "Profile the whole suite (one table, one plot)");
  cmd->add_option("--batch", args->o.batch, "Batch size (NonGEMM Bench uses 1, 2, 4, 8)");
  cmd->add_option("--seq", args->o.seq,
                  "Tokens per sequence (not given: BERT 128, GPT-2 256, GPT-2-XL 512, LLMs 2048)");
  cmd->add_option("--layers", args->o.layers,
                  "Blocks to run; op times inside them are scaled to the full depth (0: all; 1 "
                  "for llama2-7b and mixtral-8x7b)");
  cmd->add_option("--threads", args->o.threads, "Intra-op threads (0: libtorch's)");
  require_positive(cmd, {"--seq"});
  cmd->add_option("--iters", args->o.iters, "Active (recorded) runs")->capture_default_str();
  cmd->add_option("--schedule", args->o.schedule,
                  "SKIP,WAIT,WARMUP runs before the active ones (torch.profiler's schedule)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--seed", args->o.seed, "Seed of the weights and inputs")->capture_default_str();
  cmd->add_option("--gemm-speedup", args->o.gemm_speedup,
                  "Horizon: also report the split as if GEMMs ran F times faster (repeat or "
                  "comma-separate: 10,100)")
      ->delimiter(',');
  cmd->add_option("--hw", args->o.hw,
                  "Horizon on an accelerator: preset, MAESTRO .m or YAML file; GEMM times become "
                  "the cost model's runtime at the arch's clock");
  cmd->add_option("--dataflow", args->o.dataflow,
                  "With --hw: a dataflow template (kcp_ws, xp_ws, yxp_os) or best")
      ->capture_default_str();
  cmd->add_option("--taxonomy", args->o.taxonomy,
                  "Taxonomy JSON (none: the built-in data/nongemm_taxonomy.json)");
  cmd->add_option("--json", args->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option("--trace", args->o.trace, "Write a Chrome trace (JSON) of the active runs");
  cmd->add_option("--plot", args->o.plot,
                  "Stacked-bar plot of the groups, FILE.png or FILE.svg (also writes FILE.csv and "
                  "FILE.gp beside it, replacing them)");
  cmd->add_option("--top", args->o.top, "Operators listed in the table")->capture_default_str();
  cmd->add_flag("--tiny", args->o.tiny, "Tiny configurations of the same architectures (tests)");
  cmd->add_option("--stat", args->o.stat,
                  "How the active runs combine per operator: mean (torch.profiler's averages), "
                  "median or min (robust on a shared machine)")
      ->capture_default_str();
  cmd->add_flag("--reuse-memory,!--no-reuse-memory", args->o.reuse_memory,
                "On by default: keep freed memory in the process (as a caching allocator would, "
                "and as glibc already does in a Python process), so operators stop paying "
                "first-touch page faults for their outputs; --no-reuse-memory measures them");
  cmd->add_flag("--quiet", args->quiet, "No table or progress output");
  cmd->callback([args] {
#ifdef SPARSEMAP_HAVE_TORCH
    run(*args);
#else
    hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
    throw InputError({"<command nongemm>", 0, 0},
                     "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
  });
}

}  // namespace sparsemap::cli
