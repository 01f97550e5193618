// The one area rule and the built-in area tables (formulas in area.h).
#include "sparsemap/arch/area.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "sparsemap/arch/maestro_hierarchy.h"

namespace sparsemap::arch {
namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

bool names_level(const Hierarchy& h, const std::string& name) {
  const std::string base = component_base_name(name);
  if (base == h.compute.name || name == h.compute.name) return true;
  return std::any_of(h.storage.begin(), h.storage.end(),
                     [&](const StorageLevel& s) { return s.name == name || s.name == base; });
}

}  // namespace

// area = sum_i instances_i x area_i, left to right.
double area_sum(const AreaPart* parts, size_t count) {
  double total = 0;
  for (size_t i = 0; i < count; ++i) total += parts[i].instances * parts[i].area;
  return total;
}

int64_t name_instances(const std::string& name) {
  int64_t n = 1;
  for (size_t open = name.find('['); open != std::string::npos; open = name.find('[', open + 1)) {
    const size_t dots = name.find("..", open), close = name.find(']', open);
    if (dots == std::string::npos || close == std::string::npos || dots > close) continue;
    char* end = nullptr;
    const long long a = std::strtoll(name.c_str() + open + 1, &end, 10);
    if (end != name.c_str() + dots) continue;
    const long long b = std::strtoll(name.c_str() + dots + 2, &end, 10);
    if (end != name.c_str() + close || a < 0 || b < a) continue;
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const int64_t span = b - a;  // 0 <= a <= b: no overflow
    if (span == kMax || n > kMax / (span + 1)) return kMax;
    n *= span + 1;
  }
  return n;
}

std::vector<AreaPart> area_parts(const Hierarchy& h, const AreaTable& art) {
  std::vector<AreaPart> parts;
  for (const StorageLevel& s : h.storage)
    if (const ComponentArea* c = art.find(s.name))
      parts.push_back({static_cast<double>(s.instances), c->area_um2});
  if (const ComponentArea* c = art.find(h.compute.name))
    parts.push_back({static_cast<double>(h.compute.instances), c->area_um2});
  for (const ComponentArea& c : art.components)
    if (!names_level(h, c.name))
      parts.push_back({static_cast<double>(name_instances(c.name)), c.area_um2});
  return parts;
}

double area_um2(const Hierarchy& h, const AreaTable& art) {
  const std::vector<AreaPart> parts = area_parts(h, art);
  return area_sum(parts.data(), parts.size());
}

AreaTable digamma_art(const Hierarchy& h, double pe_um2, double sram_um2_per_bit) {
  AreaTable t;
  t.source = "DiGamma (Kao et al., DATE 2022): " + number_text(pe_um2) +
             " um^2 per PE (compute unit) and " + number_text(sram_um2_per_bit) +
             " um^2 per SRAM bit of each on-chip buffer; off chip not counted";
  for (size_t i = 1; i < h.storage.size(); ++i) {
    const StorageLevel& s = h.storage[i];
    if (!s.dummy)
      t.components.push_back({s.name, digamma_sram_um2(level_bits(s), sram_um2_per_bit)});
  }
  t.components.push_back({h.compute.name, pe_um2});
  return t;
}

std::array<AreaPart, 3> digamma_parts(int64_t pes, int64_t l1_bytes, int64_t l2_bytes,
                                      const AreaModel& model) {
  const double n = static_cast<double>(pes);
  return {
      AreaPart{1.0, digamma_sram_um2(8.0 * static_cast<double>(l2_bytes), model.sram_um2_per_bit)},
      AreaPart{n, digamma_sram_um2(8.0 * static_cast<double>(l1_bytes), model.sram_um2_per_bit)},
      AreaPart{n, model.pe_um2}};
}

AreaTable maestro_art(const Hierarchy& h) {
  const ThreeLevels t = three_levels(h);
  const StorageLevel &l2 = h.storage[t.l2], &l1 = h.storage[t.l1];
  const double n = static_cast<double>(h.compute.instances);
  const double b = l2.read_bandwidth;
  AreaTable a;
  a.source =
      "MAESTRO (Kwon et al., MICRO 2019), its Accelerator area rule; unitless area as MAESTRO "
      "prints it, not um^2";
  a.components = {{l2.name, 0.104 * std::max(1.0, level_bits(l2) / 8.0)},
                  {l1.name, 0.104 * (level_bits(l1) / 8.0)},
                  {h.compute.name, 283.0},
                  {"NoC_bus", 101.7938 * (14.662 * n + 28.895) * b},
                  {"NoC_arbiter", 395.473 * std::max(1.0, 1.2886 * n * n + 5.5814 * n - 23.711)}};
  return a;
}

}  // namespace sparsemap::arch
