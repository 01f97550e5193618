// NonGEMM Bench's model suite: names, defaults and the options a run can change. Torch-free;
// the models themselves (ATen, seeded random weights) live in src/ml/nongemm/models.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparsemap::ml::nongemm {

// One model of the suite, in the configuration NonGEMM Bench uses.
struct ModelInfo {
  std::string name;         // canonical, lowercase-hyphen: "vit-b16"
  std::string description;  // architecture and the implementation it follows
  std::string domain;       // "classification", "detection", "segmentation", "language"
  bool tokens = false;      // input: token ids of seq_len (else an image)
  int64_t seq_len = 0;      // default tokens per sequence (language models)
  int64_t image_h = 0;      // default image rows and columns (vision models), pixels
  int64_t image_w = 0;
  int64_t max_seq_len = 0;     // learned positions or the context the model was trained for
  int64_t layers = 0;          // transformer blocks of the full model (0: no override)
  int64_t default_layers = 0;  // blocks run by default; < layers when the model is too big
  std::string zoo_name;        // its name in workload::zoo_entries(), "" when the zoo lacks it
};

// The suite, in report order (vision, detection, segmentation, language, LLMs).
const std::vector<ModelInfo>& model_infos();

// Canonical suite name for a user's spelling (case, '-', '_', '.' ignored; the workload zoo's
// aliases and short names such as "detr", "mixtral" accepted), or "" when unknown.
std::string canonical_model_name(std::string_view name);

// The model's entry. Throws InputError ("<model>") listing the valid names when unknown.
const ModelInfo& model_info(std::string_view name);

// What a run may change. 0 means the model's default.
struct ModelOptions {
  int64_t batch = 1;
  int64_t seq_len = 0;  // language models only
  int64_t layers = 0;   // blocks to run (1..ModelInfo::layers); op times inside the blocks are
                        // scaled by layers / run blocks, so the report is the full model's
  uint64_t seed = 1;    // weights and inputs are drawn from this seed
  bool tiny = false;    // a tiny configuration of the same architecture (tests; seconds)
};

// The sizes a run will use after defaults and checks. Throws InputError ("<flag --X>") for a
// batch outside 1..1024, a sequence length outside 1..max_seq_len or given to a vision model,
// or a layer count outside 1..layers or given to a model without blocks.
struct ResolvedOptions {
  std::string model;
  int64_t batch = 1;
  int64_t seq_len = 0;
  int64_t image_h = 0;
  int64_t image_w = 0;
  int64_t layers_run = 0;  // 0 for models without an override
  int64_t layers_full = 0;
  uint64_t seed = 1;
  bool tiny = false;
};
ResolvedOptions resolve_options(std::string_view name, const ModelOptions& options);

}  // namespace sparsemap::ml::nongemm
