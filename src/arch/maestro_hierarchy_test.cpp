// The MAESTRO-class Arch as a three-level hierarchy: hand-checked fields, exact round trips,
// and the hierarchies from_hierarchy refuses.
#include "sparsemap/arch/maestro_hierarchy.h"

#include <gtest/gtest.h>

#include "sparsemap/arch/area.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/error.h"

namespace sparsemap::arch {
namespace {

double action(const EnergyTable& t, const std::string& comp, const std::string& act) {
  const ComponentEnergy* c = t.find(comp);
  EXPECT_NE(c, nullptr) << comp;
  return c ? c->energy_pj(act).value_or(-1) : -1;
}

TEST(ToHierarchy, MaestroExampleLevels) {
  const Arch a = preset("maestro-example");
  const ArchHierarchy v = to_hierarchy(a);
  const Hierarchy& h = v.hierarchy;
  EXPECT_EQ(h.name, "maestro-example");
  EXPECT_EQ(v.source, a.source);
  EXPECT_DOUBLE_EQ(h.global_cycle_seconds, 1e-9);  // 1000 MHz
  ASSERT_EQ(h.storage.size(), 3u);
  const StorageLevel &dram = h.storage[0], &l2 = h.storage[1], &l1 = h.storage[2];
  EXPECT_EQ(dram.name, "DRAM");
  EXPECT_EQ(dram.depth, 0);  // unbounded
  EXPECT_EQ(dram.read_bandwidth, 50);
  EXPECT_EQ(dram.write_bandwidth, 50);
  EXPECT_EQ(l2.name, "L2");
  EXPECT_EQ(l2.instances, 1);
  EXPECT_EQ(l2.capacity_words(), 3000);  // 3000 B of 1-byte words
  EXPECT_EQ(l2.width_bits, 8);
  EXPECT_EQ(l2.read_bandwidth, 1000);  // NoC
  EXPECT_EQ(l1.name, "L1");
  EXPECT_EQ(l1.instances, 256);
  EXPECT_EQ(l1.mesh_x, 256);
  EXPECT_EQ(l1.mesh_y, 1);
  EXPECT_EQ(l1.capacity_words(), 100);
  EXPECT_EQ(l1.read_bandwidth, 0);  // unlimited
  EXPECT_EQ(h.compute.name, "MAC");
  EXPECT_EQ(h.compute.instances, 256);
  // MAESTRO's ratios: MAC 0.23 pJ, L1 1.68 MACs, L2 18.61 MACs; no NoC or off-chip energy.
  EXPECT_DOUBLE_EQ(action(v.ert, "MAC", "compute"), 0.23);
  EXPECT_DOUBLE_EQ(action(v.ert, "L1", "read"), 1.68 * 0.23);
  EXPECT_DOUBLE_EQ(action(v.ert, "L1", "update"), 1.68 * 0.23);
  EXPECT_DOUBLE_EQ(action(v.ert, "L2", "write"), 18.61 * 0.23);
  EXPECT_EQ(action(v.ert, "DRAM", "read"), 0);
  EXPECT_EQ(action(v.ert, "NoC", "transfer"), 0);
  EXPECT_FALSE(v.ert.source.empty());
  // DiGamma's ART: 282 um^2 per MAC, 0.086 um^2 per bit: L1 800 bits, L2 24,000 bits.
  ASSERT_NE(v.art.find("MAC"), nullptr);
  EXPECT_EQ(v.art.find("MAC")->area_um2, 282);
  EXPECT_DOUBLE_EQ(v.art.find("L1")->area_um2, 800 * 0.086);
  EXPECT_DOUBLE_EQ(v.art.find("L2")->area_um2, 24000 * 0.086);
  EXPECT_EQ(v.art.find("DRAM"), nullptr);  // off chip: no area
  EXPECT_NE(v.art.source.find("DiGamma"), std::string::npos);
}

TEST(ToHierarchy, FlatEdgeMeshWordsAndEnergy) {
  const ArchHierarchy v = to_hierarchy(preset("flat-edge"));
  const StorageLevel& l1 = v.hierarchy.storage[2];
  EXPECT_EQ(l1.mesh_y, 32);
  EXPECT_EQ(l1.mesh_x, 32);
  EXPECT_EQ(l1.datawidth_bits, 16);
  EXPECT_EQ(l1.capacity_words(), 32);                          // 64 B of 2-byte words
  EXPECT_EQ(v.hierarchy.storage[1].capacity_words(), 262144);  // 512 KiB
  EXPECT_EQ(v.hierarchy.compute.mesh_x, 32);
  EXPECT_DOUBLE_EQ(action(v.ert, "DRAM", "update"), 62.4);
  EXPECT_DOUBLE_EQ(action(v.ert, "L2", "read"), 485.0 / 256.0);
  EXPECT_NEAR(v.hierarchy.global_cycle_seconds, 1.0 / 940e6, 1e-20);
}

TEST(ToHierarchy, EveryPresetRoundTripsExactly) {
  for (const Arch& p : presets()) {
    const ArchHierarchy v = to_hierarchy(p);
    EXPECT_EQ(from_hierarchy(v), p) << p.name;
    EXPECT_EQ(from_hierarchy(v.hierarchy, v.ert, v.art, v.source), p) << p.name;
    EXPECT_EQ(to_hierarchy(from_hierarchy(v)), v) << p.name;
  }
}

TEST(ToHierarchy, OddShapesAndSizesRoundTrip) {
  Arch a = preset("flat-edge");
  a.l1_bytes = 65;  // not a whole number of 2-byte words: kept as size_bytes
  a.array_shape = {4, 16, 16};
  a.clock_mhz = 937.5;
  a.energy.noc_pj = 0.7;
  a.area.sram_um2_per_bit = 0.0913;
  const ArchHierarchy v = to_hierarchy(a);
  EXPECT_EQ(v.hierarchy.storage[2].attributes.at("size_bytes"), "65");
  EXPECT_EQ(v.hierarchy.storage[2].attributes.at("array_shape"), "4,16,16");
  EXPECT_EQ(v.hierarchy.storage[2].capacity_words(), 32);
  EXPECT_EQ(from_hierarchy(v), a);
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{1024}, {1, 1024}, {1024, 1}, {}, {2, 512}}) {
    a.array_shape = shape;
    EXPECT_EQ(from_hierarchy(to_hierarchy(a)).array_shape, shape);
  }
}

