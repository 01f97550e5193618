// ONNX import through libonnx: parse, shape inference (per node, onnx_shapes.cpp), then one
// layer per compute node.
//
// Decisions (the contract of read_onnx/parse_onnx):
// - Weights. An operand is a weight when it is an initializer, a graph input that no node reads
//   as its data operand (operand 0; Gather's indices), or computed only from weights (Identity,
//   Transpose, Constant, ...). Exporters that omit parameters (torch's export_params=False)
//   list the weights as graph inputs without initializers; this rule finds them. The first
//   graph input that is not an initializer is always data.
// - Nodes whose operands are all weights (or Shape/Size outputs) are constant computations and
//   are skipped.
// - Conv: group 1 -> Conv; group == C_in == C_out -> DsConv; other groups -> NgConv (K and C per
//   group). 1-D convolutions have Y = R = 1. Asymmetric padding: pad = floor((begin+end)/2) and
//   an odd remainder is added to the input size, so the output size and MACs stay exact.
// - ConvTranspose -> TrConv in MAESTRO's convention: Y = output rows + R - 1 (the zero-inserted,
//   padded input), stride 1, no padding, so Y' equals the true output size.
// - Gemm with a weight B -> Fc (N = rows of A, C = inner, K = columns of B); otherwise Gemm.
// - MatMul with a weight B of rank <= 2 -> Gemm (M = product of A's leading dims). Otherwise
//   BatchedGemm, G = product of the broadcast batch dims.
// - NonGEMM: activations, Softmax, BatchNorm (also InstanceNormalization), LayerNorm,
//   elementwise and reduce ops (operands = inputs that are not weights), pools, Gather on a
//   2-D weight table (Embedding). Data-movement and shape ops (Reshape, Transpose, Concat,
//   Flatten, Slice, Identity, Shape, Cast, ...) are skipped, as is any other op of the default
//   domain that is not listed. Recurrent, quantised and Einsum nodes, and nodes of other
//   domains that are not listed, are rejected: their MACs would be lost silently.
// - Layer names are node names, or op_type + "_" + node index. The model is named after the
//   file's stem (the graph's name when the file label is empty).
// - Dataflow edges (Model::producers) follow the tensor names: a layer reads the layers that
//   wrote its non-weight inputs. A skipped node (Reshape, Flatten, Concat, Identity, ...) passes
//   on the writers of its non-weight inputs, so edges run through it; graph inputs are the
//   model input (no edge); weights and constants are no edges.
// - Dynamic dimensions (dim_param) are rejected with the tensor's name; export with fixed
//   shapes. Every shape a layer reads must be fully known after inference (InputError naming
//   the node and the tensor otherwise). Pool ceil_mode adds stride - 1 to the end padding.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "onnx_linked.h"
#include "onnx_shapes.h"
#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::io {
namespace {

using onnx_detail::kMaxDim;
using onnx_detail::TensorInfo;
using workload::Dim;
using workload::Layer;
using workload::OpKind;

constexpr int64_t kMaxOpset = 17;         // newest opset libonnx 1.12 knows
constexpr long double kMaxCount = 4e18L;  // MACs and element counts must fit int64

class Importer {
 public:
  Importer(onnx::ModelProto& model, std::string file) : model_(model), file_(std::move(file)) {}

  workload::Model run();

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(SourceLocation{file_, 0, 0}, message);
  }
  [[noreturn]] void fail_node(const onnx::NodeProto& n, const std::string& what) const {
    fail("node '" + node_name_ + "' (" + n.op_type() + "): " + what);
  }

  void precheck() const;
  void find_weights();
  bool is_weight(const std::string& name) const { return weights_.count(name) > 0; }
  std::vector<int64_t> shape(const onnx::NodeProto& n, const std::string& tensor) const;
  std::optional<std::vector<int64_t>> known_shape(const std::string& tensor) const;
  std::optional<float> scalar(const std::string& tensor) const;
  void check_layer(const onnx::NodeProto& n, const Layer& l) const;

