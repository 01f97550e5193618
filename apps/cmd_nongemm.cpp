// `sparsemap nongemm`: NonGEMM Bench. Profiles a model (or the suite) operator by operator with
// libtorch, splits GEMM from NonGEMM time by the taxonomy file, and projects the split onto
// faster GEMMs (--gemm-speedup) or a modelled accelerator (--hw).
#include <iostream>
#include <memory>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/nongemm/models.h"
#include "sparsemap/ml/nongemm/profile.h"
#include "sparsemap/ml/nongemm/report.h"
#endif

namespace sparsemap::cli {

namespace {

struct NongemmArgs {
  std::string model;
  bool all = false;
  int64_t batch = 1;
  int64_t seq = 0;
  int64_t layers = 0;
  int threads = 0;
  int iters = 5;
  std::vector<int> schedule = {1, 2, 2};
  uint64_t seed = 1;
  bool tiny = false;
  std::vector<double> speedups;
  std::string hw;
  std::string dataflow = "best";
  std::string taxonomy;
  std::string json;
  std::string trace;
  std::string plot;
  size_t top = 15;
  bool quiet = false;
  bool reuse_memory = true;
  std::string stat = "mean";
};

#ifdef SPARSEMAP_HAVE_TORCH
using namespace ml::nongemm;

void run(const NongemmArgs& a) {
  if (a.all == !a.model.empty())
    throw InputError({"<flag --model>", 0, 0}, "give either --model NAME or --all");
  if (a.all && !a.trace.empty())
    throw InputError({"<flag --trace>", 0, 0}, "--trace needs one --model, not --all");
  for (double f : a.speedups)
    if (!(f > 0)) throw InputError({"<flag --gemm-speedup>", 0, 0}, "speedups must be > 0");
  if (!a.plot.empty()) check_plot_path(a.plot);
  if (a.schedule.size() != 3)
    throw InputError({"<flag --schedule>", 0, 0}, "expected SKIP,WAIT,WARMUP (three counts)");
  std::unique_ptr<Taxonomy> own;
  if (!a.taxonomy.empty()) own = std::make_unique<Taxonomy>(Taxonomy::load(a.taxonomy));
  ProfileOptions po;
  po.schedule = {a.schedule[0], a.schedule[1], a.schedule[2], a.iters};
  po.threads = a.threads;
  po.trace = !a.trace.empty();
  po.gemm_shapes = !a.hw.empty();
  po.taxonomy = own.get();
  po.reuse_memory = a.reuse_memory;
  po.statistic = parse_statistic(a.stat);
  ModelOptions mo;
  mo.batch = a.batch, mo.seq_len = a.seq, mo.layers = a.layers, mo.seed = a.seed;
  mo.tiny = a.tiny;
  const bool to_stdout = a.json == "-";
  auto say = [&](const std::string& s) {
    if (!a.quiet) (to_stdout ? std::cerr : std::cout) << s << std::flush;
  };

  std::vector<std::string> names;
  if (a.all) {
    for (const ModelInfo& m : model_infos()) names.push_back(m.name);
  } else {
    names.push_back(model_info(a.model).name);
  }
  if (a.all && (a.seq != 0 || a.layers != 0))
    throw InputError({"<flag --all>", 0, 0}, "--seq and --layers apply to one --model");
  // Check every option before the first (long) run.
  for (const auto& n : names) (void)resolve_options(n, mo);

  if (const std::string w = measure::busy_machine_warning(); !w.empty()) print_warning(w);
  std::vector<Profile> profiles;
  std::vector<HwHorizon> horizons;  // one per profile with --hw
  nlohmann::json reports = nlohmann::json::array();
  for (const auto& n : names) {
    if (a.all) say("profiling " + n + " ...\n");
    Profile p = profile_model(n, mo, po);
    std::optional<HwHorizon> hw;
    if (!a.hw.empty()) hw = hw_horizon(p, a.hw, a.dataflow);
    reports.push_back(profile_json(p, a.speedups, hw));
    if (!a.all) say(profile_text(p, a.speedups, hw, a.top));
    if (!a.trace.empty()) write_json(chrome_trace(p), a.trace);
    p.trace.clear();
    profiles.push_back(std::move(p));
    if (hw) horizons.push_back(std::move(*hw));
  }
  if (a.all) say("\n" + suite_text(profiles, a.speedups, horizons));
  if (!a.json.empty()) {
    if (a.all)
      write_json({{"batch", a.batch}, {"models", reports}}, a.json);
    else
      write_json(reports[0], a.json);
  }
  if (!a.plot.empty()) write_group_plot(profiles, a.speedups, a.plot, horizons);
}
#endif

}  // namespace

void register_nongemm(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "nongemm",
      "NonGEMM Bench: GEMM vs NonGEMM operator time of a model (libtorch, seeded random "
      "weights), by taxonomy group, and its horizon on faster GEMMs or an accelerator");
  auto args = std::make_shared<NongemmArgs>();
  cmd->add_option("--model", args->model,
                  "Suite model: vit-b16, vit-l16, vit-h14, swin-t, swin-s, swin-b, resnet50, "
                  "detr-r50, faster-rcnn-r50-fpn, segformer-b0, bert-base, gpt2, gpt2-large, "
                  "gpt2-xl, llama2-7b, mixtral-8x7b");
  cmd->add_flag("--all", args->all, "Profile the whole suite (one table, one plot)");
  cmd->add_option("--batch", args->batch, "Batch size (NonGEMM Bench uses 1, 2, 4, 8)");
  cmd->add_option("--seq", args->seq,
                  "Tokens per sequence (not given: BERT 128, GPT-2 256, GPT-2-XL 512, LLMs 2048)");
  cmd->add_option("--layers", args->layers,
                  "Blocks to run; op times inside them are scaled to the full depth (0: all; 1 "
                  "for llama2-7b and mixtral-8x7b)");
  cmd->add_option("--threads", args->threads, "Intra-op threads (0: libtorch's)");
  require_positive(cmd, {"--seq"});
  cmd->add_option("--iters", args->iters, "Active (recorded) runs")->capture_default_str();
  cmd->add_option("--schedule", args->schedule,
                  "SKIP,WAIT,WARMUP runs before the active ones (torch.profiler's schedule)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the weights and inputs")->capture_default_str();
  cmd->add_option("--gemm-speedup", args->speedups,
                  "Horizon: also report the split as if GEMMs ran F times faster (repeat or "
                  "comma-separate: 10,100)")
      ->delimiter(',');
  cmd->add_option("--hw", args->hw,
                  "Horizon on an accelerator: preset, MAESTRO .m or YAML file; GEMM times become "
                  "the cost model's runtime at the arch's clock");
  cmd->add_option("--dataflow", args->dataflow,
                  "With --hw: a dataflow template (kcp_ws, xp_ws, yxp_os) or best")
      ->capture_default_str();
  cmd->add_option("--taxonomy", args->taxonomy,
                  "Taxonomy JSON (none: the built-in data/nongemm_taxonomy.json)");
  cmd->add_option("--json", args->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option("--trace", args->trace, "Write a Chrome trace (JSON) of the active runs");
  cmd->add_option("--plot", args->plot,
                  "Stacked-bar plot of the groups, FILE.png or FILE.svg (also writes FILE.csv and "
                  "FILE.gp beside it, replacing them)");
  cmd->add_option("--top", args->top, "Operators listed in the table")->capture_default_str();
  cmd->add_flag("--tiny", args->tiny, "Tiny configurations of the same architectures (tests)");
  cmd->add_option("--stat", args->stat,
                  "How the active runs combine per operator: mean (torch.profiler's averages), "
                  "median or min (robust on a shared machine)")
      ->capture_default_str();
  cmd->add_flag("--reuse-memory,!--no-reuse-memory", args->reuse_memory,
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
