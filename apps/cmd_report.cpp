// `sparsemap report`: one self-contained HTML page per model and accelerator: per-layer best
// mappings, the co-design Pareto front, the NonGEMM breakdown (profiled with libtorch when this
// build has it) and the measured SpMM speedup of the pruned layers (docs/report.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/report/report.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/nongemm/models.h"
#include "sparsemap/ml/nongemm/profile.h"
#include "sparsemap/ml/nongemm/report.h"
#endif

namespace sparsemap::cli {
namespace {

struct ReportArgs {
  std::string model, hw, out = "report.html", json;
  int64_t budget = 300, codesign_budget = 300;
  std::string platform = "edge";
  uint64_t seed = 1;
  int threads = 1;
  std::string spmm_formats = "csr,cvse:8", spmm_sparsity = "0.5,0.7,0.9";
  int64_t spmm_cols = 128, spmm_shapes = 8;
  double spmm_min_ms = 4;
  int profile_iters = 3;
  bool no_profile = false, quiet = false;
  workload::ZooOptions zoo;
};

// An output path a long run will write at its end: refuse now a folder, or a file in a folder
// that does not exist.
void check_output_path(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw InputError({"<flag " + flag + ">", 0, 0}, "expected a file path");
  if (fs::is_directory(path, ec))
    throw InputError({path, 0, 0}, flag + " names a folder; expected a file path");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw InputError({path, 0, 0}, "the folder " + quote_input(parent.string()) +
                                       " does not exist (" + flag + " creates no folders)");
}

std::vector<double> parse_sparsities(const std::string& text) {
  std::vector<double> out;
  for (const std::string& t : split_list(text)) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0')
      throw InputError({"<flag --spmm-sparsity>", 0, 0},
                       quote_input(t) + " is not a sparsity in [0, 1)");
    out.push_back(v);
  }
  return out;
}

report::NongemmMeasured measure_nongemm(const ReportArgs& a, const std::string& model_name,
                                        const std::function<void(const std::string&)>& say) {
  report::NongemmMeasured n;
#ifdef SPARSEMAP_HAVE_TORCH
  namespace ng = ml::nongemm;
  if (a.no_profile) {
    n.why_absent = "--no-profile was given, so the model was not run in libtorch.";
    return n;
  }
  const std::string name = ng::canonical_model_name(a.model);
  if (name.empty()) {
    std::string names;
    for (const auto& m : ng::model_infos()) names += (names.empty() ? "" : ", ") + m.name;
    n.why_absent = "'" + model_name +
                   "' is not a model of the NonGEMM Bench suite, so there is no libtorch "
                   "implementation of it to profile (the suite: " +
                   names + ").";
    return n;
  }
  if (a.zoo.image_size != 0) {
    n.why_absent =
        "--image was given and the NonGEMM profiler runs vision models at their "
        "default image size only.";
    return n;
  }
  say("nongemm: profiling " + name + " in libtorch");
  ng::ModelOptions mo;
  mo.batch = a.zoo.batch;
  mo.seq_len = ng::model_info(name).tokens ? a.zoo.seq_len : 0;
  mo.seed = a.seed;
  ng::ProfileOptions po;
  po.schedule = {0, 0, 1, a.profile_iters};
  po.threads = a.threads;
  po.gemm_shapes = true;
  po.statistic = ng::Statistic::Min;  // robust on a shared machine (profile.h)
  const ng::Profile p = ng::profile_model(name, mo, po);
  const ng::Split sp = ng::split_profile(p);
  n.available = true;
  n.suite_model = name;
  n.torch_version = p.torch_version;
  n.blas = p.blas;
  n.threads = p.threads;
  n.runs = a.profile_iters;
  n.total_ms = sp.total_ms;
  n.gemm_ms = sp.gemm_ms;
  n.attention_ms = sp.attention_ms;
  for (const auto& [g, ms] : sp.group_ms)
    if (ms > 0) n.group_ms[g] = ms;
  std::string cmd = "sparsemap nongemm --model " + name + " --threads " +
                    std::to_string(a.threads) + " --iters " + std::to_string(a.profile_iters) +
                    " --schedule 0,0,1 --stat min --seed " + std::to_string(a.seed) + " --batch " +
                    std::to_string(a.zoo.batch);
  if (mo.seq_len > 0) cmd += " --seq " + std::to_string(mo.seq_len);
  try {
    const ng::HwHorizon h = ng::hw_horizon(p, a.hw, "best");
    n.has_hw = true;
    n.hw_name = h.arch;
    n.hw_total_ms = h.split.total_ms;
    n.hw_gemm_ms = h.split.gemm_ms;
    for (const auto& [g, ms] : h.split.group_ms)
      if (ms > 0) n.hw_group_ms[g] = ms;
    n.hw_shapes = h.shapes;
    n.hw_failed = h.failed;
    cmd += " --hw " + report::shell_word(a.hw);
  } catch (const InputError& e) {
    n.has_hw = false;  // e.g. no GEMM shape recorded: the measured split stands alone
  }
  n.command = cmd;
  n.warning = measure::busy_machine_warning();
#else
  (void)a;
  (void)model_name;
  (void)say;
  n.why_absent =
      "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF), and NonGEMM "
      "operator times are measured by running the model in libtorch; rebuild with libtorch "
      "(Debian libtorch-dev) for the measured breakdown.";
#endif
  return n;
}

void run_report(const ReportArgs& a) {
#ifndef SPARSEMAP_HAVE_TORCH
  if (!a.no_profile) hand_over_to_torch_build();  // the NonGEMM profile runs the model in libtorch
#endif
  const auto t0 = std::chrono::steady_clock::now();
  check_output_path(a.out, "--out");
  if (!a.json.empty() && a.json != "-") check_output_path(a.json, "--json");
  if (a.profile_iters < 1 || a.profile_iters > 100)
    throw InputError({"<flag --profile-iters>", 0, 0}, "expected 1 to 100 recorded inferences");
  report::ReportOptions o;
  o.model_spec = a.model;
  o.hw_spec = a.hw;
  o.map_budget = a.budget;
  o.codesign_budget = a.codesign_budget;
  o.platform = a.platform;
  o.seed = a.seed;
  o.threads = a.threads;
  o.spmm_formats = split_list(a.spmm_formats);
  o.spmm_sparsities = parse_sparsities(a.spmm_sparsity);
  o.spmm_max_cols = a.spmm_cols;
  o.spmm_max_shapes = a.spmm_shapes;
  o.spmm_min_ms = a.spmm_min_ms;
  report::check_options(o);
  const arch::Arch hw = io::load_arch(a.hw);
  const workload::Model m = load_model(a.model, a.zoo);

  const bool bar = !a.quiet && isatty(2);
  auto say = [&](const std::string& s) {
    if (bar) std::fprintf(stderr, "\r%-70s", s.substr(0, 70).c_str());
  };
  if (bar)
    o.progress = [&](const std::string& stage, int64_t done, int64_t total) {
      say(stage + " " + std::to_string(done) + "/" + std::to_string(total));
    };
  report::Report r = report::build_report(m, hw, o);
  r.nongemm = measure_nongemm(a, m.name, say);
  if (bar) std::fprintf(stderr, "\r%70s\r", "");
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_text_file(a.out, report::render_html(r));
  if (!a.json.empty()) write_json(report::report_json(r), a.json);
  if (a.json != "-" && !a.quiet) std::cout << report::summary_text(r) << "wrote " << a.out << "\n";
}

}  // namespace

