// faster-rcnn-r50-fpn: torchvision.models.detection.fasterrcnn_resnet50_fpn (v1, torchvision
// 0.14) in eval mode, operator by operator: the transform (normalise, resize, batch), ResNet-50
// with frozen batch norm, FPN, RPN (anchors, decode, top-k, NMS), MultiScaleRoIAlign, the
// two-MLP box head and the detection post-processing. NMS and RoIAlign are sparsemap's own
// (roi_ops.h). Random weights: the box classifier's weights are scaled so that a realistic
// number of boxes passes the 0.05 score threshold into the final NMS.
#include <cmath>

#include "layers.h"
#include "model.h"
#include "roi_ops.h"

namespace sparsemap::ml::nongemm {
namespace {

struct RcnnConfig {
  int64_t stem;
  std::vector<int64_t> widths, blocks;
  int64_t fpn, representation, classes, pre_nms, post_nms, detections;
  double min_size, max_size;  // GeneralizedRCNNTransform's resize bounds
};

constexpr double kRpnWeights[4] = {1, 1, 1, 1};
constexpr double kBoxWeights[4] = {10, 10, 5, 5};

class FasterRcnn : public Model {
 public:
  explicit FasterRcnn(const ResolvedOptions& o) : init_(o.seed) {
    cfg_ = o.tiny ? RcnnConfig{8, {8, 16, 16, 32}, {1, 1, 1, 1}, 16, 32, 5, 50, 50, 10, 64, 96}
                  : RcnnConfig{
                        64,  {64, 128, 256, 512}, {3, 4, 6, 3}, 256, 1024, 91, 1000, 1000, 100, 800,
                        1333};
    trunk_ = ResNetTrunk::make(init_, cfg_.stem, cfg_.widths, cfg_.blocks, /*frozen_norm=*/true);
    for (size_t s = 0; s < 4; ++s) {
      inner_.push_back(Conv2d::make(init_, trunk_.out_channels(s), cfg_.fpn, 1, 1, 0, 1, true));
      layer_.push_back(Conv2d::make(init_, cfg_.fpn, cfg_.fpn, 3, 1, 1, 1, true));
    }
    rpn_conv_ = Conv2d::make(init_, cfg_.fpn, cfg_.fpn, 3, 1, 1, 1, true);
    rpn_cls_ = Conv2d::make(init_, cfg_.fpn, 3, 1, 1, 0, 1, true);
    rpn_bbox_ = Conv2d::make(init_, cfg_.fpn, 12, 1, 1, 0, 1, true);
    rpn_bbox_.w = rpn_bbox_.w * 0.1;  // keeps decoded proposals near their anchors
    // AnchorGenerator's cell anchors: sizes 32..512 (one per level), ratios 0.5, 1, 2.
    for (double size : {32.0, 64.0, 128.0, 256.0, 512.0}) {
      const at::Tensor ratios = at::tensor({0.5, 1.0, 2.0}, at::kFloat);
      const at::Tensor h = at::sqrt(ratios), w = 1 / h;
      const at::Tensor ws = w * size, hs = h * size;
      cell_anchors_.push_back((at::stack({-ws, -hs, ws, hs}, 1) / 2).round());
    }
    const int64_t pooled = cfg_.fpn * 7 * 7;
    fc6_ = Linear::make(init_, pooled, cfg_.representation);
    fc7_ = Linear::make(init_, cfg_.representation, cfg_.representation);
    cls_score_ = Linear::make(init_, cfg_.representation, cfg_.classes, true, 0.2);
    bbox_pred_ = Linear::make(init_, cfg_.representation, cfg_.classes * 4, true, 0.01);
    for (int64_t i = 0; i < o.batch; ++i)
      images_.push_back(init_.range({3, o.image_h, o.image_w}, 0.0, 1.0));
  }

