// The MAESTRO-class accelerator as a three-level hierarchy (to_hierarchy) and back
// (from_hierarchy); formulas and the accepted shape in maestro_hierarchy.h.
#include "sparsemap/arch/maestro_hierarchy.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "sparsemap/arch/area.h"
#include "sparsemap/error.h"

namespace sparsemap::arch {
namespace {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// q rounded to 15 significant digits when `reproduces` holds for it, else q itself.
template <typename F>
double snap15(double q, F reproduces) {
  const double c = std::strtod(number_text(q).c_str(), nullptr);
  return reproduces(c) ? c : q;
}

// A buffer of `bytes` bytes in rows of one `word_bytes` word.
StorageLevel buffer(const char* name, int64_t instances, int64_t bytes, int64_t word_bytes) {
  StorageLevel s;
  s.name = name;
  s.component_class = "SRAM";
  s.instances = instances;
  s.mesh_x = instances;
  s.depth = bytes / word_bytes;
  s.width_bits = s.datawidth_bits = 8 * word_bytes;
  if (bytes % word_bytes != 0) s.attributes["size_bytes"] = std::to_string(bytes);
  return s;
}

std::optional<int64_t> parse_int(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || v < 0) return std::nullopt;
  return static_cast<int64_t>(v);
}

// The ERT: per-word energies of `a` as pJ per action (block_size 1).
EnergyTable arch_ert(const Arch& a) {
  const WordEnergy& e = a.energy;
  auto comp = [](const char* name, std::vector<std::pair<const char*, double>> actions) {
    ComponentEnergy c;
    c.name = name;
    for (const auto& [action, pj] : actions) c.actions.push_back({action, {}, pj});
    return c;
  };
  EnergyTable t;
  t.source = "the MAESTRO-class energies of " + (a.name.empty() ? std::string("an Arch") : a.name) +
             " (pJ per word, per MAC for compute)" + (a.source.empty() ? "" : ": " + a.source);
  t.components = {
      comp(kDramLevel, {{"read", e.offchip_pj}, {"write", e.offchip_pj}, {"update", e.offchip_pj}}),
      comp(kL2Level, {{"read", e.l2_read_pj}, {"write", e.l2_write_pj}, {"update", e.l2_write_pj}}),
      comp(kL1Level, {{"read", e.l1_read_pj}, {"write", e.l1_write_pj}, {"update", e.l1_write_pj}}),
      comp(kMacUnit, {{"compute", e.mac_pj}}), comp(kNocComponent, {{"transfer", e.noc_pj}})};
  return t;
}

}  // namespace

double level_bits(const StorageLevel& s) {
  if (const auto it = s.attributes.find("size_bytes"); it != s.attributes.end())
    if (const auto bytes = parse_int(it->second)) return 8.0 * static_cast<double>(*bytes);
  if (s.datawidth_bits > 0)
    return static_cast<double>(s.capacity_words()) * static_cast<double>(s.datawidth_bits);
  return static_cast<double>(s.depth) * static_cast<double>(s.width_bits);
}

Hierarchy three_level_hierarchy(const Arch& a) {
  const int64_t wb = a.word_bytes > 0 ? a.word_bytes : 1;
  Hierarchy h;
  h.name = a.name;
  h.global_cycle_seconds = 1e-6 / a.clock_mhz;
  StorageLevel dram;
  dram.name = kDramLevel;
  dram.component_class = "DRAM";
  dram.width_bits = dram.datawidth_bits = 8 * wb;
  dram.read_bandwidth = dram.write_bandwidth = a.offchip_words_per_cycle;
  StorageLevel l2 = buffer(kL2Level, 1, a.l2_bytes, wb);
  l2.read_bandwidth = l2.write_bandwidth = a.noc_words_per_cycle;
  StorageLevel l1 = buffer(kL1Level, a.num_pes, a.l1_bytes, wb);
  const auto& shape = a.array_shape;
  if (shape.size() == 2 && shape[0] > 1 && shape[1] > 1) {
    l1.mesh_y = shape[0];
    l1.mesh_x = shape[1];
  } else if (!shape.empty()) {
    std::string text;
    for (int64_t d : shape) text += (text.empty() ? "" : ",") + std::to_string(d);
    l1.attributes["array_shape"] = text;
  }
  h.compute.name = kMacUnit;
  h.compute.component_class = "mac";
  h.compute.instances = a.num_pes;
  h.compute.mesh_x = l1.mesh_x;
  h.compute.mesh_y = l1.mesh_y;
  h.compute.datawidth_bits = 8 * wb;
  h.storage = {dram, l2, l1};
  return h;
}

ArchHierarchy to_hierarchy(const Arch& a) {
  ArchHierarchy v;
  v.source = a.source;
  v.hierarchy = three_level_hierarchy(a);
  v.ert = arch_ert(a);
  v.art = digamma_art(v.hierarchy, a.area.pe_um2, a.area.sram_um2_per_bit);
  return v;
}

