// The model zoo: real networks' layer shapes, built from their published architectures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sparsemap/workload/model.h"

namespace sparsemap::workload {

// Size parameters of a zoo model. 0 means the model's default (image 224, or the model's
// usual sequence length: BERT/T5 128, GPT-2 1024, Llama 2 2048).
struct ZooOptions {
  int64_t batch = 1;
  int64_t seq_len = 0;     // tokens, for language models
  int64_t image_size = 0;  // pixels per side, for vision models
};

struct ZooEntry {
  std::string name;         // canonical, lowercase with hyphens: "mobilenet-v2"
  std::string description;  // one line, with the source of the architecture
};

// Every registered model, in a stable order.
const std::vector<ZooEntry>& zoo_entries();

// A model name folded for comparison: lowercase, without '-', '_', '.' or spaces.
std::string fold_model_name(std::string_view name);

// Another spelling (folded) of a model name, and the canonical name it stands for.
struct ModelAlias {
  const char* folded;
  const char* canonical;
};

// Canonical name for a user's spelling ("MobileNet_V2" -> "mobilenet-v2"), or "" if unknown.
std::string zoo_canonical_name(std::string_view name);

// Builds the model. Throws InputError (file "<model>") for an unknown name or bad options.
Model zoo_model(std::string_view name, const ZooOptions& options = {});

}  // namespace sparsemap::workload