void register_report(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report",
      "One self-contained HTML page for a model on an accelerator: per-layer best mappings, the "
      "co-design Pareto front, the NonGEMM breakdown and the SpMM speedup of its pruned layers");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("--model", a->model, "Zoo model name or model file (.m, .csv, .onnx)")
      ->required();
  cmd->add_option("--hw", a->hw, "Accelerator: a preset name, a MAESTRO .m file or a YAML file")
      ->required();
  cmd->add_option("--out", a->out, "The HTML file to write (its folder must exist)");
  cmd->add_option("--budget", a->budget, "Mapper (GAMMA) samples per distinct layer");
  cmd->add_option("--codesign-budget", a->codesign_budget,
                  "Co-design (DiGamma) whole-model designs evaluated");
  cmd->add_option("--platform", a->platform, "Co-design area budget and PE limit: edge or cloud");
  cmd->add_option("--seed", a->seed, "Random seed (searches, weights, activations)");
  cmd->add_option("--threads", a->threads,
                  "Threads for the searches, the kernels, OpenBLAS and libtorch");
  cmd->add_option("--spmm-formats", a->spmm_formats,
                  "Sparse formats timed: csr, cvse:V, bsr:HxW, nm:N:M, vnm:V:N:M");
  cmd->add_option("--spmm-sparsity", a->spmm_sparsity, "Target sparsities in [0, 1)");
  cmd->add_option("--spmm-cols", a->spmm_cols, "Activation columns per product (cap)");
  cmd->add_option("--spmm-shapes", a->spmm_shapes,
                  "Weight shapes timed (those with the most MACs; 0: none)");
  cmd->add_option("--spmm-min-ms", a->spmm_min_ms, "Minimum timed ms per measurement");
  cmd->add_option("--profile-iters", a->profile_iters,
                  "NonGEMM: recorded libtorch inferences (after one warm-up)");
  cmd->add_flag("--no-profile", a->no_profile, "NonGEMM: skip the libtorch profile");
  cmd->add_option("--json", a->json,
                  "Also write the report's data as JSON to FILE, or - for stdout");
  cmd->add_flag("--quiet", a->quiet, "No progress and no summary");
  add_zoo_options(cmd, a->zoo);
  cmd->callback([a] { run_report(*a); });
}

}  // namespace sparsemap::cli
