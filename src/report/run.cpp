// `sparsemap report` as a library call (report/run.h): the flags' checks, the sections, the
// NonGEMM profile through the injected profiler, and the page.
#include "sparsemap/report/run.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/io/util.h"

namespace sparsemap::report {

namespace {

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
  for (const std::string& t : io::split_list(text)) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0')
      throw InputError({"<flag --spmm-sparsity>", 0, 0},
                       quote_input(t) + " is not a sparsity in [0, 1)");
    out.push_back(v);
  }
  return out;
}

// The flags as build_report's options (the sparsities parsed: InputError at --spmm-sparsity).
ReportOptions report_options(const Options& a) {
  ReportOptions o;
  o.model_spec = a.model_object ? a.model_object->name : a.model;
  o.hw_spec = a.hw;
  o.map_budget = a.budget;
  o.codesign_budget = a.codesign_budget;
  o.platform = a.platform;
  o.seed = a.seed;
  o.threads = a.threads;
  o.spmm_formats = io::split_list(a.spmm_formats);
  o.spmm_sparsities = parse_sparsities(a.spmm_sparsity);
  o.spmm_max_cols = a.spmm_cols;
  o.spmm_max_shapes = a.spmm_shapes;
  o.spmm_min_ms = a.spmm_min_ms;
  return o;
}

// The NonGEMM section's measured part: the profiler's, or why there is none.
NongemmMeasured measure_nongemm(const Options& a, const std::string& model_name,
                                search::Observer& observer) {
  NongemmMeasured n;
  if (!a.profiler) {
    n.why_absent =
        "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF), and NonGEMM "
        "operator times are measured by running the model in libtorch; rebuild with libtorch "
        "(Debian libtorch-dev) for the measured breakdown.";
    return n;
  }
  if (a.no_profile) {
    n.why_absent = "--no-profile was given, so the model was not run in libtorch.";
    return n;
  }
  return a.profiler(a, model_name, observer);
}

}  // namespace

void check_options(const Options& o, const std::string& json) {
  check_output_path(o.out, "--out");
  if (!json.empty() && json != "-") check_output_path(json, "--json");
  if (o.profile_iters < 1 || o.profile_iters > 100)
    throw InputError({"<flag --profile-iters>", 0, 0}, "expected 1 to 100 recorded inferences");
  check_options(report_options(o));
}

Result run(const Options& a, search::Observer& observer) {
  const auto t0 = std::chrono::steady_clock::now();
  check_options(a);
  ReportOptions o = report_options(a);
  const arch::Arch hw = io::load_arch(a.hw);
  std::vector<InputWarning> warnings;
  const workload::Model m =
      a.model_object ? *a.model_object : io::load_model(a.model, a.zoo, &warnings);
  for (const auto& w : warnings) observer.on_warning(w.str());
  o.progress = [&observer](const std::string& stage, int64_t done, int64_t total) {
    search::report_progress(observer, {0, 1, done, total, 0, stage});
  };
  Result r;
  r.options = a;
  r.options.model_object.reset();
  r.options.profiler = nullptr;
  r.report = build_report(m, hw, o);
  r.report.nongemm = measure_nongemm(a, m.name, observer);
  observer.on_search_done();
  r.report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::json to_json(const Result& r) { return report_json(r.report); }

void write_outputs(const Result& r) { io::write_text_file(r.options.out, render_html(r.report)); }

}  // namespace sparsemap::report
