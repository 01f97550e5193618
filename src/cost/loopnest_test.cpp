// The loop-nest model against timeloop-model's reference outputs (tests/data/timeloop, from
// Accelergy-Project/timeloop-accelergy-exercises; see its PROVENANCE.md).
#include "sparsemap/cost/loopnest.h"

#include <gtest/gtest.h>

#include "sparsemap/io/timeloop.h"
#include "support/test_data.h"
#include "support/timeloop_stats.h"

namespace sparsemap::cost {
namespace {

using timeloop_ref::expect_matches;
using timeloop_ref::read_stats;
using timeloop_ref::RefStats;

std::string exercise(const std::string& sub) {
  return testing::test_data_dir("timeloop") + "/" + sub;
}

// timeloop-model's own input: parsed-processed-input.yaml (architecture, problem, mapping) and
// the run's ERT.
LoopNestResult run_processed(const std::string& ref_dir) {
  const auto in = io::read_timeloop_files(
      {ref_dir + "/parsed-processed-input.yaml", ref_dir + "/timeloop-model.ERT.yaml"});
  EXPECT_TRUE(in.problem && in.arch && in.mapping && in.ert);
  return evaluate_loopnest(*in.problem, *in.arch, *in.mapping, &*in.ert);
}

// The exercise's own input files (v0.4 tag architecture, problem, mapping) and the run's ERT.
LoopNestResult run_inputs(const std::vector<std::string>& files) {
  const auto in = io::read_timeloop_files(files);
  EXPECT_TRUE(in.problem && in.arch && in.mapping && in.ert);
  return evaluate_loopnest(*in.problem, *in.arch, *in.mapping, &*in.ert);
}

struct Case {
  const char* ref;                  // ref-output folder
  std::vector<std::string> inputs;  // arch, prob, map (relative to the exercise)
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"00-model-conv1d-1level/ref-output",
       {"00-model-conv1d-1level/arch/1level.arch.yaml",
        "00-model-conv1d-1level/prob/conv1d.prob.yaml",
        "00-model-conv1d-1level/map/conv1d-1level.map.yaml"}},
      {"01-model-conv1d-2level/ref-output/os",
       {"01-model-conv1d-2level/arch/2level.arch.yaml",
        "01-model-conv1d-2level/prob/conv1d.prob.yaml",
        "01-model-conv1d-2level/map/conv1d-2level-os.map.yaml"}},
      {"01-model-conv1d-2level/ref-output/ws",
       {"01-model-conv1d-2level/arch/2level.arch.yaml",
        "01-model-conv1d-2level/prob/conv1d.prob.yaml",
        "01-model-conv1d-2level/map/conv1d-2level-ws.map.yaml"}},
      {"02-model-conv1d+oc-2level/ref-output/tiling",
       {"02-model-conv1d+oc-2level/arch/2level.arch.yaml",
        "02-model-conv1d+oc-2level/prob/conv1d+oc.prob.yaml",
        "02-model-conv1d+oc-2level/map/conv1d+oc-2level-os-tiled.map.yaml"}},
      {"02-model-conv1d+oc-2level/ref-output/no-tiling",
       {"02-model-conv1d+oc-2level/arch/2level.arch.yaml",
        "02-model-conv1d+oc-2level/prob/conv1d+oc.prob.yaml",
        "02-model-conv1d+oc-2level/map/conv1d+oc-2level-os.map.yaml"}},
      {"03-model-conv1d+oc-3level/ref-output/bypass",
       {"03-model-conv1d+oc-3level/arch/3level.arch.yaml",
        "03-model-conv1d+oc-3level/prob/conv1d+oc.prob.yaml",
        "03-model-conv1d+oc-3level/map/conv1d+oc-3level-bypass.map.yaml"}},
      {"03-model-conv1d+oc-3level/ref-output/no-bypass",
       {"03-model-conv1d+oc-3level/arch/3level.arch.yaml",
        "03-model-conv1d+oc-3level/prob/conv1d+oc.prob.yaml",
        "03-model-conv1d+oc-3level/map/conv1d+oc-3level.map.yaml"}},
      {"04-model-conv1d+oc-3levelspatial/ref-output/cp", {}},
      {"04-model-conv1d+oc-3levelspatial/ref-output/kp", {}},
  };
  return c;
}

TEST(LoopNest, ReproducesTimeloopModelFromItsProcessedInput) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  for (const auto& c : cases()) {
    const std::string ref = exercise(c.ref);
    expect_matches(run_processed(ref), read_stats(ref + "/timeloop-model.stats.txt"), c.ref);
  }
}

