// Accelerators as JSON (describe.h).
#include "sparsemap/arch/describe.h"

#include "sparsemap/arch/area.h"
#include "sparsemap/arch/presets.h"

namespace sparsemap::arch {

nlohmann::json arch_json(const Arch& a) {
  return {{"name", a.name},
          {"source", a.source},
          {"pes", a.num_pes},
          {"array_shape", a.array_shape},
          {"l1_bytes", a.l1_bytes},
          {"l2_bytes", a.l2_bytes},
          {"noc_words_per_cycle", a.noc_words_per_cycle},
          {"offchip_words_per_cycle", a.offchip_words_per_cycle},
          {"word_bytes", a.word_bytes},
          {"clock_mhz", a.clock_mhz},
          {"area_mm2", area_mm2(a)},
          {"energy_pj",
           {{"mac", a.energy.mac_pj},
            {"l1_read", a.energy.l1_read_pj},
            {"l1_write", a.energy.l1_write_pj},
            {"l2_read", a.energy.l2_read_pj},
            {"l2_write", a.energy.l2_write_pj},
            {"noc", a.energy.noc_pj},
            {"offchip", a.energy.offchip_pj}}}};
}

// The hierarchy view (to_hierarchy): levels outermost first (capacity_words 0:
// unbounded; bandwidths in words/cycle per instance, 0: unlimited), the compute unit, the ERT
// (pJ per action) and the ART (um^2 per instance) with their sources, and area_um2 (the one
// area rule on that table).
nlohmann::json hierarchy_json(const ArchHierarchy& v) {
  const Hierarchy& h = v.hierarchy;
  nlohmann::json levels = nlohmann::json::array();
  for (const StorageLevel& s : h.storage)
    levels.push_back({{"name", s.name},
                      {"class", s.component_class},
                      {"instances", s.instances},
                      {"mesh_x", s.mesh_x},
                      {"mesh_y", s.mesh_y},
                      {"depth", s.depth},
                      {"width_bits", s.width_bits},
                      {"datawidth_bits", s.datawidth_bits},
                      {"block_size", s.block_size},
                      {"capacity_words", s.capacity_words()},
                      {"read_bandwidth", s.read_bandwidth},
                      {"write_bandwidth", s.write_bandwidth},
                      {"attributes", s.attributes}});
  nlohmann::json ert = nlohmann::json::array();
  for (const ComponentEnergy& c : v.ert.components) {
    nlohmann::json actions = nlohmann::json::object();
    for (const ActionEnergy& a : c.actions) actions[a.name] = a.energy_pj;
    ert.push_back({{"name", c.name}, {"energy_pj", actions}});
  }
  nlohmann::json art = nlohmann::json::array();
  for (const ComponentArea& c : v.art.components)
    art.push_back({{"name", c.name}, {"area_um2", c.area_um2}});
  return {{"name", h.name},
          {"global_cycle_seconds", h.global_cycle_seconds},
          {"levels", levels},
          {"compute",
           {{"name", h.compute.name},
            {"class", h.compute.component_class},
            {"instances", h.compute.instances},
            {"mesh_x", h.compute.mesh_x},
            {"mesh_y", h.compute.mesh_y},
            {"datawidth_bits", h.compute.datawidth_bits}}},
          {"ert", {{"source", v.ert.source}, {"components", ert}}},
          {"art", {{"source", v.art.source}, {"components", art}}},
          {"area_um2", area_um2(h, v.art)}};
}

nlohmann::json presets_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const Arch& a : presets()) list.push_back(arch_json(a));
  return {{"presets", list}};
}

}  // namespace sparsemap::arch
