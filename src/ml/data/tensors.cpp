#include "sparsemap/ml/data/tensors.h"

namespace sparsemap::ml::data {

torch::Tensor images_tensor(const ImageSet& s) {
  auto u8 = torch::from_blob(const_cast<uint8_t*>(s.pixels.data()), {s.count, 1, s.rows, s.cols},
                             torch::kUInt8);
  return (u8.to(torch::kFloat).div(255.0f) - 0.2860f).div(0.3530f);
}

torch::Tensor labels_tensor(const ImageSet& s) {
  auto u8 = torch::from_blob(const_cast<uint8_t*>(s.labels.data()), {s.count}, torch::kUInt8);
  return u8.to(torch::kLong);
}

}  // namespace sparsemap::ml::data
