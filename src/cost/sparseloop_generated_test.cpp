// The Sparseloop model against timeloop-model v3.0.3 runs made for this repository (not taken
// from the exercises): tests/data/sparseloop/generated/<run>/, see its PROVENANCE.md and
// bench/sparseloop_generate.py. Each run is checked as the exercises' references are
// (sparseloop_test.cpp, check_design), priced with v3.0.3's conventions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/io/timeloop.h"
#include "support/sparseloop_check.h"
#include "support/test_data.h"

namespace sparsemap::cost {
namespace {

// One generated run: `input.yaml` (architecture, problem with densities, sparse_optimizations
// in v3.0.3's spelling), `map.yaml` and timeloop-model's `timeloop-model.stats.txt`; the ERT is
// the base design's committed timeloop-mapper.ERT.yaml.
struct GeneratedRun {
  const char* name;
  const char* base;                      // tests/data/sparseloop/<base>: the ERT
  const char* not_reproduced = nullptr;  // why we do not reproduce it (the test is skipped)
};

std::ostream& operator<<(std::ostream& os, const GeneratedRun& r) { return os << r.name; }

constexpr const char* kDot = "01.2.3-SCDU-dot-product";
constexpr const char* kStc = "sparse_tensor_core_like";

// clang-format off
const std::vector<GeneratedRun>& generated_runs() {
  static const std::vector<GeneratedRun> runs = {
      {"dot-fixed-0.6-cp-skip", kDot},
      {"dot-hyper-0.3-cp-skip", kDot},
      {"dot-gate-both", kDot},
      {"dot-bitmask-skip", kDot},
      {"dot-rle-2bit-skip", kDot},
      {"dot-compute-gating", kDot},
      {"dot-cp-both-compute-skip", kDot},
      {"stc-gemm-a-uopcp", kStc},
      {"stc-gemm-hyper-skip-z", kStc},
      {"stc-gemm-lrf-gating", kStc},
      {"stc-gemm-bitmask-smem", kStc},
      {"stc-gemm-rle-8bit", kStc},
      {"stc-gemm-fanout-8x8", kStc},
      {"stc-gemm-dram-tiled", kStc},
      {"stc-gemm-cp-4bit-lrf-skip", kStc},
      {"dot-ub-gate", kDot},
      {"dot-rle-3bit-widened", kDot},
      {"stc-gemm-spatial-skip", kStc},
      {"conv1d-spatial-hyper", "03.2.3-conv1d+oc-spatial"},
      {"conv1d-spatial-m2-q", "03.2.3-conv1d+oc-spatial"},
      {"spmspm-hyper", "02.2.1-spMspM"},
      {"eyeriss-gating-small", "04.2.1-eyeriss-like-gating"},
      {"eyerisscomp-hyper", "04.2.3-eyeriss-like-onchip-compression"},
      {"eyeriss-skip-weights", "04.2.1-eyeriss-like-gating"},
  };
  return runs;
}
// clang-format on

class GeneratedSparseloopRun : public ::testing::TestWithParam<GeneratedRun> {};

// Computes, cycles, every level's algorithmic / actual / gated / skipped reads, fills and
// updates and metadata accesses per rank exact; utilisation to v3.0.3's two printed decimals of
// a fraction; energy per component (fJ per algorithmic and per actual compute) to the printed
// two decimals.
TEST_P(GeneratedSparseloopRun, ReproducesTimeloopModel) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const GeneratedRun& run = GetParam();
  if (run.not_reproduced) GTEST_SKIP() << run.not_reproduced;
  const std::string here = dir + "/generated/" + run.name + "/";
  const auto in = io::read_timeloop_files(
      {here + "input.yaml", here + "map.yaml", dir + "/" + run.base + "/timeloop-mapper.ERT.yaml"});
  ASSERT_TRUE(in.problem && in.arch && in.mapping && in.ert && in.sparse) << run.name;
  const auto r = evaluate_sparseloop(*in.problem, *in.arch, *in.mapping, &*in.ert, *in.sparse,
                                     in.densities, SparseloopPricing::kTimeloop303);
  sparseloop_ref::expect_matches(
      r, sparseloop_ref::read_sparse_stats(here + "timeloop-model.stats.txt"), run.name);
}

std::string run_name(const ::testing::TestParamInfo<GeneratedRun>& info) {
  std::string s = info.param.name;
  for (auto& c : s)
    if (c == '-' || c == '.') c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Sparseloop, GeneratedSparseloopRun, ::testing::ValuesIn(generated_runs()),
                         run_name);

}  // namespace
}  // namespace sparsemap::cost
