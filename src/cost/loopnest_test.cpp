// The loop-nest model against timeloop-model's reference outputs (tests/data/timeloop, from
// Accelergy-Project/timeloop-accelergy-exercises; see its PROVENANCE.md).
#include "sparsemap/cost/loopnest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sparsemap/io/timeloop.h"
#include "support/random_loopnest.h"
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

// The prepared evaluator agrees with evaluate_loopnest to the bit on every committed mapper
// result, and a workspace reused over many points gives what a fresh one gives.
TEST(LoopNestEvaluator, PointsEvaluateAsTheNamedMapping) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  for (const char* design :
       {"eyeriss_like", "simba_like", "simple_output_stationary", "simple_weight_stationary"}) {
    const std::string d = exercise(std::string("example_designs/") + design);
    const auto in =
        io::read_timeloop_files({d + "/parsed-processed-input.yaml",
                                 d + "/timeloop-mapper.map.yaml", d + "/timeloop-mapper.ERT.yaml"});
    const LoopNestEvaluator ev(*in.problem, *in.arch, &*in.ert);
    LoopNestPoint x;
    ASSERT_EQ(ev.resolve(*in.mapping, &x), "") << design;
    const LoopNestResult named = evaluate_loopnest(*in.problem, *in.arch, *in.mapping, &*in.ert);
    const LoopNestResult full = ev.evaluate_full(x);
    EXPECT_EQ(full.levels, named.levels) << design;
    EXPECT_EQ(full.cycles, named.cycles) << design;
    EXPECT_EQ(full.energy_pj, named.energy_pj) << design;
    LoopNestWorkspace ws;
    std::mt19937_64 rng(7);
    int ok = 0;
    for (int i = 0; i < 300; ++i) {
      LoopNestPoint y = testing::random_point(ev, *in.problem, *in.arch, rng);
      // Every other point keeps everything in the outermost level alone, so it fits.
      if (i % 2) std::fill(y.keep.begin() + 1, y.keep.end(), 0);
      const LoopNestSummary reused = ev.evaluate(y, ws);
      LoopNestWorkspace fresh_ws;
      const LoopNestSummary fresh = ev.evaluate(y, fresh_ws);
      const LoopNestResult r = ev.evaluate_full(y);
      ASSERT_EQ(reused.status, fresh.status);
      ASSERT_EQ(reused.status, r.status);
      ASSERT_EQ(reused.cycles, fresh.cycles);
      ASSERT_EQ(reused.energy_pj, fresh.energy_pj);
      if (r.status != LoopNestStatus::kOk) continue;
      ++ok;
      EXPECT_EQ(reused.cycles, r.cycles);
      EXPECT_EQ(reused.energy_pj, r.energy_pj);
      EXPECT_EQ(reused.utilization, r.utilization);
    }
    EXPECT_GT(ok, 0) << design << ": no random point fits";
    EXPECT_EQ(ev.evaluate(x, ws).cycles, named.cycles) << design;
  }
}

