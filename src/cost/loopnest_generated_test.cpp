// The loop-nest model against timeloop-model runs made for this repository (not taken from the
// exercises): tests/data/timeloop/generated/<design>/<layer>/, see its PROVENANCE.md.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sparsemap/cost/loopnest.h"
#include "sparsemap/io/timeloop.h"
#include "support/test_data.h"
#include "support/timeloop_stats.h"

namespace sparsemap::cost {
namespace {

// One generated run: timeloop-mapper's best mapping of `layer` on `design`, evaluated by
// timeloop-model 3.0.3. The architecture is generated/<design>/arch.yaml (the example design's
// processed input in Timeloop v3.0.3's key spelling), its ERT the committed
// example_designs/<design>/timeloop-mapper.ERT.yaml; the run's folder holds the problem
// (prob.yaml), the mapping (map.yaml) and timeloop-model's statistics (timeloop-model.stats.txt).
struct GeneratedRun {
  const char* design;
  const char* layer;
  const char* not_reproduced = nullptr;  // why we do not reproduce it (the test is skipped)
};

std::ostream& operator<<(std::ostream& os, const GeneratedRun& r) {
  return os << r.design << "/" << r.layer;
}

// clang-format off
const std::vector<GeneratedRun>& generated_runs() {
  // Layers (tests/data/timeloop/generated/PROVENANCE.md): resnet18_01 3x3 conv, resnet18_10 3x3
  // conv with stride 2, mobilenet_v3_13 1x1 conv, mobilenet_v3_07 depthwise 3x3 conv (G = 72),
  // resnet18_20 fully connected.
  static const std::vector<GeneratedRun> runs = {
      {"eyeriss_like", "resnet18_01"},
      {"eyeriss_like", "resnet18_10"},
      {"eyeriss_like", "mobilenet_v3_13"},
      {"eyeriss_like", "mobilenet_v3_07"},
      {"eyeriss_like", "resnet18_20"},
      {"simba_like", "resnet18_01"},
      {"simba_like", "resnet18_10"},
      {"simba_like", "mobilenet_v3_13"},
      {"simba_like", "mobilenet_v3_07"},
      {"simba_like", "resnet18_20"},
      {"simple_output_stationary", "resnet18_01"},
      {"simple_output_stationary", "resnet18_10"},
      {"simple_output_stationary", "mobilenet_v3_13"},
      {"simple_output_stationary", "mobilenet_v3_07"},
      {"simple_output_stationary", "resnet18_20"},
      {"simple_weight_stationary", "resnet18_01"},
      {"simple_weight_stationary", "resnet18_10"},
      {"simple_weight_stationary", "mobilenet_v3_13"},
      {"simple_weight_stationary", "mobilenet_v3_07"},
      {"simple_weight_stationary", "resnet18_20"},
  };
  return runs;
}
// clang-format on

class GeneratedTimeloopRun : public ::testing::TestWithParam<GeneratedRun> {};

// Cycles, utilisation and every level's reads, fills and updates per data space exact; energy
// per component (fJ/compute) within 0.1%.
TEST_P(GeneratedTimeloopRun, ReproducesTimeloopModel) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const GeneratedRun& run = GetParam();
  if (run.not_reproduced) GTEST_SKIP() << run.not_reproduced;
  const std::string design = dir + "/generated/" + run.design + "/";
  const std::string here = design + run.layer + "/";
  const auto in = io::read_timeloop_files(
      {design + "arch.yaml", dir + "/example_designs/" + run.design + "/timeloop-mapper.ERT.yaml",
       here + "prob.yaml", here + "map.yaml"});
  ASSERT_TRUE(in.arch && in.ert && in.problem && in.mapping);
  timeloop_ref::expect_matches(evaluate_loopnest(*in.problem, *in.arch, *in.mapping, &*in.ert),
                               timeloop_ref::read_stats(here + "timeloop-model.stats.txt"),
                               std::string(run.design) + "/" + run.layer);
}

// generated/<design>/arch.yaml is the example design's processed input respelled for Timeloop
// v3.0.3 (cluster-size, multiple-buffering, ...): both read to the same architecture.
TEST(LoopNest, GeneratedArchitecturesAreTheExampleDesigns) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  for (const char* design :
       {"eyeriss_like", "simba_like", "simple_output_stationary", "simple_weight_stationary"}) {
    const auto v3 = io::read_timeloop_files({dir + "/generated/" + design + "/arch.yaml"});
    const auto v4 = io::read_timeloop_files(
        {dir + "/example_designs/" + design + "/parsed-processed-input.yaml"});
    ASSERT_TRUE(v3.arch && v4.arch) << design;
    EXPECT_TRUE(*v3.arch == *v4.arch) << design;
  }
}

std::string run_name(const ::testing::TestParamInfo<GeneratedRun>& info) {
  return std::string(info.param.design) + "_" + info.param.layer;
}

INSTANTIATE_TEST_SUITE_P(LoopNest, GeneratedTimeloopRun, ::testing::ValuesIn(generated_runs()),
                         run_name);

}  // namespace
}  // namespace sparsemap::cost
