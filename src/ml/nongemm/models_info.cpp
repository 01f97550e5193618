// The suite's registry: names, defaults, aliases and option checks (torch-free).
#include <cctype>
#include <string>

#include "sparsemap/error.h"
#include "sparsemap/ml/nongemm/models.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::ml::nongemm {
namespace {

ModelInfo vision(const char* name, const char* description, const char* domain, int64_t h,
                 int64_t w, int64_t layers = 0) {
  ModelInfo m;
  m.name = name, m.description = description, m.domain = domain;
  m.image_h = h, m.image_w = w;
  m.layers = m.default_layers = layers;
  return m;
}

ModelInfo language(const char* name, const char* description, int64_t seq, int64_t max_seq,
                   int64_t layers, int64_t default_layers) {
  ModelInfo m;
  m.name = name, m.description = description, m.domain = "language";
  m.tokens = true, m.seq_len = seq, m.max_seq_len = max_seq;
  m.layers = layers, m.default_layers = default_layers;
  return m;
}

std::vector<ModelInfo> build_infos() {
  std::vector<ModelInfo> v = {
      vision("vit-b16", "ViT-B/16 (HF ViTForImageClassification, google/vit-base-patch16-224)",
             "classification", 224, 224, 12),
      vision("vit-l16", "ViT-L/16 (HF ViTForImageClassification, google/vit-large-patch16-224)",
             "classification", 224, 224, 24),
      vision("vit-h14", "ViT-H/14 (HF ViTForImageClassification, 32 layers, 1280 wide)",
             "classification", 224, 224, 32),
      vision("swin-t",
             "Swin-T (HF SwinForImageClassification, microsoft/swin-tiny-patch4-window7-224)",
             "classification", 224, 224),
      vision("swin-s",
             "Swin-S (HF SwinForImageClassification, microsoft/swin-small-patch4-window7-224)",
             "classification", 224, 224),
      vision("swin-b",
             "Swin-B (HF SwinForImageClassification, microsoft/swin-base-patch4-window7-224)",
             "classification", 224, 224),
      vision("resnet50", "ResNet-50 v1.5 (torchvision resnet50)", "classification", 224, 224),
      vision("detr-r50", "DETR ResNet-50 (HF DetrForObjectDetection, facebook/detr-resnet-50)",
             "detection", 800, 1088),
      vision("faster-rcnn-r50-fpn",
             "Faster R-CNN ResNet-50 FPN v1 (torchvision fasterrcnn_resnet50_fpn; sparsemap NMS "
             "and RoIAlign)",
             "detection", 800, 1088),
      vision("segformer-b0",
             "SegFormer-B0 (HF SegformerForSemanticSegmentation, nvidia/segformer-b0-finetuned-"
             "ade-512-512)",
             "segmentation", 512, 512),
      language("bert-base", "BERT-base encoder + pooler (HF BertModel, bert-base-uncased)", 128,
               512, 12, 12),
      language("gpt2", "GPT-2 small (HF GPT2Model, gpt2)", 256, 1024, 12, 12),
      language("gpt2-large", "GPT-2 large (HF GPT2Model, gpt2-large)", 256, 1024, 36, 36),
      language("gpt2-xl", "GPT-2 XL (HF GPT2Model, gpt2-xl)", 512, 1024, 48, 48),
      language("llama2-7b",
               "Llama 2 7B with LM head (HF LlamaForCausalLM, meta-llama/Llama-2-7b-hf); 1 of 32 "
               "layers run by default, scaled to 32",
               2048, 4096, 32, 1),
      language("mixtral-8x7b",
               "Mixtral 8x7B with LM head (HF MixtralForCausalLM, mistralai/Mixtral-8x7B-v0.1); "
               "1 of 32 layers run by default, scaled to 32; experts share weights",
               2048, 32768, 32, 1),
  };
  for (ModelInfo& m : v) {
    const std::string zoo = workload::zoo_canonical_name(m.name);
    if (zoo == m.name) m.zoo_name = zoo;
  }
  return v;
}

// Short names and other spellings (folded) that the workload zoo does not know.
constexpr workload::ModelAlias kAliases[] = {
    {"vitl16", "vit-l16"},
    {"vitlarge16", "vit-l16"},
    {"vith14", "vit-h14"},
    {"vithuge14", "vit-h14"},
    {"swintiny", "swin-t"},
    {"swinsmall", "swin-s"},
    {"swinbase", "swin-b"},
    {"detr", "detr-r50"},
    {"detrresnet50", "detr-r50"},
    {"fasterrcnn", "faster-rcnn-r50-fpn"},
    {"fasterrcnnresnet50fpn", "faster-rcnn-r50-fpn"},
    {"segformer", "segformer-b0"},
    {"mitb0", "segformer-b0"},
    {"mixtral", "mixtral-8x7b"},
    {"mixtral8x7bv01", "mixtral-8x7b"},
    {"llama2", "llama2-7b"},
    {"llama7b", "llama2-7b"},
};

[[noreturn]] void bad_flag(const char* flag, const std::string& message) {
  throw InputError(SourceLocation{std::string("<flag ") + flag + ">", 0, 0}, message);
}

}  // namespace

