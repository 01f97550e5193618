// The fusion graph of a model, built from its dataflow edges: GEMM-class layers as nodes,
// NonGEMM ops folded into their producer's epilogue, residual adds as skip edges (fusion.h
// states the rules).
#include <algorithm>
#include <string>
#include <vector>

#include "sparsemap/cost/fusion.h"
#include "sparsemap/error.h"

namespace sparsemap::cost {
namespace {

using workload::Dim;
using workload::OpKind;

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw InputError({"<" + where + ">", 0, 0}, why);
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
  const int n = static_cast<int>(model.layers.size());
  if (!model.has_dataflow()) {
    if (!model.producers.empty())
      fail(model.name, "the model lists dataflow edges for " +
                           std::to_string(model.producers.size()) + " layers but has " +
                           std::to_string(n));
    fail(model.name,
         "the model carries no dataflow edges (a MAESTRO .m or GAMMA .csv file lists layers "
         "only); fusion needs a zoo model or an ONNX file");
  }
  // node_of[i]: the node whose tensor layer i's output is (a NonGEMM layer runs in that node's
  // epilogue); -1: the model input.
  std::vector<int> node_of(n, -1);
  for (int i = 0; i < n; ++i) {
    const workload::Layer& l = model.layers[i];
    switch (l.kind) {
      case OpKind::BatchedGemm:
      case OpKind::Embedding:
      case OpKind::Softmax:
      case OpKind::LayerNorm:
        fail(model.name, "layer '" + l.name + "' (" + std::string(workload::op_kind_name(l.kind)) +
                             ") is not part of a chain: fusion graphs are built for CNNs and "
                             "MLP chains");
      default:
        break;
    }
    // The nodes whose tensors the layer reads, in operand order, each once.
    std::vector<int> from;
    bool model_input = model.producers[i].empty();
    for (int p : model.producers[i]) {
      if (p < 0 || p >= i)
        fail(model.name,
             "layer '" + l.name + "' reads layer " + std::to_string(p) + ", not an earlier one");
      const int u = node_of[p];
      if (u < 0)
        model_input = true;
      else if (std::find(from.begin(), from.end(), u) == from.end())
        from.push_back(u);
    }
    if (model_input && !from.empty())
      fail(model.name, "layer '" + l.name +
                           "' reads the model input beside a layer's output; a fusion graph "
                           "cannot carry the model input as a skip");
    if (!workload::is_gemm_class(l.kind)) {
      // NonGEMM: in the epilogue of the later producer. Reading two producers (a residual
      // add), it becomes that producer's second input: the later one reads the earlier one's
      // tensor, of the op's size.
      if (from.empty()) continue;  // on the model input, before any GEMM-class layer
      const int into = *std::max_element(from.begin(), from.end());
      for (int u : from) {
        if (u == into) continue;
        FusionNode& m = g.nodes[into];
        m.inputs.push_back(u);
        m.in_elems.push_back(std::max<int64_t>(1, l.output_elems() / batch));
      }
      node_of[i] = into;
      continue;
    }
    if (from.size() > 1)
      fail(model.name, "layer '" + l.name + "' reads the outputs of " +
                           std::to_string(from.size()) +
                           " layers (a concatenation?); a fusion graph node reads one tensor "
                           "and residual adds");
    const workload::Dim bd = l.kind == OpKind::Gemm ? Dim::M : Dim::N;
    if (l.dim(bd) % batch != 0)
      fail(model.name, "layer '" + l.name + "' has batch dimension " + std::to_string(l.dim(bd)) +
                           ", not a multiple of " + std::to_string(batch));
    FusionNode node;
    node.layer = l;
    const int64_t in = std::max<int64_t>(1, l.input_elems() / batch);
    if (from.empty()) {
      node.model_in_elems = in;
    } else {
      node.inputs.push_back(from[0]);
      node.in_elems.push_back(in);
    }
    g.nodes.push_back(std::move(node));
    node_of[i] = static_cast<int>(g.nodes.size()) - 1;
  }
  if (g.nodes.empty()) fail(model.name, "the model has no GEMM-class layer");
  g.finish();
  return g;
}

}  // namespace sparsemap::cost
