// Tests of sparsemap's NMS and RoIAlign against hand-computed results.
#include "roi_ops.h"

#include <gtest/gtest.h>

#include <vector>

namespace sparsemap::ml::nongemm {
namespace {

std::vector<int64_t> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

TEST(Nms, KeepsTheBestOfOverlappingBoxes) {
  // Boxes 0 and 1 overlap with IoU 81/100 = 0.81; box 3 touches box 2 only along an edge
  // (IoU 0).
  const at::Tensor boxes = at::tensor({0.f, 0.f, 10.f, 10.f,    //
                                       1.f, 1.f, 10.f, 10.f,    //
                                       20.f, 20.f, 30.f, 30.f,  //
                                       30.f, 20.f, 40.f, 30.f})
                               .view({4, 4});
  const at::Tensor scores = at::tensor({0.5f, 0.9f, 0.3f, 0.4f});
  EXPECT_EQ(values(nms(boxes, scores, 0.5)), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(values(nms(boxes, scores, 0.8)), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(values(nms(boxes, scores, 0.85)), (std::vector<int64_t>{1, 0, 3, 2}));
  EXPECT_EQ(nms(at::empty({0, 4}), at::empty({0}), 0.5).numel(), 0);
}

TEST(Nms, BatchedKeepsCategoriesApart) {
  const at::Tensor boxes = at::tensor({0.f, 0.f, 10.f, 10.f,  //
                                       1.f, 1.f, 10.f, 10.f,  //
                                       0.f, 0.f, 10.f, 10.f})
                               .view({3, 4});
  const at::Tensor scores = at::tensor({0.5f, 0.9f, 0.8f});
  const at::Tensor same = at::zeros({3}, at::kLong);
  const at::Tensor apart = at::tensor(std::vector<int64_t>{0, 0, 1});
  EXPECT_EQ(values(batched_nms(boxes, scores, same, 0.5)), (std::vector<int64_t>{1}));
  EXPECT_EQ(values(batched_nms(boxes, scores, apart, 0.5)), (std::vector<int64_t>{1, 2}));
  // Above 4000 coordinates torchvision loops over the categories: same answer.
  const int64_t n = 1200;
  const at::Tensor many =
      at::arange(n, at::kFloat).unsqueeze(1) * 20 + at::tensor({0.f, 0.f, 10.f, 10.f}).unsqueeze(0);
  const at::Tensor s = at::linspace(0.1, 0.9, n);
  const at::Tensor cls = at::arange(n, at::kLong) % 3;
  const at::Tensor big = batched_nms(many, s, cls, 0.5);
  EXPECT_EQ(big.numel(), n);  // disjoint boxes: all kept
  EXPECT_EQ(values(big.slice(0, 0, 2)), (std::vector<int64_t>{n - 1, n - 2}));  // by score
}

TEST(RoiAlign, AveragesBilinearSamplesExactlyOnALinearMap) {
  // f(y, x) = 10 y + x is bilinear, so every sample is exact and a bin's average is f at the
  // mean sample position, which is the bin centre.
  const int64_t h = 8, w = 8;
  const at::Tensor ys = at::arange(h, at::kFloat).view({h, 1}).expand({h, w});
  const at::Tensor xs = at::arange(w, at::kFloat).view({1, w}).expand({h, w});
  const at::Tensor feat = (10 * ys + xs).view({1, 1, h, w}).repeat({2, 3, 1, 1});
  // RoI (x1, y1, x2, y2) = (1, 2, 5, 6) at scale 1 on image 1, 2x2 output: bins 2x2 wide.
  const at::Tensor rois = at::tensor({1.f, 1.f, 2.f, 5.f, 6.f}).view({1, 5});
  const at::Tensor out = roi_align(feat, rois, 1.0, 2, 2);
  ASSERT_EQ(out.sizes(), (at::IntArrayRef{1, 3, 2, 2}));
  const float expect[2][2] = {{10 * 3 + 2, 10 * 3 + 4}, {10 * 5 + 2, 10 * 5 + 4}};
  for (int64_t c = 0; c < 3; ++c)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) EXPECT_NEAR(out[0][c][i][j].item<float>(), expect[i][j], 1e-4);
  // Half scale: the RoI covers (0.5, 1, 2.5, 3) in feature coordinates; with sampling_ratio 0
  // each 1x1 bin takes ceil(1) = 1 sample per axis, at y = 1.5, 2.5 and x = 1.0, 2.0.
  const at::Tensor half = roi_align(feat, rois, 0.5, 2, 0);
  EXPECT_NEAR(half[0][0][0][0].item<float>(), 15.0f + 1.0f, 1e-4);
  EXPECT_NEAR(half[0][0][1][1].item<float>(), 25.0f + 2.0f, 1e-4);
  // Samples outside the map by more than one pixel contribute 0.
  const at::Tensor far = at::tensor({0.f, 100.f, 100.f, 110.f, 110.f}).view({1, 5});
  EXPECT_EQ(roi_align(feat, far, 1.0, 2, 2).abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(roi_align(feat, at::empty({0, 5}), 1.0, 7, 2).size(0), 0);
}

TEST(BoxOps, ClipRemoveAndDecode) {
  const at::Tensor boxes =
      at::tensor({-5.f, -5.f, 50.f, 20.f, 3.f, 3.f, 3.0005f, 9.f}).view({2, 4});
  const at::Tensor clipped = clip_boxes_to_image(boxes, 10, 40);
  EXPECT_EQ(clipped[0][0].item<float>(), 0.f);
  EXPECT_EQ(clipped[0][2].item<float>(), 40.f);
  EXPECT_EQ(clipped[0][3].item<float>(), 10.f);
  EXPECT_EQ(values(remove_small_boxes(boxes, 1e-3)), (std::vector<int64_t>{0}));
  EXPECT_NEAR(box_area(boxes)[0].item<float>(), 55.f * 25.f, 1e-3);
  // Zero deltas decode to the anchors themselves.
  const double w[4] = {10, 10, 5, 5};
  const at::Tensor anchors = at::tensor({0.f, 0.f, 10.f, 20.f}).view({1, 4});
  const at::Tensor same = decode_boxes(at::zeros({1, 4}), anchors, w, 4.0);
  EXPECT_TRUE(at::allclose(same, anchors));
  // dx = 10 (one width after the weight 10), dw = log(2) x 5: centre +10, width x 2.
  const at::Tensor moved =
      decode_boxes(at::tensor({10.f, 0.f, 5.f * std::log(2.f), 0.f}).view({1, 4}), anchors, w, 4.0);
  EXPECT_TRUE(at::allclose(moved, at::tensor({5.f, 0.f, 25.f, 20.f}).view({1, 4})));
}

}  // namespace
}  // namespace sparsemap::ml::nongemm