  void on_conv(const onnx::NodeProto& n);
  void on_conv_transpose(const onnx::NodeProto& n);
  void on_gemm(const onnx::NodeProto& n);
  void on_matmul(const onnx::NodeProto& n);
  void on_pool(const onnx::NodeProto& n);
  void on_nongemm(const onnx::NodeProto& n, OpKind kind, std::string op);
  void on_gather(const onnx::NodeProto& n);

  onnx::ModelProto& model_;
  std::string file_;
  std::string node_name_;
  std::unordered_map<std::string, TensorInfo> info_;
  std::unordered_set<std::string> weights_;
  std::unordered_map<std::string, float> scalars_;  // one-element constants (Clip bounds)
  std::vector<Layer> layers_;
  std::vector<std::vector<int>> producers_;  // per layer (Model::producers)
  // For each tensor written so far: the layers whose outputs it carries (several through a
  // Concat, none for what derives from the model input alone).
  std::unordered_map<std::string, std::vector<int>> writers_;
};

// --- attributes ---------------------------------------------------------------------------

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t dflt) {
  const auto* a = attr(n, name);
  return a && a->has_i() ? a->i() : dflt;
}

std::string attr_string(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = attr(n, name);
  return a && a->has_s() ? a->s() : std::string();
}

std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const std::string& name,
                               std::vector<int64_t> dflt) {
  const auto* a = attr(n, name);
  if (!a || a->ints_size() == 0) return dflt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

bool has_input(const onnx::NodeProto& n, int i) {
  return n.input_size() > i && !n.input(i).empty();
}

// a * b for sizes >= 1, saturated at 2^62 (check_layer then rejects the layer).
int64_t mul_sat(int64_t a, int64_t b) {
  constexpr int64_t kSat = int64_t{1} << 62;
  return a > kSat / b ? kSat : std::min(a * b, kSat);
}

int64_t product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < v.size(); ++i) p = mul_sat(p, v[i]);
  return p;
}

std::string lower_snake(const std::string& op_type) {  // "LeakyRelu" -> "leaky_relu"
  std::string s;
  for (size_t i = 0; i < op_type.size(); ++i) {
    const char c = op_type[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && !std::isupper(static_cast<unsigned char>(op_type[i - 1]))) s += '_';
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      s += c;
    }
  }
  return s;
}

// clang-format off
const std::set<std::string>& activation_ops() {
  static const std::set<std::string> s = {
      "Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Celu", "Gelu", "FastGelu", "BiasGelu",
      "Sigmoid", "HardSigmoid", "Tanh", "HardSwish", "Erf", "Softplus", "Softsign", "Mish",
      "ThresholdedRelu", "Clip"};
  return s;
}

const std::set<std::string>& elementwise_ops() {
  static const std::set<std::string> s = {
      "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Neg", "Reciprocal", "Abs", "Max",
      "Min", "Sum", "Mean", "Where", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
      "ReduceProd", "ReduceL2", "ReduceSumSquare"};
  return s;
}

// Compute ops whose MACs this importer cannot describe: rejected rather than dropped.
const std::set<std::string>& rejected_ops() {
  static const std::set<std::string> s = {
      "Einsum", "LSTM", "GRU", "RNN", "ConvInteger", "QLinearConv", "MatMulInteger",
      "QLinearMatMul", "Attention", "DeformConv"};
  return s;
}
// clang-format on

// Layer::op of an activation: "LeakyRelu" -> "leaky_relu"; HardSwish -> "hardswish".
std::string activation_name(const std::string& op_type) {
  if (op_type == "HardSwish") return "hardswish";
  if (op_type == "FastGelu" || op_type == "BiasGelu") return "gelu";
  return lower_snake(op_type);
}

// --- value info and weights ---------------------------------------------------------------

