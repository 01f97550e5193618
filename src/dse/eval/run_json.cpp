// The JSON of `sparsemap eval` (run.h): per evaluated layer its cost, each dataflow's totals,
// and the settings.
#include "sparsemap/dse/eval/run.h"

namespace sparsemap::dse::eval {

namespace {

nlohmann::json cost_json(const std::string& name, const cost::Cost& c, const Item& it) {
  nlohmann::json j = {{"name", name},
                      {"status", std::string(cost::status_name(c.status))},
                      {"reason", c.reason},
                      {"runtime_cycles", c.runtime_cycles},
                      {"energy_nj", c.energy_nj},
                      {"l1_bytes", c.l1_bytes},
                      {"l2_bytes", c.l2_bytes},
                      {"macs", c.macs},
                      {"pes_used", c.pes_used},
                      {"noc_words_per_cycle", c.noc_words_per_cycle},
                      {"offchip_words_per_cycle", c.offchip_words_per_cycle}};
  j["mapped_macs"] = c.mapped_macs;
  j["effectual_macs"] = c.effectual_macs;
  j["compute_cycles"] = c.compute_cycles;
  j["avg_pes_utilized"] = c.avg_pes_utilized;
  j["area_mm2"] = c.area_mm2;
  j["power_mw"] = c.power_mw;
  j["loop_edges"] =
      it.dl.mapping.empty() ? false : cost::has_loop_edges(it.dl.layer, it.dl.mapping);
  j["clamped"] = it.dl.clamped;
  if (!it.note.empty()) j["note"] = it.note;
  j["energy_breakdown_nj"] = {{"mac", c.energy.mac_nj},
                              {"l1", c.energy.l1_nj},
                              {"l2", c.energy.l2_nj},
                              {"noc", c.energy.noc_nj},
                              {"offchip", c.energy.offchip_nj}};
  auto delays = [](const cost::DelayStats& d) {
    return nlohmann::json{{"min", d.min}, {"max", d.max}, {"avg", d.avg}};
  };
  j["step_delays_cycles"] = {
      {"ingress", delays(c.ingress)}, {"egress", delays(c.egress)}, {"compute", delays(c.compute)}};
  nlohmann::json acc = nlohmann::json::object();
  for (int t = 0; t < cost::kNumTensors; ++t)
    acc[std::string(cost::tensor_name(t))] = {{"l1_reads", c.access[t].l1_reads},
                                              {"l1_writes", c.access[t].l1_writes},
                                              {"l2_reads", c.access[t].l2_reads},
                                              {"l2_writes", c.access[t].l2_writes}};
  j["access_words"] = acc;
  return j;
}

// One dataflow's layers and its totals over its feasible layers (MACs over all).
nlohmann::json evaluation_json(const Evaluation& r) {
  nlohmann::json layers = nlohmann::json::array();
  int64_t runtime = 0, macs = 0;
  double energy = 0;
  int ok = 0;
  for (size_t i = 0; i < r.items.size(); ++i) {
    const cost::Cost& c = r.costs[i];
    layers.push_back(cost_json(r.items[i].dl.layer.name, c, r.items[i]));
    macs += c.macs;
    if (!c.ok()) continue;
    ++ok;
    runtime += c.runtime_cycles;
    energy += c.energy_nj;
  }
  nlohmann::json j = {{"layers", layers},
                      {"total",
                       {{"runtime_cycles", runtime},
                        {"energy_nj", energy},
                        {"macs", macs},
                        {"layers", r.items.size()},
                        {"layers_ok", ok}}}};
  if (!r.dataflow.empty()) j["dataflow"] = r.dataflow;
  return j;
}

}  // namespace

nlohmann::json to_json(const Result& r) {
  if (r.timeloop) return to_json(*r.timeloop);
  nlohmann::json sparsity = nlohmann::json::object();
  for (int t = 0; t < cost::kNumTensors; ++t)
    sparsity[std::string(cost::tensor_name(t))] = cost::describe(r.eval.sparsity.tensors[t]);
  sparsity["mode"] = r.eval.sparsity.mode == cost::SparseMode::Skip ? "skip" : "gate";
  nlohmann::json j;
  if (r.evaluations.size() == 1) {
    j = evaluation_json(r.evaluations[0]);
  } else {
    j["evaluations"] = nlohmann::json::array();
    for (const Evaluation& e : r.evaluations) j["evaluations"].push_back(evaluation_json(e));
  }
  j["hw"] = r.hw.name;
  j["sparsity"] = sparsity;
  if (r.from_model) j["model"] = r.name;
  if (!r.from_model) j["mapping"] = r.options.mapping;
  return j;
}

}  // namespace sparsemap::dse::eval