  at::Tensor forward() override {
    // GeneralizedRCNNTransform: normalise, resize (scale 1 at 800 x 1088), batch to /32.
    const at::Tensor mean = at::tensor({0.485, 0.456, 0.406}, at::kFloat);
    const at::Tensor stdv = at::tensor({0.229, 0.224, 0.225}, at::kFloat);
    std::vector<at::Tensor> images;
    for (const at::Tensor& img : images_) {
      at::Tensor x = (img - mean.unsqueeze(1).unsqueeze(2)) / stdv.unsqueeze(1).unsqueeze(2);
      const double h = static_cast<double>(x.size(1)), w = static_cast<double>(x.size(2));
      const double scale = std::min(cfg_.min_size / std::min(h, w), cfg_.max_size / std::max(h, w));
      x = at::upsample_bilinear2d(x.unsqueeze(0), c10::nullopt, false,
                                  at::ArrayRef<double>{scale, scale})
              .select(0, 0);
      images.push_back(x);
    }
    const int64_t height = (images[0].size(1) + 31) / 32 * 32;
    const int64_t width = (images[0].size(2) + 31) / 32 * 32;
    const int64_t batch = static_cast<int64_t>(images.size());
    const at::Tensor batched = images[0].new_full({batch, 3, height, width}, 0);
    for (int64_t i = 0; i < batch; ++i) {
      const at::Tensor& img = images[static_cast<size_t>(i)];
      at::Tensor dst =
          batched.select(0, i).slice(0, 0, 3).slice(1, 0, img.size(1)).slice(2, 0, img.size(2));
      dst.copy_(img);
    }
    const int64_t img_h = images[0].size(1), img_w = images[0].size(2);

    // Backbone with FPN (+ LastLevelMaxPool).
    const std::vector<at::Tensor> c = trunk_(batched);
    std::vector<at::Tensor> p(4);
    at::Tensor last = inner_[3](c[3]);
    p[3] = layer_[3](last);
    for (int s = 2; s >= 0; --s) {
      const at::Tensor lateral = inner_[s](c[s]);
      const at::Tensor top_down = at::upsample_nearest2d(last, {lateral.size(2), lateral.size(3)});
      last = lateral + top_down;
      p[s] = layer_[s](last);
    }
    p.push_back(at::max_pool2d(p[3], {1, 1}, {2, 2}, {0, 0}));

    const std::vector<at::Tensor> proposals = rpn(p, batched, img_h, img_w);
    return roi_heads(p, proposals, img_h, img_w);
  }