// A Timeloop-style hierarchy of the same shape: a dummy fan-out level, 4-word blocks.
TEST(FromHierarchy, TimeloopShapeWithDummyAndBlocks) {
  ArchHierarchy v = to_hierarchy(preset("maestro-example"));
  StorageLevel dummy;
  dummy.name = "inter_PE_spatial";
  dummy.dummy = true;
  Hierarchy& h = v.hierarchy;
  h.storage.insert(h.storage.begin() + 2, dummy);
  StorageLevel& l2 = h.storage[1];
  l2.block_size = 4;  // 750 rows of 4 words: the same 3000 B
  l2.depth = 750;
  l2.width_bits = 32;
  for (auto& c : v.ert.components)
    if (c.name == "L2")
      for (auto& act : c.actions) act.energy_pj *= 4;  // per 4-word access
  const Arch a = from_hierarchy(v);
  EXPECT_EQ(a.l2_bytes, 3000);
  EXPECT_DOUBLE_EQ(a.energy.l2_read_pj, 18.61 * 0.23);
  EXPECT_EQ(three_levels(h).l1, 3);
}

void expect_refused(const ArchHierarchy& v, const std::string& what) {
  try {
    from_hierarchy(v, "in.yaml");
    ADD_FAILURE() << "accepted; expected refusal naming " << what;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("in.yaml"), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected"), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

TEST(FromHierarchy, RefusesWhatItCannotExpress) {
  const ArchHierarchy base = to_hierarchy(preset("maestro-example"));
  ArchHierarchy v = base;
  v.hierarchy.storage.push_back(v.hierarchy.storage[2]);
  expect_refused(v, "found 4 storage levels");
  v = base;
  v.hierarchy.storage[1].instances = 2;
  expect_refused(v, "one instance of 'L2'");
  v = base;
  v.hierarchy.storage[0].depth = 1024;
  expect_refused(v, "'DRAM' unbounded");
  v = base;
  v.hierarchy.compute.instances = 128;
  expect_refused(v, "as many instances of 'L1'");
  v = base;
  v.hierarchy.storage[1].datawidth_bits = 16;
  expect_refused(v, "one datawidth");
  v = base;
  v.hierarchy.storage[2].read_bandwidth = 4;
  expect_refused(v, "unlimited bandwidth on 'L1'");
  v = base;
  v.hierarchy.storage[1].write_bandwidth = 4;
  expect_refused(v, "equal read_bandwidth and write_bandwidth");
  v = base;
  v.ert.components[0].actions[1].energy_pj = 3;  // DRAM write != read
  expect_refused(v, "equal read, write and update energies on 'DRAM'");
  v = base;
  v.ert.components[1].actions[2].energy_pj = 0.5;  // L2 update != write
  expect_refused(v, "update energy equal to write energy on 'L2'");
  v = base;
  v.art.components[0].area_um2 *= 2;  // L2 per bit != L1 per bit
  expect_refused(v, "the same area per bit");
  v = base;
  v.art.components.push_back({"NoC_bus", 5});
  expect_refused(v, "no area on 'NoC_bus'");
  v = base;
  v.art.components.pop_back();  // no MAC
  expect_refused(v, "ART entries for 'L2', 'L1' and 'MAC'");
  v = base;
  v.hierarchy.compute.instances = v.hierarchy.storage[2].instances = 0;
  expect_refused(v, "num_pes in [1,");  // validate()
}

}  // namespace
}  // namespace sparsemap::arch
