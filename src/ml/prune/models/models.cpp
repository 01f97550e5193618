// The MLP and the small CNN.
#include "sparsemap/ml/prune/models.h"

#include "sparsemap/error.h"

namespace sparsemap::ml::prune {

namespace F = torch::nn::functional;

Mlp::Mlp(int64_t classes) {
  fc1_ = register_module("fc1", torch::nn::Linear(784, 300));
  fc2_ = register_module("fc2", torch::nn::Linear(300, 100));
  fc3_ = register_module("fc3", torch::nn::Linear(100, classes));
}

torch::Tensor Mlp::forward(torch::Tensor x) {
  x = x.reshape({x.size(0), -1});
  x = torch::relu(fc1_->forward(x));
  x = torch::relu(fc2_->forward(x));
  return fc3_->forward(x);
}

Cnn::Cnn(int64_t classes) {
  conv1_ =
      register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 32, 3).padding(1)));
  conv2_ =
      register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)));
  fc1_ = register_module("fc1", torch::nn::Linear(64 * 7 * 7, 128));
  fc2_ = register_module("fc2", torch::nn::Linear(128, classes));
}

torch::Tensor Cnn::forward(torch::Tensor x) {
  x = x.reshape({x.size(0), 1, 28, 28});
  x = F::max_pool2d(torch::relu(conv1_->forward(x)), F::MaxPool2dFuncOptions(2));
  x = F::max_pool2d(torch::relu(conv2_->forward(x)), F::MaxPool2dFuncOptions(2));
  x = torch::relu(fc1_->forward(x.reshape({x.size(0), -1})));
  return fc2_->forward(x);
}

std::shared_ptr<Classifier> make_classifier(const std::string& name, int64_t classes) {
  if (name == "mlp") return std::make_shared<Mlp>(classes);
  if (name == "cnn") return std::make_shared<Cnn>(classes);
  throw InputError({"<flag --model>", 0, 0}, "unknown model '" + name + "'; expected mlp or cnn");
}

}  // namespace sparsemap::ml::prune
