// The cost model on hand-worked cases, loop edges, invalid input, and properties of random
// mappings (physical bounds, monotonicity, the factorized fast path against full enumeration).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

#include "model_internal.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/io/dfsl.h"
#include "support/random_mappings.h"

namespace sparsemap::cost {
namespace {

using mapping::Directive;
using mapping::Mapping;
using mapping::SizeExpr;
using workload::Dim;
using workload::Layer;

Directive S(Dim d, int64_t size, bool primed = false) {
  return Directive::spatial(d, SizeExpr::lit(size), SizeExpr::lit(size), primed);
}
Directive T(Dim d, int64_t size, bool primed = false) {
  return Directive::temporal(d, SizeExpr::lit(size), SizeExpr::lit(size), primed);
}
Directive Cl(int64_t c) { return Directive::cluster(SizeExpr::lit(c)); }

arch::Arch small_arch(int64_t pes, double noc, double offchip) {
  arch::Arch a = arch::preset("maestro-example");
  a.num_pes = pes;
  a.noc_words_per_cycle = noc;
  a.offchip_words_per_cycle = offchip;
  return a;
}

// K=2, C=1, 3x3 input, 1x1 filter on 2 PEs: K across the PEs, output pixels in time.
//   cases: all-Init (1), Y' steady (2), X' steady (3 x 2 = 6); 1 MAC per PE per step.
//   all-Init: compute 1 + ingress ceil(3 / bw); every other step max(ingress, 1, egress).
TEST(CostModel, HandWorkedConv) {
  const Layer l = workload::conv2d("c", 1, 1, 3, 3, 2, 1);
  const Mapping m{{S(Dim::K, 1), T(Dim::Y, 1, true), T(Dim::X, 1, true)}};
  const Cost c = evaluate(l, small_arch(2, 1000, 50), m);
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.macs, 18);
  EXPECT_EQ(c.mapped_macs, 18);
  EXPECT_EQ(c.runtime_cycles, 2 + 8);  // (1 + 1) + 8 x max(1, 1, 1)
  EXPECT_EQ(c.compute_cycles, 9);
  EXPECT_EQ(c.pes_used, 2);
  // L1 per PE: one input pixel, one weight, one output, each double-buffered.
  EXPECT_EQ(c.l1_bytes, 6);
  // L2: a step's traffic, double-buffered: input 1, weights 2, outputs 2.
  EXPECT_EQ(c.l2_bytes, 2 * 1 + 2 * 2 + 2 * 2);
  EXPECT_EQ(c.access[kInput].l2_reads, 9);   // every input pixel once (weights stay)
  EXPECT_EQ(c.access[kWeight].l2_reads, 2);  // the two weights, once
  EXPECT_EQ(c.access[kOutput].l2_writes, 18);
  EXPECT_EQ(c.access[kInput].l2_writes, 9);   // filled from off-chip once
  EXPECT_EQ(c.access[kOutput].l2_reads, 18);  // drained once
  EXPECT_EQ(c.noc_words_per_cycle, 3);
  // Energy: MACs + L1 + L2 at the MAESTRO ratios (0.23 pJ per MAC).
  double l1 = 0, l2 = 0;
  for (const auto& a : c.access) {
    l1 += a.l1_reads + a.l1_writes;
    l2 += a.l2_reads + a.l2_writes;
  }
  EXPECT_NEAR(c.energy_nj, 0.23e-3 * (18 + 1.68 * l1 + 18.61 * l2), 1e-9);

