// Fashion-MNIST arrays as libtorch tensors.
#pragma once

#include <torch/torch.h>

#include "sparsemap/ml/data/fashion_mnist.h"

namespace sparsemap::ml::data {

// Images as [N, 1, 28, 28] fp32, normalised with Fashion-MNIST's mean (0.2860) and standard
// deviation (0.3530) of pixel / 255.
torch::Tensor images_tensor(const ImageSet& s);

// Labels as [N] int64.
torch::Tensor labels_tensor(const ImageSet& s);

}  // namespace sparsemap::ml::data