// Points that are not mappings of the problem come back as statuses with their reasons.
TEST(LoopNestEvaluator, BadPointsAreStatuses) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const std::string ex = exercise("01-model-conv1d-2level");
  const auto in =
      io::read_timeloop_files({ex + "/arch/2level.arch.yaml", ex + "/prob/conv1d.prob.yaml",
                               ex + "/map/conv1d-2level-os.map.yaml"});
  const LoopNestEvaluator ev(*in.problem, *in.arch, nullptr);
  LoopNestPoint x;
  ASSERT_EQ(ev.resolve(*in.mapping, &x), "");
  const int p = in.problem->dim_index("P");
  auto reason = [&](const LoopNestPoint& y) { return ev.evaluate_full(y).reason; };
  LoopNestPoint y = x;
  y.temporal_factor(1, p) *= 2;  // 32 over P = 16
  EXPECT_EQ(reason(y), "mapping: the factors of P multiply to more than the problem's bound 16");
  y = x;
  y.temporal_factor(0, p) = 0;
  EXPECT_EQ(reason(y), "mapping: the factors of P multiply to 0, the problem's bound is 16");
  y = x;
  y.temporal_factor(1, p) = int64_t{1} << 62;  // no overflow on the way
  EXPECT_EQ(reason(y), "mapping: the factors of P multiply to more than the problem's bound 16");
  y = x;
  y.temporal_order[1 * y.dims] = y.temporal_order[1 * y.dims + 1];
  EXPECT_EQ(reason(y), "mapping: a loop order of Buffer is not a permutation of the dimensions");
  y = x;
  y.keep[0] = 0;
  EXPECT_EQ(reason(y), "mapping: the outermost level MainMemory bypasses Weights");
  y.resize(1, 2, 3);
  EXPECT_EQ(reason(y), "mapping: a point of 1 levels x 2 dimensions, the model has 2 x 2");
  auto m = *in.mapping;
  m.directives[0].permutation = "PP";
  EXPECT_EQ(ev.resolve(m, &y), "mapping: MainMemory's permutation names 'P' twice");
}

// The files of the one design a committed map.yaml belongs to: the processed input and ERT
// beside a timeloop-mapper map, or the exercise's arch/*.yaml, prob/*.yaml and the first
// ref-output ERT (any run of the exercise: the same architecture) for a hand-written one.
std::vector<std::string> design_of(const std::filesystem::path& map) {
  namespace fs = std::filesystem;
  const fs::path dir = map.parent_path();
  if (fs::exists(dir / "parsed-processed-input.yaml"))
    return {(dir / "parsed-processed-input.yaml").string(), map.string(),
            (dir / "timeloop-mapper.ERT.yaml").string()};
  std::vector<std::string> files = {map.string()}, erts;
  const fs::path ex = dir.parent_path();
  for (const char* sub : {"arch", "prob"})
    for (const auto& e : fs::directory_iterator(ex / sub)) files.push_back(e.path().string());
  for (const auto& e : fs::recursive_directory_iterator(ex / "ref-output"))
    if (e.path().filename() == "timeloop-model.ERT.yaml") erts.push_back(e.path().string());
  std::sort(erts.begin(), erts.end());
  if (!erts.empty()) files.push_back(erts.front());
  return files;
}

// Every committed map.yaml, written by io::write_timeloop_mapping and read back, evaluates to
// exactly what the file itself evaluates to, on its own design.
TEST(LoopNest, WrittenMappingsEvaluateIdentically) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  int maps = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 9 || name.substr(name.size() - 9) != ".map.yaml") continue;
    ++maps;
    const auto in = io::read_timeloop_files(design_of(e.path()));
    ASSERT_TRUE(in.problem && in.arch && in.mapping && in.ert) << name;
    const auto back =
        io::parse_timeloop_yaml(io::write_timeloop_mapping(*in.mapping), name + " (written)");
    ASSERT_TRUE(back.mapping) << name;
    const auto a = evaluate_loopnest(*in.problem, *in.arch, *in.mapping, &*in.ert);
    const auto b = evaluate_loopnest(*in.problem, *in.arch, *back.mapping, &*in.ert);
    ASSERT_TRUE(a.ok()) << e.path() << ": " << a.reason;
    EXPECT_GT(a.energy_pj, 0) << name;
    EXPECT_EQ(b.status, a.status) << name;
    EXPECT_EQ(b.cycles, a.cycles) << name;
    EXPECT_EQ(b.utilization, a.utilization) << name;
    EXPECT_EQ(b.energy_pj, a.energy_pj) << name;
    EXPECT_EQ(b.compute_energy_pj, a.compute_energy_pj) << name;
    EXPECT_EQ(b.levels, a.levels) << name;
  }
  EXPECT_EQ(maps, 19);
}

}  // namespace
}  // namespace sparsemap::cost