// Checks before shape inference: dynamic or out-of-range dimensions of the graph inputs.
void Importer::precheck() const {
  const auto& g = model_.graph();
  std::unordered_set<std::string> inits;
  for (const auto& init : g.initializer()) {
    inits.insert(init.name());
    for (int64_t d : init.dims())
      if (d < 0 || d > kMaxDim)
        fail("initializer '" + init.name() + "' has a dimension of size " + std::to_string(d));
  }
  for (const auto& in : g.input()) {
    if (inits.count(in.name()) || !in.type().has_tensor_type()) continue;
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      if (d.has_dim_param() || !d.has_dim_value())
        fail("input '" + in.name() + "' has dynamic dimension '" +
             (d.has_dim_param() ? d.dim_param() : std::string("?")) +
             "'; export with fixed shapes");
      if (d.dim_value() < 1 || d.dim_value() > kMaxDim)
        fail("input '" + in.name() + "' has a dimension of size " + std::to_string(d.dim_value()) +
             "; expected 1 to 2^31");
    }
  }
}

void Importer::find_weights() {
  const auto& g = model_.graph();
  for (const auto& init : g.initializer()) weights_.insert(init.name());
  std::unordered_set<std::string> data;
  for (const auto& n : g.node()) {
    const int slot = n.op_type() == "Gather" ? 1 : 0;
    if (n.input_size() > slot) data.insert(n.input(slot));
  }
  bool first = true;
  for (const auto& in : g.input()) {
    if (weights_.count(in.name())) continue;
    if (!first && !data.count(in.name())) weights_.insert(in.name());
    first = false;
  }
  // Constant-derived values (Constant, Identity/Transpose of a weight, ...) are weights too,
  // and so are Shape and Size outputs: with fixed shapes they are constants.
  for (const auto& n : g.node()) {
    bool all = n.op_type() == "Shape" || n.op_type() == "Size";
    if (!all) {
      all = true;
      for (const auto& in : n.input()) all = all && (in.empty() || is_weight(in));
    }
    if (all)
      for (const auto& out : n.output()) weights_.insert(out);
    if (n.op_type() == "Constant" && n.output_size() == 1) {
      const auto* a = attr(n, "value");
      if (a && a->has_t()) {
        const auto& t = a->t();
        if (t.data_type() == onnx::TensorProto::FLOAT && t.float_data_size() == 1)
          scalars_[n.output(0)] = t.float_data(0);
        else if (t.data_type() == onnx::TensorProto::FLOAT && t.raw_data().size() == 4) {
          float v;
          std::memcpy(&v, t.raw_data().data(), 4);
          scalars_[n.output(0)] = v;
        }
      }
    }
  }
}

