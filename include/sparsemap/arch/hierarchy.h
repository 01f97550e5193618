// A storage hierarchy as Timeloop describes an accelerator: storage levels outermost first,
// each with its instances, spatial mesh, capacity, block size and bandwidths, then the compute
// units; plus Accelergy's energy (ERT) and area (ART) tables that price its components.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparsemap::arch {

// Mapspace constraints attached to a level (Timeloop's `constraints`), kept as written:
// factor and permutation strings are interpreted by the mapper, not by the model.
struct LevelConstraints {
  std::vector<std::string> keep, bypass;  // dataspace names
  std::string temporal_factors, temporal_permutation;
  std::string spatial_factors, spatial_permutation;
  int spatial_split = -1;  // -1: not given
  bool operator==(const LevelConstraints& o) const {
    return keep == o.keep && bypass == o.bypass && temporal_factors == o.temporal_factors &&
           temporal_permutation == o.temporal_permutation && spatial_factors == o.spatial_factors &&
           spatial_permutation == o.spatial_permutation && spatial_split == o.spatial_split;
  }
};

// One storage level (a buffer, a register file, DRAM), all its instances alike.
struct StorageLevel {
  std::string name;                // as the architecture names it (no [0..N] range)
  std::string component_class;     // SRAM, DRAM, regfile, dummy_storage, ...
  int64_t instances = 1;           // copies in the whole accelerator
  int64_t mesh_x = 1, mesh_y = 1;  // how the instances are laid out (mesh_x * mesh_y = instances)
  int64_t depth = 0;               // rows (blocks) per instance; 0: unbounded (DRAM)
  int64_t width_bits = 0;          // bits per row
  int64_t datawidth_bits = 0;      // bits per word
  int64_t block_size = 1;          // words per access: width / (datawidth x cluster_size)
  int64_t cluster_size = 1;     // instances sharing one physical row (one access serves them all)
  double read_bandwidth = 0;    // words/cycle per instance; 0: unlimited
  double write_bandwidth = 0;   // words/cycle per instance; 0: unlimited
  double shared_bandwidth = 0;  // words/cycle per instance, reads and writes together; 0: none
  double multiple_buffering = 1;
  bool dummy = false;  // a placeholder for a spatial fan-out (Timeloop's dummy_storage)
  LevelConstraints constraints;
  std::map<std::string, std::string> attributes;  // every attribute as given ('-' read as '_')

  // Capacity per instance in words: depth x block_size; 0 means unbounded.
  int64_t capacity_words() const { return depth * block_size; }

  bool operator==(const StorageLevel& o) const {
    return name == o.name && component_class == o.component_class && instances == o.instances &&
           mesh_x == o.mesh_x && mesh_y == o.mesh_y && depth == o.depth &&
           width_bits == o.width_bits && datawidth_bits == o.datawidth_bits &&
           block_size == o.block_size && cluster_size == o.cluster_size &&
           read_bandwidth == o.read_bandwidth && write_bandwidth == o.write_bandwidth &&
           shared_bandwidth == o.shared_bandwidth && multiple_buffering == o.multiple_buffering &&
           dummy == o.dummy && constraints == o.constraints && attributes == o.attributes;
  }
};

// The arithmetic units at the bottom of the hierarchy.
struct ComputeLevel {
  std::string name;
  std::string component_class;  // intmac, fpmac, ...
  int64_t instances = 1;
  int64_t mesh_x = 1, mesh_y = 1;
  int64_t datawidth_bits = 0;  // `width` or `datawidth`; 0 when not given
  std::map<std::string, std::string> attributes;
  bool operator==(const ComputeLevel& o) const {
    return name == o.name && component_class == o.component_class && instances == o.instances &&
           mesh_x == o.mesh_x && mesh_y == o.mesh_y && datawidth_bits == o.datawidth_bits &&
           attributes == o.attributes;
  }
};

struct Hierarchy {
  std::string name;        // the top container's name
  std::string technology;  // e.g. "40nm"; empty when not given
  double global_cycle_seconds = 1e-9;
  std::vector<StorageLevel> storage;  // outermost first (DRAM ... register file)
  ComputeLevel compute;

  // Index in `storage` of the level named `name`, or -1.
  int find(const std::string& level_name) const;

  bool operator==(const Hierarchy& o) const {
    return name == o.name && technology == o.technology &&
           global_cycle_seconds == o.global_cycle_seconds && storage == o.storage &&
           compute == o.compute;
  }
};

// "System_top_level.GlobalBuffer[1..16]" -> "GlobalBuffer": the component's own name, as the
// architecture names its level (path and instance range dropped).
std::string component_base_name(const std::string& full_name);

// Accelergy's Energy Reference Table: energy per action of each component.
struct ActionEnergy {
  std::string name;                              // read, write, update, leak, compute, ...
  std::map<std::string, std::string> arguments;  // as Accelergy lists them
  double energy_pj = 0;
  bool operator==(const ActionEnergy& o) const {
    return name == o.name && arguments == o.arguments && energy_pj == o.energy_pj;
  }
};

struct ComponentEnergy {
  std::string name;  // as Accelergy names it: "System_top_level.GlobalBuffer[1..16]"
  std::vector<ActionEnergy> actions;
  // Energy of the first entry of `action`, if the table lists it.
  std::optional<double> energy_pj(const std::string& action) const;
  bool operator==(const ComponentEnergy& o) const { return name == o.name && actions == o.actions; }
};

struct EnergyTable {
  std::vector<ComponentEnergy> components;
  // Where the figures come from: a built-in table names its paper or peer (arch/area.h,
  // arch/maestro_hierarchy.h); empty for a table read from Accelergy's YAML.
  std::string source;
  // The component whose full name or base name (component_base_name) is `name`; nullptr if none.
  const ComponentEnergy* find(const std::string& name) const;
  bool operator==(const EnergyTable& o) const {
    return components == o.components && source == o.source;
  }
};

// Accelergy's Area Reference Table: area per instance of each component.
struct ComponentArea {
  std::string name;  // as Accelergy names it
  double area_um2 = 0;
  bool operator==(const ComponentArea& o) const { return name == o.name && area_um2 == o.area_um2; }
};

struct AreaTable {
  std::vector<ComponentArea> components;
  // Where the figures come from, and their unit when it is not um^2 (MAESTRO's table); empty
  // for a table read from Accelergy's YAML.
  std::string source;
  const ComponentArea* find(const std::string& name) const;
  bool operator==(const AreaTable& o) const {
    return components == o.components && source == o.source;
  }
};

}  // namespace sparsemap::arch
