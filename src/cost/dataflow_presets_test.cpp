// Built-in dataflow templates: every GEMM-class layer of real models gets a valid mapping.
#include <gtest/gtest.h>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::cost {
namespace {

TEST(DataflowTemplates, Names) {
  ASSERT_EQ(dataflow_templates().size(), 3u);
  EXPECT_EQ(dataflow_templates()[0].name, "kcp_ws");
  const workload::Layer l = workload::conv2d("c", 1, 64, 56, 56, 64, 3, 1, 1);
  EXPECT_EQ(dataflow_mapping("yxp-os", l, 256), dataflow_mapping("yxp_os", l, 256));
  EXPECT_THROW(dataflow_mapping("nope", l, 256), InputError);
  const workload::Layer pool = workload::pool2d("p", "max_pool", 1, 8, 8, 8, 2, 2);
  EXPECT_THROW(dataflow_mapping("kcp_ws", pool, 256), InputError);
}

// kcp_ws on ResNet-50's second layer (64 x 64 1x1 on 56x56, MAESTRO's CONV2_1_1 shape): 4
// clusters of 64 PEs, K across clusters and C across a cluster's PEs: MAESTRO's numbers.
TEST(DataflowTemplates, KcpWsIsMaestrosStyle) {
  const workload::Layer l = workload::conv2d("CONV2_1_1", 1, 64, 56, 56, 64, 1);
  const mapping::Mapping m = dataflow_mapping("kcp_ws", l, 256);
  std::string text;
  for (const auto& d : m.directives) text += mapping::to_dfsl(d) + " ";
  EXPECT_EQ(text,
            "SpatialMap(1,1) K; TemporalMap(Sz(C),Sz(C)) C; TemporalMap(Sz(R),Sz(R)) R; "
            "TemporalMap(Sz(S),Sz(S)) S; TemporalMap(1,1) Y'; TemporalMap(1,1) X'; Cluster(64,P); "
            "SpatialMap(1,1) C; TemporalMap(1,1) Y'; TemporalMap(1,1) X'; "
            "TemporalMap(Sz(R),Sz(R)) R; TemporalMap(Sz(S),Sz(S)) S; ");
  const Cost c = evaluate(l, arch::preset("maestro-example"), m);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.runtime_cycles, 301056);  // MAESTRO's Resnet50_kcp_ws CONV2_1_1
  EXPECT_EQ(c.l2_bytes, 648);
  EXPECT_EQ(c.l1_bytes, 6);
}

TEST(DataflowTemplates, EveryGemmLayerOfRealModelsEvaluates) {
  const arch::Arch a = arch::preset("maestro-example");
  for (const char* model : {"resnet50", "mobilenet-v2", "bert-base"}) {
    const workload::Model m = workload::zoo_model(model);
    for (const auto& t : dataflow_templates()) {
      int n = 0;
      for (const auto& l : m.layers) {
        if (!workload::is_gemm_class(l.kind)) continue;
        const Cost c = evaluate(l, a, dataflow_mapping(t.name, l, a.num_pes));
        ASSERT_TRUE(c.ok()) << model << " " << t.name << " " << l.name << ": " << c.reason;
        EXPECT_EQ(c.macs, l.macs());
        EXPECT_GE(static_cast<double>(c.runtime_cycles),
                  static_cast<double>(l.macs()) / static_cast<double>(c.pes_used));
        ++n;
      }
      EXPECT_GT(n, 10) << model;
    }
  }
}

}  // namespace
}  // namespace sparsemap::cost
