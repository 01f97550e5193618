// `sparsemap nongemm` as a library call (ml/nongemm/run.h): the flags' checks, one profile per
// model with its horizons, and the JSON, trace and plot.
#include "sparsemap/ml/nongemm/run.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/ml/nongemm/models.h"

namespace sparsemap::ml::nongemm {

namespace {

// The checks that need no model, in the CLI's order.
void check_flags(const Options& a) {
  if (a.all == !a.model.empty())
    throw InputError({"<flag --model>", 0, 0}, "give either --model NAME or --all");
  if (a.all && !a.trace.empty())
    throw InputError({"<flag --trace>", 0, 0}, "--trace needs one --model, not --all");
  for (double f : a.gemm_speedup)
    if (!(f > 0)) throw InputError({"<flag --gemm-speedup>", 0, 0}, "speedups must be > 0");
  if (!a.plot.empty()) check_plot_path(a.plot);
  if (a.schedule.size() != 3)
    throw InputError({"<flag --schedule>", 0, 0}, "expected SKIP,WAIT,WARMUP (three counts)");
}

// `j` as `sparsemap ... --json` writes it (2-space indent, a final newline), to `dest` or "-"
// for stdout.
void write_json_file(const nlohmann::json& j, const std::string& dest) {
  const std::string text = j.dump(2) + "\n";
  if (dest == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(dest, std::ios::binary);
  if (!out || !(out << text)) throw InputError({dest, 0, 0}, "cannot write the JSON file");
}

}  // namespace

Result run(const Options& a, search::Observer& observer) {
  check_flags(a);
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

  if (const std::string w = measure::busy_machine_warning(); !w.empty()) observer.on_warning(w);
  Result r;
  r.options = a;
  for (size_t i = 0; i < names.size(); ++i) {
    search::report_progress(observer, {i, names.size(), 0, 0, 0, names[i]});
    Profile p = profile_model(names[i], mo, po);
    if (!a.hw.empty()) r.horizons.push_back(hw_horizon(p, a.hw, a.dataflow));
    r.profiles.push_back(std::move(p));
  }
  observer.on_search_done();
  return r;
}

nlohmann::json to_json(const Result& r) {
  const Options& a = r.options;
  nlohmann::json reports = nlohmann::json::array();
  for (size_t i = 0; i < r.profiles.size(); ++i) {
    std::optional<HwHorizon> hw;
    if (i < r.horizons.size()) hw = r.horizons[i];
    reports.push_back(profile_json(r.profiles[i], a.gemm_speedup, hw));
  }
  if (a.all) return {{"batch", a.batch}, {"models", reports}};
  return reports.at(0);
}

void write_trace(const Result& r) {
  if (r.options.trace.empty()) return;
  write_json_file(chrome_trace(r.profiles.at(0)), r.options.trace);
}

void write_plot(const Result& r) {
  if (r.options.plot.empty()) return;
  write_group_plot(r.profiles, r.options.gemm_speedup, r.options.plot, r.horizons);
}

}  // namespace sparsemap::ml::nongemm
