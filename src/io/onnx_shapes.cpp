// Per-node ONNX type and shape inference through libonnx's operator schemas.
//
// libonnx's InferShapes runs every node's inference function on whatever it is given, and in
// 1.12 some of them divide by a zero stride or index past a tensor's rank (a ConvTranspose
// whose weight is a scalar). Driving the same functions node by node lets us verify each node
// against its schema and check the window attributes and ranks first.
#include "onnx_shapes.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "sparsemap/error.h"

namespace sparsemap::io::onnx_detail {
namespace {

bool is_windowed(const std::string& op) {
  return op.find("Conv") != std::string::npos || op.find("Pool") != std::string::npos;
}

const onnx::TensorShapeProto* shape_of(const onnx::TypeProto* t) {
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return nullptr;
  return &t->tensor_type().shape();
}

// A small int64 tensor (rank 0 or 1) known at import time: shape arithmetic.
struct Ints {
  std::vector<int64_t> v;
  bool scalar = false;
};
constexpr size_t kMaxFold = 64;  // elements

int64_t attr_i(const onnx::NodeProto& n, const char* name, int64_t dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name && a.has_i()) return a.i();
  return dflt;
}

class Inference {
 public:
  Inference(onnx::ModelProto& model, std::string file) : model_(model), file_(std::move(file)) {
    for (const auto& op : model.opset_import()) {
      const std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
      opsets_[domain] = static_cast<int>(std::min<int64_t>(op.version(), 1 << 20));
    }
  }

  std::unordered_map<std::string, TensorInfo> run();

 private:
  [[noreturn]] void fail(const std::string& label, const onnx::NodeProto& n,
                         const std::string& what) const {
    throw InputError(SourceLocation{file_, 0, 0},
                     "node '" + label + "' (" + n.op_type() + "): " + what);
  }
  void set(const std::string& name, const onnx::TypeProto& t) {
    auto& slot = types_[name];
    if (!slot) slot = std::make_unique<onnx::TypeProto>();
    *slot = t;
    ptrs_[name] = slot.get();
  }
  const onnx::TypeProto* type(const std::string& name) const {
    const auto it = ptrs_.find(name);
    return it == ptrs_.end() ? nullptr : it->second;
  }
  void check_window(const onnx::NodeProto& n, const std::string& label) const;
  void infer(onnx::NodeProto& n, const std::string& label);
  std::optional<Ints> ints(const std::string& name) const;
  void fold(const onnx::NodeProto& n);

  onnx::ModelProto& model_;
  std::string file_;
  std::unordered_map<std::string, int> opsets_;
  std::unordered_map<std::string, std::unique_ptr<onnx::TypeProto>> types_;
  std::unordered_map<std::string, onnx::TypeProto*> ptrs_;
  std::unordered_map<std::string, const onnx::TensorProto*> data_;
  std::unordered_map<std::string, onnx::TensorShapeProto> generated_;
  std::vector<std::unique_ptr<onnx::TensorProto>> folded_;  // owned values in data_
};

// Window attributes in range and consistent with the input's rank; weight rank = input rank.
void Inference::check_window(const onnx::NodeProto& n, const std::string& label) const {
  const auto* x = n.input_size() > 0 ? shape_of(type(n.input(0))) : nullptr;
  const int rank = x ? x->dim_size() : -1;
  if (rank >= 0 && rank < 3)
    fail(label, n,
         "input '" + n.input(0) + "' has rank " + std::to_string(rank) +
             "; expected 3 or more (N, C, spatial)");
  for (const auto& a : n.attribute()) {
    const std::string& an = a.name();
    int64_t lo = 1;
    size_t count = rank >= 0 ? static_cast<size_t>(rank - 2) : 0;
    if (an == "pads") {
      lo = 0;
      count *= 2;
    } else if (an == "output_padding") {
      lo = 0;
    } else if (an != "strides" && an != "dilations" && an != "kernel_shape" &&
               an != "output_shape" && an != "group") {
      continue;
    }
    std::vector<int64_t> v(a.ints().begin(), a.ints().end());
    if (an == "group") {
      v = {a.i()};
      count = 1;
    }
    for (int64_t value : v)
      if (value < lo || value > kMaxDim)
        fail(label, n,
             "attribute '" + an + "' has value " + std::to_string(value) + "; expected " +
                 std::to_string(lo) + " to 2^31");
    if (rank >= 0 && v.size() != count && !(an == "output_shape" && v.size() == count + 2))
      fail(label, n,
           "attribute '" + an + "' has " + std::to_string(v.size()) + " values; expected " +
               std::to_string(count));
  }
  const std::string& op = n.op_type();
  const int w_index = op == "QLinearConv" ? 3 : 1;
  if (op.find("Conv") != std::string::npos && n.input_size() > w_index && rank >= 0) {
    const auto* w = shape_of(type(n.input(w_index)));
    if (w && w->dim_size() != rank)
      fail(label, n,
           "weight '" + n.input(w_index) + "' has rank " + std::to_string(w->dim_size()) +
               "; expected " + std::to_string(rank));
  }
}

void Inference::infer(onnx::NodeProto& n, const std::string& label) {
  const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
  const auto opset = opsets_.find(domain);
  if (opset == opsets_.end()) return;
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset->second, domain);
  if (!schema || !schema->has_type_and_shape_inference_function()) return;
  if (is_windowed(n.op_type())) check_window(n, label);
  try {
    schema->Verify(n);  // input and output counts, attribute types
  } catch (const std::exception&) {
    return;  // left uninferred; a layer that needs its shapes reports it
  }
  if (n.op_type() == "Constant")
    for (const auto& a : n.attribute())
      if (a.name() == "value" && a.has_t() && n.output_size() == 1) data_[n.output(0)] = &a.t();
  const std::unordered_map<std::string, const onnx::SparseTensorProto*> no_sparse;
  onnx::shape_inference::InferenceContextImpl ctx(n, ptrs_, data_, no_sparse, &generated_);
  try {
    schema->GetTypeAndShapeInferenceFunction()(ctx);
  } catch (const std::exception&) {
    return;  // as libonnx's InferShapes does in its default error mode
  }
  for (int i = 0; i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    const onnx::TypeProto* t = ctx.getOutputType(static_cast<size_t>(i));
    const onnx::TypeProto* old = type(n.output(i));
    if (t->value_case() != onnx::TypeProto::VALUE_NOT_SET && (shape_of(t) || !shape_of(old)))
      set(n.output(i), *t);
  }
  if (schema->has_data_propagation_function()) {
    try {
      onnx::shape_inference::DataPropagationContextImpl dctx(n, ptrs_, data_, generated_);
      schema->GetDataPropagationFunction()(dctx);
    } catch (const std::exception&) {
    }
  }
  if (n.output_size() == 1 && !n.output(0).empty()) fold(n);
}

