// The fusion graph of a model: GEMM-class layers as nodes, NonGEMM ops folded into their
// producer's epilogue, residual adds as skip edges (fusion.h states the inference rules).
#include <algorithm>
#include <map>
#include <set>

#include "sparsemap/cost/fusion.h"
#include "sparsemap/error.h"

namespace sparsemap::cost {
namespace {

using workload::Dim;
using workload::OpKind;

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw InputError({"<" + where + ">", 0, 0}, why);
}

bool starts_with(const std::string& s, const std::string& p) {
  return s.size() > p.size() && s.compare(0, p.size(), p) == 0 && s[p.size()] == '.';
}

}  // namespace

void FusionGraph::finish() {
  const int n = static_cast<int>(nodes.size());
  consumers.assign(n, {});
  for (int v = 0; v < n; ++v) {
    FusionNode& node = nodes[v];
    if (node.inputs.size() != node.in_elems.size()) fail(name, "node inputs and sizes differ");
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const int u = node.inputs[j];
      if (u < 0 || u >= v) fail(name, "node " + node.layer.name + " reads a later node");
      if (node.in_elems[j] <= 0) fail(name, "node " + node.layer.name + " reads nothing");
      consumers[u].push_back(v);
    }
  }
  // A producer's tensor: the largest any consumer reads (equal for a plain chain); the layer's
  // own output when nothing consumes it (the model output).
  for (int u = 0; u < n; ++u) {
    int64_t e = 0;
    for (int v : consumers[u])
      for (size_t j = 0; j < nodes[v].inputs.size(); ++j)
        if (nodes[v].inputs[j] == u) e = std::max(e, nodes[v].in_elems[j]);
    if (e == 0)
      e = std::max<int64_t>(1, nodes[u].layer.output_elems() / std::max<int64_t>(1, batch));
    nodes[u].out_elems = e;
  }
}

int FusionGraph::skip_edges() const {
  int s = 0;
  for (size_t v = 0; v < nodes.size(); ++v)
    for (int u : nodes[v].inputs) s += u + 1 < static_cast<int>(v);
  return s;
}

FusionGraph fusion_graph(const workload::Model& model, int64_t batch) {
  FusionGraph g;
  g.name = model.name;
  g.batch = batch;
  if (batch < 1) fail(model.name, "batch must be >= 1");
  // Blocks that end in a residual add: "<block>.add".
  std::set<std::string> blocks;
  for (const auto& l : model.layers)
    if (l.kind == OpKind::Elementwise && l.op == "add" && l.name.size() > 4 &&
        l.name.compare(l.name.size() - 4, 4, ".add") == 0)
      blocks.insert(l.name.substr(0, l.name.size() - 4));
  std::map<std::string, int> block_input, skip_source;
  int last = -1;  // node whose tensor is the current activation (-1: the model input)
  for (const auto& l : model.layers) {
    for (const auto& b : blocks)
      if (!block_input.count(b) && starts_with(l.name, b)) block_input[b] = last;
    switch (l.kind) {
      case OpKind::BatchedGemm:
      case OpKind::Embedding:
      case OpKind::Softmax:
      case OpKind::LayerNorm:
        fail(model.name, "layer '" + l.name + "' (" + std::string(workload::op_kind_name(l.kind)) +
                             ") is not part of a chain: fusion graphs are inferred for CNNs and "
                             "MLP chains");
      default:
        break;
    }
    if (l.kind == OpKind::Elementwise) {
      if (l.op != "add" || l.operands != 2) continue;  // folded elementwise op
      const std::string b = l.name.substr(0, l.name.size() - 4);
      if (!blocks.count(b) || last < 0) continue;
      const int s = skip_source.count(b) ? skip_source[b] : block_input[b];
      if (s < 0 || s == last) continue;
      // The add runs in the epilogue of the later of the two producers (a downsample layer
      // comes after the main branch in the list), which reads the other one's tensor.
      const int into = std::max(s, last), from = std::min(s, last);
      FusionNode& m = g.nodes[into];
      m.inputs.push_back(from);
      m.in_elems.push_back(std::max<int64_t>(1, m.layer.output_elems() / batch));
      last = into;
      continue;
    }
    if (!workload::is_gemm_class(l.kind)) continue;  // epilogue of the current producer
    const workload::Dim bd = l.kind == OpKind::Gemm ? Dim::M : Dim::N;
    if (l.dim(bd) % batch != 0)
      fail(model.name, "layer '" + l.name + "' has batch dimension " + std::to_string(l.dim(bd)) +
                           ", not a multiple of " + std::to_string(batch));
    FusionNode node;
    node.layer = l;
    int producer = last;
    std::string down_block;
    for (const auto& b : blocks)
      if (starts_with(l.name, b) && l.name.find(".downsample") != std::string::npos) down_block = b;
    if (!down_block.empty()) producer = block_input[down_block];
    const int64_t in = std::max<int64_t>(1, l.input_elems() / batch);
    if (producer < 0) {
      node.model_in_elems = in;
    } else {
      node.inputs.push_back(producer);
      node.in_elems.push_back(in);
    }
    g.nodes.push_back(std::move(node));
    const int id = static_cast<int>(g.nodes.size()) - 1;
    if (!down_block.empty())
      skip_source[down_block] = id;
    else
      last = id;
  }
  if (g.nodes.empty()) fail(model.name, "the model has no GEMM-class layer");
  g.finish();
  return g;
}

}  // namespace sparsemap::cost
