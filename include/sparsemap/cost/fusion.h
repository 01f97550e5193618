// Inter-layer fusion cost (DNNFuser-style map space): a chain or DAG of layers, a micro-batch per
// layer and contiguous fusion groups -> buffer occupancy, DRAM traffic, latency and energy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::cost {

// One GEMM-class layer of a fusion graph and its producers.
//   inputs        producer node indices (all < this node's index); empty: reads the model input
//   in_elems      for each producer, the elements per *sample* this node reads from it
//   out_elems     elements per sample of the tensor this node writes (after its epilogue: the
//                 NonGEMM ops that follow it, a pool included, are folded into it; see below)
// NonGEMM layers (batch norm, activations, pools, residual adds) have no node: they run in the
// epilogue of the GEMM-class layer that produces their input. A residual add becomes a second
// input edge (a skip connection) of the later of the two layers whose outputs it adds.
struct FusionNode {
  workload::Layer layer;  // at the full batch
  std::vector<int> inputs;
  std::vector<int64_t> in_elems;
  int64_t out_elems = 0;
  int64_t model_in_elems = 0;  // per sample, when `inputs` is empty (the model input)
};

struct FusionGraph {
  std::string name;
  int64_t batch = 1;  // samples B; every layer's batch-like dimension is a multiple of B
  std::vector<FusionNode> nodes;  // topological (model) order
  // Consumers of each node (derived from inputs by finish()).
  std::vector<std::vector<int>> consumers;
  void finish();  // fills consumers and checks edges; InputError at "<graph name>" when bad
  // Edges u -> v with v > u + 1 (skip connections), counted.
  int skip_edges() const;
};

// Builds the fusion graph of a model at batch `batch` (the model's layers must carry that
// batch) from its dataflow edges (workload::Model::producers), never from layer names:
//  - each GEMM-class layer is a node; it reads the tensor of the node its producer belongs to
//    (a chain or branch edge), or the model input when it reads no layer;
//  - a NonGEMM layer (batch norm, activation, pool, elementwise op) has no node: it runs in the
//    epilogue of the node that produces its input, and its output is that node's tensor;
//  - a NonGEMM layer that reads the tensors of two or more nodes (a residual add) runs in the
//    epilogue of the latest of them, which gains an input edge from each other one (a skip
//    edge when not adjacent; a downsample conv comes after the main branch in the list, so the
//    add runs after it and it reads the main branch's tensor); that edge carries the op's
//    output elements per sample.
// Supported: CNNs and MLP chains (the zoo's ResNet, MobileNet-V2, VGG, MNASNet, synthetic CNNs,
// ONNX exports of such networks). Throws InputError (file "<model name>") when the model
// carries no dataflow edges (Model::has_dataflow() false: a MAESTRO .m or GAMMA .csv model),
// when its edges are malformed, for layers that make a chain wrong (BatchedGemm, Embedding,
// Softmax, LayerNorm), for a GEMM-class layer that reads several nodes (a concatenation), for
// a layer that reads the model input beside a node's tensor, and for a batch that does not
// divide a layer's batch dimension.
FusionGraph fusion_graph(const workload::Model& model, int64_t batch);

// A fusion mapping: contiguous groups in node order and a micro-batch per node.
//   micro_batch[i]  samples per pass of node i: a divisor of B (so passes_i = B / micro_batch[i])
//   cut[i]          for i < n - 1: true when a group ends after node i
struct FusionMapping {
  std::vector<int64_t> micro_batch;
  std::vector<uint8_t> cut;
  bool operator==(const FusionMapping& o) const {
    return micro_batch == o.micro_batch && cut == o.cut;
  }
  // Groups as [first, last] node ranges.
  std::vector<std::pair<int, int>> groups() const;
  static FusionMapping no_fusion(int n, int64_t batch);  // every node alone, whole batch
};

struct FusionOptions {
  // Per-layer dataflow: a template of dataflows.h for every layer, or "best": per layer and
  // micro-batch the template with the fewest on-chip cycles (3 evaluations each).
  std::string dataflow = "best";
  int64_t buffer_bytes = 0;  // on-chip buffer for fusion; 0: the arch's l2_bytes
};

// What one group costs. Units in the names; words are arch.word_bytes bytes.
struct GroupCost {
  int first = 0, last = 0;
  double latency_cycles = 0;
  double energy_nj = 0;
  double dram_bytes = 0;
  int64_t requested_bytes = 0;  // occupancy with every fused edge on chip (what the mapping asks)
  int64_t peak_bytes = 0;       // occupancy after spilling (<= buffer unless staging alone is over)
  int spilled_edges = 0;        // fused producers whose tensor went to DRAM (did not fit)
  int streamed_weights = 0;     // layers with passes > 1 whose weights are re-read per pass
  bool meets_buffer = true;     // requested_bytes <= buffer
};

struct FusionCost {
  double latency_cycles = 0;
  double energy_nj = 0;
  double dram_bytes = 0;
  int64_t peak_buffer_bytes = 0;  // max over groups of requested_bytes
  bool meets_buffer = true;       // every group's request fits
  std::vector<GroupCost> groups;
};