  // With one word per cycle the NoC dominates: all-Init 1 + 3; Y' steps 2 x 2; X' steps 6 x 2.
  const Cost slow = evaluate(l, small_arch(2, 1, 50), m);
  EXPECT_EQ(slow.runtime_cycles, 4 + 4 + 12);
  EXPECT_EQ(slow.compute_cycles, 9);
}

// Sparseloop's dot product of length 16 (GEMM M = N = 1, K = 16) on one PE.
TEST(CostModel, SparseloopDotProduct) {
  const Layer l = workload::gemm("dot", 1, 1, 16);
  const Mapping m{{S(Dim::M, 1), T(Dim::K, 16), T(Dim::N, 1)}};
  const arch::Arch a = small_arch(1, 1000, 1000);
  const Cost dense = evaluate(l, a, m);
  ASSERT_TRUE(dense.ok()) << dense.reason;
  EXPECT_EQ(dense.compute_cycles, 16);
  EXPECT_EQ(dense.runtime_cycles, 17);  // + 1 cycle to bring the operands in

  EvalOptions gate;
  parse_density_flag("W=0.25", gate.sparsity);
  gate.sparsity.mode = SparseMode::Gate;
  const Cost g = evaluate(l, a, m, gate);
  EXPECT_EQ(g.compute_cycles, 16);
  EXPECT_EQ(g.runtime_cycles, dense.runtime_cycles);
  EXPECT_NEAR(g.energy.mac_nj, dense.energy.mac_nj / 4, 1e-12);
  EXPECT_EQ(g.effectual_macs, 4);

  EvalOptions skip = gate;
  skip.sparsity.mode = SparseMode::Skip;
  const Cost s = evaluate(l, a, m, skip);
  EXPECT_EQ(s.compute_cycles, 4);
  EXPECT_EQ(s.runtime_cycles, 5);
  EXPECT_NEAR(s.energy.mac_nj, dense.energy.mac_nj / 4, 1e-12);
  // Compressed weights: 0.25 of the values plus a 1-bit mask per element (8-bit words).
  EXPECT_NEAR(s.access[kWeight].l2_reads, 16 * (0.25 + 1.0 / 8), 1e-12);
  EXPECT_LT(s.l1_bytes, dense.l1_bytes);
}

// An edge step costs what its partial tile needs: for K = q t + r, the last step's compute
// lies between (r / t) and 1 times a full step's.
TEST(CostModel, EdgeStepIsPricedForItsPartialTile) {
  const arch::Arch a = small_arch(64, 1e9, 1e9);
  for (int64_t t : {8, 12, 16}) {
    const Mapping m{{T(Dim::K, t), S(Dim::C, 1), T(Dim::Y, 2, true), T(Dim::X, 2, true),
                     T(Dim::R, 3), T(Dim::S, 3), Cl(4), S(Dim::K, 1), T(Dim::C, 1),
                     T(Dim::Y, 1, true), T(Dim::X, 1, true), T(Dim::R, 3), T(Dim::S, 3)}};
    auto compute = [&](int64_t k) {
      const Cost c = evaluate(workload::conv2d("e", 1, 16, 6, 6, k, 3), a, m);
      EXPECT_TRUE(c.ok()) << c.reason;
      return c.compute_cycles;
    };
    const double full = compute(t);
    for (int64_t q : {1, 3})
      for (int64_t r = 1; r < t; r += 3) {
        const double edge = compute(q * t + r) - compute(q * t);
        EXPECT_GE(edge, static_cast<double>(r) / static_cast<double>(t) * full - 1e-9)
            << "t " << t << " r " << r;
        EXPECT_LE(edge, full + 1e-9) << "t " << t << " r " << r;
      }
  }
}

TEST(CostModel, InvalidAndInfeasibleAreValues) {
  const Layer l = workload::conv2d("c", 1, 8, 8, 8, 8, 3);
  const arch::Arch a = small_arch(16, 100, 10);
  EXPECT_EQ(evaluate(l, a, Mapping{}).status, Status::Invalid);
  const Cost no_spatial = evaluate(l, a, Mapping{{T(Dim::K, 1), T(Dim::C, 8)}});
  EXPECT_EQ(no_spatial.status, Status::Invalid);
  EXPECT_NE(no_spatial.reason.find("no SpatialMap"), std::string::npos);
  const Cost too_many = evaluate(l, a, Mapping{{S(Dim::K, 1), Cl(32), S(Dim::C, 1)}});
  EXPECT_EQ(too_many.status, Status::Infeasible);
  const Cost skips =
      evaluate(l, a, Mapping{{Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(2))}});
  EXPECT_EQ(skips.status, Status::Invalid);
  EXPECT_NE(skips.reason.find("skips"), std::string::npos);
  Layer pool = workload::pool2d("p", "max_pool", 1, 8, 8, 8, 2, 2);
  EXPECT_EQ(evaluate(pool, a, Mapping{{S(Dim::C, 1)}}).status, Status::Invalid);
  // A mapping of an input column narrower than the filter computes nothing: refused, named.
  const Cost narrow =
      evaluate(l, a, Mapping{{S(Dim::K, 1), Cl(4), S(Dim::X, 1), T(Dim::S, 3), T(Dim::R, 3)}});
  EXPECT_EQ(narrow.status, Status::Invalid);
  EXPECT_NE(narrow.reason.find("SpatialMap(1,1) X"), std::string::npos) << narrow.reason;
  // Buffers: reported, judged only on request.
  const Mapping big{{S(Dim::K, 1), T(Dim::C, 8), T(Dim::Y, 8), T(Dim::X, 8)}};
  EXPECT_TRUE(evaluate(l, a, big).ok());
  EvalOptions enforce;
  enforce.enforce_buffers = true;
  const Cost inf = evaluate(l, a, big, enforce);
  EXPECT_EQ(inf.status, Status::Infeasible);
  EXPECT_NE(inf.reason.find("L1"), std::string::npos);
  // A dimension mapped twice keeps the first directive and says so.
  const Cost dup = evaluate(l, a, Mapping{{S(Dim::K, 1), T(Dim::K, 4), T(Dim::C, 8)}});
  EXPECT_TRUE(dup.ok());
  EXPECT_NE(dup.reason.find("ignored TemporalMap(4,4) K"), std::string::npos) << dup.reason;
  // Oversize tiles are clamped (MACs conserved).
  const Cost clamp = evaluate(l, a, Mapping{{S(Dim::K, 100), T(Dim::Y, 99, true)}});
  EXPECT_TRUE(clamp.ok());
  EXPECT_EQ(clamp.macs, l.macs());
}

