// Tests of the ONNX importer: models built here with the ONNX protobuf API, the committed
// torchvision exports in data/onnx/, and bad input.
#include "sparsemap/io/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::io {
namespace {

using workload::Dim;
using workload::Layer;
using workload::OpKind;

// --- a small builder over the protobuf API ---------------------------------------------

struct Builder {
  onnx::ModelProto m;
  onnx::GraphProto* g;

  explicit Builder(int64_t opset = 13) {
    m.set_ir_version(7);
    m.set_producer_name("sparsemap-test");
    m.add_opset_import()->set_version(opset);
    g = m.mutable_graph();
    g->set_name("test");
  }

  static void set_shape(onnx::ValueInfoProto* vi, const std::string& name,
                        const std::vector<int64_t>& dims, int elem, const std::string& sym) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d < 0)
        dim->set_dim_param(sym);
      else
        dim->set_dim_value(d);
    }
  }
  // A graph input; a negative size becomes the symbolic dimension `sym`.
  void input(const std::string& name, const std::vector<int64_t>& dims,
             int elem = onnx::TensorProto::FLOAT, const std::string& sym = "batch") {
    set_shape(g->add_input(), name, dims, elem, sym);
  }
  void output(const std::string& name) { g->add_output()->set_name(name); }
  void weight(const std::string& name, const std::vector<int64_t>& dims) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t count = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      count *= d;
    }
    for (int64_t i = 0; i < count; ++i) t->add_float_data(0.0f);
  }
  void int64s(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  void scalar(const std::string& name, float value) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
  }
  onnx::NodeProto* node(const std::string& op, std::initializer_list<std::string> in,
                        std::initializer_list<std::string> out, const std::string& name = "") {
    auto* n = g->add_node();
    n->set_op_type(op);
    if (!name.empty()) n->set_name(name);
    for (const auto& s : in) n->add_input(s);
    for (const auto& s : out) n->add_output(s);
    return n;
  }
  static void ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void i(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  workload::Model parse(const std::string& file = "test.onnx") const {
    return parse_onnx(m.SerializeAsString(), file);
  }
};

