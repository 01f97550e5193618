// The accelerator horizon (see report.h): GEMM shapes through the cost model.
#include <algorithm>
#include <limits>

#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/ml/nongemm/report.h"

namespace sparsemap::ml::nongemm {

HwHorizon hw_horizon(const Profile& p, const std::string& arch_spec, const std::string& dataflow) {
  const arch::Arch a = io::load_arch(arch_spec);
  std::vector<std::string> templates;
  if (dataflow == "best") {
    for (const auto& t : cost::dataflow_templates()) templates.push_back(t.name);
  } else {
    workload::Layer probe = workload::gemm("probe", 16, 16, 16);
    (void)cost::dataflow_mapping(dataflow, probe, a.num_pes);  // throws for an unknown name
    templates.push_back(dataflow);
  }
  if (p.gemm_calls.empty() && split_profile(p).gemm_ms > 0)
    throw InputError({"<flag --hw>", 0, 0}, "the profile has no GEMM shapes (profile with them)");
  HwHorizon h;
  h.arch = a.name.empty() ? arch_spec : a.name;
  h.clock_mhz = a.clock_mhz;
  h.dataflow = dataflow == "best" ? "the fastest of the built-in dataflow templates per shape"
                                  : "dataflow template " + dataflow;
  const double ms_per_cycle = 1.0 / (a.clock_mhz * 1e3);
  double modelled = 0, measured = 0;
  for (const GemmCall& g : p.gemm_calls) {
    ++h.shapes;
    measured += g.ms;
    int64_t best = std::numeric_limits<int64_t>::max();
    for (const auto& t : templates) {
      const cost::Cost c =
          cost::evaluate(g.layer, a, cost::dataflow_mapping(t, g.layer, a.num_pes));
      if (c.ok() && c.runtime_cycles < best) best = c.runtime_cycles;
    }
    if (best == std::numeric_limits<int64_t>::max()) {
      ++h.failed;
      modelled += g.ms;
    } else {
      modelled += g.calls * static_cast<double>(best) * ms_per_cycle;
    }
  }
  // GEMM operators whose shapes were not captured keep their measured time.
  const double gemm_total = split_profile(p).gemm_ms;
  h.measured_gemm_ms = gemm_total;
  h.modelled_gemm_ms = modelled + std::max(0.0, gemm_total - measured);
  h.split = split_with_gemm_ms(p, h.modelled_gemm_ms);
  return h;
}

}  // namespace sparsemap::ml::nongemm
