// Internal to ml/nongemm: sparsemap's own RoI operators (torchvision's semantics, CPU) and the
// box helpers of torchvision's detection models. nms and roi_align record one composite
// operator each ("sparsemap::nms", "sparsemap::roi_align": the taxonomy's `roi` group).
#pragma once

#include <ATen/ATen.h>

namespace sparsemap::ml::nongemm {

// Greedy non-maximum suppression (torchvision.ops.nms): boxes [N, 4] (x1, y1, x2, y2), scores
// [N]. Returns the kept indices (int64), by decreasing score. A box is dropped when its IoU
// with a kept, higher-scoring box is > iou_threshold.
at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold);

// torchvision.ops.batched_nms: NMS within each category `idxs` [N] (int64). Uses the
// coordinate-offset trick for up to 4000 box coordinates and a per-category loop above, as
// torchvision 0.14 does on CPU.
at::Tensor batched_nms(const at::Tensor& boxes, const at::Tensor& scores, const at::Tensor& idxs,
                       double iou_threshold);

// torchvision.ops.roi_align (aligned = false): input [N, C, H, W], rois [K, 5] (batch index,
// x1, y1, x2, y2 in input-image coordinates); returns [K, C, out, out]. Each bin averages
// sampling_ratio^2 bilinear samples (sampling_ratio > 0), or ceil(roi size / out) per axis.
at::Tensor roi_align(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                     int64_t out, int64_t sampling_ratio);

// torchvision.ops.boxes helpers, with the operators they record.
at::Tensor clip_boxes_to_image(const at::Tensor& boxes, int64_t height, int64_t width);
at::Tensor remove_small_boxes(const at::Tensor& boxes, double min_size);
at::Tensor box_area(const at::Tensor& boxes);

// torchvision's BoxCoder.decode_single: rel_codes [N, 4k] against boxes [N, 4].
at::Tensor decode_boxes(const at::Tensor& rel_codes, const at::Tensor& boxes,
                        const double weights[4], double clip);

}  // namespace sparsemap::ml::nongemm