// Issue 19: off-chip (or NoC) bandwidth of 1e-12 gave a negative runtime, 1e-300 a runtime of
// INT64_MIN with status ok. arch::validate now refuses such files, and the cost model itself
// never wraps: a count beyond 2^53 is infeasible with a reason.
TEST(CostModel, CountsThatWouldOverflowAreInfeasibleNeverWrapped) {
  // 64 x 56 x 56 inputs (200,704 words) through 1e-12 words per cycle: 2e17 cycles > 2^53.
  const Layer l = workload::conv2d("c", 1, 64, 56, 56, 64, 1);
  const Mapping m{{S(Dim::K, 1), T(Dim::Y, 1, true), T(Dim::X, 1, true)}};
  for (double bw : {1e-12, 1e-300}) {
    for (const arch::Arch& a : {small_arch(64, 1000, bw), small_arch(64, bw, 50)}) {
      const Cost c = evaluate(l, a, m);
      EXPECT_EQ(c.status, Status::Infeasible) << bw;
      EXPECT_NE(c.reason.find("cycles is beyond the model's 2^53 limit"), std::string::npos)
          << c.reason;
      EXPECT_GE(c.runtime_cycles, 0);
    }
  }
  // A zero bandwidth is refused before the analysis (no division by zero).
  EXPECT_EQ(evaluate(l, small_arch(64, 0.0, 50), m).status, Status::Invalid);
  // The smallest bandwidth the readers accept (1e-3 words per cycle) still gives exact counts:
  // at least the 200,704 input words at 1e-3 words per cycle.
  const Cost slow = evaluate(l, small_arch(64, 1000, 1e-3), m);
  ASSERT_TRUE(slow.ok()) << slow.reason;
  EXPECT_GE(slow.runtime_cycles, 200704 * 1000);
  EXPECT_LT(slow.runtime_cycles, int64_t{1} << 53);
}

// Every GEMM-class kind on random GAMMA-style mappings: physical bounds, monotonicity in
// bandwidth, sparsity never slower when skipping, and the fast path equal to full enumeration.
struct PropertyCase {
  Layer layer;
  const char* what;
};

std::vector<PropertyCase> property_layers() {
  return {
      {workload::conv2d("conv", 1, 32, 14, 14, 48, 3, 1, 1), "conv 3x3 pad 1"},
      {workload::conv2d("conv1x1", 2, 64, 7, 7, 96, 1), "conv 1x1 batch 2"},
      {workload::conv2d("strided", 1, 16, 15, 15, 32, 3, 2), "conv stride 2"},
      {workload::conv2d("dw", 1, 32, 12, 12, 32, 3, 1, 0, 32), "depthwise"},
      {workload::conv2d("grp", 1, 32, 10, 10, 32, 3, 1, 0, 4), "grouped"},
      {workload::gemm("gemm", 100, 64, 72), "gemm"},
      {workload::batched_gemm("bgemm", 4, 32, 32, 16), "batched gemm"},
      {workload::fc("fc", 4, 256, 100), "fc"},
  };
}