std::string error_of(const std::string& bytes, const std::string& file) {
  try {
    parse_onnx(bytes, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string error_of(const Builder& b) { return error_of(b.m.SerializeAsString(), "m.onnx"); }

std::vector<int64_t> dims_of(const Layer& l) {
  return std::vector<int64_t>(l.dims.begin(), l.dims.end());  // N G K C Y X R S M
}

// --- small models ------------------------------------------------------------------------

TEST(OnnxImport, ConvReluGemm) {
  Builder b;
  b.input("x", {1, 3, 32, 32});
  b.weight("w1", {16, 3, 3, 3});
  b.weight("b1", {16});
  b.weight("w2", {10, 4096});
  b.weight("b2", {10});
  auto* conv = b.node("Conv", {"x", "w1", "b1"}, {"c"}, "conv1");
  Builder::ints(conv, "strides", {2, 2});
  Builder::ints(conv, "pads", {1, 1, 1, 1});
  Builder::ints(conv, "kernel_shape", {3, 3});
  b.node("Relu", {"c"}, {"r"}, "relu1");
  b.node("Flatten", {"r"}, {"f"});
  Builder::i(b.node("Gemm", {"f", "w2", "b2"}, {"y"}), "transB", 1);
  b.output("y");

  const auto m = b.parse("models/tiny.onnx");
  EXPECT_EQ(m.name, "tiny");
  ASSERT_EQ(m.layers.size(), 3u);  // Flatten is skipped

  const Layer& c = m.layers[0];
  EXPECT_EQ(c.name, "conv1");
  EXPECT_EQ(c.kind, OpKind::Conv);
  EXPECT_EQ(dims_of(c), (std::vector<int64_t>{1, 1, 16, 3, 32, 32, 3, 3, 1}));
  EXPECT_EQ(c.stride, (workload::Window2{2, 2}));
  EXPECT_EQ(c.pad, (workload::Window2{1, 1}));
  EXPECT_TRUE(c.has_bias);
  EXPECT_EQ(c.out_y(), 16);
  EXPECT_EQ(c.macs(), 16 * 3 * 9 * 16 * 16);

  const Layer& r = m.layers[1];
  EXPECT_EQ(r.name, "relu1");
  EXPECT_EQ(r.kind, OpKind::Activation);
  EXPECT_EQ(r.op, "relu");
  EXPECT_EQ(r.shape, (std::vector<int64_t>{1, 16, 16, 16}));

  const Layer& f = m.layers[2];
  EXPECT_EQ(f.name, "Gemm_3");
  EXPECT_EQ(f.kind, OpKind::Fc);
  EXPECT_EQ(f.dim(Dim::N), 1);
  EXPECT_EQ(f.dim(Dim::C), 4096);
  EXPECT_EQ(f.dim(Dim::K), 10);
  EXPECT_TRUE(f.has_bias);
  EXPECT_EQ(m.total_macs(), 110592 + 40960);
  EXPECT_EQ(m.count_gemm_class(), 2);
  EXPECT_EQ(m.producers, (std::vector<std::vector<int>>{{}, {0}, {1}}));  // through Flatten
}

// Edges follow the tensor names, through skipped nodes (Identity, Concat, Flatten): a residual
// add reads both branches, a conv after a concatenation reads every layer it joins.
TEST(OnnxImport, DataflowEdgesFollowTensorNames) {
  Builder b;
  b.input("x", {1, 4, 8, 8});
  for (const char* w : {"w1", "w2", "w3", "w4"}) b.weight(w, {4, 4, 1, 1});
  b.weight("w5", {4, 8, 1, 1});
  b.weight("fc", {4, 2});
  b.node("Conv", {"x", "w1"}, {"c1"}, "conv1");                    // 0
  b.node("Relu", {"c1"}, {"r1"}, "relu1");                         // 1
  b.node("Conv", {"r1", "w2"}, {"c2"}, "conv2");                   // 2
  b.node("Identity", {"r1"}, {"skip"});                            // skipped: carries relu1
  b.node("Add", {"c2", "skip"}, {"a"}, "add");                     // 3
  b.node("Conv", {"a", "w3"}, {"c3"}, "conv3");                    // 4
  b.node("Conv", {"a", "w4"}, {"c4"}, "conv4");                    // 5
  Builder::i(b.node("Concat", {"c3", "c4"}, {"cat"}), "axis", 1);  // skipped
  b.node("Conv", {"cat", "w5"}, {"c5"}, "conv5");                  // 6
  b.node("GlobalAveragePool", {"c5"}, {"p"}, "gap");               // 7
  b.node("Flatten", {"p"}, {"f"});                                 // skipped
  b.node("MatMul", {"f", "fc"}, {"y"}, "head");                    // 8
  b.output("y");
  const auto m = b.parse();
  ASSERT_EQ(m.layers.size(), 9u);
  EXPECT_EQ(m.layers[3].name, "add");
  EXPECT_EQ(m.layers[3].operands, 2);
  EXPECT_TRUE(m.has_dataflow());
  EXPECT_EQ(m.producers,
            (std::vector<std::vector<int>>{{}, {0}, {1}, {2, 1}, {3}, {3}, {4, 5}, {6}, {7}}));
}

TEST(OnnxImport, GroupedDepthwiseAndAsymmetricPadding) {
  Builder b;
  b.input("x", {2, 32, 14, 14});
  b.weight("wg", {64, 8, 3, 3});
  b.weight("wd", {64, 1, 3, 3});
  b.weight("wm", {128, 1, 3, 3});
  auto* g = b.node("Conv", {"x", "wg"}, {"a"}, "grouped");
  Builder::i(g, "group", 4);
  Builder::ints(g, "pads", {0, 0, 1, 1});  // asymmetric: total 1 -> pad 0, input 15
  auto* d = b.node("Conv", {"a", "wd"}, {"d"}, "depthwise");
  Builder::i(d, "group", 64);
  Builder::ints(d, "strides", {2, 2});
  Builder::ints(d, "pads", {1, 1, 1, 1});
  auto* mu = b.node("Conv", {"d", "wm"}, {"y"}, "multiplier");  // depth multiplier 2
  Builder::i(mu, "group", 64);
  b.output("y");

  const auto m = b.parse();
  ASSERT_EQ(m.layers.size(), 3u);
  const Layer& gl = m.layers[0];
  EXPECT_EQ(gl.kind, OpKind::NgConv);
  EXPECT_EQ(dims_of(gl), (std::vector<int64_t>{2, 4, 16, 8, 15, 15, 3, 3, 1}));
  EXPECT_EQ(gl.pad, (workload::Window2{0, 0}));
  EXPECT_EQ(gl.out_y(), 13);
  EXPECT_EQ(gl.macs(), int64_t{2} * 4 * 16 * 8 * 9 * 13 * 13);

  const Layer& dl = m.layers[1];
  EXPECT_EQ(dl.kind, OpKind::DsConv);
  EXPECT_EQ(dl.dim(Dim::C), 64);
  EXPECT_EQ(dl.dim(Dim::Y), 13);
  EXPECT_EQ(dl.out_y(), 7);
  EXPECT_EQ(dl.macs(), int64_t{2} * 64 * 9 * 7 * 7);

  const Layer& ml = m.layers[2];
  EXPECT_EQ(ml.kind, OpKind::NgConv);
  EXPECT_EQ(ml.dim(Dim::G), 64);
  EXPECT_EQ(ml.dim(Dim::K), 2);
  EXPECT_EQ(ml.dim(Dim::C), 1);
  EXPECT_EQ(ml.out_y(), 5);
  EXPECT_EQ(ml.macs(), int64_t{2} * 128 * 9 * 5 * 5);
}

TEST(OnnxImport, AttentionMatMuls) {
  Builder b;
  b.input("x", {1, 8, 64});
  for (const char* w : {"wq", "wk", "wv"}) b.weight(w, {64, 64});
  b.int64s("heads", {1, 8, 4, 16});
  b.scalar("scale", 4.0f);
  b.node("MatMul", {"x", "wq"}, {"q"}, "q_proj");
  b.node("MatMul", {"x", "wk"}, {"k"}, "k_proj");
  b.node("MatMul", {"x", "wv"}, {"v"}, "v_proj");
  for (const char* t : {"q", "k", "v"}) b.node("Reshape", {t, "heads"}, {std::string(t) + "r"});
  Builder::ints(b.node("Transpose", {"qr"}, {"qh"}), "perm", {0, 2, 1, 3});
  Builder::ints(b.node("Transpose", {"kr"}, {"kt"}), "perm", {0, 2, 3, 1});
  Builder::ints(b.node("Transpose", {"vr"}, {"vh"}), "perm", {0, 2, 1, 3});
  b.node("MatMul", {"qh", "kt"}, {"s"}, "scores");
  b.node("Div", {"s", "scale"}, {"sd"}, "scale");
  Builder::i(b.node("Softmax", {"sd"}, {"p"}, "softmax"), "axis", -1);
  b.node("MatMul", {"p", "vh"}, {"y"}, "context");
  b.output("y");

  const auto m = b.parse();
  ASSERT_EQ(m.layers.size(), 7u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(m.layers[i].kind, OpKind::Gemm);
    EXPECT_EQ(m.layers[i].dim(Dim::M), 8);
    EXPECT_EQ(m.layers[i].dim(Dim::N), 64);
    EXPECT_EQ(m.layers[i].dim(Dim::K), 64);
  }
  const Layer& s = m.layers[3];
  EXPECT_EQ(s.name, "scores");
  EXPECT_EQ(s.kind, OpKind::BatchedGemm);
  // Dims N G K C Y X R S M: G 4 heads, M 8 queries, N 8 keys, K 16 per head.
  EXPECT_EQ(dims_of(s), (std::vector<int64_t>{8, 4, 16, 1, 1, 1, 1, 1, 8}));
  const Layer& d = m.layers[4];
  EXPECT_EQ(d.kind, OpKind::Elementwise);
  EXPECT_EQ(d.op, "div");
  EXPECT_EQ(d.operands, 1);
  EXPECT_EQ(d.shape, (std::vector<int64_t>{1, 4, 8, 8}));
  EXPECT_EQ(m.layers[5].kind, OpKind::Softmax);
  EXPECT_EQ(m.layers[5].shape, (std::vector<int64_t>{1, 4, 8, 8}));
  const Layer& c = m.layers[6];
  EXPECT_EQ(c.kind, OpKind::BatchedGemm);
  EXPECT_EQ(c.dim(Dim::G), 4);
  EXPECT_EQ(c.dim(Dim::M), 8);
  EXPECT_EQ(c.dim(Dim::N), 16);
  EXPECT_EQ(c.dim(Dim::K), 8);
  EXPECT_EQ(m.total_macs(), 3 * 8 * 64 * 64 + 2 * 4 * 8 * 8 * 16);
}

TEST(OnnxImport, EmbeddingLayerNormAndWeightsAsGraphInputs) {
  Builder b(17);
  b.input("ids", {2, 8}, onnx::TensorProto::INT64);
  b.input("table", {1000, 32});  // weights as graph inputs, as export_params=False writes them
  b.input("gamma", {32});
  b.input("beta", {32});
  b.input("w", {32, 128});
  b.node("Gather", {"table", "ids"}, {"e"}, "embed");
  Builder::i(b.node("LayerNormalization", {"e", "gamma", "beta"}, {"n"}, "ln"), "axis", -1);
  b.node("MatMul", {"n", "w"}, {"h"}, "ffn");
  b.node("Erf", {"h"}, {"y"}, "erf");
  b.output("y");

  const auto m = b.parse();
  ASSERT_EQ(m.layers.size(), 4u);
  EXPECT_EQ(m.layers[0].kind, OpKind::Embedding);
  EXPECT_EQ(m.layers[0].dim(Dim::N), 16);
  EXPECT_EQ(m.layers[0].dim(Dim::C), 1000);
  EXPECT_EQ(m.layers[0].dim(Dim::K), 32);
  EXPECT_EQ(m.layers[1].kind, OpKind::LayerNorm);
  EXPECT_EQ(m.layers[1].op, "layer_norm");
  EXPECT_EQ(m.layers[1].shape, (std::vector<int64_t>{2, 8, 32}));
  EXPECT_EQ(m.layers[2].kind, OpKind::Gemm);  // N-D activation x 2-D weight
  EXPECT_EQ(m.layers[2].dim(Dim::M), 16);
  EXPECT_EQ(m.layers[2].dim(Dim::N), 128);
  EXPECT_EQ(m.layers[2].dim(Dim::K), 32);
  EXPECT_EQ(m.layers[3].kind, OpKind::Activation);
  EXPECT_EQ(m.layers[3].op, "erf");
  EXPECT_EQ(m.total_macs(), 16 * 128 * 32);
}

// torch's x.view(x.size(0), -1): the Reshape's shape is computed from Shape(x); shape
// inference has to propagate those values, and the shape arithmetic makes no layers.
TEST(OnnxImport, ShapeComputedReshape) {
  Builder b;
  b.input("x", {2, 8, 4, 4});
  b.weight("w", {10, 128});
  b.int64s("zero", {0});
  b.int64s("minus_one", {-1});
  b.int64s("one", {1});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "zero"}, {"batch"});
  b.node("Mul", {"batch", "one"}, {"batch1"});  // shape arithmetic: no layer
  Builder::i(b.node("Concat", {"batch1", "minus_one"}, {"target"}), "axis", 0);
  b.node("Reshape", {"x", "target"}, {"flat"});
  Builder::i(b.node("Gemm", {"flat", "w"}, {"y"}, "fc"), "transB", 1);
  b.output("y");

  const auto m = b.parse();
  ASSERT_EQ(m.layers.size(), 1u);
  EXPECT_EQ(m.layers[0].kind, OpKind::Fc);
  EXPECT_EQ(m.layers[0].dim(Dim::N), 2);
  EXPECT_EQ(m.layers[0].dim(Dim::C), 128);
  EXPECT_EQ(m.layers[0].dim(Dim::K), 10);
  EXPECT_FALSE(m.layers[0].has_bias);
}

TEST(OnnxImport, ConvTransposeAndPools) {
  Builder b;
  b.input("x", {1, 16, 8, 8});
  b.weight("w", {16, 8, 4, 4});
  b.scalar("lo", 0.0f);
  b.scalar("hi", 6.0f);
  auto* t = b.node("ConvTranspose", {"x", "w"}, {"u"}, "up");
  Builder::ints(t, "strides", {2, 2});
  Builder::ints(t, "pads", {1, 1, 1, 1});
  b.node("Clip", {"u", "lo", "hi"}, {"c"}, "relu6");
  auto* p = b.node("MaxPool", {"c"}, {"p"}, "pool");
  Builder::ints(p, "kernel_shape", {3, 3});
  Builder::ints(p, "strides", {2, 2});
  Builder::ints(p, "pads", {1, 1, 1, 1});
  b.node("GlobalAveragePool", {"p"}, {"y"}, "gap");
  b.output("y");

  const auto m = b.parse();
  ASSERT_EQ(m.layers.size(), 4u);
  const Layer& u = m.layers[0];
  EXPECT_EQ(u.kind, OpKind::TrConv);
  // Output 16x16: MAESTRO's convention, Y = 16 + 4 - 1 with stride 1 and no padding.
  EXPECT_EQ(dims_of(u), (std::vector<int64_t>{1, 1, 8, 16, 19, 19, 4, 4, 1}));
  EXPECT_EQ(u.out_y(), 16);
  EXPECT_EQ(u.macs(), 8 * 16 * 16 * 16 * 16);
  EXPECT_EQ(m.layers[1].op, "relu6");
  EXPECT_EQ(m.layers[1].shape, (std::vector<int64_t>{1, 8, 16, 16}));
  const Layer& pl = m.layers[2];
  EXPECT_EQ(pl.kind, OpKind::Pool);
  EXPECT_EQ(pl.op, "max_pool");
  EXPECT_EQ(pl.out_y(), 8);
  const Layer& g = m.layers[3];
  EXPECT_EQ(g.op, "global_avg_pool");
  EXPECT_EQ(g.dim(Dim::R), 8);
  EXPECT_EQ(g.out_x(), 1);
  EXPECT_EQ(m.total_macs(), 8 * 16 * 16 * 16 * 16);
}

// --- bad input ---------------------------------------------------------------------------

TEST(OnnxImport, RejectsEmptyAndGarbage) {
  EXPECT_EQ(error_of("", "e.onnx"), "e.onnx: not an ONNX ModelProto (empty file)");
  EXPECT_EQ(error_of(std::string("\xff\xff\xff\xff\xff", 5), "g.onnx"),
            "g.onnx: not an ONNX ModelProto (protobuf parse failed)");
  EXPECT_EQ(error_of(std::string("\x08\x07", 2), "n.onnx"),  // ir_version 7, no graph
            "n.onnx: not an ONNX ModelProto (no ir_version or graph)");
  const std::string text = error_of("K,C,Y,X,R,S,T\n64,3,224,224,7,7,1\n", "t.onnx");
  EXPECT_EQ(text.rfind("t.onnx: not an ONNX ModelProto (", 0), 0u) << text;
}

TEST(OnnxImport, MissingFile) {
  try {
    read_onnx("/nonexistent/model.onnx");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/model.onnx");
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/model.onnx: cannot read", 0), 0u);
  }
}

TEST(OnnxImport, RejectsDynamicDimensions) {
  Builder b;
  b.input("x", {-1, 64}, onnx::TensorProto::FLOAT, "batch");
  b.weight("w", {64, 8});
  b.node("MatMul", {"x", "w"}, {"y"}, "mm");
  b.output("y");
  EXPECT_EQ(error_of(b),
            "m.onnx: input 'x' has dynamic dimension 'batch'; export with fixed shapes");
}

TEST(OnnxImport, MissingShapeNamesTheNode) {
  Builder b;
  b.input("x", {4, 64});
  b.weight("w", {64, 8});
  b.node("NoSuchOp", {"x"}, {"z"});  // no schema: shape inference cannot see through it
  b.node("MatMul", {"z", "w"}, {"y"}, "mm");
  b.output("y");
  EXPECT_EQ(error_of(b), "m.onnx: node 'mm' (MatMul): no shape for 'z' after shape inference");
}

TEST(OnnxImport, RejectsUnsupportedComputeOps) {
  Builder b;
  b.input("x", {4, 64});
  b.weight("w", {64, 8});
  auto* e = b.node("Einsum", {"x", "w"}, {"y"}, "ein");
  auto* a = e->add_attribute();
  a->set_name("equation");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("ij,jk->ik");
  b.output("y");
  EXPECT_EQ(error_of(b), "m.onnx: node 'ein' (Einsum): unsupported operator");
}

TEST(OnnxImport, RejectsChannelMismatch) {
  Builder b;
  b.input("x", {1, 6, 8, 8});
  b.weight("w", {4, 4, 3, 3});
  Builder::i(b.node("Conv", {"x", "w"}, {"y"}, "c"), "group", 2);
  b.output("y");
  EXPECT_EQ(error_of(b),
            "m.onnx: node 'c' (Conv): channels do not match group 2 (input 6, weight 4x4)");
}

// libonnx 1.12's shape inference divides by the strides and indexes the weight's dimensions:
// both are checked before it runs (each of these crashed it).
TEST(OnnxImport, RejectsWindowsThatCrashLibonnx) {
  Builder a;
  a.input("x", {1, 3, 8, 8});
  a.weight("w", {4, 3, 3, 3});
  Builder::ints(a.node("Conv", {"x", "w"}, {"y"}, "c"), "strides", {0, 1});
  a.output("y");
  EXPECT_EQ(error_of(a),
            "m.onnx: node 'c' (Conv): attribute 'strides' has value 0; expected 1 to 2^31");

  Builder b;
  b.input("x", {1, 3, 8, 8});
  b.scalar("w", 1.0f);
  b.node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  b.output("y");
  EXPECT_EQ(error_of(b), "m.onnx: node 'up' (ConvTranspose): weight 'w' has rank 0; expected 4");

  Builder c;
  c.input("x", {1, 3, 8, 8});
  c.weight("w", {4, 3, 3, 3});
  Builder::ints(c.node("Conv", {"x", "w"}, {"y"}, "c"), "pads", {1, 1});
  c.output("y");
  EXPECT_EQ(error_of(c), "m.onnx: node 'c' (Conv): attribute 'pads' has 2 values; expected 4");
}

// Corrupted copies of a real model: each one parses or throws InputError, never crashes.
TEST(OnnxImport, CorruptedBytesNeverCrash) {
  const std::string good =
      read_file(std::string(SPARSEMAP_SOURCE_DIR) + "/data/onnx/mobilenet_v2.onnx");
  std::mt19937 rng(7);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 300; ++i) {
    std::string bytes = good;
    if (i % 3 == 0) bytes.resize(rng() % bytes.size());
    for (int k = 0; k < 1 + i % 8; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    try {
      parse_onnx(bytes, "c.onnx");
      ++parsed;
    } catch (const InputError&) {
      ++rejected;
    }
  }
  EXPECT_EQ(parsed + rejected, 300);
  EXPECT_GT(rejected, 0);
}

// --- committed torchvision exports (scripts/export_onnx_models.py) -----------------------

std::string data_path(const std::string& name) {
  return std::string(SPARSEMAP_SOURCE_DIR) + "/data/onnx/" + name;
}

int64_t count_kind(const workload::Model& m, std::initializer_list<OpKind> kinds) {
  int64_t n = 0;
  for (const auto& l : m.layers)
    for (OpKind k : kinds) n += l.kind == k;
  return n;
}

void expect_near_pct(double got, double want, double pct) {
  EXPECT_LE(std::fabs(got - want), want * pct / 100.0) << got << " vs " << want;
}

TEST(OnnxImport, TorchvisionResnet50) {
  const auto m = read_onnx(data_path("resnet50.onnx"));
  EXPECT_EQ(m.name, "resnet50");
  EXPECT_EQ(count_kind(m, {OpKind::Conv, OpKind::DsConv, OpKind::NgConv}), 53);
  EXPECT_EQ(count_kind(m, {OpKind::Fc}), 1);
  EXPECT_EQ(m.count_gemm_class(), 54);
  expect_near_pct(static_cast<double>(m.total_macs()), 4.09e9, 3.0);  // published
  const auto zoo = workload::zoo_model("resnet50");
  expect_near_pct(static_cast<double>(m.total_macs()), static_cast<double>(zoo.total_macs()), 3.0);
  // Weights arrive as graph inputs (export_params=False); parameters still add up: 25.6M
  // less the batch norms that the exporter folded into the convolutions.
  expect_near_pct(static_cast<double>(m.total_params()), 25.5e6, 3.0);
}

TEST(OnnxImport, TorchvisionMobilenetV2) {
  const auto m = read_onnx(data_path("mobilenet_v2.onnx"));
  EXPECT_EQ(count_kind(m, {OpKind::Conv, OpKind::DsConv, OpKind::NgConv}), 52);
  EXPECT_EQ(count_kind(m, {OpKind::DsConv}), 17);
  EXPECT_EQ(count_kind(m, {OpKind::Fc}), 1);
  int64_t relu6 = 0;
  for (const auto& l : m.layers) relu6 += l.op == "relu6";
  EXPECT_EQ(relu6, 35);
  expect_near_pct(static_cast<double>(m.total_macs()), 0.30e9, 3.0);  // published
  const auto zoo = workload::zoo_model("mobilenet-v2");
  expect_near_pct(static_cast<double>(m.total_macs()), static_cast<double>(zoo.total_macs()), 3.0);
}

}  // namespace
}  // namespace sparsemap::io