TEST(LoopNest, ReproducesTimeloopModelFromTheExerciseInputs) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  for (const auto& c : cases()) {
    if (c.inputs.empty()) continue;  // 04: see ExerciseFourTagFormFansOutBelowTheGlobalBuffer
    const std::string ref = exercise(c.ref);
    std::vector<std::string> files;
    for (const auto& f : c.inputs) files.push_back(exercise(f));
    files.push_back(ref + "/timeloop-model.ERT.yaml");
    expect_matches(run_inputs(files), read_stats(ref + "/timeloop-model.stats.txt"), c.ref);
  }
}

// Exercise 04, C partitioned (processed input: the fan-out sits above the GlobalBuffer, which
// has 16 instances). The numbers, spelled out.
TEST(LoopNest, ExerciseFourChannelPartitionedNumbers) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const auto r = run_processed(exercise("04-model-conv1d+oc-3levelspatial/ref-output/cp"));
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.macs, 49152);
  EXPECT_EQ(r.cycles, 3072);
  EXPECT_EQ(r.utilized_compute_instances, 16);
  const auto* gb = r.level("GlobalBuffer");
  ASSERT_NE(gb, nullptr);
  EXPECT_EQ(gb->utilized_instances, 16);
  ASSERT_EQ(gb->dataspaces.size(), 3u);
  EXPECT_EQ(gb->dataspaces[0].tile_words, 192);  // Weights: C2 x K32 x R3
  EXPECT_EQ(gb->dataspaces[1].tile_words, 36);   // Inputs: C2 x (P16 + R3 - 1)
  EXPECT_EQ(gb->dataspaces[1].reads, 1152);      // 64 sweeps of R x (16 + 1 + 1)
  EXPECT_EQ(gb->dataspaces[2].reads, 512);       // refills of evicted partial sums
  EXPECT_EQ(gb->dataspaces[2].updates, 1024);
  const auto* dram = r.level("MainMemory");
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->dataspaces[2].updates, 512);  // spatially reduced over C
  // Inputs: 1152 reads / 8 words per access x 43.353054 pJ + 36 fills -> 5 writes x 30.878292.
  EXPECT_NEAR(gb->dataspaces[1].energy_pj, 16 * (144 * 43.353054 + 5 * 30.878292), 1e-6);
  EXPECT_NEAR(r.fj_per_compute("Total"), 13011.43, 0.01);
}

// The tag form of exercise 04 fans the 16 PEs out below the GlobalBuffer, as its README
// describes (one GlobalBuffer shared by 16 register files). The committed reference was made by
// a front end that put the fan-out above the GlobalBuffer (16 of them, see the processed input),
// so these numbers are ours, not that reference's: the GlobalBuffer multicasts Inputs (kp) and
// is read once per word for all 16 register files.
TEST(LoopNest, ExerciseFourTagFormFansOutBelowTheGlobalBuffer) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const std::string ex = exercise("04-model-conv1d+oc-3levelspatial");
  const auto r =
      run_inputs({ex + "/arch/3levelspatial.arch.yaml", ex + "/prob/conv1d+oc+ic.prob.yaml",
                  ex + "/map/conv1d+oc+ic-3levelspatial-kp-ws.map.yaml",
                  ex + "/ref-output/kp/timeloop-model.ERT.yaml"});
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.cycles, 3072);
  const auto* gb = r.level("GlobalBuffer");
  ASSERT_NE(gb, nullptr);
  EXPECT_EQ(gb->instances, 1);
  ASSERT_EQ(gb->dataspaces.size(), 3u);
  EXPECT_EQ(gb->dataspaces[0].tile_words, 3072);
  EXPECT_EQ(gb->dataspaces[0].reads, 3072);  // 16 RFs x 192 distinct weights
  EXPECT_EQ(gb->dataspaces[1].reads, 1152);  // multicast: once for the 16 RFs
  EXPECT_EQ(gb->dataspaces[1].fills, 576);
  EXPECT_EQ(gb->dataspaces[2].updates, 16 * 1024);
  EXPECT_EQ(gb->dataspaces[2].reads, 16 * 992);
  const auto* rf = r.level("RegisterFile");
  ASSERT_NE(rf, nullptr);
  EXPECT_EQ(rf->dataspaces[1].fills, 1152);  // as in the reference
}

// timeloop-mapper's best mapping of each example design (its map.yaml), replayed on the
// architecture and problem of its processed input, against its statistics.
LoopNestResult run_design(const std::string& design) {
  const std::string d = exercise("example_designs/" + design + "/");
  const auto in =
      io::read_timeloop_files({d + "parsed-processed-input.yaml", d + "timeloop-mapper.map.yaml",
                               d + "timeloop-mapper.ERT.yaml"});
  EXPECT_TRUE(in.problem && in.arch && in.mapping && in.ert);
  return evaluate_loopnest(*in.problem, *in.arch, *in.mapping, &*in.ert);
}

RefStats design_stats(const std::string& design) {
  return read_stats(exercise("example_designs/" + design + "/timeloop-mapper.stats.txt"));
}