TEST(CostModelProperties, RandomMappingsArePhysicalAndMonotone) {
  std::mt19937_64 rng(7);
  const double pes_choices[] = {64, 168, 256};
  int n = 0;
  for (const PropertyCase& pc : property_layers())
    for (int k = 0; k < 60; ++k) {
      const bool even = k % 2 == 0;
      arch::Arch a = small_arch(static_cast<int64_t>(pes_choices[k % 3]), 16.0 * (1 + k % 4),
                                8.0 * (1 + k % 5));
      const Mapping m = testing::random_mapping(pc.layer, a.num_pes, rng, even);
      const Cost c = evaluate(pc.layer, a, m);
      ASSERT_TRUE(c.ok()) << pc.what << ": " << c.reason;
      ++n;
      const Layer& l = pc.layer;
      EXPECT_EQ(c.macs, l.macs());
      // The model itself (before evaluate's guard) respects the array bound.
      detail::Problem p;
      Cost scratch;
      ASSERT_TRUE(detail::build_problem(l, a, m, {}, p, scratch));
      detail::TopResult raw;
      detail::analyze(p, raw);
      EXPECT_GE(raw.mapped_macs, static_cast<double>(l.macs())) << pc.what;
      EXPECT_GE(raw.runtime, std::ceil(static_cast<double>(l.macs()) / c.pes_used)) << pc.what;
      EXPECT_GE(c.energy_nj, static_cast<double>(l.macs()) * a.energy.mac_pj / 1000 - 1e-9);
      // The factorized innermost level equals the full enumeration.
      p.exhaustive = true;
      detail::TopResult full;
      detail::analyze(p, full);
      EXPECT_EQ(raw.runtime, full.runtime) << pc.what;
      EXPECT_EQ(raw.avg_active, full.avg_active) << pc.what;
      EXPECT_EQ(raw.max_active, full.max_active) << pc.what;
      for (int t = 0; t < kNumTensors; ++t) {
        EXPECT_EQ(raw.l1_words[t], full.l1_words[t]);
        for (int q = 0; q < 4; ++q) EXPECT_EQ(raw.counts[t][q], full.counts[t][q]);
      }
      // ... also with sparse tensors (fractional compute, compressed traffic).
      EvalOptions sparse;
      parse_density_flag("W=0.4,I=0.7", sparse.sparsity);
      sparse.sparsity.mode = SparseMode::Skip;
      ASSERT_TRUE(detail::build_problem(l, a, m, sparse, p, scratch));
      detail::TopResult fs, es;
      detail::analyze(p, fs);
      p.exhaustive = true;
      detail::analyze(p, es);
      EXPECT_DOUBLE_EQ(fs.runtime, es.runtime) << pc.what;
      // More NoC or off-chip bandwidth never makes it slower.
      arch::Arch fast = a;
      fast.noc_words_per_cycle *= 2;
      EXPECT_LE(evaluate(l, fast, m).runtime_cycles, c.runtime_cycles) << pc.what;
      fast = a;
      fast.offchip_words_per_cycle *= 3;
      EXPECT_LE(evaluate(l, fast, m).runtime_cycles, c.runtime_cycles) << pc.what;
      // Skipping zeros is never slower than dense; gating takes the same time.
      EvalOptions sp;
      parse_density_flag("W=0.3,I=0.6", sp.sparsity);
      sp.sparsity.mode = SparseMode::Skip;
      const Cost skip = evaluate(l, a, m, sp);
      EXPECT_LE(skip.runtime_cycles, c.runtime_cycles) << pc.what;
      EXPECT_LE(skip.energy_nj, c.energy_nj) << pc.what;
      sp.sparsity.mode = SparseMode::Gate;
      EXPECT_EQ(evaluate(l, a, m, sp).runtime_cycles, c.runtime_cycles) << pc.what;
    }
  EXPECT_EQ(n, 8 * 60);
}