ThreeLevels three_levels(const Hierarchy& h, const std::string& where) {
  auto fail = [&](const std::string& what) {
    throw InputError({where, 0, 0},
                     "expected a three-level hierarchy (off chip, one shared "
                     "buffer, one buffer per PE) for the MAESTRO-class model: " +
                         what);
  };
  std::vector<int> idx;
  for (size_t i = 0; i < h.storage.size(); ++i)
    if (!h.storage[i].dummy) idx.push_back(static_cast<int>(i));
  if (idx.size() != 3)
    fail("found " + std::to_string(idx.size()) + " storage levels (dummy levels not counted)");
  const ThreeLevels t{idx[0], idx[1], idx[2]};
  const StorageLevel &dram = h.storage[t.dram], &l2 = h.storage[t.l2], &l1 = h.storage[t.l1];
  if (dram.depth != 0 || dram.attributes.count("size_bytes"))
    fail("the outermost level '" + dram.name + "' unbounded (no depth)");
  if (l2.instances != 1)
    fail("one instance of '" + l2.name + "', found " + std::to_string(l2.instances));
  if (l1.instances != h.compute.instances)
    fail("as many instances of '" + l1.name + "' as of the compute unit '" + h.compute.name +
         "' (" + std::to_string(h.compute.instances) + "), found " + std::to_string(l1.instances));
  return t;
}

Arch from_hierarchy(const ArchHierarchy& v, const std::string& where) {
  return from_hierarchy(v.hierarchy, v.ert, v.art, v.source, where);
}

namespace {

struct Reader {
  const Hierarchy& h;
  const std::string& where;
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError({where, 0, 0}, "expected " + what);
  }

  int64_t word_bytes(const ThreeLevels& t) const {
    int64_t bits = 0;
    auto take = [&](int64_t w, const std::string& name) {
      if (w == 0) return;
      if (w % 8 != 0) fail("a datawidth that is a whole number of bytes on '" + name + "'");
      if (bits != 0 && w != bits)
        fail("one datawidth on every level (one word size), found " + std::to_string(bits) +
             " and " + std::to_string(w) + " bits on '" + name + "'");
      bits = w;
    };
    for (int i : {t.l1, t.l2, t.dram}) take(h.storage[i].datawidth_bits, h.storage[i].name);
    take(h.compute.datawidth_bits, h.compute.name);
    if (bits == 0) fail("a datawidth on '" + h.storage[t.l1].name + "'");
    return bits / 8;
  }

  int64_t bytes(const StorageLevel& s) const {
    if (const auto it = s.attributes.find("size_bytes"); it != s.attributes.end())
      if (!parse_int(it->second)) fail("size_bytes of '" + s.name + "' a count of bytes");
    const double bits = level_bits(s);
    if (!(bits > 0) || std::fmod(bits, 8.0) != 0)
      fail("'" + s.name + "' bounded, a whole number of bytes in size");
    if (bits / 8 > static_cast<double>(kMaxL2Bytes))
      fail("'" + s.name + "' of at most " + std::to_string(kMaxL2Bytes) + " bytes");
    return static_cast<int64_t>(bits / 8);
  }

  // The one bandwidth (words/cycle) of a level limiting reads and writes separately.
  double bandwidth(const StorageLevel& s, const char* what) const {
    if (s.shared_bandwidth != 0 || s.read_bandwidth != s.write_bandwidth)
      fail("equal read_bandwidth and write_bandwidth and no shared_bandwidth on '" + s.name +
           "' (the " + what + " bandwidth)");
    return s.read_bandwidth > 0 ? s.read_bandwidth : kMaxWordsPerCycle;
  }

  void plain(const StorageLevel& s) const {
    if (s.cluster_size != 1 || s.multiple_buffering != 1)
      fail("cluster_size 1 and multiple_buffering 1 on '" + s.name + "'");
  }

  // Energy per word of `action` on level s (0 when not listed); update must equal write.
  double energy(const EnergyTable& ert, const StorageLevel& s, const char* action) const {
    const ComponentEnergy* c = ert.find(s.name);
    if (!c) return 0;
    const auto w = c->energy_pj("write"), u = c->energy_pj("update");
    if (w && u && *w != *u) fail("update energy equal to write energy on '" + s.name + "'");
    std::optional<double> e = c->energy_pj(action);
    if (!e && std::string(action) == "write") e = u;
    return e ? *e / static_cast<double>(s.block_size) : 0.0;
  }
};

}  // namespace