// The tutorial's timeloop-mapper runs (exercises 05 and 06, timeloop+accelergy), replayed the
// same way.
TEST(LoopNest, TutorialMapperResults) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  for (const char* run :
       {"05-mapper-conv1d+oc-3level/ref-output/baked",
        "05-mapper-conv1d+oc-3level/ref-output/freebypass",
        "05-mapper-conv1d+oc-3level/ref-output/null", "06-mapper-convlayer-eyeriss/ref-output",
        "timeloop+accelergy/ref-output/fpmac", "timeloop+accelergy/ref-output/intmac"}) {
    const std::string d = exercise(run) + "/";
    const auto in =
        io::read_timeloop_files({d + "parsed-processed-input.yaml", d + "timeloop-mapper.map.yaml",
                                 d + "timeloop-mapper.ERT.yaml"});
    ASSERT_TRUE(in.problem && in.arch && in.mapping && in.ert) << run;
    expect_matches(evaluate_loopnest(*in.problem, *in.arch, *in.mapping, &*in.ert),
                   read_stats(d + "timeloop-mapper.stats.txt"), run);
  }
}

TEST(LoopNest, SimpleWeightStationaryMapperResult) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  expect_matches(run_design("simple_weight_stationary"), design_stats("simple_weight_stationary"),
                 "simple_weight_stationary");
}

// PEWeightRegs has cluster_size 64: a block of 512 / 8 / 64 = 1 word, and energy priced per
// utilized cluster, min(48 utilized, 256 / 64) = 4.
TEST(LoopNest, SimbaLikeMapperResult) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  expect_matches(run_design("simba_like"), design_stats("simba_like"), "simba_like");
}

// Strided convolution (Hstride = Wstride = 2): the Inputs' sliding window along Q is not reused
// at DRAM because M iterates inside Q there.
TEST(LoopNest, SimpleOutputStationaryMapperResult) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  expect_matches(run_design("simple_output_stationary"), design_stats("simple_output_stationary"),
                 "simple_output_stationary");
}

// Strided convolution whose Inputs fan out over Q (X) and C, S (Y) to the ifmap spads: the
// shared_glb serves each spad its own tile; overlapping windows of neighbouring PEs are not
// multicast (only fan-out loops the data space does not index are).
TEST(LoopNest, EyerissLikeMapperResult) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  expect_matches(run_design("eyeriss_like"), design_stats("eyeriss_like"), "eyeriss_like");
}

TEST(LoopNest, InvalidMappingsAndCapacityAreValues) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const std::string ex = exercise("01-model-conv1d-2level");
  auto in = io::read_timeloop_files({ex + "/arch/2level.arch.yaml", ex + "/prob/conv1d.prob.yaml",
                                     ex + "/map/conv1d-2level-os.map.yaml"});
  auto m = *in.mapping;
  m.directives[0].factors[1].value = 8;  // P=8 at MainMemory: 8 x 1 != 16
  auto r = evaluate_loopnest(*in.problem, *in.arch, m, nullptr);
  EXPECT_EQ(r.status, LoopNestStatus::kInvalidMapping);
  EXPECT_EQ(r.reason, "mapping: the factors of P multiply to 8, the problem's bound is 16");
  m = *in.mapping;
  m.directives[0].target = "Dram";
  r = evaluate_loopnest(*in.problem, *in.arch, m, nullptr);
  EXPECT_EQ(r.reason, "mapping: no storage level named 'Dram'");
  // Everything in the 64-word Buffer: Weights 3 + Inputs 18 + Outputs 16 = 37 fits; shrink it.
  auto h = *in.arch;
  h.storage[1].depth = 36;
  m = *in.mapping;
  m.directives[0].factors = {{"R", 1}, {"P", 1}};
  m.directives[1].factors = {{"R", 3}, {"P", 16}};
  r = evaluate_loopnest(*in.problem, h, m, nullptr);
  EXPECT_EQ(r.status, LoopNestStatus::kOverCapacity);
  EXPECT_EQ(r.reason, "Buffer: tiles need 37 words, capacity 36");
  // A problem built by hand with a projection on an unknown dimension is refused, not indexed.
  auto bad = *in.problem;
  bad.data_spaces[0].projection[0][0].dim = "Z";
  r = evaluate_loopnest(bad, *in.arch, *in.mapping, nullptr);
  EXPECT_EQ(r.status, LoopNestStatus::kInvalidMapping);
  EXPECT_EQ(r.reason, "problem: Weights projects 'Z', not a dimension of Conv1D");
  // Without an ERT the counts stand and the energy is 0.
  r = evaluate_loopnest(*in.problem, *in.arch, *in.mapping, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.energy_pj, 0);
  EXPECT_EQ(r.level("Buffer")->dataspaces[1].fills, 18);
}

}  // namespace
}  // namespace sparsemap::cost
