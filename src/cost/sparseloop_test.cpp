// The Sparseloop model against Sparseloop's reference outputs (tests/data/sparseloop, from
// Accelergy-Project/timeloop-accelergy-exercises; see its PROVENANCE.md). Each design's own
// inputs (arch.yaml with sparse_optimizations, problem.yaml with densities), the mapping
// timeloop-mapper reported (timeloop-mapper.map.yaml) and the run's ERT.
#include "sparsemap/cost/sparseloop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "sparsemap/io/timeloop.h"
#include "support/random_loopnest.h"
#include "support/sparseloop_check.h"
#include "support/sparseloop_stats.h"
#include "support/test_data.h"
#include "support/timeloop_stats.h"

namespace sparsemap::cost {
namespace {

using sparseloop_ref::expect_matches;
using sparseloop_ref::read_sparse_stats;
using sparseloop_ref::RefSparseStats;

std::string design_dir(const std::string& design) {
  return testing::test_data_dir("sparseloop") + "/" + design + "/";
}

SparseLoopResult run_files(const std::vector<std::string>& files) {
  const auto in = io::read_timeloop_files(files);
  EXPECT_TRUE(in.problem && in.arch && in.mapping && in.ert) << files.front();
  const arch::SparseOptimizations none;
  return evaluate_sparseloop(*in.problem, *in.arch, *in.mapping, &*in.ert,
                             in.sparse ? *in.sparse : none, in.densities);
}

SparseLoopResult run_design(const std::string& design) {
  const std::string d = design_dir(design);
  return run_files({d + "arch.yaml", d + "problem.yaml", d + "timeloop-mapper.map.yaml",
                    d + "timeloop-mapper.ERT.yaml"});
}

// A run without sparse optimisations is the dense model's, action for action.
void expect_dense(const SparseLoopResult& r) {
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.actual_computes, r.dense.macs);
  EXPECT_EQ(r.gated_computes + r.skipped_computes, 0);
  EXPECT_EQ(r.cycles, r.dense.cycles);
  EXPECT_NEAR(r.energy_pj, r.dense.energy_pj, 1e-9 * r.dense.energy_pj);
  ASSERT_EQ(r.levels.size(), r.dense.levels.size());
  for (size_t i = 0; i < r.levels.size(); ++i) {
    ASSERT_EQ(r.levels[i].dataspaces.size(), r.dense.levels[i].dataspaces.size());
    for (size_t k = 0; k < r.levels[i].dataspaces.size(); ++k) {
      const auto& s = r.levels[i].dataspaces[k];
      const auto& d = r.dense.levels[i].dataspaces[k];
      EXPECT_EQ(s.reads.actual, d.reads);
      EXPECT_EQ(s.fills.actual, d.fills);
      EXPECT_EQ(s.updates.actual, d.updates);
      EXPECT_NEAR(s.energy_pj, d.energy_pj, 1e-9 + 1e-12 * d.energy_pj);
    }
  }
}

void check_design(const std::string& design) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  expect_matches(run_design(design),
                 read_sparse_stats(design_dir(design) + "timeloop-mapper.stats.txt"), design);
}

// 01.2.1 is dense (no densities, no optimisations): Timeloop prints its dense statistics.
TEST(Sparseloop, DenseDotProduct) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const std::string d = design_dir("01.2.1-DUDU-dot-product");
  const auto r = run_design("01.2.1-DUDU-dot-product");
  expect_dense(r);
  timeloop_ref::expect_matches(r.dense, timeloop_ref::read_stats(d + "timeloop-mapper.stats.txt"),
                               "01.2.1-DUDU-dot-product");
}

// sparse_tensor_core_like at the reference commit: densities (A at 0.5) but no optimisations,
// so a dense run (Timeloop's dense statistics); its processed input and timeloop-mapper's map.
TEST(Sparseloop, SparseTensorCoreLikeWithoutOptimizationsIsDense) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const std::string d = design_dir("sparse_tensor_core_like");
  const auto r = run_files({d + "parsed-processed-input.yaml", d + "timeloop-mapper.map.yaml",
                            d + "timeloop-mapper.ERT.yaml"});
  expect_dense(r);
  timeloop_ref::expect_matches(r.dense, timeloop_ref::read_stats(d + "timeloop-mapper.stats.txt"),
                               "sparse_tensor_core_like");
}
TEST(Sparseloop, GatedDotProduct) { check_design("01.2.2-SUDU-dot-product"); }
TEST(Sparseloop, SkippedCompressedDotProduct) { check_design("01.2.3-SCDU-dot-product"); }
TEST(Sparseloop, SpMspM) { check_design("02.2.1-spMspM"); }
TEST(Sparseloop, SpMspMTiled) { check_design("02.2.2-spMspM-tiled"); }
TEST(Sparseloop, Conv1dCompressedWeights) { check_design("03.2.1-conv1d"); }
TEST(Sparseloop, Conv1dOutputChannels) { check_design("03.2.2-conv1d+oc"); }
TEST(Sparseloop, Conv1dOutputChannelsSpatial) { check_design("03.2.3-conv1d+oc-spatial"); }
TEST(Sparseloop, EyerissLikeGating) { check_design("04.2.1-eyeriss-like-gating"); }
TEST(Sparseloop, EyerissLikeGatingMapperResult) {
  check_design("04.2.2-eyeriss-like-gating-mapspace-search");
}

