// Small image classifiers for 1 x 28 x 28 inputs (Fashion-MNIST): an MLP (LeNet-300-100) and a
// small CNN. Includes libtorch.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>

namespace sparsemap::ml::prune {

// A classifier: [B, 1, 28, 28] (or [B, 784]) -> [B, classes] logits.
class Classifier : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};

// fc1 784 -> 300, ReLU, fc2 300 -> 100, ReLU, fc3 100 -> classes (266,610 parameters).
class Mlp : public Classifier {
 public:
  explicit Mlp(int64_t classes = 10);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr}, fc3_{nullptr};
};

// conv1 1 -> 32 (3x3, pad 1), ReLU, max-pool 2; conv2 32 -> 64 (3x3, pad 1), ReLU, max-pool 2;
// fc1 3136 -> 128, ReLU; fc2 128 -> classes (421,642 parameters).
class Cnn : public Classifier {
 public:
  explicit Cnn(int64_t classes = 10);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};

// "mlp" or "cnn", initialised from torch's global generator (seed it first for a
// deterministic model). Throws InputError (file "<flag --model>") for another name.
std::shared_ptr<Classifier> make_classifier(const std::string& name, int64_t classes = 10);

}  // namespace sparsemap::ml::prune
