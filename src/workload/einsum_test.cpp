// to_einsum: every GEMM-class layer of the zoo keeps its MACs as a Timeloop CNN-layer problem.
#include "sparsemap/workload/einsum.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"
#include "sparsemap/workload/layer.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::workload {
namespace {

TEST(ToEinsum, KeepsEveryZooLayersMacs) {
  for (const char* name : {"resnet50", "mobilenet-v2", "bert-base", "vgg16"}) {
    const Model m = zoo_model(name);
    for (const Layer& l : m.layers) {
      if (!is_gemm_class(l.kind)) continue;
      EXPECT_EQ(to_einsum(l).operations(), l.macs()) << name << " " << l.name;
    }
  }
}

TEST(ToEinsum, HandWorkedShapes) {
  // 3x3 stride-2 conv of 56x56x64 to 128 channels, pad 1: output 28x28.
  const Einsum c = to_einsum(conv2d("c", 1, 64, 56, 56, 128, 3, 2, 1));
  EXPECT_EQ(c.bound("C"), 64);
  EXPECT_EQ(c.bound("M"), 128);
  EXPECT_EQ(c.bound("P"), 28);
  EXPECT_EQ(c.bound("R"), 3);
  EXPECT_EQ(c.coefficient_values.at("Wstride"), 2);
  // Depthwise: G carries the channels.
  const Einsum d = to_einsum(conv2d("d", 1, 32, 112, 112, 32, 3, 1, 1, 32));
  EXPECT_EQ(d.bound("G"), 32);
  EXPECT_EQ(d.bound("C"), 1);
  EXPECT_EQ(d.bound("M"), 1);
  // GEMM O[M][N] += A[M][K] B[K][N]: P = M, C = K, M = N.
  const Einsum g = to_einsum(gemm("g", 128, 768, 3072));
  EXPECT_EQ(g.bound("P"), 128);
  EXPECT_EQ(g.bound("M"), 768);
  EXPECT_EQ(g.bound("C"), 3072);
  EXPECT_THROW(to_einsum(nongemm("r", OpKind::Activation, "relu", {1, 64})), InputError);
}

}  // namespace
}  // namespace sparsemap::workload