// 04.2.3: Inputs and Outputs compressed in DRAM, Inputs in the global buffer too (pre-tiled:
// DRAM's innermost rank is the global buffer's), Inputs skipped on Weights in the PEs; the
// global buffer decompresses what it takes from DRAM and compresses Outputs on the way back.
TEST(Sparseloop, EyerissLikeOnChipCompression) {
  check_design("04.2.3-eyeriss-like-onchip-compression");
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const auto r = run_design("04.2.3-eyeriss-like-onchip-compression");
  ASSERT_TRUE(r.ok()) << r.reason;
  const auto* out = r.level("DRAM")->dataspace("Outputs");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->format, "uop rle");
  ASSERT_EQ(out->format_reads.size(), 2u);
  // One run length per nonzero: 259,584 points x 0.403 = 104,612.35 units, x 47 tile reads.
  EXPECT_EQ(out->format_reads[0].metadata, 4916781);
  EXPECT_EQ(out->format_reads[1].payload, 127135);  // 2,705 offsets (2,704 fibres + 1) x 47
  const auto* glb = r.level("shared_glb")->dataspace("Outputs");
  ASSERT_NE(glb, nullptr);
  EXPECT_EQ(glb->decompressions, glb->fills.actual);
  EXPECT_EQ(glb->compressions, out->updates.actual);
}

// 01.2.3 spelled out: A (density 0.25, fixed_structured) in CP, B and Z skipped on A.
TEST(Sparseloop, SkippedDotProductNumbers) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const auto r = run_design("01.2.3-SCDU-dot-product");
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.algorithmic_computes, 16);
  EXPECT_EQ(r.actual_computes, 4);  // 16 - floor(16 x 0.75)
  EXPECT_EQ(r.cycles, 4);
  const auto* buf = r.level("Buffer");
  ASSERT_NE(buf, nullptr);
  const auto* a = buf->dataspace("A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->format, "cp");
  EXPECT_EQ(a->reads.actual, 4);  // 16 - floor(16 x (1 - 0.25)): zeros are not stored
  ASSERT_EQ(a->format_reads.size(), 1u);
  EXPECT_EQ(a->format_reads[0].metadata, 4);  // one 4-bit coordinate per nonzero
  const auto* z = buf->dataspace("Z");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->reads.skipped, 12);  // ceil(15 x 0.75): read_write rounds up
  EXPECT_EQ(z->updates.skipped, 12);
  // A: 4 reads x 0.582895 + 4 metadata reads (16 bits / 4-bit rows) x 0.191076 pJ.
  EXPECT_NEAR(a->energy_pj, 4 * 0.582895 + 4 * 0.191076, 1e-9);
}

TEST(Sparseloop, JsonAddsTheComputeCounts) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  EXPECT_EQ(run_design("02.2.1-spMspM").level("Buffer")->dataspace("B")->format, "uop cp");
  const auto j = run_design("01.2.2-SUDU-dot-product").to_json();
  EXPECT_EQ(j.at("algorithmic_computes"), 16);
  EXPECT_EQ(j.at("actual_computes"), 4);
  EXPECT_EQ(j.at("gated_computes"), 0);
  EXPECT_EQ(j.at("skipped_computes"), 0);
  EXPECT_EQ(j.at("cycles"), 16);
  EXPECT_EQ(j.at("levels").at(0).at("dataspaces").at("B").at("read_counts").at("gated"), 12);
}

// As Timeloop: an uncompressed tile under a compressed parent needs decompression_supported
// (and compression_supported for read_write data); 04.2.3's global buffer says both.
TEST(Sparseloop, DecompressionMustBeSupported) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const std::string d = design_dir("04.2.3-eyeriss-like-onchip-compression");
  auto in =
      io::read_timeloop_files({d + "arch.yaml", d + "problem.yaml", d + "timeloop-mapper.map.yaml",
                               d + "timeloop-mapper.ERT.yaml"});
  ASSERT_TRUE(in.arch && in.sparse);
  in.arch->storage[in.arch->find("shared_glb")].attributes.erase("compression_supported");
  const auto r =
      evaluate_sparseloop(*in.problem, *in.arch, *in.mapping, &*in.ert, *in.sparse, in.densities);
  EXPECT_EQ(r.status, LoopNestStatus::kInvalidMapping);
  EXPECT_EQ(r.reason,
            "shared_glb: compression of Outputs to DRAM needed but not supported "
            "(compression_supported)");
}

