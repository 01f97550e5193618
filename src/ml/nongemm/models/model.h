// Internal to ml/nongemm: the interface every suite model implements, and their factories.
#pragma once

#include <ATen/ATen.h>

#include <memory>

#include "sparsemap/ml/nongemm/models.h"

namespace sparsemap::ml::nongemm {

// A model with its weights and one input batch, built once; forward() runs one inference
// (the caller holds c10::InferenceMode). Weights are drawn from ResolvedOptions::seed.
class Model {
 public:
  virtual ~Model() = default;
  virtual at::Tensor forward() = 0;
};

// Builds any suite model (dispatches on ResolvedOptions::model).
std::unique_ptr<Model> make_model(const ResolvedOptions& options);

// The per-family factories (models/*.cpp).
std::unique_ptr<Model> make_resnet50(const ResolvedOptions& o);
std::unique_ptr<Model> make_vit(const ResolvedOptions& o);
std::unique_ptr<Model> make_swin(const ResolvedOptions& o);
std::unique_ptr<Model> make_detr(const ResolvedOptions& o);
std::unique_ptr<Model> make_faster_rcnn(const ResolvedOptions& o);
std::unique_ptr<Model> make_segformer(const ResolvedOptions& o);
std::unique_ptr<Model> make_bert(const ResolvedOptions& o);
std::unique_ptr<Model> make_gpt2(const ResolvedOptions& o);
std::unique_ptr<Model> make_llama(const ResolvedOptions& o);  // llama2-7b and mixtral-8x7b

}  // namespace sparsemap::ml::nongemm
