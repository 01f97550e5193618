// The MAESTRO-class accelerator (arch::Arch) as a three-level storage hierarchy with its energy
// (ERT) and area (ART) tables, and back.
#pragma once

#include <string>

#include "sparsemap/arch/arch.h"
#include "sparsemap/arch/hierarchy.h"

namespace sparsemap::arch {

// Level and component names to_hierarchy gives, outermost first.
inline constexpr const char* kDramLevel = "DRAM";
inline constexpr const char* kL2Level = "L2";
inline constexpr const char* kL1Level = "L1";
inline constexpr const char* kMacUnit = "MAC";
inline constexpr const char* kNocComponent = "NoC";  // an ERT component that is not a level

// An Arch as a hierarchy: what to_hierarchy builds and from_hierarchy reads.
struct ArchHierarchy {
  std::string source;  // Arch::source (where the accelerator's numbers come from)
  Hierarchy hierarchy;
  EnergyTable ert;  // pJ per action
  AreaTable art;    // um^2 per instance (DiGamma's rule with the Arch's AreaModel)
  bool operator==(const ArchHierarchy& o) const {
    return source == o.source && hierarchy == o.hierarchy && ert == o.ert && art == o.art;
  }
};

// The three-level hierarchy of `a` (Hierarchy::name = a.name; W = 8 word_bytes bits):
//   DRAM  class DRAM, 1 instance, unbounded (depth 0), datawidth = width = W, block 1,
//         read_bandwidth = write_bandwidth = offchip_words_per_cycle (the MAESTRO-class model
//         limits L2 fills and output drains separately, each at that rate).
//   L2    class SRAM, 1 instance, depth = l2_bytes / word_bytes rows of W bits, block 1,
//         read_bandwidth = write_bandwidth = noc_words_per_cycle (words sent to the PEs and
//         partial sums returned, each direction limited separately, as the model does).
//   L1    class SRAM, num_pes instances, depth = l1_bytes / word_bytes rows of W bits, block 1,
//         bandwidth unlimited; mesh_y x mesh_x = array_shape[0] x array_shape[1] for a 2-D
//         array of two sizes > 1, else mesh_x = num_pes, mesh_y = 1.
//   MAC   class mac, num_pes instances, the mesh of L1, datawidth W.
// global_cycle_seconds = 1e-6 / clock_mhz. What depth and mesh cannot say is kept in level
// attributes (sparsemap's own, not Timeloop's): "size_bytes" on L1 / L2 when the size is not a
// whole number of words, and "array_shape" ("4,4,4") on L1 for any other array_shape than {}
// or two sizes > 1.
// ERT (pJ; source names the Arch's energies): DRAM read = write = update = offchip_pj; L2 read
// = l2_read_pj, write = update = l2_write_pj; L1 likewise with the l1_* energies; MAC compute =
// mac_pj; component NoC, action transfer = noc_pj per word moved between L2 and the PEs (no
// level: the loop-nest model has no network model and does not price it).
// ART: digamma_art(hierarchy, a.area.pe_um2, a.area.sram_um2_per_bit) (arch/area.h).
ArchHierarchy to_hierarchy(const Arch& a);
// to_hierarchy(a).hierarchy alone (no tables).
Hierarchy three_level_hierarchy(const Arch& a);

// The Arch of a hierarchy of the shape above: the storage levels other than dummies are
// exactly three (off chip, one shared buffer, one per PE); the outermost is unbounded; the
// middle one has 1 instance; the inner one as many as the compute units; every datawidth given
// is the same multiple of 8 bits (word_bytes = datawidth / 8); the middle and outer levels'
// read and write bandwidths are equal (0, unlimited, reads as kMaxWordsPerCycle) and there is
// no shared bandwidth; the inner level's bandwidth is unlimited; cluster_size and
// multiple_buffering are 1. Energies per word are the ERT's per-access figures divided by the
// level's block_size; a level's update equals its write and off chip read = write = update
// where given; a component or action the ERT does not list is 0 pJ; leak is not priced
// by the MAESTRO-class model and is dropped, as are ERT components outside the hierarchy but NoC.
// The ART must follow DiGamma's rule: the compute unit's area is pe_um2 and the two buffers' areas
// per instance are their bits times one sram_um2_per_bit (within 1e-9); the outermost level and
// components outside the hierarchy carry none. clock_mhz = 1e-6 / global_cycle_seconds, and
// sram_um2_per_bit the ratio, each rounded to 15 significant digits when that reproduces the
// figures it came from (the cycle time within 1e-14, the areas exactly), so to_hierarchy's
// figures of at most 15 significant digits come back exactly.
// Level names, classes, constraints (the mapper's) and technology are not kept.
// Throws InputError at `where` naming what was expected for any other hierarchy; the Arch is
// also checked by validate.
Arch from_hierarchy(const Hierarchy& h, const EnergyTable& ert, const AreaTable& art,
                    const std::string& source = "", const std::string& where = "<hierarchy>");
Arch from_hierarchy(const ArchHierarchy& v, const std::string& where = "<hierarchy>");

// The indices in h.storage of the off-chip, shared and per-PE levels of a hierarchy of the
// shape from_hierarchy reads (dummy levels skipped). Throws InputError at `where` otherwise.
struct ThreeLevels {
  int dram = 0, l2 = 1, l1 = 2;
};
ThreeLevels three_levels(const Hierarchy& h, const std::string& where = "<hierarchy>");

// Bits per instance of a storage level: 8 x the "size_bytes" attribute when given, else
// capacity_words x datawidth_bits (depth x width_bits when datawidth is not given); 0 for an
// unbounded level.
double level_bits(const StorageLevel& s);

}  // namespace sparsemap::arch
