// Fusion cost: graph inference (chains, residual blocks, downsample), hand-worked DRAM traffic
// and buffer requests, weight streaming, spilling, and one-layer groups == the single-layer model.
#include "sparsemap/cost/fusion.h"

#include <gtest/gtest.h>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"
#include "sparsemap/io/onnx_import.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::cost {
namespace {

using workload::Layer;
using workload::OpKind;

arch::Arch tiny_arch() {
  arch::Arch a;
  a.name = "tiny";
  a.num_pes = 16;
  a.l1_bytes = 1024;
  a.l2_bytes = 1 << 20;
  a.noc_words_per_cycle = 16;
  a.offchip_words_per_cycle = 4;
  a.word_bytes = 2;
  a.energy.offchip_pj = 10;
  return a;
}

// conv1 (3->4, 8x8) ; block "blk": conv1 4->4, relu, conv2 4->4, add ; fc 256 -> 10. Batch 2.
workload::Model residual_model() {
  workload::Model m;
  m.name = "resblock";
  const int64_t n = 2;
  m.layers.push_back(workload::conv2d("conv1", n, 3, 8, 8, 4, 3, 1, 1));
  m.layers.push_back(workload::nongemm("relu", OpKind::Activation, "relu", {n, 4, 8, 8}));
  m.layers.push_back(workload::conv2d("blk.conv1", n, 4, 8, 8, 4, 3, 1, 1));
  m.layers.push_back(workload::nongemm("blk.relu", OpKind::Activation, "relu", {n, 4, 8, 8}));
  m.layers.push_back(workload::conv2d("blk.conv2", n, 4, 8, 8, 4, 3, 1, 1));
  m.layers.push_back(workload::nongemm("blk.add", OpKind::Elementwise, "add", {n, 4, 8, 8}, 2));
  m.layers.push_back(workload::fc("fc", n, 256, 10, false));
  // Dataflow: each layer reads the one before; the add also reads the block input (relu).
  m.producers = {{}, {0}, {1}, {2}, {3}, {4, 1}, {5}};
  return m;
}

TEST(FusionGraph, ResidualBlockBecomesASkipEdge) {
  const FusionGraph g = fusion_graph(residual_model(), 2);
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[0].model_in_elems, 3 * 64);
  EXPECT_EQ(g.nodes[1].inputs, std::vector<int>({0}));
  EXPECT_EQ(g.nodes[2].inputs, std::vector<int>({1, 0}));  // chain, then the skip
  EXPECT_EQ(g.nodes[2].in_elems, std::vector<int64_t>({256, 256}));
  EXPECT_EQ(g.nodes[3].inputs, std::vector<int>({2}));
  EXPECT_EQ(g.consumers[0], std::vector<int>({1, 2}));
  EXPECT_EQ(g.skip_edges(), 1);
  EXPECT_EQ(g.nodes[0].out_elems, 256);
  EXPECT_EQ(g.nodes[3].out_elems, 10);
}

TEST(FusionGraph, ZooCnns) {
  // ResNet-18: stem, 16 block convs, 3 downsample convs, fc; 8 residual adds.
  const FusionGraph r = fusion_graph(workload::zoo_model("resnet18", {2}), 2);
  EXPECT_EQ(r.nodes.size(), 21u);
  EXPECT_EQ(r.skip_edges(), 8);
  // MobileNet-V2: 52 convs + classifier; 10 inverted residuals with an add.
  const FusionGraph m = fusion_graph(workload::zoo_model("mobilenet-v2", {1}), 1);
  EXPECT_EQ(m.nodes.size(), 53u);
  EXPECT_EQ(m.skip_edges(), 10);
  for (size_t v = 0; v < m.nodes.size(); ++v)
    for (int u : m.nodes[v].inputs) EXPECT_LT(u, static_cast<int>(v));
}

