// Tests of the profiler on the suite's tiny configurations (seconds in all).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sparsemap/error.h"
#include "sparsemap/ml/nongemm/profile.h"
#include "sparsemap/ml/nongemm/report.h"

namespace sparsemap::ml::nongemm {
namespace {

ProfileOptions quick(int active = 2) {
  ProfileOptions o;
  o.schedule = {0, 0, 1, active};
  o.threads = 1;
  return o;
}

ModelOptions tiny(int64_t batch = 1) {
  ModelOptions m;
  m.tiny = true;
  m.batch = batch;
  return m;
}

const OpStat* find_op(const Profile& p, const std::string& name) {
  for (const OpStat& o : p.ops)
    if (o.name == name) return &o;
  return nullptr;
}

double calls(const Profile& p, const std::string& name) {
  const OpStat* o = find_op(p, name);
  return o ? o->calls : 0;
}

// Every model of the suite runs, every operator it records is named by the taxonomy, and the
// top-level operators account for the inference scope's wall time.
TEST(Profiler, EverySuiteModelIsCoveredByTheTaxonomy) {
  for (const ModelInfo& m : model_infos()) {
    SCOPED_TRACE(m.name);
    const Profile p = profile_model(m.name, tiny(2), quick(4));
    ASSERT_EQ(p.wall_ms.size(), 4u);
    ASSERT_FALSE(p.ops.empty());
    for (const OpStat& o : p.ops) EXPECT_TRUE(o.cls.known) << "not in the taxonomy: " << o.name;
    EXPECT_EQ(p.unknown_pct(), 0.0);
    // Tiny models run in a fraction of a millisecond, mostly per-operator overhead, and a run
    // that the OS preempts between two operators loses coverage: the best of the runs must
    // cover half of its wall time (the full-size models reach 95%: scripts/nongemm_suite.sh).
    double best = 0;
    for (size_t i = 0; i < p.wall_ms.size(); ++i) {
      EXPECT_LE(p.ops_ms[i], p.wall_ms[i] * 1.005);
      best = std::max(best, p.ops_ms[i] / p.wall_ms[i]);
    }
    EXPECT_GT(best, 0.5);
    const Split s = split_profile(p);
    EXPECT_GT(s.gemm_ms, 0.0);
    EXPECT_GT(s.nongemm_ms(), 0.0);
    EXPECT_NEAR(s.gemm_pct() + s.nongemm_pct(), 100.0, 1e-9);
  }
}

TEST(Profiler, CountsTopLevelOperatorsOnly) {
  const Profile p = profile_model("resnet50", tiny(), quick(3));
  // Tiny ResNet: stem + 5 bottlenecks (3 convs each) + 4 downsamples = 20 convs.
  EXPECT_EQ(calls(p, "aten::conv2d"), 20);
  EXPECT_EQ(calls(p, "aten::batch_norm"), 20);
  EXPECT_EQ(calls(p, "aten::relu_"), 1 + 3 * 5);
  EXPECT_EQ(calls(p, "aten::add_"), 5);
  EXPECT_EQ(calls(p, "aten::max_pool2d"), 1);
  EXPECT_EQ(calls(p, "aten::adaptive_avg_pool2d"), 1);
  EXPECT_EQ(calls(p, "aten::linear"), 1);
  // Nested calls (conv2d -> convolution -> mkldnn_convolution, linear -> addmm) are not counted.
  EXPECT_EQ(find_op(p, "aten::convolution"), nullptr);
  EXPECT_EQ(find_op(p, "aten::addmm"), nullptr);
  EXPECT_EQ(find_op(p, "aten::empty"), nullptr);
  EXPECT_EQ(p.threads, 1);
  EXPECT_NE(p.blas.find("OpenBLAS"), std::string::npos);
}

TEST(Profiler, CompositeOperatorsCountAsOne) {
  const Profile llama = profile_model("llama2-7b", tiny(), quick());
  // 2 per block x 2 blocks + the final norm; the pow/mean/rsqrt inside are not counted.
  EXPECT_EQ(calls(llama, "sparsemap::rms_norm"), 5);
  EXPECT_EQ(find_op(llama, "aten::rsqrt"), nullptr);
  EXPECT_EQ(calls(llama, "aten::silu"), 2);
  const Profile gpt2 = profile_model("gpt2", tiny(), quick());
  EXPECT_EQ(calls(gpt2, "sparsemap::gelu_new"), 2);
  EXPECT_EQ(find_op(gpt2, "aten::tanh"), nullptr);
  EXPECT_EQ(calls(gpt2, "aten::linear"), 8);
  const Profile seg = profile_model("segformer-b0", tiny(), quick());
  EXPECT_EQ(calls(seg, "sparsemap::depthwise_conv"), 2);
  EXPECT_EQ(split_profile(seg).group_ms.at("interpolation") > 0, true);
  const Profile rcnn = profile_model("faster-rcnn-r50-fpn", tiny(), quick());
  EXPECT_EQ(calls(rcnn, "sparsemap::roi_align"), 4);           // one per FPN level
  EXPECT_GE(calls(rcnn, "sparsemap::nms"), 2);                 // RPN and detections
  EXPECT_EQ(calls(rcnn, "sparsemap::frozen_batch_norm"), 17);  // 4 tiny bottlenecks
  EXPECT_GT(split_profile(rcnn).group_ms.at("roi"), 0.0);
}

TEST(Profiler, ScalesBlocksToTheFullDepth) {
  ModelOptions one = tiny(), two = tiny();
  one.layers = 1, two.layers = 2;
  const Profile p1 = profile_model("llama2-7b", one, quick());
  const Profile p2 = profile_model("llama2-7b", two, quick());
  EXPECT_EQ(p1.run.layers_run, 1);
  EXPECT_EQ(p1.run.layers_full, 2);
  // 7 linears per block (q, k, v, o, gate, up, down) x 2 + the LM head, in both.
  EXPECT_EQ(calls(p1, "aten::linear"), 15);
  EXPECT_EQ(calls(p2, "aten::linear"), 15);
  EXPECT_EQ(calls(p1, "aten::matmul"), calls(p2, "aten::matmul"));
  // The scaled wall time still contains the scaled operator time.
  EXPECT_LT(p1.coverage_pct(), 100.5);
  const Profile moe = profile_model("mixtral-8x7b", one, quick());
  EXPECT_EQ(calls(moe, "aten::topk"), 2);
  EXPECT_GT(calls(moe, "aten::index_add_"), 0);
}

TEST(Profiler, RecordsGemmShapesAndTraces) {
  ProfileOptions o = quick();
  o.gemm_shapes = true;
  o.trace = true;
  const Profile p = profile_model("bert-base", tiny(3), o);  // tiny: hidden 32, seq 16
  std::map<std::string, int> kinds;
  double linear_calls = 0, linear_ms = 0;
  for (const GemmCall& g : p.gemm_calls) {
    kinds[std::string(workload::op_kind_name(g.layer.kind))]++;
    if (g.op == "aten::linear") {
      // Every linear sees batch x seq rows, except the pooler (the [CLS] rows only).
      const int64_t m = g.layer.dim(workload::Dim::M);
      EXPECT_TRUE(m == 3 * 16 || (m == 3 && g.layer.dim(workload::Dim::N) == 32)) << m;
      linear_calls += g.calls;
      linear_ms += g.ms;
    }
    if (g.op == "aten::matmul") {
      EXPECT_EQ(g.layer.kind, workload::OpKind::BatchedGemm);
      EXPECT_EQ(g.layer.dim(workload::Dim::G), 3 * 2);  // batch x heads
    }
  }
  EXPECT_EQ(linear_calls, calls(p, "aten::linear"));
  EXPECT_NEAR(linear_ms, find_op(p, "aten::linear")->ms, 1e-9);
  EXPECT_GT(kinds["GEMM"], 0);
  EXPECT_GT(kinds["BGEMM"], 0);
  // Trace: one span per active run plus every top-level operator.
  int spans = 0;
  size_t ops = 0;
  for (const TraceEvent& e : p.trace) {
    if (e.iteration < 0)
      ++spans;
    else
      ++ops;
  }
  EXPECT_EQ(spans, 2);
  double total_calls = 0;
  for (const OpStat& s : p.ops) total_calls += s.calls;
  EXPECT_EQ(static_cast<double>(ops), 2 * total_calls);
  const nlohmann::json t = chrome_trace(p);
  EXPECT_EQ(t["traceEvents"][0]["ph"], "X");

  // The depthwise conv composite takes its shape from the conv inside it.
  const Profile seg = profile_model("segformer-b0", tiny(), o);
  bool dw = false;
  for (const GemmCall& g : seg.gemm_calls)
    if (g.op == "sparsemap::depthwise_conv") dw = g.layer.kind == workload::OpKind::DsConv;
  EXPECT_TRUE(dw);
}

TEST(Profiler, MedianOfRunsPerOperator) {
  ProfileOptions o = quick(5);
  o.statistic = Statistic::Median;
  const Profile p = profile_model("resnet50", tiny(), o);
  EXPECT_EQ(p.statistic, Statistic::Median);
  EXPECT_EQ(p.ops_ms.size(), 5u);
  // Medians of per-run times: positive, and of the order of one run (a sum of medians is not
  // bounded by the largest run's total in general, hence the loose factor).
  double sum = 0;
  for (const OpStat& s : p.ops) {
    EXPECT_GE(s.ms, 0.0);
    sum += s.ms;
  }
  EXPECT_GT(sum, 0.0);
  EXPECT_LE(sum, 3 * *std::max_element(p.ops_ms.begin(), p.ops_ms.end()));
  EXPECT_GE(sum, 0.3 * *std::min_element(p.ops_ms.begin(), p.ops_ms.end()));
}

TEST(Profiler, RejectsBadSchedules) {
  ProfileOptions o = quick();
  o.schedule.active = 0;
  EXPECT_THROW(profile_model("resnet50", tiny(), o), InputError);
  EXPECT_THROW(profile_model("no-such-model", tiny(), quick()), InputError);
}

TEST(Profiler, OverheadComparesPlainAndProfiledRuns) {
  const Overhead o = measure_overhead("bert-base", tiny(), 1, 3);
  EXPECT_EQ(o.plain_runs_ms.size(), 3u);
  EXPECT_EQ(o.profiled_runs_ms.size(), 3u);
  EXPECT_GT(o.plain_ms, 0.0);
  EXPECT_GT(o.profiled_ms, 0.0);
}

}  // namespace
}  // namespace sparsemap::ml::nongemm