// A loop-nest point as Timeloop's mapping entries (dimension names of one character or more,
// permutations space-separated).
mapping::LoopNest to_mapping(const LoopNestPoint& x, const workload::Einsum& p,
                             const arch::Hierarchy& h) {
  mapping::LoopNest m;
  for (int i = 0; i < x.levels; ++i) {
    for (const auto kind :
         {mapping::LoopNestDirectiveKind::kTemporal, mapping::LoopNestDirectiveKind::kSpatial}) {
      mapping::LoopNestDirective d;
      d.target = h.storage[i].name;
      d.kind = kind;
      const bool t = kind == mapping::LoopNestDirectiveKind::kTemporal;
      const auto& order = t ? x.temporal_order : x.spatial_order;
      for (int pos = x.dims - 1; pos >= 0; --pos) {  // innermost first
        const int k = order[i * x.dims + pos];
        d.factors.push_back(
            {p.dims[k], t ? x.temporal[i * x.dims + k] : x.spatial[i * x.dims + k]});
        d.permutation += (d.permutation.empty() ? "" : " ") + p.dims[k];
      }
      m.directives.push_back(d);
    }
    mapping::LoopNestDirective d;
    d.target = h.storage[i].name;
    d.kind = mapping::LoopNestDirectiveKind::kDataspace;
    for (size_t ds = 0; ds < p.data_spaces.size(); ++ds)
      (x.keep[i] >> ds & 1 ? d.keep : d.bypass).push_back(p.data_spaces[ds].name);
    m.directives.push_back(d);
  }
  return m;
}

// Random mappings of the sparse designs: whatever the mapping, an evaluation that succeeds
// splits every count into actual + gated + skipped <= algorithmic (the rest: zeros a
// compressed format does not store), never reports negative energy, and keeps the cycles at
// least the compute cycles.
TEST(Sparseloop, RandomMappingsKeepTheCountsConsistent) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  std::mt19937_64 rng(28);
  int ok = 0;
  for (const char* design :
       {"02.2.1-spMspM", "03.2.3-conv1d+oc-spatial", "04.2.1-eyeriss-like-gating",
        "04.2.3-eyeriss-like-onchip-compression"}) {
    const std::string d = design_dir(design);
    const auto in = io::read_timeloop_files(
        {d + "arch.yaml", d + "problem.yaml", d + "timeloop-mapper.ERT.yaml"});
    ASSERT_TRUE(in.problem && in.arch && in.sparse) << design;
    const LoopNestEvaluator ev(*in.problem, *in.arch, &*in.ert);
    for (int trial = 0; trial < 100; ++trial) {
      const LoopNestPoint x = testing::random_point(ev, *in.problem, *in.arch, rng);
      const auto r =
          evaluate_sparseloop(*in.problem, *in.arch, to_mapping(x, *in.problem, *in.arch), &*in.ert,
                              *in.sparse, in.densities);
      if (!r.ok()) continue;
      ++ok;
      SCOPED_TRACE(std::string(design) + " trial " + std::to_string(trial));
      EXPECT_EQ(r.algorithmic_computes, in.problem->operations());
      EXPECT_GE(r.actual_computes, 0);
      EXPECT_LE(r.actual_computes + r.gated_computes + r.skipped_computes, r.algorithmic_computes);
      EXPECT_GE(r.cycles, r.compute_cycles);
      EXPECT_GE(r.energy_pj, 0);
      for (const auto& l : r.levels)
        for (const auto& ds : l.dataspaces)
          for (const SparseCounts* c : {&ds.reads, &ds.fills, &ds.updates}) {
            EXPECT_GE(std::min({c->actual, c->gated, c->skipped}), 0) << l.name << " " << ds.name;
            EXPECT_LE(c->actual + c->gated + c->skipped, c->algorithmic)
                << l.name << " " << ds.name;
          }
    }
  }
  // Many random points do not fit (capacity, fan-out, more loops than a format has ranks,
  // all refused as Timeloop refuses them); enough do.
  EXPECT_GT(ok, 20);
}

TEST(Sparseloop, UnknownNamesAreAStatusNotACrash) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const std::string d = design_dir("01.2.2-SUDU-dot-product");
  const auto in =
      io::read_timeloop_files({d + "arch.yaml", d + "problem.yaml", d + "timeloop-mapper.map.yaml",
                               d + "timeloop-mapper.ERT.yaml"});
  ASSERT_TRUE(in.sparse);
  auto sparse = *in.sparse;
  sparse.levels[0].actions[0].condition_on = {"Q"};
  const auto r =
      evaluate_sparseloop(*in.problem, *in.arch, *in.mapping, &*in.ert, sparse, in.densities);
  EXPECT_EQ(r.status, LoopNestStatus::kInvalidMapping);
  EXPECT_NE(r.reason.find("'Q'"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace sparsemap::cost
