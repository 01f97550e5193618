// resnet50: torchvision.models.resnet50 (v1.5) in eval mode.
#include "layers.h"
#include "model.h"

namespace sparsemap::ml::nongemm {
namespace {

class ResNet50 : public Model {
 public:
  explicit ResNet50(const ResolvedOptions& o) : init_(o.seed) {
    const bool t = o.tiny;
    trunk_ = ResNetTrunk::make(
        init_, t ? 8 : 64,
        t ? std::vector<int64_t>{8, 16, 16, 32} : std::vector<int64_t>{64, 128, 256, 512},
        t ? std::vector<int64_t>{1, 2, 1, 1} : std::vector<int64_t>{3, 4, 6, 3},
        /*frozen_norm=*/false);
    fc_ = Linear::make(init_, trunk_.out_channels(3), t ? 10 : 1000);
    image_ = init_.range({o.batch, 3, o.image_h, o.image_w}, -2.0, 2.0);
  }

  at::Tensor forward() override {
    at::Tensor x = trunk_(image_).back();
    x = at::adaptive_avg_pool2d(x, {1, 1});
    x = at::flatten(x, 1);
    return fc_(x);
  }

 private:
  Init init_;
  ResNetTrunk trunk_;
  Linear fc_;
  at::Tensor image_;
};

}  // namespace

std::unique_ptr<Model> make_resnet50(const ResolvedOptions& o) {
  return std::make_unique<ResNet50>(o);
}

}  // namespace sparsemap::ml::nongemm