// Reads what maestro_hierarchy.h lists, then validate()s the Arch.
Arch from_hierarchy(const Hierarchy& h, const EnergyTable& ert, const AreaTable& art,
                    const std::string& source, const std::string& where) {
  const Reader r{h, where};
  const ThreeLevels t = three_levels(h, where);
  const StorageLevel &dram = h.storage[t.dram], &l2 = h.storage[t.l2], &l1 = h.storage[t.l1];
  for (const StorageLevel* s : {&dram, &l2, &l1}) r.plain(*s);
  if (l1.read_bandwidth != 0 || l1.write_bandwidth != 0 || l1.shared_bandwidth != 0)
    r.fail("unlimited bandwidth on '" + l1.name + "' (the model has no per-PE bandwidth)");
  Arch a;
  a.name = h.name;
  a.source = source;
  a.num_pes = h.compute.instances;
  a.word_bytes = r.word_bytes(t);
  a.l2_bytes = r.bytes(l2);
  a.l1_bytes = r.bytes(l1);
  a.noc_words_per_cycle = r.bandwidth(l2, "NoC");
  a.offchip_words_per_cycle = r.bandwidth(dram, "off-chip");
  a.array_shape.clear();
  if (const auto it = l1.attributes.find("array_shape"); it != l1.attributes.end()) {
    std::istringstream in(it->second);
    std::string part;
    while (std::getline(in, part, ',')) {
      const auto d = parse_int(part);
      if (!d) r.fail("array_shape of '" + l1.name + "' as sizes separated by commas");
      a.array_shape.push_back(*d);
    }
  } else if (l1.mesh_y > 1) {
    a.array_shape = {l1.mesh_y, l1.mesh_x};
  }
  const double gcs = h.global_cycle_seconds;
  if (!(gcs > 0) || !std::isfinite(gcs)) r.fail("a positive global_cycle_seconds");
  // Within 1e-14: a file's 1e-9 s is not the double 1e-6 / 1000 is.
  a.clock_mhz =
      snap15(1e-6 / gcs, [&](double c) { return std::fabs(1e-6 / c - gcs) <= 1e-14 * gcs; });

  // Energies.
  WordEnergy& e = a.energy;
  e.l1_read_pj = r.energy(ert, l1, "read");
  e.l1_write_pj = r.energy(ert, l1, "write");
  e.l2_read_pj = r.energy(ert, l2, "read");
  e.l2_write_pj = r.energy(ert, l2, "write");
  e.offchip_pj = 0;
  if (const ComponentEnergy* c = ert.find(dram.name)) {
    std::optional<double> one;  // the one off-chip energy per word
    for (const char* action : {"read", "write", "update"})
      if (const auto v = c->energy_pj(action)) {
        const double per_word = *v / static_cast<double>(dram.block_size);
        if (one && *one != per_word)
          r.fail("equal read, write and update energies on '" + dram.name +
                 "' (one off-chip energy per word)");
        one = per_word;
      }
    e.offchip_pj = one.value_or(0.0);
  }
  const ComponentEnergy* mac = ert.find(h.compute.name);
  e.mac_pj = mac ? mac->energy_pj("compute").value_or(0.0) : 0.0;
  const ComponentEnergy* noc = ert.find(kNocComponent);
  e.noc_pj = noc ? noc->energy_pj("transfer").value_or(0.0) : 0.0;

  // Area: DiGamma's rule.
  const ComponentArea* pe = art.find(h.compute.name);
  const ComponentArea *a2 = art.find(l2.name), *a1 = art.find(l1.name);
  if (!pe || !a2 || !a1)
    r.fail("ART entries for '" + l2.name + "', '" + l1.name + "' and '" + h.compute.name +
           "' (DiGamma's rule: area per SRAM bit and per PE)");
  for (const ComponentArea& c : art.components) {
    const std::string base = component_base_name(c.name);
    const bool priced = base == l2.name || base == l1.name || base == h.compute.name ||
                        c.name == l2.name || c.name == l1.name || c.name == h.compute.name;
    if (!priced && c.area_um2 != 0)
      r.fail("no area on '" + c.name + "' (DiGamma's rule prices PEs and on-chip SRAM only)");
  }
  a.area.pe_um2 = pe->area_um2;
  const double bits2 = level_bits(l2), bits1 = level_bits(l1);
  const double q2 = a2->area_um2 / bits2, q1 = a1->area_um2 / bits1;
  if (!(std::fabs(q1 - q2) <= 1e-9 * std::max(std::fabs(q1), std::fabs(q2))))
    r.fail("the same area per bit on '" + l2.name + "' and '" + l1.name + "' (DiGamma's rule), " +
           "found " + number_text(q2) + " and " + number_text(q1) + " um^2");
  a.area.sram_um2_per_bit = snap15(q2, [&](double c) {
    return digamma_sram_um2(bits2, c) == a2->area_um2 && digamma_sram_um2(bits1, c) == a1->area_um2;
  });
  validate(a, where);
  return a;
}

}  // namespace sparsemap::arch
