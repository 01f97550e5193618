// The zoo's registry: canonical names, aliases, option checks and dispatch to the builders.
//
// What each model includes (see the builders for the layer lists):
//   - CNNs: every conv, BatchNorm, activation, pool, residual add and the classifier (Fc).
//   - Transformers: embeddings (as Embedding layers, parameters included), norms, every
//     Linear as a Gemm (M = batch*seq, N = out, K = in), attention as two BatchedGemms per
//     layer (QK^T: G = batch*heads, M = N = seq, K = head_dim; AV: M = seq, N = head_dim,
//     K = seq) with the score ops between them, activations and residual adds.
//   - bert-base/-large are BertModel with its pooler; gpt2/gpt2-xl are GPT2Model without the
//     LM head, which reuses wte's weights (a Layer cannot share weights, and the published
//     124M/1.56B counts leave it out); llama2-7b is LlamaForCausalLM, whose LM head is untied
//     and part of the published 6.74B; t5-base is the encoder only (T5EncoderModel).
#include "sparsemap/workload/zoo.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "sparsemap/error.h"
#include "zoo_internal.h"

namespace sparsemap::workload {
namespace {

using zoo_detail::Sizes;

// What a model's size options mean for it.
enum class Input {
  Image,    // image_size: pixels per side, at least min_size
  Patches,  // image_size: pixels per side, a multiple of `multiple`
  Tokens,   // seq_len: tokens per sequence, at most max_size
  None,     // batch only (recommendation models: one sample per batch entry)
};

// Upper bounds that keep every count (batch x MACs of the largest model) inside int64.
constexpr int64_t kMaxBatch = 65536;
constexpr int64_t kMaxImage = 4096;

struct Spec {
  ZooEntry entry;
  Input input;
  int64_t default_size;  // image_size or seq_len when the option is 0
  int64_t min_size;
  int64_t max_size;
  int64_t multiple;  // image_size must be a multiple of this
  const char* why_max;
  Model (*build)(const Sizes&);
};

Spec cnn(const char* name, const char* description, int64_t min_image,
         Model (*build)(const Sizes&)) {
  return {{name, description}, Input::Image, 224, min_image, kMaxImage, 1, "", build};
}
// Patches of `patch` pixels; at most 2048 px (16,385 tokens at 16 px) for int64 headroom.
Spec vit(const char* name, const char* description, int64_t patch, Model (*build)(const Sizes&)) {
  return {{name, description}, Input::Patches, 224, patch, 2048, patch, "", build};
}
Spec lm(const char* name, const char* description, int64_t default_seq, int64_t max_seq,
        const char* why_max, Model (*build)(const Sizes&)) {
  return {{name, description}, Input::Tokens, default_seq, 1, max_seq, 1, why_max, build};
}
Spec recsys(const char* name, const char* description, Model (*build)(const Sizes&)) {
  return {{name, description}, Input::None, 0, 0, 0, 1, "", build};
}

const std::vector<Spec>& specs() {
  using namespace zoo_detail;
  constexpr const char* kBert = "the model has 512 learned positions";
  constexpr const char* kGpt2 = "the model has 1024 learned positions";
  static const std::vector<Spec> kSpecs = {
      cnn("resnet18", "ResNet-18, 11.7M params (He et al. 2016; torchvision resnet18)", 32,
          build_resnet18),
      cnn("resnet50", "ResNet-50 v1.5, 25.6M params (He et al. 2016; torchvision resnet50)", 32,
          build_resnet50),
      cnn("mobilenet-v2",
          "MobileNetV2 1.0, 3.5M params (Sandler et al. 2018; torchvision mobilenet_v2)", 32,
          build_mobilenet_v2),
      // 224 px at least: smaller inputs leave less than the 7x7 map that the classifier expects
      // (torchvision's adaptive pool would upsample it).
      cnn("vgg16",
          "VGG-16 (config D, no BN), 138M params (Simonyan & Zisserman 2015; torchvision vgg16)",
          224, build_vgg16),
      cnn("mnasnet", "MNASNet-A 1.0, 4.4M params (Tan et al. 2019; torchvision mnasnet1_0)", 32,
          build_mnasnet),
      lm("bert-base",
         "BERT-base encoder + pooler, 110M params (Devlin et al. 2019; HF bert-base-uncased)", 128,
         512, kBert, build_bert_base),
      lm("bert-large",
         "BERT-large encoder + pooler, 335M params (Devlin et al. 2019; HF bert-large-uncased)",
         128, 512, kBert, build_bert_large),
      lm("gpt2",
         "GPT-2 small, 124M params, without the tied LM head (Radford et al. 2019; HF gpt2)", 1024,
         1024, kGpt2, build_gpt2),
      lm("gpt2-xl",
         "GPT-2 XL, 1.56B params, without the tied LM head (Radford et al. 2019; HF gpt2-xl)", 1024,
         1024, kGpt2, build_gpt2_xl),
      vit("vit-b16",
          "ViT-B/16, 86.6M params (Dosovitskiy et al. 2021; HF google/vit-base-patch16-224)", 16,
          build_vit_b16),
      lm("t5-base", "T5-base encoder, 110M params (Raffel et al. 2020; HF t5-base T5EncoderModel)",
         128, 16384, "the zoo's bound for t5-base", build_t5_base),
      lm("llama2-7b",
         "Llama-2-7B with LM head, 6.74B params (Touvron et al. 2023; HF "
         "meta-llama/Llama-2-7b-hf)",
         2048, 4096, "the model's context is 4096 tokens", build_llama2_7b),
      recsys("dlrm",
             "DLRM, MLPerf Criteo Terabyte config, 24.0B params (Naumov et al. 2019; "
             "facebookresearch/dlrm)",
             build_dlrm),
      recsys("ncf",
             "NCF/NeuMF, MLPerf MovieLens-20M config, 31.8M params (He et al. 2017; "
             "mlcommons/training neumf.py)",
             build_ncf),
  };
  return kSpecs;
}

// Other spellings, compared after folding.
constexpr ModelAlias kAliases[] = {
    {"mnasnet10", "mnasnet"},
    {"mnasneta1", "mnasnet"},
    {"bertbaseuncased", "bert-base"},
    {"bertlargeuncased", "bert-large"},
    {"gpt2small", "gpt2"},
    {"vitbase16", "vit-b16"},
    {"vitbasepatch16224", "vit-b16"},
    {"llama27bhf", "llama2-7b"},
    {"neumf", "ncf"},
};

const Spec* find_spec(std::string_view canonical) {
  for (const Spec& s : specs())
    if (s.entry.name == canonical) return &s;
  return nullptr;
}

[[noreturn]] void fail(const std::string& message) {
  throw InputError(SourceLocation{"<model>", 0, 0}, message);
}

// The user's spelling, safe to echo on one line: at most 64 characters, no control bytes.
std::string printable(std::string_view name) {
  std::string out;
  for (char ch : name.substr(0, 64)) out += std::isprint(static_cast<unsigned char>(ch)) ? ch : '?';
  if (name.size() > 64) out += "...";
  return out;
}

std::string valid_names() {
  std::string out;
  for (const Spec& s : specs()) out += (out.empty() ? "" : ", ") + s.entry.name;
  return out;
}

// Checks one size option against [lo, hi] and returns it, or the default when 0.
int64_t check_size(const Spec& s, const char* option, int64_t value) {
  const std::string& name = s.entry.name;
  if (value == 0) return s.default_size;
  if (value < s.min_size || value > s.max_size) {
    std::string msg = name + ": " + option + " must be between " + std::to_string(s.min_size) +
                      " and " + std::to_string(s.max_size) + " (got " + std::to_string(value) + ")";
    if (value > s.max_size && *s.why_max != '\0') msg += std::string(": ") + s.why_max;
    fail(msg);
  }
  if (value % s.multiple != 0) {
    fail(name + ": " + option + " must be a multiple of " + std::to_string(s.multiple) +
         " (the patch size), got " + std::to_string(value));
  }
  return value;
}

void reject(const Spec& s, const char* option, int64_t value, const char* kind) {
  if (value != 0) {
    fail(s.entry.name + ": " + option + " does not apply to " + kind + " (got " +
         std::to_string(value) + "; leave it 0)");
  }
}

Sizes resolve(const Spec& s, const ZooOptions& o) {
  if (o.batch < 1 || o.batch > kMaxBatch) {
    fail(s.entry.name + ": batch must be between 1 and " + std::to_string(kMaxBatch) + " (got " +
         std::to_string(o.batch) + ")");
  }
  Sizes z;
  z.batch = o.batch;
  switch (s.input) {
    case Input::Image:
    case Input::Patches:
      reject(s, "seq_len", o.seq_len, "a vision model");
      z.image_size = check_size(s, "image_size", o.image_size);
      break;
    case Input::Tokens:
      reject(s, "image_size", o.image_size, "a language model");
      z.seq_len = check_size(s, "seq_len", o.seq_len);
      break;
    case Input::None:
      reject(s, "seq_len", o.seq_len, "a recommendation model");
      reject(s, "image_size", o.image_size, "a recommendation model");
      break;
  }
  return z;
}

}  // namespace

const std::vector<ZooEntry>& zoo_entries() {
  static const std::vector<ZooEntry> kEntries = [] {
    std::vector<ZooEntry> v;
    for (const Spec& s : specs()) v.push_back(s.entry);
    return v;
  }();
  return kEntries;
}

std::string fold_model_name(std::string_view name) {
  std::string out;
  for (char ch : name) {
    if (ch == '-' || ch == '_' || ch == '.' || ch == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

std::string zoo_canonical_name(std::string_view name) {
  const std::string f = fold_model_name(name);
  if (f.empty()) return "";
  for (const Spec& s : specs())
    if (fold_model_name(s.entry.name) == f) return s.entry.name;
  for (const ModelAlias& a : kAliases)
    if (f == a.folded) return a.canonical;
  return "";
}

Model zoo_model(std::string_view name, const ZooOptions& options) {
  const std::string canonical = zoo_canonical_name(name);
  const Spec* spec = find_spec(canonical);
  if (spec == nullptr) {
    fail("unknown model '" + printable(name) + "'; valid names: " + valid_names());
  }
  Model m = spec->build(resolve(*spec, options));
  SPARSEMAP_ASSERT(m.name == canonical);
  return m;
}

}  // namespace sparsemap::workload
