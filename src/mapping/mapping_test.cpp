// Directive construction, equality, levels and DFSL text.
#include "sparsemap/mapping/mapping.h"

#include <gtest/gtest.h>

namespace sparsemap::mapping {
namespace {

TEST(Mapping, LevelsAndClusterSizes) {
  Mapping m;
  m.directives = {Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::temporal(Dim::C, SizeExpr::lit(64), SizeExpr::lit(64)),
                  Directive::cluster(SizeExpr::lit(64)),
                  Directive::spatial(Dim::C, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::temporal(Dim::Y, SizeExpr::sz(Dim::R), SizeExpr::lit(1))};
  const auto levels = m.levels();
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].size(), 2u);
  EXPECT_EQ(levels[1].size(), 2u);
  workload::Layer l;
  l.dim(Dim::R) = 3;
  EXPECT_EQ(m.cluster_sizes(l), std::vector<int64_t>{64});
  EXPECT_EQ(levels[1][1].size.resolve(l), 3);
}

TEST(Mapping, DfslText) {
  EXPECT_EQ(to_dfsl(Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(1))),
            "SpatialMap(1,1) K;");
  EXPECT_EQ(to_dfsl(Directive::temporal(Dim::Y, SizeExpr::sz(Dim::R), SizeExpr::lit(1), true)),
            "TemporalMap(Sz(R),1) Y';");
  EXPECT_EQ(to_dfsl(Directive::cluster(SizeExpr::sz(Dim::R))), "Cluster(Sz(R),P);");
  EXPECT_EQ(to_dfsl(Directive::cluster(SizeExpr::lit(8), true)), "Cluster(8,L);");
}

TEST(Mapping, Equality) {
  const auto a = Directive::temporal(Dim::X, SizeExpr::lit(3), SizeExpr::lit(1));
  auto b = a;
  EXPECT_EQ(a, b);
  b.primed = true;
  EXPECT_NE(a, b);
  EXPECT_NE(SizeExpr::lit(3), SizeExpr::sz(Dim::R));
  EXPECT_EQ(SizeExpr::sz(Dim::R), SizeExpr::sz(Dim::R));
}

}  // namespace
}  // namespace sparsemap::mapping
