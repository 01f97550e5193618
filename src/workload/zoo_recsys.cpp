// The zoo's recommendation models, as their reference PyTorch implementations build them.
#include <string>
#include <vector>

#include "zoo_internal.h"

namespace sparsemap::workload::zoo_detail {
namespace {

// A row vector per sample: [batch, width].
Layer rows_op(std::string name, OpKind kind, std::string op, int64_t batch, int64_t width,
              int64_t operands = 1) {
  return nongemm(std::move(name), kind, std::move(op), {batch, width}, operands);
}

// A layer list with explicit producers (ModelBuilder).
class Builder : public ModelBuilder<Builder> {
 public:
  using ModelBuilder::ModelBuilder;
};

}  // namespace

// DLRM, the MLPerf training configuration on Criteo Terabyte (Naumov et al. 2019;
// facebookresearch/dlrm, dlrm_s_pytorch.py with --max-ind-range=40000000): 13 dense features
// through the bottom MLP 13-512-256-128, 26 one-hot sparse features through 128-wide
// embedding tables, dot interaction of the 27 vectors (27*26/2 = 351 pairs, concatenated with
// the 128-wide dense vector: 479), top MLP 479-1024-1024-512-256-1 and a sigmoid.
Model build_dlrm(const Sizes& s) {
  static const int64_t kTableRows[26] = {
      39884406, 39043,    17289,    7420,     20263,  3,     7120, 1543, 63,
      38532951, 2953546,  403346,   10,       2208,   11938, 155,  4,    976,
      14,       39979771, 25641295, 39664984, 585935, 12972, 108,  36};
  static const int64_t kBottom[] = {13, 512, 256, 128};
  static const int64_t kTop[] = {479, 1024, 1024, 512, 256, 1};
  constexpr int64_t kDim = 128;
  constexpr int64_t kFeatures = 26 + 1;
  const int64_t n = s.batch;
  Builder m("dlrm");
  // create_mlp: Linear, then ReLU (Sigmoid after the top MLP's last Linear), as bot_l.i. The
  // first Linear reads `in`.
  auto mlp = [&](const std::string& prefix, const int64_t* sizes, int count, bool sigmoid_last,
                 std::vector<int> in) {
    int idx = 0;
    m.reads(std::move(in));
    for (int i = 0; i + 1 < count; ++i) {
      m.push(fc(prefix + "." + std::to_string(idx++), n, sizes[i], sizes[i + 1]));
      const bool last = i + 2 == count;
      const char* op = (last && sigmoid_last) ? "sigmoid" : "relu";
      m.push(
          rows_op(prefix + "." + std::to_string(idx++), OpKind::Activation, op, n, sizes[i + 1]));
    }
  };
  mlp("bot_l", kBottom, 4, false, {});
  const int dense = m.tail();
  std::vector<int> features = {dense};
  for (int t = 0; t < 26; ++t) {
    m.reads({}).push(embedding("emb_l." + std::to_string(t), n, kTableRows[t], kDim));
    features.push_back(m.tail());
  }
  // interact_features: Z = bmm(T, T^T) with T = [batch, 27, 128] (the dense vector and the 26
  // embeddings stacked); the lower triangle is then gathered and concatenated with the dense
  // vector (data movement, not built): the top MLP reads both.
  m.reads(features).push(batched_gemm("interact_features.bmm", n, kFeatures, kFeatures, kDim));
  mlp("top_l", kTop, 6, true, {dense, m.tail()});
  return m.take();
}

// NCF / NeuMF, the MLPerf training configuration (He et al. 2017; mlcommons/training
// recommendation/pytorch/neumf.py): MovieLens-20M (138,493 users, 26,744 items), GMF factors
// 64, MLP layers 256-256-128-64 (user and item MLP embeddings of 128 each), final 128 -> 1,
// sigmoid. One (user, item) pair per sample.
Model build_ncf(const Sizes& s) {
  constexpr int64_t kUsers = 138493, kItems = 26744, kFactors = 64;
  static const int64_t kMlp[] = {256, 256, 128, 64};
  const int64_t n = s.batch;
  Builder m("ncf");
  const int mf_user = m.reads({}).push(embedding("mf_user_embed", n, kUsers, kFactors));
  const int mf_item = m.reads({}).push(embedding("mf_item_embed", n, kItems, kFactors));
  const int mf =
      m.reads({mf_user, mf_item}).push(rows_op("mul", OpKind::Elementwise, "mul", n, kFactors, 2));
  const int mlp_user = m.reads({}).push(embedding("mlp_user_embed", n, kUsers, kMlp[0] / 2));
  const int mlp_item = m.reads({}).push(embedding("mlp_item_embed", n, kItems, kMlp[0] / 2));
  m.reads({mlp_user, mlp_item});  // cat([user, item])
  for (int i = 0; i + 1 < 4; ++i) {
    const std::string suffix = i == 0 ? "" : "_" + std::to_string(i);
    m.push(fc("mlp." + std::to_string(i), n, kMlp[i], kMlp[i + 1]));
    m.push(rows_op("relu" + suffix, OpKind::Activation, "relu", n, kMlp[i + 1]));
  }
  m.reads({mf, m.tail()}).push(fc("final", n, kMlp[3] + kFactors, 1));  // cat([xmf, xmlp])
  m.push(rows_op("sigmoid", OpKind::Activation, "sigmoid", n, 1));
  return m.take();
}

}  // namespace sparsemap::workload::zoo_detail