const std::vector<ModelInfo>& model_infos() {
  static const std::vector<ModelInfo> kInfos = build_infos();
  return kInfos;
}

std::string canonical_model_name(std::string_view name) {
  const std::string f = workload::fold_model_name(name);
  if (f.empty()) return "";
  for (const ModelInfo& m : model_infos())
    if (workload::fold_model_name(m.name) == f) return m.name;
  for (const workload::ModelAlias& a : kAliases)
    if (f == a.folded) return a.canonical;
  // The workload zoo's aliases ("bert-base-uncased", "vit-base-patch16-224", ...).
  const std::string zoo = workload::zoo_canonical_name(name);
  for (const ModelInfo& m : model_infos())
    if (!zoo.empty() && m.name == zoo) return m.name;
  return "";
}

const ModelInfo& model_info(std::string_view name) {
  const std::string canonical = canonical_model_name(name);
  for (const ModelInfo& m : model_infos())
    if (m.name == canonical) return m;
  std::string valid;
  for (const ModelInfo& m : model_infos()) valid += (valid.empty() ? "" : ", ") + m.name;
  std::string shown;
  for (char ch : name.substr(0, 64))
    shown += std::isprint(static_cast<unsigned char>(ch)) ? ch : '?';
  throw InputError(SourceLocation{"<model>", 0, 0},
                   "unknown model '" + shown + "' for nongemm; valid names: " + valid);
}

ResolvedOptions resolve_options(std::string_view name, const ModelOptions& o) {
  const ModelInfo& m = model_info(name);
  ResolvedOptions r;
  r.model = m.name;
  r.seed = o.seed;
  r.tiny = o.tiny;
  if (o.batch < 1 || o.batch > 1024)
    bad_flag("--batch", "batch must be between 1 and 1024 (got " + std::to_string(o.batch) + ")");
  r.batch = o.batch;
  if (m.tokens) {
    const int64_t max_seq = o.tiny ? 64 : m.max_seq_len;
    r.seq_len = o.seq_len == 0 ? (o.tiny ? 16 : m.seq_len) : o.seq_len;
    if (r.seq_len < 1 || r.seq_len > max_seq)
      bad_flag("--seq", m.name + ": sequence length must be between 1 and " +
                            std::to_string(max_seq) + " (got " + std::to_string(o.seq_len) + ")");
  } else {
    if (o.seq_len != 0)
      bad_flag("--seq", m.name + " is a vision model: --seq does not apply (got " +
                            std::to_string(o.seq_len) + ")");
    r.image_h = m.image_h, r.image_w = m.image_w;
    if (o.tiny) {
      // Tiny images: a multiple of 32 (detection) and of the tiny patch sizes.
      r.image_h = m.domain == "detection" ? 64 : 32;
      r.image_w = m.domain == "detection" ? 96 : 32;
    }
  }
  if (m.layers == 0) {
    if (o.layers != 0)
      bad_flag("--layers",
               m.name + " has no block-count override (got " + std::to_string(o.layers) + ")");
  } else {
    const int64_t full = o.tiny ? 2 : m.layers;
    const int64_t run = o.layers == 0 ? (o.tiny ? full : m.default_layers) : o.layers;
    if (run < 1 || run > full)
      bad_flag("--layers", m.name + ": layers must be between 1 and " + std::to_string(full) +
                               " (got " + std::to_string(o.layers) + ")");
    r.layers_full = full, r.layers_run = run;
  }
  return r;
}

}  // namespace sparsemap::ml::nongemm
