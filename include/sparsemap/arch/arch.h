// Accelerator description: a spatial array of PEs with per-PE L1, a shared L2, a NoC and
// off-chip bandwidth, per-access energies, and an area/power model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sparsemap::arch {

// The MAESTRO-class model's energy constants (not an Accelergy ERT: see hierarchy.h's
// EnergyTable). Energy per event, in picojoules per word (per MAC for mac_pj). Defaults follow
// MAESTRO's default per-access ratios (MAC = 1 unit) scaled to pJ: see arch.cpp for the source.
struct WordEnergy {
  double mac_pj = 1.0;
  double l1_read_pj = 1.0;
  double l1_write_pj = 1.0;
  double l2_read_pj = 1.0;
  double l2_write_pj = 1.0;
  double noc_pj = 0.0;      // per word moved over the NoC
  double offchip_pj = 0.0;  // per word read or written off chip
  bool operator==(const WordEnergy& o) const;
};

// Area constants of DiGamma's table (arch/area.h: digamma_art). Area (mm^2) =
// (pes * pe_um2 + sram_bits * sram_um2_per_bit) / 1e6.
// Defaults: DiGamma (Kao et al., DATE 2022): 282 um^2 per PE and 0.086 um^2 per SRAM bit.
struct AreaModel {
  double pe_um2 = 282.0;
  double sram_um2_per_bit = 0.086;
  bool operator==(const AreaModel& o) const;
};

struct Arch {
  std::string name;    // preset name or file stem
  std::string source;  // where the numbers come from (paper, peer default, file)
  int64_t num_pes = 256;
  std::vector<int64_t> array_shape;     // physical PE array shape, outermost first; {} = flat
  int64_t l1_bytes = 512;               // per PE
  int64_t l2_bytes = 108000;            // shared, on chip
  double noc_words_per_cycle = 1000;    // L2 <-> PEs bandwidth
  double offchip_words_per_cycle = 50;  // DRAM <-> L2 bandwidth
  int64_t word_bytes = 1;               // bytes per element
  double clock_mhz = 1000;
  WordEnergy energy;
  AreaModel area;

  bool operator==(const Arch& o) const;
};

// Area of the PEs and all SRAM (num_pes * l1_bytes + l2_bytes), in mm^2: the one area rule
// (arch/area.h) on to_hierarchy(a) with DiGamma's table built from a.area, divided by 1e6.
double area_mm2(const Arch& a);

// Physical ranges of the fields, checked by validate: wide enough for any accelerator built or
// proposed (a wafer-scale engine has under 10^6 cores), narrow enough that the cost model's
// cycle and byte counts cannot overflow (see cost/evaluate.cpp).
inline constexpr int64_t kMaxPes = int64_t{1} << 24;      // PEs
inline constexpr int64_t kMaxL1Bytes = int64_t{1} << 30;  // per PE
inline constexpr int64_t kMaxL2Bytes = int64_t{1} << 40;  // shared
inline constexpr double kMinWordsPerCycle = 1e-3;         // NoC and off-chip bandwidths
inline constexpr double kMaxWordsPerCycle = 1e12;
inline constexpr int64_t kMaxWordBytes = 16;
inline constexpr double kMinClockMhz = 1e-3, kMaxClockMhz = 1e6;
inline constexpr double kMaxEnergyPj = 1e9;  // per access or MAC
inline constexpr double kMaxPeUm2 = 1e9, kMaxSramUm2PerBit = 1e6;

// The first field outside its range: `field` as the YAML file names it ("num_pes",
// "energy.mac_pj", "array_shape"), `expected` the range ("in [1, 16777216]") and `found` the
// value as text.
struct FieldError {
  std::string field;
  std::string expected;
  std::string found;
  std::string message() const { return "expected " + field + " " + expected + ", found " + found; }
};
std::optional<FieldError> check_fields(const Arch& a);

// Checks every field against its range (positive sizes within kMax*, array_shape multiplies to
// num_pes, ...). Throws InputError at `where_label` with check_fields' message.
void validate(const Arch& a, const std::string& where_label);

}  // namespace sparsemap::arch
