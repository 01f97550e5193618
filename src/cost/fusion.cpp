// The fusion cost model: per-(node, micro-batch) single-layer figures cached at construction,
// then per group placement, weight residency, spilling, DRAM traffic, latency and energy
// (formulas in include/sparsemap/cost/fusion.h).
#include "sparsemap/cost/fusion.h"

#include <algorithm>
#include <numeric>

#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"

namespace sparsemap::cost {
namespace {

using workload::Dim;
using workload::OpKind;

Dim batch_dim(const workload::Layer& l) {
  if (l.kind == OpKind::Gemm) return Dim::M;
  if (l.kind == OpKind::BatchedGemm) return Dim::G;
  return Dim::N;
}

}  // namespace

workload::Layer with_micro_batch(const workload::Layer& l, int64_t batch, int64_t micro_batch) {
  workload::Layer r = l;
  const Dim d = batch_dim(l);
  SPARSEMAP_ASSERT(batch >= 1 && micro_batch >= 1 && l.dim(d) % batch == 0);
  r.dim(d) = l.dim(d) / batch * micro_batch;
  return r;
}

std::vector<std::pair<int, int>> FusionMapping::groups() const {
  std::vector<std::pair<int, int>> g;
  const int n = static_cast<int>(micro_batch.size());
  int first = 0;
  for (int i = 0; i < n; ++i)
    if (i == n - 1 || cut[i]) {
      g.emplace_back(first, i);
      first = i + 1;
    }
  return g;
}

FusionMapping FusionMapping::no_fusion(int n, int64_t batch) {
  FusionMapping m;
  m.micro_batch.assign(n, batch);
  m.cut.assign(std::max(0, n - 1), 1);
  return m;
}

FusionCostModel::FusionCostModel(FusionGraph graph, arch::Arch arch, FusionOptions options)
    : graph_(std::move(graph)), arch_(std::move(arch)), options_(std::move(options)) {
  buffer_bytes_ = options_.buffer_bytes > 0 ? options_.buffer_bytes : arch_.l2_bytes;
  const int64_t b = graph_.batch;
  for (int64_t m = 1; m <= b; ++m)
    if (b % m == 0) mbs_.push_back(m);
  if (options_.dataflow != "best") {
    bool known = false;
    std::string names;
    for (const auto& t : dataflow_templates()) {
      known = known || t.name == options_.dataflow;
      names += t.name + ", ";
    }
    if (!known)
      throw InputError({"<flag --dataflow>", 0, 0}, "unknown dataflow '" + options_.dataflow +
                                                        "'; expected one of: " + names + "best");
  }
  arch::Arch unlimited = arch_;
  unlimited.offchip_words_per_cycle = 1e18;  // on-chip time: no off-chip stall
  passes_.resize(graph_.nodes.size());
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    for (int64_t m : mbs_) {
      const workload::Layer l = with_micro_batch(graph_.nodes[i].layer, b, m);
      Cost c;
      c.status = Status::Invalid;
      c.reason = "no dataflow template maps it";
      if (options_.dataflow == "best") {  // the fastest template on chip for this shape
        for (const auto& t : dataflow_templates()) {
          const Cost x = cost::evaluate(l, unlimited, dataflow_mapping(t.name, l, arch_.num_pes));
          ++evaluations_;
          if (x.ok() && (!c.ok() || x.runtime_cycles < c.runtime_cycles)) c = x;
        }
      } else {
        c = cost::evaluate(l, unlimited, dataflow_mapping(options_.dataflow, l, arch_.num_pes));
        ++evaluations_;
      }
      if (!c.ok())
        throw InputError({"<fusion " + graph_.name + ">", 0, 0},
                         "layer '" + l.name + "' cannot be evaluated: " + c.reason);
      LayerPass p;
      p.onchip_cycles = static_cast<double>(c.runtime_cycles);
      p.onchip_nj = c.energy_nj - c.energy.offchip_nj;
      p.offchip_words = c.offchip_words;
      p.in_words = c.access[kInput].l2_writes;
      p.stage_in_bytes = c.l2_bytes_by_tensor[kInput];
      p.stage_w_bytes = c.l2_bytes_by_tensor[kWeight];
      p.stage_out_bytes = c.l2_bytes_by_tensor[kOutput];
      passes_[i].push_back(p);
    }
  }
}

const LayerPass& FusionCostModel::pass(int node, int64_t micro_batch) const {
  const auto it = std::lower_bound(mbs_.begin(), mbs_.end(), micro_batch);
  SPARSEMAP_ASSERT(it != mbs_.end() && *it == micro_batch);
  return passes_[node][it - mbs_.begin()];
}

