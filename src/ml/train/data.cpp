// The trainer's data (train_data.h): Fashion-MNIST or the King James text, or synthetic
// stand-ins for tests, cut to the options' limits.
#include <random>

#include "sparsemap/error.h"
#include "sparsemap/ml/data/kjv.h"
#include "sparsemap/ml/data/tensors.h"
#include "train_data.h"

namespace sparsemap::ml::train::detail {

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& why) {
  throw InputError({where, 0, 0}, why);
}

}  // namespace

std::string canonical(std::string s) {
  for (char& c : s) {
    if (c == '_') c = '-';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

namespace {

// A small Markov text over a few letters (tests).
std::string synthetic_text(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string letters = "abcdefgh \n";
  std::string s;
  s.reserve(static_cast<size_t>(n));
  size_t prev = 0;
  for (int64_t i = 0; i < n; ++i) {
    prev = (prev * 3 + rng() % 3) % letters.size();
    s += letters[prev];
  }
  return s;
}

torch::Tensor ids_tensor(const std::string& text, const std::vector<int>& index) {
  torch::Tensor t = torch::empty({static_cast<int64_t>(text.size())}, torch::kLong);
  int64_t* p = t.data_ptr<int64_t>();
  for (size_t i = 0; i < text.size(); ++i) p[i] = index[static_cast<unsigned char>(text[i])];
  return t;
}

}  // namespace

Data load_data(const TrainOptions& o, bool gpt) {
  Data d;
  const std::string name = canonical(o.data);
  if (o.train_limit < 0 || o.test_limit < 0) bad("<flag --train-limit>", "limits must be >= 0");
  if (!gpt) {
    data::FashionMnist fm;
    if (name == "fashion-mnist") {
      fm = data::load_fashion_mnist(o.data_dir, o.train_limit, o.test_limit);
    } else if (name == "synthetic") {
      fm.train = data::synthetic_images(o.train_limit > 0 ? o.train_limit : 512, o.seed, 1);
      fm.test = data::synthetic_images(o.test_limit > 0 ? o.test_limit : 200, o.seed, 2);
    } else {
      bad("<flag --data>", "vit-tiny trains on fashion-mnist (or synthetic), not '" + o.data + "'");
    }
    if (fm.train.rows != 28 || fm.train.cols != 28 || fm.test.rows != 28 || fm.test.cols != 28)
      bad(o.data_dir, "expected 28 x 28 images");
    d.x_train = images_tensor(fm.train);
    d.y_train = labels_tensor(fm.train);
    d.x_test = images_tensor(fm.test);
    d.y_test = labels_tensor(fm.test);
    d.vocab = 10;
    return d;
  }
  std::string train_text, valid_text;
  if (name == "kjv") {
    data::KjvText k = data::load_kjv(0.05);
    train_text = std::move(k.train);
    valid_text = std::move(k.valid);
  } else if (name == "synthetic") {
    train_text = synthetic_text(o.train_limit > 0 ? o.train_limit : 20000, o.seed);
    valid_text = synthetic_text(o.test_limit > 0 ? o.test_limit : 4000, o.seed + 1);
  } else {
    bad("<flag --data>", "char-gpt trains on kjv (or synthetic), not '" + o.data + "'");
  }
  // The vocabulary: every character of both parts, sorted (so it does not depend on limits).
  std::vector<int> index(256, -1);
  for (const std::string* t : {&train_text, &valid_text})
    for (char c : *t) index[static_cast<unsigned char>(c)] = 0;
  int next = 0;
  for (int& i : index)
    if (i == 0) i = next++;
  for (int& i : index)
    if (i < 0) i = 0;
  d.vocab = next;
  if (o.train_limit > 0 && static_cast<size_t>(o.train_limit) < train_text.size())
    train_text.resize(static_cast<size_t>(o.train_limit));
  if (o.test_limit > 0 && static_cast<size_t>(o.test_limit) < valid_text.size())
    valid_text.resize(static_cast<size_t>(o.test_limit));
  d.train_ids = ids_tensor(train_text, index);
  d.valid_ids = ids_tensor(valid_text, index);
  return d;
}

}  // namespace sparsemap::ml::train::detail