// Per-pass single-layer figures of one node at one micro-batch, from evaluate() under the fixed
// dataflow (cached: every (node, micro-batch) pair is evaluated once, at construction).
struct LayerPass {
  double onchip_cycles = 0;     // evaluate() runtime with unlimited off-chip bandwidth
  double onchip_nj = 0;         // evaluate() energy less its off-chip part
  double offchip_words = 0;     // evaluate()'s compulsory off-chip words (input, weight, output)
  double in_words = 0;          // ... of its input alone (padding included, as evaluate() reads it)
  int64_t stage_in_bytes = 0;   // the mapping's L2 need for its input tile (double-buffered)
  int64_t stage_w_bytes = 0;    // ... for its weight tile
  int64_t stage_out_bytes = 0;  // ... for its output tile
};

// The fusion cost model. Formulas (B samples, node l with micro-batch m_l, passes p_l = B/m_l,
// w = word bytes, bw = arch.offchip_words_per_cycle, e_off = arch.energy.offchip_pj):
//
//  Placement. In a group G, the tensor of producer u stays on chip when some consumer of u is
//  in G ("fused"). It goes to DRAM (written once, B * out_elems(u) words) when some consumer is
//  outside G or u has none (the model output). A node reads from DRAM its first input (or the
//  model input) when its producer is outside G, as the single-layer model does: p_l * in_words
//  (padding included); a skip input from outside G adds B * in_elems words.
//
//  Buffer request of G (bytes):
//    act(u)   = (m_u + m_v* - gcd(m_u, m_v*)) * out_elems(u) * w  for each fused u, m_v* the
//               consumer in G that maximises it: a producer writing m_u samples at a time and a
//               consumer taking m_v at a time never hold more (equal micro-batches: m_u samples)
//    wres(l)  = weight_elems(l) * w for each l with p_l > 1 whose weights stay resident
//    stage(l) = the single-layer mapping's L2 tiles at m_l: its input tile when the input comes
//               from DRAM, its output tile when the output goes to DRAM, its weight tile when
//               weights are streamed
//    request  = sum_u act(u) + sum_l wres(l) + max_l stage(l)
//  Weights of layers with p_l > 1 are resident when the request fits the buffer; otherwise they
//  are streamed, largest first, until it fits (streamed: p_l * weight_elems words from DRAM).
//  If the request still exceeds the buffer, fused tensors spill to DRAM, largest first, until
//  it fits (a spilled tensor costs a write and a read of B * out_elems words); the group then
//  does not meet the buffer (meets_buffer = false, requested_bytes reports the request).
//
//  DRAM words of l: D_l = its DRAM inputs + its DRAM output + weights (resident or p_l = 1:
//  weight_elems once; streamed: p_l * weight_elems) + spilled tensors it writes or reads.
//  Latency (compute overlapped with memory, per layer, by double buffering):
//    T_l = max(p_l * onchip_cycles_l(m_l), D_l / bw)          cycles;  T_G = sum_l T_l
//  Energy: E_l = p_l * onchip_nj_l(m_l) + D_l * e_off / 1000   nJ
//
//  A one-layer group at m = B is the single-layer model: D = evaluate()'s offchip_words, the
//  energy is evaluate()'s energy_nj, T = max(onchip runtime, offchip_words / bw) (tested).
class FusionCostModel {
 public:
  // Evaluates every node at every divisor of B once (counted in evaluations()). Throws
  // InputError when the dataflow is unknown or a layer cannot be evaluated.
  FusionCostModel(FusionGraph graph, arch::Arch arch, FusionOptions options = {});

  const FusionGraph& graph() const { return graph_; }
  const arch::Arch& arch() const { return arch_; }
  int64_t buffer_bytes() const { return buffer_bytes_; }
  int size() const { return static_cast<int>(graph_.nodes.size()); }
  // Micro-batch choices: the divisors of B, ascending.
  const std::vector<int64_t>& micro_batches() const { return mbs_; }
  int64_t evaluations() const { return evaluations_; }  // single-layer evaluate() calls

  // The cost of nodes [first, last] as one group. Thread-safe (const, no shared state).
  GroupCost group(int first, int last, const std::vector<int64_t>& micro_batch) const;
  // The whole mapping; throws InputError when it does not fit the graph (sizes, micro-batches).
  FusionCost evaluate(const FusionMapping& m) const;
  const LayerPass& pass(int node, int64_t micro_batch) const;

 private:
  FusionGraph graph_;
  arch::Arch arch_;
  FusionOptions options_;
  int64_t buffer_bytes_ = 0;
  std::vector<int64_t> mbs_;
  std::vector<std::vector<LayerPass>> passes_;  // [node][index of micro-batch in mbs_]
  int64_t evaluations_ = 0;
};

// The layer at micro-batch m of B samples: its batch-like dimension scaled by m / B (conv and
// FC: N; GEMM: M; batched GEMM: G). Requires that dimension to be a multiple of B.
workload::Layer with_micro_batch(const workload::Layer& l, int64_t batch, int64_t micro_batch);

}  // namespace sparsemap::cost
