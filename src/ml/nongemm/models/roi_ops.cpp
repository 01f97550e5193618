// sparsemap's RoI operators and torchvision's box helpers (see roi_ops.h).
#include "roi_ops.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "../region.h"

namespace sparsemap::ml::nongemm {

at::Tensor nms(const at::Tensor& boxes, const at::Tensor& scores, double iou_threshold) {
  SPARSEMAP_COMPOSITE_OP("nms");
  const int64_t n = boxes.size(0);
  if (n == 0) return at::empty({0}, at::kLong);
  const at::Tensor b = boxes.to(at::kFloat).contiguous();
  const at::Tensor order = std::get<1>(scores.sort(0, /*descending=*/true));
  const float* p = b.data_ptr<float>();
  const int64_t* ord = order.data_ptr<int64_t>();
  std::vector<float> area(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    area[i] = (p[4 * i + 2] - p[4 * i + 0]) * (p[4 * i + 3] - p[4 * i + 1]);
  std::vector<char> suppressed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (int64_t oi = 0; oi < n; ++oi) {
    const int64_t i = ord[oi];
    if (suppressed[i]) continue;
    keep.push_back(i);
    const float ix1 = p[4 * i], iy1 = p[4 * i + 1], ix2 = p[4 * i + 2], iy2 = p[4 * i + 3];
    for (int64_t oj = oi + 1; oj < n; ++oj) {
      const int64_t j = ord[oj];
      if (suppressed[j]) continue;
      const float w = std::max(0.0f, std::min(ix2, p[4 * j + 2]) - std::max(ix1, p[4 * j]));
      const float h = std::max(0.0f, std::min(iy2, p[4 * j + 3]) - std::max(iy1, p[4 * j + 1]));
      const float inter = w * h;
      const float iou = inter / (area[i] + area[j] - inter);
      if (iou > iou_threshold) suppressed[j] = 1;
    }
  }
  at::Tensor out = at::empty({static_cast<int64_t>(keep.size())}, at::kLong);
  std::copy(keep.begin(), keep.end(), out.data_ptr<int64_t>());
  return out;
}

at::Tensor batched_nms(const at::Tensor& boxes, const at::Tensor& scores, const at::Tensor& idxs,
                       double iou_threshold) {
  if (boxes.numel() > 4000) {
    // torchvision.ops.boxes._batched_nms_vanilla
    at::Tensor keep_mask = at::zeros_like(scores, at::kBool);
    const at::Tensor classes = std::get<0>(at::_unique2(idxs));
    const int64_t* cls = classes.data_ptr<int64_t>();
    for (int64_t c = 0; c < classes.numel(); ++c) {
      const at::Tensor curr = at::where(idxs == cls[c])[0];
      const at::Tensor curr_keep = nms(boxes.index({curr}), scores.index({curr}), iou_threshold);
      keep_mask.index_put_({curr.index({curr_keep})}, true);
    }
    const at::Tensor keep = at::where(keep_mask)[0];
    return keep.index({std::get<1>(scores.index({keep}).sort(0, true))});
  }
  // torchvision.ops.boxes._batched_nms_coordinate_trick
  if (boxes.numel() == 0) return at::empty({0}, at::kLong);
  const at::Tensor max_coordinate = boxes.max();
  const at::Tensor offsets = idxs.to(boxes.scalar_type()) * (max_coordinate + 1);
  return nms(boxes + offsets.unsqueeze(1), scores, iou_threshold);
}

namespace {

// One bilinear sample of torchvision's roi_align: four positions and weights.
struct Sample {
  int64_t pos[4];
  float w[4];
};

Sample bilinear(int64_t height, int64_t width, double y, double x) {
  Sample s{};
  if (y < -1.0 || y > height || x < -1.0 || x > width) return s;  // all weights 0
  y = std::max(y, 0.0), x = std::max(x, 0.0);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<double>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<double>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const double ly = y - y_low, lx = x - x_low, hy = 1 - ly, hx = 1 - lx;
  s.pos[0] = y_low * width + x_low, s.pos[1] = y_low * width + x_high;
  s.pos[2] = y_high * width + x_low, s.pos[3] = y_high * width + x_high;
  s.w[0] = static_cast<float>(hy * hx), s.w[1] = static_cast<float>(hy * lx);
  s.w[2] = static_cast<float>(ly * hx), s.w[3] = static_cast<float>(ly * lx);
  return s;
}

}  // namespace

at::Tensor roi_align(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                     int64_t out, int64_t sampling_ratio) {
  SPARSEMAP_COMPOSITE_OP("roi_align");
  const at::Tensor in = input.to(at::kFloat).contiguous();
  const at::Tensor r = rois.to(at::kFloat).contiguous();
  const int64_t k = r.size(0), channels = in.size(1), height = in.size(2), width = in.size(3);
  at::Tensor result = at::zeros({k, channels, out, out});
  if (k == 0) return result;
  const float* src = in.data_ptr<float>();
  const float* rp = r.data_ptr<float>();
  float* dst = result.data_ptr<float>();
  at::parallel_for(0, k, 1, [&](int64_t begin, int64_t end) {
    std::vector<Sample> samples;
    for (int64_t n = begin; n < end; ++n) {
      const float* roi = rp + 5 * n;
      const int64_t batch = static_cast<int64_t>(roi[0]);
      const double x1 = roi[1] * spatial_scale, y1 = roi[2] * spatial_scale;
      const double roi_w = std::max(roi[3] * spatial_scale - x1, 1.0);
      const double roi_h = std::max(roi[4] * spatial_scale - y1, 1.0);
      const double bin_h = roi_h / out, bin_w = roi_w / out;
      const int64_t grid_h =
          sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_h / out));
      const int64_t grid_w =
          sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_w / out));
      const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
      samples.clear();
      for (int64_t ph = 0; ph < out; ++ph)
        for (int64_t pw = 0; pw < out; ++pw)
          for (int64_t iy = 0; iy < grid_h; ++iy)
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const double y = y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h;
              const double x = x1 + pw * bin_w + (ix + 0.5) * bin_w / grid_w;
              samples.push_back(bilinear(height, width, y, x));
            }
      const size_t per_bin = static_cast<size_t>(grid_h * grid_w);
      for (int64_t c = 0; c < channels; ++c) {
        const float* plane = src + (batch * channels + c) * height * width;
        float* o = dst + (n * channels + c) * out * out;
        for (int64_t bin = 0; bin < out * out; ++bin) {
          double acc = 0;
          for (size_t s = bin * per_bin; s < (bin + 1) * per_bin; ++s) {
            const Sample& sm = samples[s];
            acc += sm.w[0] * plane[sm.pos[0]] + sm.w[1] * plane[sm.pos[1]] +
                   sm.w[2] * plane[sm.pos[2]] + sm.w[3] * plane[sm.pos[3]];
          }
          o[bin] = static_cast<float>(acc / count);
        }
      }
    }
  });
  return result;
}

