// The report as JSON (report_json, report.h): the only place its JSON is built.
#include "sparsemap/report/report.h"

namespace sparsemap::report {

nlohmann::json report_json(const Report& r) {
  using nlohmann::json;
  json layers = json::array();
  for (const LayerRow& l : r.mappings.layers) {
    json j = {{"name", l.name},           {"kind", l.kind},
              {"dims", l.dims},           {"macs", l.macs},
              {"status", l.status},       {"runtime_cycles", l.runtime_cycles},
              {"energy_nj", l.energy_nj}, {"pe_utilization_pct", l.utilisation_pct},
              {"pes_used", l.pes_used},   {"samples", l.samples},
              {"reused", l.reused},       {"mapping", l.mapping}};
    if (!l.reason.empty()) j["reason"] = l.reason;
    layers.push_back(j);
  }
  auto design = [](const DesignPoint& d) {
    return json{{"pes", d.pes},
                {"l1_bytes", d.l1_bytes},
                {"l2_bytes", d.l2_bytes},
                {"area_mm2", d.area_mm2},
                {"runtime_cycles", d.runtime_cycles},
                {"energy_nj", d.energy_nj}};
  };
  json designs = json::array(), front = json::array();
  for (const auto& d : r.codesign.designs) designs.push_back(design(d));
  for (const auto& d : r.codesign.front) front.push_back(design(d));
  const CodesignSection& c = r.codesign;
  json groups = json::array();
  for (const auto& g : r.nongemm_static.groups)
    groups.push_back(
        {{"name", g.name}, {"kind", g.kind}, {"layers", g.layers}, {"elements", g.elements}});
  const NongemmMeasured& n = r.nongemm;
  json measured = {{"available", n.available}};
  if (!n.available) {
    measured["why_absent"] = n.why_absent;
  } else {
    measured.update({{"model", n.suite_model},
                     {"torch_version", n.torch_version},
                     {"blas", n.blas},
                     {"threads", n.threads},
                     {"runs", n.runs},
                     {"total_ms", n.total_ms},
                     {"gemm_ms", n.gemm_ms},
                     {"attention_ms", n.attention_ms},
                     {"groups_ms", n.group_ms},
                     {"command", n.command},
                     {"warning", n.warning}});
    if (n.has_hw)
      measured["hw"] = {{"arch", n.hw_name},       {"total_ms", n.hw_total_ms},
                        {"gemm_ms", n.hw_gemm_ms}, {"groups_ms", n.hw_group_ms},
                        {"shapes", n.hw_shapes},   {"failed", n.hw_failed}};
  }
  json rows = json::array();
  for (const SpmmRow& p : r.spmm.rows)
    rows.push_back({{"layer", p.layer},
                    {"layers", p.layers},
                    {"M", p.m},
                    {"K", p.k},
                    {"N", p.n},
                    {"N_full", p.n_full},
                    {"format", p.format},
                    {"target_sparsity", p.target_sparsity},
                    {"sparsity", p.sparsity},
                    {"ms", p.ms},
                    {"dense_ms", p.dense_ms},
                    {"speedup", p.speedup},
                    {"max_rel_err", p.max_rel_err}});
  json geo = json::array();
  for (const auto& [f, by] : r.spmm.geomean)
    for (const auto& [t, v] : by)
      geo.push_back({{"format", f}, {"target_sparsity", t}, {"geomean_speedup", v}});
  return {{"model", r.model},
          {"hw", r.hw.name},
          {"version", r.version},
          {"seed", r.options.seed},
          {"threads", r.options.threads},
          {"wall_s", r.wall_s},
          {"model_macs", r.model_macs},
          {"model_params", r.model_params},
          {"mappings",
           {{"algo", "gamma"},
            {"budget", r.options.map_budget},
            {"layers", layers},
            {"skipped", r.mappings.skipped},
            {"distinct_layers", r.mappings.distinct},
            {"total",
             {{"runtime_cycles", r.mappings.runtime_cycles},
              {"energy_nj", r.mappings.energy_nj},
              {"macs", r.mappings.macs},
              {"layers_ok", r.mappings.layers_ok},
              {"pe_utilization_geomean_pct", r.mappings.utilisation_geomean_pct}}},
            {"wall_s", r.mappings.wall_s}}},
          {"codesign",
           {{"algo", "digamma"},
            {"platform", c.platform},
            {"area_budget_mm2", c.area_budget_mm2},
            {"pe_limit", c.pe_limit},
            {"pe_step", c.pe_step},
            {"budget", r.options.codesign_budget},
            {"samples", c.samples},
            {"infeasible", c.infeasible},
            {"feasible", c.feasible},
            {"best", design(c.best)},
            {"pareto", front},
            {"designs", designs},
            {"compute_bound_cycles", c.compute_bound_cycles},
            {"hw_area_mm2", c.hw_area_mm2},
            {"hw_runtime_cycles", c.hw_runtime_cycles},
            {"wall_s", c.wall_s}}},
          {"nongemm",
           {{"static",
             {{"groups", groups},
              {"nongemm_layers", r.nongemm_static.nongemm_layers},
              {"gemm_layers", r.nongemm_static.gemm_layers},
              {"nongemm_elements", r.nongemm_static.nongemm_elements},
              {"gemm_elements", r.nongemm_static.gemm_elements}}},
            {"measured", measured}}},
          {"spmm",
           {{"threads", r.spmm.threads},
            {"isa", r.spmm.isa},
            {"openblas_core", r.spmm.openblas_core},
            {"warning", r.spmm.warning},
            {"max_cols", r.options.spmm_max_cols},
            {"shapes_measured", r.spmm.shapes_measured},
            {"shapes_total", r.spmm.shapes_total},
            {"layers_skipped", r.spmm.shapes_skipped},
            {"results", rows},
            {"geomean", geo},
            {"wall_s", r.spmm.wall_s}}}};
}

}  // namespace sparsemap::report