std::string message_of(const workload::Model& m, int64_t batch) {
  try {
    fusion_graph(m, batch);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// Models whose layers carry no dataflow (a MAESTRO .m or GAMMA .csv file) are refused, with one
// line; so are malformed edges and dataflow a fusion graph cannot carry.
TEST(FusionGraph, RefusesModelsWithoutDataflowEdges) {
  workload::Model m = residual_model();
  m.producers.clear();
  EXPECT_FALSE(m.has_dataflow());
  EXPECT_EQ(message_of(m, 2),
            "<resblock>: the model carries no dataflow edges (a MAESTRO .m or GAMMA .csv file "
            "lists layers only); fusion needs a zoo model or an ONNX file");
  m.producers = {{}, {0}, {1}};
  EXPECT_EQ(message_of(m, 2), "<resblock>: the model lists dataflow edges for 3 layers but has 7");
  m = residual_model();
  m.producers[5] = {4, 5};
  EXPECT_EQ(message_of(m, 2), "<resblock>: layer 'blk.add' reads layer 5, not an earlier one");
  m = residual_model();
  m.producers[6] = {3, 1};  // fc reads two nodes' tensors: a concatenation
  EXPECT_EQ(message_of(m, 2),
            "<resblock>: layer 'fc' reads the outputs of 2 layers (a concatenation?); a fusion "
            "graph node reads one tensor and residual adds");
  m = residual_model();
  m.producers[2] = {};  // blk.conv1 reads the image; the add then mixes it with conv1's tensor
  m.producers[5] = {4, 0};
  EXPECT_EQ(fusion_graph(m, 2).nodes[1].model_in_elems, 4 * 64);
  m.producers[5] = {4, 3, 0};
  m.producers[3] = {};
  EXPECT_NE(message_of(m, 2).find("reads the model input beside a layer's output"),
            std::string::npos)
      << message_of(m, 2);
}

TEST(FusionGraph, RejectsNonChains) {
  EXPECT_THROW(fusion_graph(workload::zoo_model("bert-base", {1, 16}), 1), InputError);
  EXPECT_THROW(fusion_graph(residual_model(), 3), InputError);  // N = 2 is not a multiple of 3
}

TEST(FusionCost, NoFusionTrafficByHand) {
  const FusionCostModel fm(fusion_graph(residual_model(), 2), tiny_arch());
  EXPECT_EQ(fm.micro_batches(), std::vector<int64_t>({1, 2}));
  EXPECT_EQ(fm.evaluations(), 4 * 2 * 3);  // nodes x micro-batches x templates ("best")
  const FusionCost c = fm.evaluate(FusionMapping::no_fusion(4, 2));
  // Words (a padded 3x3 conv reads its 10x10 padded input, as the single-layer model does):
  //   conv1 600 in + 512 out + 108 w; blk.conv1 800 + 512 + 144;
  //   blk.conv2 800 + 512 (skip) + 512 + 144; fc 512 + 20 + 2560.  Sum 7736 words.
  ASSERT_EQ(c.groups.size(), 4u);
  EXPECT_DOUBLE_EQ(c.groups[0].dram_bytes, 2.0 * 1220);
  EXPECT_DOUBLE_EQ(c.groups[1].dram_bytes, 2.0 * 1456);
  EXPECT_DOUBLE_EQ(c.groups[2].dram_bytes, 2.0 * 1968);
  EXPECT_DOUBLE_EQ(c.groups[3].dram_bytes, 2.0 * 3092);
  EXPECT_DOUBLE_EQ(c.dram_bytes, 2.0 * 7736);
  // Latency of the skip consumer: max(on-chip cycles, 1968 words / 4 words per cycle).
  EXPECT_DOUBLE_EQ(c.groups[2].latency_cycles, std::max(fm.pass(2, 2).onchip_cycles, 492.0));
  EXPECT_DOUBLE_EQ(c.groups[2].energy_nj, fm.pass(2, 2).onchip_nj + 1968 * 10 / 1000.0);
}

TEST(FusionCost, FusedResidualBlockByHand) {
  const FusionCostModel fm(fusion_graph(residual_model(), 2), tiny_arch());
  FusionMapping m;
  m.micro_batch = {1, 1, 1, 1};
  m.cut = {0, 0, 0};
  const FusionCost c = fm.evaluate(m);
  ASSERT_EQ(c.groups.size(), 1u);
  const GroupCost& g = c.groups[0];
  // Only the model input, the weights (resident: read once) and the logits touch DRAM:
  // 2 passes x 300 + 108 + 144 + 144 + 2560 + 20 = 3576 words.
  EXPECT_DOUBLE_EQ(g.dram_bytes, 2.0 * 3576);
  // Request: three fused tensors of 1 sample x 256 x 2 B (the skip source holds one buffer
  // for both consumers), resident weights 2956 x 2 B, and the largest staging tile.
  int64_t stage = std::max(fm.pass(0, 1).stage_in_bytes, fm.pass(3, 1).stage_out_bytes);
  EXPECT_EQ(g.requested_bytes, 3 * 512 + 5912 + stage);
  EXPECT_TRUE(g.meets_buffer);
  EXPECT_EQ(g.streamed_weights, 0);
  double lat = 0;
  for (int i = 0; i < 4; ++i) lat += 2 * fm.pass(i, 1).onchip_cycles;
  const double words[4] = {600 + 108, 144, 144, 2560 + 20};
  double expect = 0;
  for (int i = 0; i < 4; ++i) expect += std::max(2 * fm.pass(i, 1).onchip_cycles, words[i] / 4.0);
  EXPECT_DOUBLE_EQ(g.latency_cycles, expect);
  EXPECT_LE(lat, expect);
}

TEST(FusionCost, StreamsTheLargestWeightsThenSpills) {
  const FusionGraph graph = fusion_graph(residual_model(), 2);
  FusionMapping m;
  m.micro_batch = {1, 1, 1, 1};
  m.cut = {0, 0, 0};
  // Room for the tensors and all weights but fc's: fc (5120 B) is streamed, twice.
  const FusionCostModel probe(graph, tiny_arch());
  const int64_t stage_all =
      std::max({probe.pass(0, 1).stage_in_bytes + probe.pass(0, 1).stage_w_bytes,
                probe.pass(1, 1).stage_w_bytes, probe.pass(2, 1).stage_w_bytes,
                probe.pass(3, 1).stage_out_bytes + probe.pass(3, 1).stage_w_bytes});
  FusionOptions o;
  o.buffer_bytes = 1536 + 792 + stage_all;
  const FusionCostModel fm(graph, tiny_arch(), o);
  const GroupCost g = fm.evaluate(m).groups[0];
  EXPECT_EQ(g.streamed_weights, 1);
  EXPECT_TRUE(g.meets_buffer);
  EXPECT_DOUBLE_EQ(g.dram_bytes, 2.0 * (3576 + 2560));  // fc's weights read once per pass
  // A buffer that holds only the staging tiles: every weight streams, then tensors spill.
  o.buffer_bytes = stage_all;
  const FusionCostModel small(graph, tiny_arch(), o);
  const GroupCost s = small.evaluate(m).groups[0];
  EXPECT_EQ(s.streamed_weights, 4);
  EXPECT_FALSE(s.meets_buffer);
  EXPECT_EQ(s.requested_bytes, 1536 + stage_all);
  EXPECT_GE(s.spilled_edges, 1);
  EXPECT_GT(s.dram_bytes, g.dram_bytes);
}

TEST(FusionCost, MicroBatchBufferIsProducerPlusConsumerMinusGcd) {
  workload::Model m;
  m.name = "chain";
  m.layers.push_back(workload::fc("a", 6, 8, 8, false));
  m.layers.push_back(workload::fc("b", 6, 8, 8, false));
  m.producers = workload::chain_producers(2);
  const FusionCostModel fm(fusion_graph(m, 6), tiny_arch());
  EXPECT_EQ(fm.micro_batches(), std::vector<int64_t>({1, 2, 3, 6}));
  FusionMapping f;
  f.micro_batch = {2, 3};
  f.cut = {0};
  const GroupCost g = fm.evaluate(f).groups[0];
  // a writes 2 samples at a time, b reads 3: at most 2 + 3 - 1 = 4 samples of 8 words, 2 B.
  // Weights of both (64 elements each, 3 and 2 passes) resident.
  const int64_t stage = std::max(fm.pass(0, 2).stage_in_bytes, fm.pass(1, 3).stage_out_bytes);
  EXPECT_EQ(g.requested_bytes, 4 * 8 * 2 + 2 * 64 * 2 + stage);
}

// One-layer groups at the whole batch are the single-layer model: its energy and off-chip
// words exactly, and its latency is the single-layer roofline max(on-chip, off-chip / bw).
TEST(FusionCost, OneLayerGroupsEqualTheSingleLayerModel) {
  workload::Model m;
  m.name = "chain3";
  m.layers.push_back(workload::conv2d("c1", 4, 8, 14, 14, 16, 3, 1, 1));
  m.layers.push_back(workload::conv2d("c2", 4, 16, 14, 14, 16, 3, 1, 1, 16));  // depthwise
  m.layers.push_back(workload::conv2d("c3", 4, 16, 14, 14, 32, 1));
  m.producers = workload::chain_producers(3);
  for (const char* hw : {"flat-edge", "maestro-example"}) {
    const arch::Arch a = arch::preset(hw);
    FusionOptions o;
    o.dataflow = "kcp_ws";
    const FusionCostModel fm(fusion_graph(m, 4), a, o);
    const FusionCost c = fm.evaluate(FusionMapping::no_fusion(3, 4));
    arch::Arch unlimited = a;
    unlimited.offchip_words_per_cycle = 1e18;
    double energy = 0, bytes = 0, lat = 0;
    for (const auto& l : m.layers) {
      const Cost real = evaluate(l, a, dataflow_mapping("kcp_ws", l, a.num_pes));
      const Cost inf = evaluate(l, unlimited, dataflow_mapping("kcp_ws", l, a.num_pes));
      ASSERT_TRUE(real.ok());
      EXPECT_DOUBLE_EQ(real.energy_nj, inf.energy_nj);  // energy does not depend on bandwidth
      energy += real.energy_nj;
      bytes += real.offchip_words * static_cast<double>(a.word_bytes);
      lat += std::max(static_cast<double>(inf.runtime_cycles),
                      real.offchip_words / a.offchip_words_per_cycle);
    }
    EXPECT_NEAR(c.energy_nj, energy, 1e-9 * energy) << hw;
    EXPECT_DOUBLE_EQ(c.dram_bytes, bytes) << hw;
    EXPECT_NEAR(c.latency_cycles, lat, 1e-9 * lat) << hw;
  }
}

// "best" takes, per layer and micro-batch, the template with the fewest on-chip cycles.
TEST(FusionCost, BestDataflowIsTheFastestTemplate) {
  const workload::Layer l = workload::conv2d("dw", 2, 32, 14, 14, 32, 3, 1, 1, 32);
  workload::Model m;
  m.name = "one";
  m.layers = {l};
  m.producers = {{}};
  const arch::Arch a = arch::preset("flat-edge");
  arch::Arch unlimited = a;
  unlimited.offchip_words_per_cycle = 1e18;
  double best = 1e300;
  for (const auto& t : dataflow_templates())
    best = std::min(
        best, static_cast<double>(
                  evaluate(l, unlimited, dataflow_mapping(t.name, l, a.num_pes)).runtime_cycles));
  const FusionCostModel fm(fusion_graph(m, 2), a);
  EXPECT_DOUBLE_EQ(fm.pass(0, 2).onchip_cycles, best);
}

TEST(FusionCost, RejectsBadMappings) {
  const FusionCostModel fm(fusion_graph(residual_model(), 2), tiny_arch());
  FusionMapping m = FusionMapping::no_fusion(4, 2);
  m.micro_batch[1] = 3;
  EXPECT_THROW(fm.evaluate(m), InputError);
  m = FusionMapping::no_fusion(3, 2);
  EXPECT_THROW(fm.evaluate(m), InputError);
  FusionOptions o;
  o.dataflow = "nope";
  EXPECT_THROW(FusionCostModel(fusion_graph(residual_model(), 2), tiny_arch(), o), InputError);
}

// --- ONNX exports against the zoo (data/onnx, scripts/export_onnx_models.py) -----------------

std::string onnx_file(const std::string& name) {
  return std::string(SPARSEMAP_SOURCE_DIR) + "/data/onnx/" + name;
}

// Skip edges and what they carry: the elements per sample of every non-adjacent edge.
int64_t skip_elems(const FusionGraph& g) {
  int64_t s = 0;
  for (size_t v = 0; v < g.nodes.size(); ++v)
    for (size_t j = 0; j < g.nodes[v].inputs.size(); ++j)
      if (g.nodes[v].inputs[j] + 1 < static_cast<int>(v)) s += g.nodes[v].in_elems[j];
  return s;
}

// The "done when": fuse on an ONNX ResNet-18 (BatchNorm folded into the convs, Flatten
// between the pool and the FC) counts the zoo's skip traffic: the same graph, the same costs.
TEST(FusionGraph, OnnxResnet18EqualsTheZoo) {
  const workload::Model onnx = io::read_onnx(onnx_file("resnet18.onnx"));  // batch 1
  const workload::Model zoo = workload::zoo_model("resnet18", {1});
  ASSERT_TRUE(onnx.has_dataflow());
  const FusionGraph a = fusion_graph(onnx, 1), b = fusion_graph(zoo, 1);
  ASSERT_EQ(a.nodes.size(), 21u);
  ASSERT_EQ(b.nodes.size(), 21u);
  EXPECT_EQ(a.skip_edges(), 8);
  EXPECT_EQ(b.skip_edges(), 8);
  // Per sample: 64x56x56 (layer1.0, layer1.1, layer2.0's downsample), 128x28x28 (layer2.1,
  // layer3.0's downsample), 256x14x14 (layer3.1, layer4.0's downsample), 512x7x7 (layer4.1).
  EXPECT_EQ(skip_elems(a), 3 * 200704 + 2 * 100352 + 2 * 50176 + 25088);
  EXPECT_EQ(skip_elems(b), 928256);
  for (size_t v = 0; v < a.nodes.size(); ++v) {
    SCOPED_TRACE(b.nodes[v].layer.name);
    EXPECT_EQ(a.nodes[v].layer.kind, b.nodes[v].layer.kind);
    EXPECT_EQ(a.nodes[v].layer.dims, b.nodes[v].layer.dims);
    EXPECT_EQ(a.nodes[v].inputs, b.nodes[v].inputs);
    EXPECT_EQ(a.nodes[v].in_elems, b.nodes[v].in_elems);
    EXPECT_EQ(a.nodes[v].out_elems, b.nodes[v].out_elems);
    EXPECT_EQ(a.nodes[v].model_in_elems, b.nodes[v].model_in_elems);
  }
  EXPECT_EQ(a.consumers, b.consumers);
  // Costs on flat-edge, no fusion and everything in one group at micro-batch 1.
  const arch::Arch hw = arch::preset("flat-edge");
  const FusionCostModel fa(a, hw), fb(b, hw);
  FusionMapping one;
  one.micro_batch.assign(21, 1);
  one.cut.assign(20, 0);
  for (const FusionMapping& f : {FusionMapping::no_fusion(21, 1), one}) {
    const FusionCost ca = fa.evaluate(f), cb = fb.evaluate(f);
    EXPECT_EQ(ca.dram_bytes, cb.dram_bytes);
    EXPECT_EQ(ca.latency_cycles, cb.latency_cycles);
    EXPECT_EQ(ca.energy_nj, cb.energy_nj);
    EXPECT_EQ(ca.peak_buffer_bytes, cb.peak_buffer_bytes);
  }
  EXPECT_EQ(fa.evaluate(FusionMapping::no_fusion(21, 1)).dram_bytes, 33447720.0);
  EXPECT_EQ(fa.evaluate(one).dram_bytes, 32332584.0);
}

// ONNX ResNet-50 and MobileNet-V2 give the zoo's nodes and skip edges.
TEST(FusionGraph, OnnxResnet50AndMobilenetV2SkipEdges) {
  const FusionGraph r = fusion_graph(io::read_onnx(onnx_file("resnet50.onnx")), 1);
  const FusionGraph rz = fusion_graph(workload::zoo_model("resnet50", {1}), 1);
  EXPECT_EQ(r.nodes.size(), 54u);  // 53 convs + fc
  EXPECT_EQ(rz.nodes.size(), 54u);
  EXPECT_EQ(r.skip_edges(), 16);  // one per bottleneck block
  EXPECT_EQ(rz.skip_edges(), 16);
  EXPECT_EQ(skip_elems(r), skip_elems(rz));
  // Downsample convs read 64x56x56, 256x56x56, 512x28x28, 1024x14x14; identity adds 2 x
  // 256x56x56, 3 x 512x28x28, 5 x 1024x14x14, 2 x 2048x7x7.
  EXPECT_EQ(skip_elems(r),
            200704 + 802816 + 401408 + 200704 + 2 * 802816 + 3 * 401408 + 5 * 200704 + 2 * 100352);
  const FusionGraph m = fusion_graph(io::read_onnx(onnx_file("mobilenet_v2.onnx")), 1);
  const FusionGraph mz = fusion_graph(workload::zoo_model("mobilenet-v2", {1}), 1);
  EXPECT_EQ(m.nodes.size(), 53u);
  EXPECT_EQ(m.skip_edges(), 10);
  EXPECT_EQ(skip_elems(m), skip_elems(mz));
  for (size_t v = 0; v < m.nodes.size() && v < mz.nodes.size(); ++v)
    EXPECT_EQ(m.nodes[v].inputs, mz.nodes[v].inputs) << v;
}

}  // namespace
}  // namespace sparsemap::cost