// Nothing crashes on any mapping: random directive soup on every kind of layer.
TEST(CostModelProperties, ArbitraryMappingsNeverCrash) {
  std::mt19937_64 rng(11);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<Layer> layers;
  for (const PropertyCase& pc : property_layers()) layers.push_back(pc.layer);
  layers.push_back(workload::conv2d("strided", 1, 3, 17, 17, 8, 5, 3, 2));
  int ok = 0;
  for (int k = 0; k < 3000; ++k) {
    const Layer& l = layers[static_cast<size_t>(k) % layers.size()];
    const arch::Arch a = small_arch(pick(1, 300), static_cast<double>(pick(1, 64)),
                                    static_cast<double>(pick(1, 64)));
    Mapping m;
    const int n = static_cast<int>(pick(0, 14));
    for (int i = 0; i < n; ++i) {
      const int kind = static_cast<int>(pick(0, 5));
      if (kind == 0) {
        m.directives.push_back(Cl(pick(0, 40)));
        continue;
      }
      const Dim d = workload::kAllDims[static_cast<size_t>(pick(0, workload::kNumDims - 1))];
      const int64_t size = pick(0, 70), ofs = pick(0, 70);
      const bool primed = pick(0, 3) == 0;
      m.directives.push_back(
          kind == 1 ? Directive::spatial(d, SizeExpr::lit(size), SizeExpr::lit(ofs), primed)
                    : Directive::temporal(d, SizeExpr::lit(size), SizeExpr::lit(ofs), primed));
    }
    const Cost c = evaluate(l, a, m);
    if (!c.ok()) {
      EXPECT_FALSE(c.reason.empty());
      continue;
    }
    ++ok;
    EXPECT_EQ(c.macs, l.macs());
    EXPECT_GE(static_cast<double>(c.runtime_cycles),
              std::ceil(static_cast<double>(c.macs) / static_cast<double>(c.pes_used)) - 1e-9);
    EXPECT_GE(c.energy_nj, 0);
  }
  EXPECT_GT(ok, 100);
}

// Pure and thread-safe: the same answers from two threads.
TEST(CostModelProperties, ThreadSafe) {
  const Layer l = workload::conv2d("conv", 1, 32, 14, 14, 48, 3, 1, 1);
  const arch::Arch a = arch::preset("gamma-edge");
  std::mt19937_64 rng(3);
  std::vector<Mapping> ms;
  for (int i = 0; i < 200; ++i) ms.push_back(testing::random_mapping(l, a.num_pes, rng));
  std::vector<int64_t> r1(ms.size()), r2(ms.size());
  auto work = [&](std::vector<int64_t>& out) {
    for (size_t i = 0; i < ms.size(); ++i) out[i] = evaluate(l, a, ms[i]).runtime_cycles;
  };
  std::thread th(work, std::ref(r1));
  work(r2);
  th.join();
  EXPECT_EQ(r1, r2);
}

// Three cluster levels (beyond MAESTRO's usual two): physical, and the same as enumerating.
TEST(CostModel, ThreeLevels) {
  const Layer l = workload::conv2d("c", 1, 32, 10, 10, 64, 3);
  const arch::Arch a = small_arch(256, 64, 16);
  const Mapping m{{S(Dim::K, 8), T(Dim::C, 16), Cl(16), S(Dim::K, 2), T(Dim::C, 4),
                   T(Dim::Y, 4, true), Cl(4), S(Dim::C, 1), T(Dim::Y, 1, true),
                   T(Dim::X, 2, true)}};
  const Cost c = evaluate(l, a, m);
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.macs, l.macs());
  EXPECT_GE(c.runtime_cycles, c.macs / c.pes_used);
  EXPECT_LE(c.pes_used, 256);
  detail::Problem p;
  Cost scratch;
  ASSERT_TRUE(detail::build_problem(l, a, m, {}, p, scratch));
  EXPECT_EQ(p.nlevels, 3);
  detail::TopResult fast, full;
  detail::analyze(p, fast);
  p.exhaustive = true;
  detail::analyze(p, full);
  EXPECT_EQ(fast.runtime, full.runtime);
  EXPECT_EQ(fast.mapped_macs, static_cast<double>(l.macs()));
}

TEST(CostModel, LoopEdges) {
  const Layer l = workload::conv2d("c", 1, 16, 10, 10, 64, 3);  // 8x8 output
  EXPECT_FALSE(has_loop_edges(
      l, Mapping{{S(Dim::K, 16), T(Dim::Y, 4, true), Cl(4), S(Dim::K, 4), T(Dim::Y, 2, true)}}));
  EXPECT_TRUE(has_loop_edges(l, Mapping{{S(Dim::K, 24)}}));                       // 64 % 24
  EXPECT_TRUE(has_loop_edges(l, Mapping{{S(Dim::K, 16), Cl(4), S(Dim::K, 5)}}));  // 16 % 5
  EXPECT_TRUE(has_loop_edges(l, Mapping{{T(Dim::Y, 9, true)}}));                  // tile > extent
  // Sliding windows in input rows: 10 rows, tile 4, offset 2 -> 4 whole steps.
  EXPECT_FALSE(has_loop_edges(
      l, Mapping{{Directive::temporal(Dim::Y, SizeExpr::lit(4), SizeExpr::lit(2))}}));
}

}  // namespace
}  // namespace sparsemap::cost
