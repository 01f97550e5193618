// The NonGEMM section of `sparsemap report` measured in libtorch (report_profile.h).
#include "sparsemap/ml/nongemm/report_profile.h"

#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/ml/nongemm/models.h"
#include "sparsemap/ml/nongemm/profile.h"
#include "sparsemap/ml/nongemm/report.h"

namespace sparsemap::ml::nongemm {

namespace {

// Why `a.model` is not profiled ("" when it is): not a suite model, or --image given.
std::string why_not_profiled(const report::Options& a, const std::string& name,
                             const std::string& model_name) {
  if (name.empty()) {
    std::string names;
    for (const auto& m : model_infos()) names += (names.empty() ? "" : ", ") + m.name;
    return "'" + model_name +
           "' is not a model of the NonGEMM Bench suite, so there is no libtorch "
           "implementation of it to profile (the suite: " +
           names + ").";
  }
  if (a.zoo.image_size != 0)
    return "--image was given and the NonGEMM profiler runs vision models at their "
           "default image size only.";
  return "";
}

report::NongemmMeasured profile_for_report(const report::Options& a, const std::string& model_name,
                                           search::Observer& observer) {
  report::NongemmMeasured n;
  const std::string name = canonical_model_name(a.model);
  n.why_absent = why_not_profiled(a, name, model_name);
  if (!n.why_absent.empty()) return n;
  search::report_progress(observer, {0, 1, 0, 0, 0, "nongemm: profiling " + name + " in libtorch"});
  ModelOptions mo;
  mo.batch = a.zoo.batch;
  mo.seq_len = model_info(name).tokens ? a.zoo.seq_len : 0;
  mo.seed = a.seed;
  ProfileOptions po;
  po.schedule = {0, 0, 1, a.profile_iters};
  po.threads = a.threads;
  po.gemm_shapes = true;
  po.statistic = Statistic::Min;  // robust on a shared machine (profile.h)
  const Profile p = profile_model(name, mo, po);
  const Split sp = split_profile(p);
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
    const HwHorizon h = hw_horizon(p, a.hw, "best");
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
  return n;
}

}  // namespace

report::NonGemmProfiler report_profiler() { return profile_for_report; }

}  // namespace sparsemap::ml::nongemm