std::optional<Ints> Inference::ints(const std::string& name) const {
  const auto it = data_.find(name);
  if (it == data_.end() || it->second->data_type() != onnx::TensorProto::INT64) return std::nullopt;
  const onnx::TensorProto& t = *it->second;
  if (t.dims_size() > 1) return std::nullopt;
  Ints r;
  r.scalar = t.dims_size() == 0;
  if (t.int64_data_size() > 0) {
    r.v.assign(t.int64_data().begin(), t.int64_data().end());
  } else {
    const std::string& raw = t.raw_data();
    if (raw.size() % 8 != 0 || raw.size() / 8 > kMaxFold) return std::nullopt;
    r.v.resize(raw.size() / 8);
    for (size_t i = 0; i < r.v.size(); ++i) std::memcpy(&r.v[i], raw.data() + 8 * i, 8);
  }
  const int64_t want = t.dims_size() == 0 ? 1 : t.dims(0);
  if (r.v.size() > kMaxFold || static_cast<int64_t>(r.v.size()) != want) return std::nullopt;
  return r;
}

// Evaluates the shape arithmetic torch emits without constant folding (Shape, Gather,
// Unsqueeze, Concat, Slice, +-*/, ...) on int64 values, so that a Reshape downstream sees a
// constant target shape. libonnx 1.12's data propagation does not reach Reshape.
void Inference::fold(const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  std::vector<std::optional<Ints>> in;
  for (const auto& name : n.input()) in.push_back(name.empty() ? std::nullopt : ints(name));
  auto have = [&](size_t i) { return i < in.size() && in[i].has_value(); };
  Ints r;
  if (op == "Shape" && n.input_size() == 1) {
    const auto* s = shape_of(type(n.input(0)));
    if (!s) return;
    for (const auto& d : s->dim()) {
      if (!d.has_dim_value()) return;
      r.v.push_back(d.dim_value());
    }
    const int64_t rank = static_cast<int64_t>(r.v.size());
    int64_t b = attr_i(n, "start", 0), e = attr_i(n, "end", rank);
    b = std::clamp<int64_t>(b < 0 ? b + rank : b, 0, rank);
    e = std::clamp<int64_t>(e < 0 ? e + rank : e, 0, rank);
    r.v = std::vector<int64_t>(r.v.begin() + b, r.v.begin() + std::max(b, e));
  } else if ((op == "Identity" || (op == "Cast" && attr_i(n, "to", 0) == 7)) && have(0)) {
    r = *in[0];
  } else if (op == "Gather" && have(0) && have(1) && !in[0]->scalar && attr_i(n, "axis", 0) == 0) {
    const int64_t size = static_cast<int64_t>(in[0]->v.size());
    r.scalar = in[1]->scalar;
    for (int64_t i : in[1]->v) {
      if (i < -size || i >= size) return;
      r.v.push_back(in[0]->v[static_cast<size_t>(i < 0 ? i + size : i)]);
    }
  } else if ((op == "Unsqueeze" || op == "Squeeze") && have(0)) {
    r.v = in[0]->v;  // rank 0 <-> rank 1 only
    r.scalar = op == "Squeeze";
    if (r.scalar == in[0]->scalar || (r.scalar && r.v.size() != 1)) return;
  } else if (op == "Concat" && !in.empty() &&
             (attr_i(n, "axis", 0) == 0 || attr_i(n, "axis", 0) == -1)) {
    for (const auto& x : in) {
      if (!x || x->scalar) return;
      r.v.insert(r.v.end(), x->v.begin(), x->v.end());
    }
  } else if (op == "Slice" && have(0) && have(1) && have(2) && !in[0]->scalar) {
    const int64_t size = static_cast<int64_t>(in[0]->v.size());
    const int64_t step = have(4) && in[4]->v.size() == 1 ? in[4]->v[0] : 1;
    if (in[1]->v.size() != 1 || in[2]->v.size() != 1 || step != 1) return;
    if (have(3) && (in[3]->v.size() != 1 || (in[3]->v[0] != 0 && in[3]->v[0] != -1))) return;
    int64_t b = in[1]->v[0], e = in[2]->v[0];
    b = std::clamp<int64_t>(b < 0 ? b + size : b, 0, size);
    e = std::clamp<int64_t>(e < 0 ? e + size : e, 0, size);
    r.v = std::vector<int64_t>(in[0]->v.begin() + b, in[0]->v.begin() + std::max(b, e));
  } else if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && have(0) && have(1)) {
    const Ints& a = *in[0];
    const Ints& b = *in[1];
    const size_t size = std::max(a.v.size(), b.v.size());
    if ((a.v.size() != size && a.v.size() != 1) || (b.v.size() != size && b.v.size() != 1)) return;
    r.scalar = a.scalar && b.scalar;
    for (size_t i = 0; i < size; ++i) {
      const int64_t x = a.v[a.v.size() == 1 ? 0 : i], y = b.v[b.v.size() == 1 ? 0 : i];
      if (std::max(std::abs(x), std::abs(y)) > kMaxDim || (op == "Div" && y == 0)) return;
      r.v.push_back(op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y);
    }
  } else {
    return;
  }
  if (r.v.size() > kMaxFold || (r.scalar && r.v.size() != 1)) return;
  auto t = std::make_unique<onnx::TensorProto>();
  t->set_name(n.output(0));
  t->set_data_type(onnx::TensorProto::INT64);
  if (!r.scalar) t->add_dims(static_cast<int64_t>(r.v.size()));
  for (int64_t x : r.v) t->add_int64_data(x);
  data_[n.output(0)] = t.get();
  folded_.push_back(std::move(t));
}