at::Tensor clip_boxes_to_image(const at::Tensor& boxes, int64_t height, int64_t width) {
  const int64_t dim = boxes.dim();
  const at::Tensor bx = boxes.slice(-1, 0, INT64_MAX, 2)
                            .clamp(at::Scalar(0.0), at::Scalar(static_cast<double>(width)));
  const at::Tensor by = boxes.slice(-1, 1, INT64_MAX, 2)
                            .clamp(at::Scalar(0.0), at::Scalar(static_cast<double>(height)));
  return at::stack({bx, by}, dim).reshape(boxes.sizes());
}

at::Tensor remove_small_boxes(const at::Tensor& boxes, double min_size) {
  const at::Tensor ws = boxes.select(1, 2) - boxes.select(1, 0);
  const at::Tensor hs = boxes.select(1, 3) - boxes.select(1, 1);
  return at::where((ws >= min_size) & (hs >= min_size))[0];
}

at::Tensor box_area(const at::Tensor& boxes) {
  return (boxes.select(1, 2) - boxes.select(1, 0)) * (boxes.select(1, 3) - boxes.select(1, 1));
}

at::Tensor decode_boxes(const at::Tensor& rel_codes, const at::Tensor& boxes,
                        const double weights[4], double clip) {
  const c10::optional<at::Scalar> kNone;
  const at::Tensor b = boxes.to(rel_codes.scalar_type());
  const at::Tensor widths = b.select(1, 2) - b.select(1, 0);
  const at::Tensor heights = b.select(1, 3) - b.select(1, 1);
  const at::Tensor ctr_x = b.select(1, 0) + 0.5 * widths;
  const at::Tensor ctr_y = b.select(1, 1) + 0.5 * heights;
  const at::Tensor dx = rel_codes.slice(1, 0, INT64_MAX, 4) / weights[0];
  const at::Tensor dy = rel_codes.slice(1, 1, INT64_MAX, 4) / weights[1];
  const at::Tensor dw =
      at::clamp(rel_codes.slice(1, 2, INT64_MAX, 4) / weights[2], kNone, at::Scalar(clip));
  const at::Tensor dh =
      at::clamp(rel_codes.slice(1, 3, INT64_MAX, 4) / weights[3], kNone, at::Scalar(clip));
  const at::Tensor pred_ctr_x = dx * widths.unsqueeze(1) + ctr_x.unsqueeze(1);
  const at::Tensor pred_ctr_y = dy * heights.unsqueeze(1) + ctr_y.unsqueeze(1);
  const at::Tensor pred_w = at::exp(dw) * widths.unsqueeze(1);
  const at::Tensor pred_h = at::exp(dh) * heights.unsqueeze(1);
  const at::Tensor half_h = at::scalar_tensor(0.5) * pred_h;
  const at::Tensor half_w = at::scalar_tensor(0.5) * pred_w;
  return at::stack(
             {pred_ctr_x - half_w, pred_ctr_y - half_h, pred_ctr_x + half_w, pred_ctr_y + half_h},
             2)
      .flatten(1);
}

}  // namespace sparsemap::ml::nongemm
