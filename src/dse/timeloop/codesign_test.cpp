// Co-design on a Timeloop template: eyeriss_like's fan-outs and depths under its ART.
#include "sparsemap/dse/timeloop/codesign.h"

#include <gtest/gtest.h>

#include "sparsemap/arch/area.h"
#include "sparsemap/io/timeloop.h"
#include "support/test_data.h"

namespace sparsemap::dse::timeloop {
namespace {

struct Eyeriss {
  io::TimeloopInputs in;
  Eyeriss() {
    const std::string d = testing::test_data_dir("timeloop") + "/example_designs/eyeriss_like/";
    in = io::read_timeloop_files({d + "parsed-processed-input.yaml", d + "timeloop-mapper.ERT.yaml",
                                  d + "timeloop-mapper.ART.yaml"});
  }
};

std::vector<NetworkLayer> resnet18(const std::vector<std::string>& ids) {
  std::vector<NetworkLayer> out;
  for (const auto& id : ids) {
    const auto in = io::read_timeloop_files(
        {testing::test_data_dir("timeloop") + "/layer_shapes/resnet18/" + id + ".yaml"});
    out.push_back({id, *in.problem});
  }
  return out;
}

// The template decodes to itself; its area is the ART's sum by hand: the global buffer, 168 x
// (ifmap, weights, psum spads and a MAC) and the two fan-out placeholders (1 um^2 per instance,
// 1 + 14 instances).
TEST(TimeloopCodesign, TemplateAndArea) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const Eyeriss e;
  const TemplateSpace space(*e.in.arch, *e.in.art);
  const Candidate base = space.base();
  EXPECT_EQ(base.hierarchy, *e.in.arch);
  EXPECT_EQ(space.decode(space.base_genome()).hierarchy, *e.in.arch);
  const double by_hand =
      217363.36892 + 168 * (70.091961 + 5816.44278 + 123.627348 + 191.82) + 1.0 + 14 * 1.0;
  EXPECT_NEAR(base.area_um2, by_hand, 1e-6);
  // Fan-out knobs (columns along X, PEs per column along Y) and four depth knobs.
  EXPECT_EQ(space.genes(), 2u + 4u);
}

// Under the template's own area, co-design finds a design at least as good on EDP, within the
// budget (two ResNet-18 layers; small budgets, fixed seed).
TEST(TimeloopCodesign, BeatsTheTemplateWithinItsArea) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const Eyeriss e;
  const TemplateSpace space(*e.in.arch, *e.in.art);
  CodesignOptions o;
  o.area_budget_um2 = space.base().area_um2;
  o.designs = 32;
  o.network.mapper.budget = 500;
  o.final_budget = 2000;
  const CodesignResult r = codesign(resnet18({"01", "05"}), *e.in.arch, &*e.in.ert, *e.in.art, o);
  EXPECT_LE(r.best.area_um2, o.area_budget_um2);
  EXPECT_GT(r.feasible, 0);
  EXPECT_LE(r.best_network.edp(), r.base_network.edp());
  EXPECT_EQ(r.designs, 32);
}

}  // namespace
}  // namespace sparsemap::dse::timeloop
