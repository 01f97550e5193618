// Internal to the N:M trainer (trainer.cpp): its data (data.cpp).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "sparsemap/ml/train/trainer.h"

namespace sparsemap::ml::train::detail {

// A name as the options compare it: lower case, '_' as '-' ("Char_GPT" -> "char-gpt").
std::string canonical(std::string s);

struct Data {
  torch::Tensor x_train, y_train, x_test, y_test;  // ViT: [N, 1, 28, 28] fp32, [N] long
  torch::Tensor train_ids, valid_ids;              // GPT: [n] long
  int64_t vocab = 0;
};

// The data `o` names for the ViT (fashion-mnist or synthetic images) or, when gpt, the char-GPT
// (kjv or a synthetic text; the vocabulary is every character of both parts, sorted), cut to
// o's train / test limits. InputError for another data name or a negative limit.
Data load_data(const TrainOptions& o, bool gpt);

}  // namespace sparsemap::ml::train::detail
