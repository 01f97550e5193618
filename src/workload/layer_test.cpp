// Hand-worked MACs, operand sizes and parameters of each layer kind.
#include "sparsemap/workload/layer.h"

#include <gtest/gtest.h>

#include "sparsemap/workload/model.h"

namespace sparsemap::workload {
namespace {

TEST(Layer, ResNetStemConv) {
  // 7x7/2 pad 3 on 224x224x3 -> 112x112x64: 64*3*49*112*112 = 118,013,952 MACs.
  const Layer l = conv2d("conv1", 1, 3, 224, 224, 64, 7, 2, 3);
  EXPECT_EQ(l.kind, OpKind::Conv);
  EXPECT_EQ(l.out_y(), 112);
  EXPECT_EQ(l.out_x(), 112);
  EXPECT_EQ(l.macs(), 118013952);
  EXPECT_EQ(l.input_elems(), 3 * 224 * 224);
  EXPECT_EQ(l.weight_elems(), 64 * 3 * 49);
  EXPECT_EQ(l.output_elems(), 64 * 112 * 112);
  EXPECT_EQ(l.params(), 9408);
}

TEST(Layer, MaestroConvWithoutPadding) {
  // MAESTRO's CONV1 of Resnet50: Y = 224, R = 7, stride 2, no padding -> Y' = 109.
  Layer l = conv2d("CONV1", 1, 3, 224, 224, 64, 7, 2, 0);
  EXPECT_EQ(l.out_y(), 109);
  EXPECT_EQ(l.macs(), 111776448);  // MAESTRO's "Num MACs" for that layer
}

TEST(Layer, DepthwiseAndGrouped) {
  const Layer dw = conv2d("dw", 2, 32, 112, 112, 32, 3, 1, 1, 32);
  EXPECT_EQ(dw.kind, OpKind::DsConv);
  EXPECT_EQ(dw.macs(), 2 * 32 * 9 * 112 * 112);
  EXPECT_EQ(dw.weight_elems(), 32 * 9);
  EXPECT_EQ(dw.output_elems(), 2 * 32 * 112 * 112);

  const Layer g = conv2d("g", 1, 128, 56, 56, 128, 3, 1, 1, 32);
  EXPECT_EQ(g.kind, OpKind::NgConv);
  EXPECT_EQ(g.dim(Dim::G), 32);
  EXPECT_EQ(g.dim(Dim::K), 4);
  EXPECT_EQ(g.dim(Dim::C), 4);
  EXPECT_EQ(g.macs(), 128 * 4 * 9 * 56 * 56);
  EXPECT_EQ(g.weight_elems(), 128 * 4 * 9);
}

TEST(Layer, MaestroNgConvConvention) {
  // ResNeXt50 CONV2_1_2: G 32, K 4, C 128, 3x3 on 56x56, no padding: MAESTRO counts
  // G*K*C*R*S*Y'*X' = 429,981,696 MACs.
  Layer l;
  l.kind = OpKind::NgConv;
  l.dim(Dim::G) = 32;
  l.dim(Dim::K) = 4;
  l.dim(Dim::C) = 128;
  l.dim(Dim::R) = l.dim(Dim::S) = 3;
  l.dim(Dim::Y) = l.dim(Dim::X) = 56;
  EXPECT_EQ(l.macs(), 429981696);
}

TEST(Layer, TransposedConvUsesMaestroRule) {
  // UNet TRCONV1: K 512, C 1024, 2x2, Y = X = 28 -> Y' = 27: 1,528,823,808 MACs (MAESTRO).
  Layer l;
  l.kind = OpKind::TrConv;
  l.dim(Dim::K) = 512;
  l.dim(Dim::C) = 1024;
  l.dim(Dim::R) = l.dim(Dim::S) = 2;
  l.dim(Dim::Y) = l.dim(Dim::X) = 28;
  EXPECT_EQ(l.macs(), 1528823808);
}

TEST(Layer, GemmFamily) {
  const Layer q = gemm("query", 128, 768, 768, true);
  EXPECT_EQ(q.macs(), 128 * 768 * 768);
  EXPECT_EQ(q.input_elems(), 128 * 768);
  EXPECT_EQ(q.weight_elems(), 768 * 768);
  EXPECT_EQ(q.params(), 768 * 768 + 768);

  const Layer qk = batched_gemm("qk", 12, 128, 128, 64);
  EXPECT_EQ(qk.macs(), 12 * 128 * 128 * 64);
  EXPECT_EQ(qk.weight_elems(), 0);
  EXPECT_EQ(qk.input_elems(), 12 * (128 * 64 + 64 * 128));
  EXPECT_EQ(qk.output_elems(), 12 * 128 * 128);

  const Layer f = fc("fc", 4, 2048, 1000);
  EXPECT_EQ(f.macs(), 4 * 2048 * 1000);
  EXPECT_EQ(f.params(), 2048 * 1000 + 1000);
}

TEST(Layer, NonGemm) {
  const Layer relu = nongemm("relu", OpKind::Activation, "relu", {1, 64, 112, 112});
  EXPECT_EQ(relu.macs(), 0);
  EXPECT_EQ(relu.input_elems(), 64 * 112 * 112);
  EXPECT_EQ(relu.output_elems(), 64 * 112 * 112);
  const Layer add = nongemm("add", OpKind::Elementwise, "add", {1, 256, 56, 56}, 2);
  EXPECT_EQ(add.input_elems(), 2 * 256 * 56 * 56);
  const Layer ln = nongemm("ln", OpKind::LayerNorm, "layer_norm", {1, 128, 768});
  EXPECT_EQ(ln.params(), 2 * 768);
  const Layer bn = nongemm("bn", OpKind::BatchNorm, "batch_norm", {1, 64, 112, 112});
  EXPECT_EQ(bn.params(), 128);
  const Layer pool = pool2d("maxpool", "max_pool", 1, 64, 112, 112, 3, 2, 1);
  EXPECT_EQ(pool.out_y(), 56);
  EXPECT_EQ(pool.output_elems(), 64 * 56 * 56);
  const Layer emb = embedding("wte", 128, 30522, 768);
  EXPECT_EQ(emb.params(), 30522 * 768);
  EXPECT_EQ(emb.output_elems(), 128 * 768);
}

TEST(Layer, FilterLargerThanInputHasNoOutput) {
  const Layer l = conv2d("c", 1, 3, 2, 2, 8, 3);
  EXPECT_EQ(l.out_y(), 0);
  EXPECT_EQ(l.macs(), 0);
}

TEST(Layer, NamesRoundTrip) {
  for (Dim d : kAllDims) EXPECT_EQ(dim_from_letter(dim_letter(d)), d);
  EXPECT_EQ(dim_from_letter('y'), Dim::Y);
  EXPECT_FALSE(dim_from_letter('Q').has_value());
  EXPECT_EQ(op_kind_from_name("ngconv"), OpKind::NgConv);
  EXPECT_EQ(op_kind_name(OpKind::DsConv), "DSCONV");
  EXPECT_FALSE(op_kind_from_name("CONV3D").has_value());
  EXPECT_TRUE(is_gemm_class(OpKind::BatchedGemm));
  EXPECT_FALSE(is_gemm_class(OpKind::Softmax));
}

TEST(Model, Totals) {
  Model m;
  m.layers.push_back(conv2d("c", 1, 3, 8, 8, 4, 3, 1, 1));
  m.layers.push_back(nongemm("r", OpKind::Activation, "relu", {1, 4, 8, 8}));
  m.layers.push_back(fc("f", 1, 256, 10));
  EXPECT_EQ(m.total_macs(), 4 * 3 * 9 * 64 + 2560);
  EXPECT_EQ(m.total_params(), 4 * 3 * 9 + 2560 + 10);
  EXPECT_EQ(m.count_gemm_class(), 2);
}

}  // namespace
}  // namespace sparsemap::workload