std::unordered_map<std::string, TensorInfo> Inference::run() {
  auto& g = *model_.mutable_graph();
  for (const auto& vi : g.input())
    if (vi.has_type()) set(vi.name(), vi.type());
  for (const auto& init : g.initializer()) {
    onnx::TypeProto t;
    auto* tt = t.mutable_tensor_type();
    tt->set_elem_type(init.data_type());
    auto* s = tt->mutable_shape();
    for (int64_t d : init.dims()) s->add_dim()->set_dim_value(d);
    if (!type(init.name())) set(init.name(), t);
    data_[init.name()] = &init;
  }
  for (const auto& vi : g.value_info())
    if (vi.has_type()) set(vi.name(), vi.type());
  for (const auto& vi : g.output())
    if (vi.has_type() && !type(vi.name())) set(vi.name(), vi.type());
  for (int i = 0; i < g.node_size(); ++i) infer(*g.mutable_node(i), node_label(g.node(i), i));

  std::unordered_map<std::string, TensorInfo> out;
  for (const auto& [name, t] : ptrs_) {
    const auto* s = shape_of(t);
    TensorInfo info;
    info.has_shape = s != nullptr;
    if (s)
      for (const auto& d : s->dim()) {
        info.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
        info.symbols.push_back(d.has_dim_param() ? d.dim_param() : std::string());
      }
    out.emplace(name, std::move(info));
  }
  return out;
}

}  // namespace

std::string node_label(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

std::unordered_map<std::string, TensorInfo> infer_shapes(onnx::ModelProto& model,
                                                         const std::string& file) {
  return Inference(model, file).run();
}

}  // namespace sparsemap::io::onnx_detail
