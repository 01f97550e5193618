// The one area rule (a hierarchy priced by an area table) and the built-in area tables:
// DiGamma's (um^2) and MAESTRO's (its own unit).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/arch/hierarchy.h"

namespace sparsemap::arch {

// One component's share of an area: `instances` copies of `area` each (area in the table's
// unit: um^2 for Accelergy's and DiGamma's tables, MAESTRO's unit for maestro_art).
struct AreaPart {
  double instances = 1;
  double area = 0;
};

// The rule:  area = sum over parts, in order, of instances x area.
double area_sum(const AreaPart* parts, size_t count);
template <size_t N>
double area_sum(const std::array<AreaPart, N>& parts) {
  return area_sum(parts.data(), N);
}

// The parts of `h` priced by `art`, in this order: each storage level outermost first, then
// the compute level, each with its instances and the table's area per instance of its
// component (ART entries are matched by full or base name, AreaTable::find); a level the table
// does not list adds nothing (area 0, as for DRAM, which DiGamma's and MAESTRO's tables leave
// out); then each table entry that names no level (a bus, an arbiter), counted by the product
// of the [a..b] ranges in its name (1 without one).
std::vector<AreaPart> area_parts(const Hierarchy& h, const AreaTable& art);

// The one area rule: area_sum(area_parts(h, art)), in the table's unit (um^2 but for
// maestro_art). Arch's area_mm2, Cost::area_mm2 and hwalloc's maestro_area are this rule.
double area_um2(const Hierarchy& h, const AreaTable& art);

// Instances in an Accelergy component name: "sys.PE[0..15].buf[1..4]" -> 16 x 4 = 64; a name
// without a range is 1 instance; a malformed range (negative, reversed) counts 1; a product beyond
// int64_t saturates at its maximum.
int64_t name_instances(const std::string& name);

// DiGamma's table (Kao et al., DATE 2022; AreaModel's defaults 282 and 0.086), um^2 per
// instance: the compute unit pe_um2; every storage level but the outermost (off chip, not
// listed) digamma_sram_um2(level_bits, sram_um2_per_bit).
AreaTable digamma_art(const Hierarchy& h, double pe_um2, double sram_um2_per_bit);
inline double digamma_sram_um2(double bits, double sram_um2_per_bit) {
  return bits * sram_um2_per_bit;
}
// The parts area_parts(to_hierarchy(a).hierarchy, digamma_art(...)) gives for an Arch `a`
// with `pes` PEs, `l1_bytes` per PE, `l2_bytes` and `model`, without building either (the cost
// model's allocation-free path): {1, L2}, {pes, L1}, {pes, pe_um2}. Equal to the rule's figure
// bit for bit (tested).
std::array<AreaPart, 3> digamma_parts(int64_t pes, int64_t l1_bytes, int64_t l2_bytes,
                                      const AreaModel& model);

// MAESTRO's table (Kwon et al., MICRO 2019; its Accelerator module's area, a unitless figure
// as MAESTRO prints it, not um^2) for a hierarchy of three_levels' shape with n = compute
// instances, NoC bandwidth b = the shared level's read bandwidth (words/cycle) and bytes =
// level_bits / 8:
//   MAC 283;  L1 0.104 bytes;  L2 0.104 max(1, bytes);
//   NoC_bus      101.7938 (14.662 n + 28.895) b         (one, outside the hierarchy)
//   NoC_arbiter  395.473 max(1, 1.2886 n^2 + 5.5814 n - 23.711)   (one)
// so area_um2(h, maestro_art(h)) = n (283 + 0.104 L1) + 0.104 max(1, L2) + bus + arbiter.
// Throws InputError (three_levels) for another shape.
AreaTable maestro_art(const Hierarchy& h);

}  // namespace sparsemap::arch