 private:
  std::vector<at::Tensor> rpn(const std::vector<at::Tensor>& p, const at::Tensor& batched,
                              int64_t img_h, int64_t img_w) {
    const int64_t batch = batched.size(0);
    std::vector<at::Tensor> logits, deltas, anchors;
    std::vector<int64_t> per_level;
    for (const at::Tensor& f : p) {  // RPNHead
      at::Tensor t = rpn_conv_(f);
      t.relu_();
      logits.push_back(rpn_cls_(t));
      deltas.push_back(rpn_bbox_(t));
    }
    // AnchorGenerator.grid_anchors
    for (size_t l = 0; l < p.size(); ++l) {
      const int64_t gh = p[l].size(2), gw = p[l].size(3);
      const at::Tensor sh = at::empty({}, at::kLong).fill_(batched.size(2) / gh);
      const at::Tensor sw = at::empty({}, at::kLong).fill_(batched.size(3) / gw);
      const at::Tensor base = cell_anchors_[l].to(at::kFloat);
      const at::Tensor shifts_x = at::arange(0, gw, at::kInt) * sw;
      const at::Tensor shifts_y = at::arange(0, gh, at::kInt) * sh;
      const std::vector<at::Tensor> grid = at::meshgrid({shifts_y, shifts_x}, "ij");
      const at::Tensor gx = grid[1].reshape(-1), gy = grid[0].reshape(-1);
      const at::Tensor shifts = at::stack({gx, gy, gx, gy}, 1);
      anchors.push_back((shifts.view({-1, 1, 4}) + base.view({1, -1, 4})).reshape({-1, 4}));
      per_level.push_back(3 * gh * gw);
    }
    const at::Tensor all_anchors = at::cat(anchors);
    // concat_box_prediction_layers
    std::vector<at::Tensor> cls_flat, reg_flat;
    for (size_t l = 0; l < p.size(); ++l) {
      const int64_t h = logits[l].size(2), w = logits[l].size(3);
      cls_flat.push_back(
          logits[l].view({batch, 3, 1, h, w}).permute({0, 3, 4, 1, 2}).reshape({batch, -1, 1}));
      reg_flat.push_back(
          deltas[l].view({batch, 3, 4, h, w}).permute({0, 3, 4, 1, 2}).reshape({batch, -1, 4}));
    }
    const at::Tensor objectness = at::cat(cls_flat, 1).flatten(0, -2);
    const at::Tensor regression = at::cat(reg_flat, 1).reshape({-1, 4});
    std::vector<at::Tensor> per_image(static_cast<size_t>(batch), all_anchors);
    const at::Tensor anchors_cat = at::cat(per_image, 0);
    const at::Tensor props =
        decode_boxes(regression.detach(), anchors_cat, kRpnWeights, std::log(1000.0 / 16))
            .reshape({batch * all_anchors.size(0), -1, 4})
            .view({batch, -1, 4});
    // RegionProposalNetwork.filter_proposals
    const at::Tensor obj = objectness.detach().reshape({batch, -1});
    std::vector<at::Tensor> levels_v;
    for (size_t l = 0; l < per_level.size(); ++l)
      levels_v.push_back(at::full({per_level[l]}, static_cast<int64_t>(l), at::kLong));
    const at::Tensor levels = at::cat(levels_v, 0).reshape({1, -1}).expand_as(obj);
    std::vector<at::Tensor> top;
    int64_t offset = 0;
    const std::vector<at::Tensor> split = obj.split_with_sizes(per_level, 1);
    for (const at::Tensor& ob : split) {
      const int64_t k = std::min(cfg_.pre_nms, ob.size(1));
      top.push_back(std::get<1>(ob.topk(k, 1)) + offset);
      offset += ob.size(1);
    }
    const at::Tensor top_idx = at::cat(top, 1);
    const at::Tensor batch_idx = at::arange(batch, at::kLong).unsqueeze(1);
    const at::Tensor sel_obj = obj.index({batch_idx, top_idx});
    const at::Tensor sel_lvl = levels.index({batch_idx, top_idx});
    const at::Tensor sel_props = props.index({batch_idx, top_idx});
    const at::Tensor prob = at::sigmoid(sel_obj);
    std::vector<at::Tensor> result;
    const std::vector<at::Tensor> boxes_l = sel_props.unbind(0), scores_l = prob.unbind(0),
                                  lvl_l = sel_lvl.unbind(0);
    for (int64_t i = 0; i < batch; ++i) {
      at::Tensor boxes = clip_boxes_to_image(boxes_l[i], img_h, img_w);
      at::Tensor scores = scores_l[i], lvl = lvl_l[i];
      at::Tensor keep = remove_small_boxes(boxes, 1e-3);
      boxes = boxes.index({keep}), scores = scores.index({keep}), lvl = lvl.index({keep});
      keep = at::where(scores >= 0.0)[0];
      boxes = boxes.index({keep}), scores = scores.index({keep}), lvl = lvl.index({keep});
      keep = batched_nms(boxes, scores, lvl, 0.7).slice(0, 0, cfg_.post_nms);
      result.push_back(boxes.index({keep}));
    }
    return result;
  }