GroupCost FusionCostModel::group(int a, int b, const std::vector<int64_t>& mb) const {
  const auto& nodes = graph_.nodes;
  const auto& cons = graph_.consumers;
  const int64_t B = graph_.batch;
  const double w = static_cast<double>(std::max<int64_t>(1, arch_.word_bytes));
  const int len = b - a + 1;
  // Per node of the group (index i - a).
  std::vector<int64_t> act(len, 0), weight(len, 0), passes(len, 1);
  std::vector<uint8_t> fused(len, 0), to_dram(len, 0), resident(len, 0), spilled(len, 0);
  for (int i = a; i <= b; ++i) {
    const int k = i - a;
    passes[k] = B / mb[i];
    weight[k] = nodes[i].layer.weight_elems() * static_cast<int64_t>(w);
    resident[k] = passes[k] > 1;
    to_dram[k] = cons[i].empty();
    int64_t samples = 0;
    for (int v : cons[i]) {
      if (v > b) {
        to_dram[k] = 1;
      } else {
        fused[k] = 1;
        samples = std::max(samples, mb[i] + mb[v] - std::gcd(mb[i], mb[v]));
      }
    }
    act[k] = samples * nodes[i].out_elems * static_cast<int64_t>(w);
  }
  // Does node i read some input from DRAM (model input, a producer outside, a spilled one)?
  auto in_from_dram = [&](int i) {
    if (nodes[i].inputs.empty()) return true;
    for (int u : nodes[i].inputs)
      if (u < a || spilled[u - a]) return true;
    return false;
  };
  auto request = [&]() {
    int64_t sum = 0, stage = 0;
    for (int k = 0; k < len; ++k) {
      const int i = a + k;
      if (fused[k] && !spilled[k]) sum += act[k];
      if (resident[k]) sum += weight[k];
      const LayerPass& p = pass(i, mb[i]);
      const int64_t s = (in_from_dram(i) ? p.stage_in_bytes : 0) +
                        (to_dram[k] || spilled[k] ? p.stage_out_bytes : 0) +
                        (resident[k] ? 0 : p.stage_w_bytes);
      stage = std::max(stage, s);
    }
    return sum + stage;
  };
  GroupCost g;
  g.first = a;
  g.last = b;
  int64_t req = request();
  // Weights streamed, largest first, until the request fits.
  while (req > buffer_bytes_) {
    int best = -1;
    for (int k = 0; k < len; ++k)
      if (resident[k] && (best < 0 || weight[k] > weight[best])) best = k;
    if (best < 0) break;
    resident[best] = 0;
    ++g.streamed_weights;
    req = request();
  }
  g.requested_bytes = req;
  g.meets_buffer = req <= buffer_bytes_;
  // Fused tensors spilled, largest first, until it fits.
  while (req > buffer_bytes_) {
    int best = -1;
    for (int k = 0; k < len; ++k)
      if (fused[k] && !spilled[k] && (best < 0 || act[k] > act[best])) best = k;
    if (best < 0) break;
    spilled[best] = 1;
    ++g.spilled_edges;
    req = request();
  }
  g.peak_bytes = req;

  const double bw = arch_.offchip_words_per_cycle;
  const double e_off = arch_.energy.offchip_pj;
  for (int k = 0; k < len; ++k) {
    const int i = a + k;
    const FusionNode& n = nodes[i];
    const LayerPass& p = pass(i, mb[i]);
    const double np = static_cast<double>(passes[k]);
    double words = n.inputs.empty() ? np * p.in_words : 0.0;
    for (size_t j = 0; j < n.inputs.size(); ++j) {
      const int u = n.inputs[j];
      if (u >= a && !spilled[u - a]) continue;
      words += j == 0 ? np * p.in_words : static_cast<double>(B * n.in_elems[j]);
    }
    if (to_dram[k] || spilled[k]) words += static_cast<double>(B * n.out_elems);
    const double wt = static_cast<double>(n.layer.weight_elems());
    words += resident[k] || passes[k] == 1 ? wt : wt * static_cast<double>(passes[k]);
    g.latency_cycles += std::max(np * p.onchip_cycles, words / bw);
    g.energy_nj += np * p.onchip_nj + words * e_off / 1000.0;
    g.dram_bytes += words * w;
  }
  return g;
}

FusionCost FusionCostModel::evaluate(const FusionMapping& m) const {
  const int n = size();
  const std::string where = "<fusion mapping of " + graph_.name + ">";
  if (static_cast<int>(m.micro_batch.size()) != n || static_cast<int>(m.cut.size()) != n - 1)
    throw InputError({where, 0, 0}, "expected " + std::to_string(n) + " micro-batches and " +
                                        std::to_string(n - 1) + " boundaries");
  for (int64_t x : m.micro_batch)
    if (x < 1 || x > graph_.batch || graph_.batch % x != 0)
      throw InputError({where, 0, 0}, "micro-batch " + std::to_string(x) +
                                          " does not divide the batch " +
                                          std::to_string(graph_.batch));
  FusionCost c;
  for (const auto& [a, b] : m.groups()) {
    GroupCost g = group(a, b, m.micro_batch);
    c.latency_cycles += g.latency_cycles;
    c.energy_nj += g.energy_nj;
    c.dram_bytes += g.dram_bytes;
    c.peak_buffer_bytes = std::max(c.peak_buffer_bytes, g.requested_bytes);
    c.meets_buffer = c.meets_buffer && g.meets_buffer;
    c.groups.push_back(g);
  }
  return c;
}

}  // namespace sparsemap::cost