std::optional<float> Importer::scalar(const std::string& tensor) const {
  const auto it = scalars_.find(tensor);
  if (it != scalars_.end()) return it->second;
  for (const auto& init : model_.graph().initializer()) {
    if (init.name() != tensor || init.data_type() != onnx::TensorProto::FLOAT) continue;
    if (init.float_data_size() == 1) return init.float_data(0);
    if (init.raw_data().size() == 4) {
      float v;
      std::memcpy(&v, init.raw_data().data(), 4);
      return v;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Importer::known_shape(const std::string& tensor) const {
  const auto it = info_.find(tensor);
  if (it == info_.end() || !it->second.has_shape) return std::nullopt;
  for (int64_t d : it->second.dims)
    if (d < 1 || d > kMaxDim) return std::nullopt;
  return it->second.dims;
}

// Fully known shape of a node's operand, or InputError naming the node and the tensor.
std::vector<int64_t> Importer::shape(const onnx::NodeProto& n, const std::string& tensor) const {
  const auto it = info_.find(tensor);
  if (it == info_.end() || !it->second.has_shape) {
    std::string hint;
    for (const auto& op : model_.opset_import())
      if ((op.domain().empty() || op.domain() == "ai.onnx") && op.version() > kMaxOpset)
        hint = " (opset " + std::to_string(op.version()) + " is newer than libonnx supports, " +
               std::to_string(kMaxOpset) + "; export at opset 13)";
    fail_node(n, "no shape for '" + tensor + "' after shape inference" + hint);
  }
  const TensorInfo& t = it->second;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (!t.symbols[i].empty())
      fail_node(n, "tensor '" + tensor + "' has dynamic dimension '" + t.symbols[i] +
                       "'; export with fixed shapes");
    if (t.dims[i] < 0)
      fail_node(n, "tensor '" + tensor + "' has an unknown dimension " + std::to_string(i) +
                       " after shape inference; export with fixed shapes");
    if (t.dims[i] == 0 || t.dims[i] > kMaxDim)
      fail_node(n, "tensor '" + tensor + "' has dimension " + std::to_string(i) + " of size " +
                       std::to_string(t.dims[i]) + "; expected 1 to 2^31");
  }
  return t.dims;
}

void Importer::check_layer(const onnx::NodeProto& n, const Layer& l) const {
  long double bound = 1;
  for (int64_t d : l.dims) bound *= static_cast<long double>(d);
  bound *= static_cast<long double>(std::max<int64_t>(1, l.out_y())) *
           static_cast<long double>(std::max<int64_t>(1, l.out_x()));
  long double elems = 1;
  for (int64_t d : l.shape) elems *= static_cast<long double>(d);
  if (bound > kMaxCount || elems * l.operands > kMaxCount) fail_node(n, "sizes overflow 64 bits");
  if (l.out_y() < 1 || l.out_x() < 1) fail_node(n, "the window does not fit the input");
}

// --- GEMM-class nodes ---------------------------------------------------------------------

// Symmetric padding for one axis: pad = floor(total/2); an odd remainder grows the input.
struct Axis {
  int64_t in, kernel, stride, dilation, pad;
};

Axis make_axis(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
               int64_t pad_end, const std::string& auto_pad, bool ceil_mode) {
  if (auto_pad == "VALID") {
    pad_begin = pad_end = 0;
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int64_t out = (in + stride - 1) / stride;
    const int64_t total =
        std::max<int64_t>(0, (out - 1) * stride + dilation * (kernel - 1) + 1 - in);
    pad_begin = total / 2;
    pad_end = total - pad_begin;
  }
  int64_t total = pad_begin + pad_end;
  if (ceil_mode) total += stride - 1;
  return Axis{in + total % 2, kernel, stride, dilation, total / 2};
}

// Spatial axes of a 1-D or 2-D conv/pool node; a 1-D node gets a unit Y axis.
std::vector<Axis> spatial_axes(const onnx::NodeProto& n, const std::vector<int64_t>& x_shape,
                               const std::vector<int64_t>& kernel, bool ceil_mode) {
  const size_t sr = x_shape.size() - 2;
  const auto strides = attr_ints(n, "strides", std::vector<int64_t>(sr, 1));
  const auto dil = attr_ints(n, "dilations", std::vector<int64_t>(sr, 1));
  const auto pads = attr_ints(n, "pads", std::vector<int64_t>(2 * sr, 0));
  const std::string auto_pad = attr_string(n, "auto_pad");
  std::vector<Axis> axes;
  if (strides.size() != sr || dil.size() != sr || pads.size() != 2 * sr || kernel.size() != sr)
    return axes;
  for (size_t i = 0; i < sr; ++i) {
    for (int64_t v : {strides[i], dil[i], kernel[i]})
      if (v < 1 || v > kMaxDim) return {};
    if (pads[i] < 0 || pads[i + sr] < 0 || pads[i] > kMaxDim || pads[i + sr] > kMaxDim) return {};
    axes.push_back(make_axis(x_shape[2 + i], kernel[i], strides[i], dil[i], pads[i], pads[i + sr],
                             auto_pad, ceil_mode));
  }
  if (sr == 1) axes.insert(axes.begin(), Axis{1, 1, 1, 1, 0});
  return axes;
}

void set_window(Layer& l, const std::vector<Axis>& a) {
  l.dim(Dim::Y) = a[0].in;
  l.dim(Dim::X) = a[1].in;
  l.dim(Dim::R) = a[0].kernel;
  l.dim(Dim::S) = a[1].kernel;
  l.stride = {a[0].stride, a[1].stride};
  l.dilation = {a[0].dilation, a[1].dilation};
  l.pad = {a[0].pad, a[1].pad};
}

void Importer::on_conv(const onnx::NodeProto& n) {
  if (n.input_size() < 2) fail_node(n, "expected inputs X and W");
  const auto x = shape(n, n.input(0));
  const auto w = shape(n, n.input(1));
  if (x.size() != 3 && x.size() != 4)
    fail_node(n, "only 1-D and 2-D convolutions are supported (input rank " +
                     std::to_string(x.size()) + ")");
  if (w.size() != x.size())
    fail_node(n, "weight '" + n.input(1) + "' has rank " + std::to_string(w.size()) +
                     "; expected " + std::to_string(x.size()));
  const int64_t group = attr_int(n, "group", 1);
  const int64_t c_in = x[1], c_out = w[0];
  if (group < 1 || c_in % group != 0 || c_out % group != 0 || w[1] * group != c_in)
    fail_node(n, "channels do not match group " + std::to_string(group) + " (input " +
                     std::to_string(c_in) + ", weight " + std::to_string(w[0]) + "x" +
                     std::to_string(w[1]) + ")");
  const auto kernel = attr_ints(n, "kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  const auto axes = spatial_axes(n, x, kernel, false);
  if (axes.size() != 2) fail_node(n, "bad strides, dilations, pads or kernel_shape");
  Layer l = workload::conv2d(node_name_, x[0], c_in, 1, 1, c_out, 1, 1, 0, group, has_input(n, 2));
  set_window(l, axes);
  check_layer(n, l);
  layers_.push_back(std::move(l));
}

void Importer::on_conv_transpose(const onnx::NodeProto& n) {
  if (n.input_size() < 2) fail_node(n, "expected inputs X and W");
  const auto x = shape(n, n.input(0));
  const auto w = shape(n, n.input(1));
  if ((x.size() != 3 && x.size() != 4) || w.size() != x.size())
    fail_node(n, "only 1-D and 2-D transposed convolutions are supported");
  const int64_t group = attr_int(n, "group", 1);
  if (group < 1 || x[1] != w[0] || x[1] % group != 0)
    fail_node(n, "channels do not match group " + std::to_string(group));
  const auto out = shape(n, n.output(0));  // inferred by libonnx from all the attributes
  if (out.size() != x.size()) fail_node(n, "unexpected output rank");
  const size_t sr = x.size() - 2;
  const auto kernel = attr_ints(n, "kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  if (kernel.size() != sr) fail_node(n, "bad kernel_shape");
  Layer l;
  l.name = node_name_;
  l.kind = OpKind::TrConv;
  l.has_bias = has_input(n, 2);
  l.dim(Dim::N) = x[0];
  l.dim(Dim::G) = group;
  l.dim(Dim::C) = x[1] / group;
  l.dim(Dim::K) = w[1];
  // MAESTRO's convention: the direct convolution over the zero-inserted, padded input.
  l.dim(Dim::R) = sr == 2 ? kernel[0] : 1;
  l.dim(Dim::S) = kernel[sr - 1];
  l.dim(Dim::Y) = (sr == 2 ? out[2] : 1) + l.dim(Dim::R) - 1;
  l.dim(Dim::X) = out[x.size() - 1] + l.dim(Dim::S) - 1;
  check_layer(n, l);
  layers_.push_back(std::move(l));
}

void Importer::on_gemm(const onnx::NodeProto& n) {
  if (n.input_size() < 2) fail_node(n, "expected inputs A and B");
  const auto a = shape(n, n.input(0));
  const auto b = shape(n, n.input(1));
  if (a.size() != 2 || b.size() != 2) fail_node(n, "A and B must be 2-D");
  const bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], nn = tb ? b[0] : b[1];
  if (k != kb)
    fail_node(n, "inner sizes differ (" + std::to_string(k) + " and " + std::to_string(kb) + ")");
  Layer l = is_weight(n.input(1)) ? workload::fc(node_name_, m, k, nn, has_input(n, 2))
                                  : workload::gemm(node_name_, m, nn, k, has_input(n, 2));
  check_layer(n, l);
  layers_.push_back(std::move(l));
}

void Importer::on_matmul(const onnx::NodeProto& n) {
  if (n.input_size() < 2) fail_node(n, "expected inputs A and B");
  auto a = shape(n, n.input(0));
  auto b = shape(n, n.input(1));
  if (a.empty() || b.empty()) fail_node(n, "operands must have rank >= 1");
  const bool b_weight = is_weight(n.input(1)) && b.size() <= 2;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t k = a.back(), nn = b.back();
  if (b[b.size() - 2] != k)
    fail_node(n, "inner sizes differ (" + std::to_string(k) + " and " +
                     std::to_string(b[b.size() - 2]) + ")");
  Layer l;
  if (b_weight) {
    l = workload::gemm(node_name_, product(a, 0, a.size() - 1), nn, k);
  } else {
    // Broadcast the batch dimensions (all but the last two), aligned from the right.
    const size_t ba = a.size() - 2, bb = b.size() - 2, nb = std::max(ba, bb);
    int64_t g = 1;
    for (size_t i = 0; i < nb; ++i) {
      const int64_t da = i + ba >= nb ? a[i + ba - nb] : 1;
      const int64_t db = i + bb >= nb ? b[i + bb - nb] : 1;
      if (da != db && da != 1 && db != 1) fail_node(n, "batch dimensions do not broadcast");
      g = mul_sat(g, std::max(da, db));
    }
    l = workload::batched_gemm(node_name_, g, a[a.size() - 2], nn, k);
  }
  check_layer(n, l);
  layers_.push_back(std::move(l));
}

// --- NonGEMM nodes ------------------------------------------------------------------------

void Importer::on_pool(const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  const auto x = shape(n, n.input(0));
  if (x.size() != 3 && x.size() != 4) fail_node(n, "only 1-D and 2-D pools are supported");
  std::vector<Axis> axes;
  std::string op;
  if (t == "GlobalAveragePool" || t == "GlobalMaxPool") {
    op = t == "GlobalAveragePool" ? "global_avg_pool" : "global_max_pool";
    for (size_t i = 2; i < x.size(); ++i) axes.push_back(Axis{x[i], x[i], 1, 1, 0});
    if (x.size() == 3) axes.insert(axes.begin(), Axis{1, 1, 1, 1, 0});
  } else {
    op = t == "MaxPool" ? "max_pool" : t == "AveragePool" ? "avg_pool" : "lp_pool";
    const auto kernel = attr_ints(n, "kernel_shape", {});
    axes = spatial_axes(n, x, kernel, attr_int(n, "ceil_mode", 0) != 0);
    if (axes.size() != 2) fail_node(n, "bad kernel_shape, strides, dilations or pads");
  }
  Layer l = workload::pool2d(node_name_, op, x[0], x[1], 1, 1, 1, 1);
  set_window(l, axes);
  check_layer(n, l);
  layers_.push_back(std::move(l));
}

void Importer::on_nongemm(const onnx::NodeProto& n, OpKind kind, std::string op) {
  if (n.input_size() < 1 || n.input(0).empty()) fail_node(n, "expected an input");
  int64_t operands = 1;
  std::vector<int64_t> s;
  const bool reduce = n.op_type().rfind("Reduce", 0) == 0;
  if (kind == OpKind::Elementwise && !reduce) {
    // Broadcasting ops: the output shape; operands = inputs that are activations.
    if (n.output_size() < 1) fail_node(n, "expected an output");
    s = shape(n, n.output(0));
    operands = 0;
    for (const auto& in : n.input()) operands += !in.empty() && !is_weight(in);
    operands = std::max<int64_t>(1, operands);
  } else {
    s = shape(n, n.input(0));
  }
  Layer l = workload::nongemm(node_name_, kind, std::move(op), std::move(s), operands);
  check_layer(n, l);
  layers_.push_back(std::move(l));
}

void Importer::on_gather(const onnx::NodeProto& n) {
  if (n.input_size() < 2 || !is_weight(n.input(0)) || attr_int(n, "axis", 0) != 0) return;
  const auto table = known_shape(n.input(0));
  if (!table || table->size() != 2) return;  // a shape computation, not a table lookup
  const auto idx = shape(n, n.input(1));
  Layer l = workload::embedding(node_name_, product(idx, 0, idx.size()), (*table)[0], (*table)[1]);
  check_layer(n, l);
  layers_.push_back(std::move(l));
}

workload::Model Importer::run() {
  precheck();
  info_ = onnx_detail::infer_shapes(model_, file_);
  const auto& g = model_.graph();
  find_weights();

  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    const std::string& t = n.op_type();
    node_name_ = onnx_detail::node_label(n, i);
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    bool all_weights = true;
    for (const auto& in : n.input()) all_weights = all_weights && (in.empty() || is_weight(in));
    if (all_weights) continue;  // a constant computation
    if (rejected_ops().count(t)) fail_node(n, "unsupported operator");
    // The layers whose outputs the node reads, in operand order, each once.
    std::vector<int> reads;
    for (const auto& in : n.input()) {
      if (in.empty() || is_weight(in)) continue;
      const auto w = writers_.find(in);
      if (w == writers_.end()) continue;  // a graph input: the model input
      for (int p : w->second)
        if (std::find(reads.begin(), reads.end(), p) == reads.end()) reads.push_back(p);
    }
    const size_t before = layers_.size();

    if (t == "Conv") {
      on_conv(n);
    } else if (t == "ConvTranspose") {
      on_conv_transpose(n);
    } else if (t == "Gemm") {
      on_gemm(n);
    } else if (t == "MatMul") {
      on_matmul(n);
    } else if (t == "MaxPool" || t == "AveragePool" || t == "LpPool" || t == "GlobalAveragePool" ||
               t == "GlobalMaxPool") {
      on_pool(n);
    } else if (t == "Gather") {
      on_gather(n);
    } else if (t == "Softmax" || t == "LogSoftmax") {
      on_nongemm(n, OpKind::Softmax, lower_snake(t));
    } else if (t == "BatchNormalization" || t == "InstanceNormalization") {
      on_nongemm(n, OpKind::BatchNorm, t == "BatchNormalization" ? "batch_norm" : "instance_norm");
    } else if (t == "LayerNormalization" || t == "SimplifiedLayerNormalization") {
      on_nongemm(n, OpKind::LayerNorm, t == "LayerNormalization" ? "layer_norm" : "rms_norm");
    } else if (activation_ops().count(t)) {
      std::string op = activation_name(t);
      if (t == "Clip") {
        // Opset >= 11 passes the bounds as inputs, older opsets as attributes.
        const auto* amin = attr(n, "min");
        const auto* amax = attr(n, "max");
        float lo = amin ? amin->f() : NAN, hi = amax ? amax->f() : NAN;
        if (has_input(n, 1)) lo = scalar(n.input(1)).value_or(NAN);
        if (has_input(n, 2)) hi = scalar(n.input(2)).value_or(NAN);
        if (lo == 0.0f && hi == 6.0f) op = "relu6";
      }
      on_nongemm(n, OpKind::Activation, op);
    } else if (elementwise_ops().count(t)) {
      on_nongemm(n, OpKind::Elementwise, lower_snake(t));
    } else if (!default_domain) {
      fail_node(n, "unsupported operator of domain '" + n.domain() + "'");
    }
    // Anything else of the default domain moves or reshapes data: skipped, and its outputs
    // carry what its inputs carried.
    SPARSEMAP_ASSERT(layers_.size() <= before + 1);
    if (layers_.size() > before) {
      producers_.push_back(reads);
      reads = {static_cast<int>(layers_.size()) - 1};
    }
    for (const auto& out : n.output())
      if (!out.empty()) writers_[out] = reads;
  }

  workload::Model m;
  std::string stem = file_.substr(file_.find_last_of('/') + 1);
  const std::string ext = ".onnx";
  if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
    stem.resize(stem.size() - ext.size());
  m.name = stem.empty() ? g.name() : stem;
  m.layers = std::move(layers_);
  m.producers = std::move(producers_);
  return m;
}

}  // namespace

workload::Model onnx_detail::parse_onnx_linked(const std::string& bytes, const std::string& file) {
  const SourceLocation where{file, 0, 0};
  if (bytes.empty()) throw InputError(where, "not an ONNX ModelProto (empty file)");
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw InputError(where, "not an ONNX ModelProto (protobuf parse failed)");
  if (model.ir_version() <= 0 || !model.has_graph())
    throw InputError(where, "not an ONNX ModelProto (no ir_version or graph)");
  return Importer(model, file).run();
}

}  // namespace sparsemap::io