  at::Tensor roi_heads(const std::vector<at::Tensor>& p, const std::vector<at::Tensor>& proposals,
                       int64_t img_h, int64_t img_w) {
    // MultiScaleRoIAlign over P2..P5 (scales 1/4..1/32, canonical 224 at level 4).
    const at::Tensor concat = at::cat(proposals, 0);
    std::vector<at::Tensor> ids;
    for (size_t i = 0; i < proposals.size(); ++i)
      ids.push_back(at::full_like(proposals[i].slice(1, 0, 1), static_cast<double>(i)));
    const at::Tensor rois = at::cat({at::cat(ids, 0), concat}, 1);
    std::vector<at::Tensor> areas;
    for (const at::Tensor& b : proposals) areas.push_back(box_area(b));
    const at::Tensor s = at::sqrt(at::cat(areas));
    at::Tensor lvls = at::floor(4 + at::log2(s / 224.0) + at::scalar_tensor(1e-6));
    lvls = at::clamp(lvls, at::Scalar(2.0), at::Scalar(5.0));
    lvls = (lvls.to(at::kLong) - 2).to(at::kLong);
    const at::Tensor pooled = at::zeros({rois.size(0), p[0].size(1), 7, 7});
    for (int64_t level = 0; level < 4; ++level) {
      const at::Tensor idx = at::where(lvls == level)[0];
      const at::Tensor level_rois = rois.index({idx});
      const at::Tensor r = roi_align(p[level], level_rois, 1.0 / (4 << level), 7, 2);
      pooled.index_put_({idx}, r.to(pooled.scalar_type()));
    }
    // TwoMLPHead + FastRCNNPredictor
    at::Tensor x = at::relu(fc6_(pooled.flatten(1)));
    x = at::relu(fc7_(x)).flatten(1);
    const at::Tensor class_logits = cls_score_(x), box_regression = bbox_pred_(x);
    // RoIHeads.postprocess_detections
    std::vector<int64_t> per_image;
    for (const at::Tensor& b : proposals) per_image.push_back(b.size(0));
    const at::Tensor pred_boxes =
        decode_boxes(box_regression, concat, kBoxWeights, std::log(1000.0 / 16))
            .reshape({concat.size(0), -1, 4});
    const at::Tensor pred_scores = at::softmax(class_logits, -1);
    const std::vector<at::Tensor> boxes_l = pred_boxes.split_with_sizes(per_image, 0);
    const std::vector<at::Tensor> scores_l = pred_scores.split_with_sizes(per_image, 0);
    std::vector<at::Tensor> out;
    last_candidates_ = 0;
    for (size_t i = 0; i < boxes_l.size(); ++i) {
      at::Tensor boxes = clip_boxes_to_image(boxes_l[i], img_h, img_w);
      at::Tensor scores = scores_l[i];
      at::Tensor labels = at::arange(cfg_.classes, at::kLong).view({1, -1}).expand_as(scores);
      boxes = boxes.slice(1, 1).reshape({-1, 4});
      scores = scores.slice(1, 1).reshape(-1);
      labels = labels.slice(1, 1).reshape(-1);
      at::Tensor inds = at::where(scores > 0.05)[0];
      boxes = boxes.index({inds}), scores = scores.index({inds}), labels = labels.index({inds});
      at::Tensor keep = remove_small_boxes(boxes, 1e-2);
      boxes = boxes.index({keep}), scores = scores.index({keep}), labels = labels.index({keep});
      last_candidates_ += boxes.size(0);
      keep = batched_nms(boxes, scores, labels, 0.5).slice(0, 0, cfg_.detections);
      boxes = boxes.index({keep});
      // GeneralizedRCNNTransform.postprocess: resize_boxes (ratio 1 here).
      const at::Tensor rh = at::scalar_tensor(static_cast<double>(img_h)) /
                            at::scalar_tensor(static_cast<double>(img_h));
      const at::Tensor rw = at::scalar_tensor(static_cast<double>(img_w)) /
                            at::scalar_tensor(static_cast<double>(img_w));
      const std::vector<at::Tensor> xy = boxes.unbind(1);
      out.push_back(at::stack({xy[0] * rw, xy[1] * rh, xy[2] * rw, xy[3] * rh}, 1));
    }
    return out.front();
  }

  Init init_;
  RcnnConfig cfg_;
  ResNetTrunk trunk_;
  std::vector<Conv2d> inner_, layer_;
  Conv2d rpn_conv_, rpn_cls_, rpn_bbox_;
  std::vector<at::Tensor> cell_anchors_;
  Linear fc6_, fc7_, cls_score_, bbox_pred_;
  std::vector<at::Tensor> images_;
  int64_t last_candidates_ = 0;  // boxes that reached the final NMS (tuning aid)
};

}  // namespace

std::unique_ptr<Model> make_faster_rcnn(const ResolvedOptions& o) {
  return std::make_unique<FasterRcnn>(o);
}

}  // namespace sparsemap::ml::nongemm
