// The MAESTRO-class side of sparseloop_maestro_test.cpp's comparison (tests/support/
// density_path_case.h), and its own hand-worked figure.
#include <gtest/gtest.h>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/evaluate.h"
#include "support/density_path_case.h"

namespace sparsemap::cost::density_case {

// fc: 16 batch x 64 inputs (C) -> 64 outputs (K): 65,536 MACs, on maestro-example (256 PEs,
// 1-byte words, MAC 0.23 pJ, L1 1.68 x and L2 18.61 x that per word, NoC and off-chip 0), the
// weight-stationary mapping of the kcp_ws template (NVDLA-like: output channels across 4
// clusters of 64 PEs, input channels across the PEs of a cluster, the batch walked in time
// under them, so each PE's weight stays for 16 MACs), W unstructured at density d, skipping.
Figures density_path(double d) {
  const arch::Arch a = arch::preset("maestro-example");
  const workload::Layer l = workload::fc("fc", 16, 64, 64, false);
  EvalOptions o;
  if (d < 1) {
    o.sparsity.tensors[kWeight].density = d;
    o.sparsity.tensors[kWeight].density_lo = d;
    o.sparsity.tensors[kWeight].structure = Structure::Unstructured;
    o.sparsity.mode = SparseMode::Skip;
  }
  using mapping::Directive;
  using mapping::SizeExpr;
  using workload::Dim;
  auto lit = [](int64_t v) { return SizeExpr::lit(v); };
  const mapping::Mapping m{
      {Directive::spatial(Dim::K, lit(1), lit(1)), Directive::temporal(Dim::C, lit(64), lit(64)),
       Directive::temporal(Dim::N, lit(1), lit(1)), Directive::cluster(lit(64)),
       Directive::spatial(Dim::C, lit(1), lit(1)), Directive::temporal(Dim::N, lit(1), lit(1))}};
  const Cost c = evaluate(l, a, m, o);
  return {c.ok(),         c.effectual_macs, c.runtime_cycles, c.energy.mac_nj,
          c.energy.l1_nj, c.energy.l2_nj,   c.energy_nj};
}

namespace {

// Skipping leaves d of the MACs: 65,536 x 0.25 = 16,384.
TEST(SparsityDensityCase, EffectualMacs) {
  EXPECT_DOUBLE_EQ(density_path(1).effectual_macs, 65536);
  EXPECT_DOUBLE_EQ(density_path(0.25).effectual_macs, 16384);
}

}  // namespace
}  // namespace sparsemap::cost::density_case
