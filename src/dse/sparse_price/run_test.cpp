// sparse-price end to end through the library: a tiny model pruned 2:4 and 75% unstructured,
// priced on a small design that skips Inputs on zero Weights, with numbers worked by hand.
#include "sparsemap/dse/sparse_price/run.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"
#include "support/error_of.h"
#include "support/temp_dir.h"

namespace sparsemap::dse::sparse_price {
namespace {

using testing::error_of;

// DRAM and a buffer keeping every data space, one MAC; the buffer skips Inputs on zero Weights
// (Sparseloop's skipping: the MAC skips those computes too). No bandwidth limits: cycles are
// the computes that run.
const char* kDesign = R"(architecture:
  version: 0.4
  nodes:
  - !Container
    name: system
    attributes: {technology: "45nm"}
  - !Component
    name: DRAM
    class: DRAM
    attributes: {width: 64, datawidth: 8}
  - !Component
    name: Buffer
    class: storage
    subclass: regfile
    attributes: {depth: 1048576, width: 8, datawidth: 8}
    constraints:
      dataspace: {keep: [Weights, Inputs, Outputs]}
    sparse_optimizations:
      action_optimization:
        - type: skipping
          options:
            - target: Inputs
              condition_on: [Weights]
  - !Component
    name: mac
    class: intmac
    attributes: {multiplier_width: 8, adder_width: 16}
)";

const char* kErt = R"(ERT:
  version: 0.4
  tables:
  - name: system.mac
    actions:
    - name: compute
      energy: 1.0
)";

workload::Model tiny_model() {
  workload::Model m;
  m.name = "tiny";
  // C 4, M 8, 3x3 on 6x6 padded: 8 x 36 weights, 4 x 8 x 9 x 36 = 10,368 MACs.
  m.layers.push_back(workload::conv2d("conv", 1, 4, 6, 6, 8, 3, 1, 1));
  // C 16, M 4: 4 x 16 weights, 64 MACs.
  m.layers.push_back(workload::fc("fc", 1, 16, 4, false));
  return m;
}

Options tiny_options(const testing::TempDir& d, const std::string& prune) {
  Options o;
  o.hw = d.write("design/arch.yaml", kDesign);
  d.write("design/tiny.ERT.yaml", kErt);
  o.model_object = tiny_model();
  o.prune = prune;
  o.algo = "gamma";
  o.budget = 200;
  return o;
}

TEST(SparsePrice, TwoFourHalvesTheComputesOnASkippingDesign) {
  const testing::TempDir d("sparse_price_24");
  search::Observer quiet;
  const Result r = run(tiny_options(d, "nm:2:4"), quiet);
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.model_name, "tiny");
  EXPECT_EQ(r.ert_file, (d.path / "design/tiny.ERT.yaml").string());
  const int64_t macs[2] = {10368, 64};
  for (int i = 0; i < 2; ++i) {
    const LayerRow& l = r.layers[static_cast<size_t>(i)];
    ASSERT_TRUE(l.found) << l.name << ": " << l.reason;
    EXPECT_EQ(l.weight_density, 0.5) << l.name;  // 2 of every 4
    EXPECT_EQ(l.macs, macs[i]);
    EXPECT_EQ(l.dense.algorithmic_computes, macs[i]);
    EXPECT_EQ(l.dense.actual_computes, macs[i]);
    EXPECT_EQ(l.dense.cycles, macs[i]);
    // Inputs skipped on Weights, a scalar leader: p = 1 - 0.5; the MAC loses floor(C p)
    // computes, not issued at all (none of actual, gated, skipped: as Sparseloop's 01.2.3).
    EXPECT_EQ(l.sparse.algorithmic_computes, macs[i]);
    EXPECT_EQ(l.sparse.skipped_computes, 0);
    EXPECT_EQ(l.sparse.actual_computes, macs[i] / 2);
    EXPECT_EQ(l.sparse.cycles, macs[i] / 2);
    EXPECT_EQ(l.speedup(), 2.0);
    // Energy: 1 pJ per compute (the only ERT entry).
    EXPECT_EQ(l.dense.energy_pj, static_cast<double>(macs[i]));
    EXPECT_EQ(l.sparse.energy_pj, static_cast<double>(macs[i] / 2));
    EXPECT_EQ(l.energy_ratio(), 0.5);
  }
  EXPECT_EQ(r.total.weights, 8 * 36 + 4 * 16);
  EXPECT_EQ(r.total.weight_nonzeros, (8 * 36 + 4 * 16) / 2);
  EXPECT_EQ(r.total.dense.cycles, 10368 + 64);
  EXPECT_EQ(r.total.sparse.cycles, (10368 + 64) / 2);
  EXPECT_EQ(r.total.speedup(), 2.0);
  const auto j = to_json(r);
  EXPECT_EQ(j.at("prune"), "nm:2:4");
  EXPECT_EQ(j.at("layers").at(1).at("sparse").at("actual_computes"), 32);
  EXPECT_EQ(j.at("total").at("speedup"), 2.0);
  EXPECT_FALSE(j.at("total").contains("spmm"));
}

TEST(SparsePrice, UnstructuredKeepsTheRoundedCount) {
  const testing::TempDir d("sparse_price_unstructured");
  search::Observer quiet;
  Options o = tiny_options(d, "unstructured:0.75");
  o.spmm = true;
  o.spmm_min_ms = 1;
  const Result r = run(o, quiet);
  // 288 weights: 288 - round(216) = 72 kept; 64 weights: 16 kept.
  EXPECT_EQ(r.layers[0].weight_nonzeros, 72);
  EXPECT_EQ(r.layers[1].weight_nonzeros, 16);
  EXPECT_EQ(r.layers[0].sparse.actual_computes, 10368 / 4);
  EXPECT_EQ(r.layers[1].sparse.actual_computes, 64 / 4);
  EXPECT_EQ(r.layers[0].speedup(), 4.0);
  // SpMM of the same pruned matrices: 36 x 36 activations (N P Q), 1 for the FC layer.
  ASSERT_TRUE(r.layers[0].spmm && r.layers[1].spmm);
  EXPECT_EQ(r.layers[0].spmm->cols, 36);
  EXPECT_EQ(r.layers[1].spmm->cols, 1);
  EXPECT_LT(r.layers[0].spmm->max_rel_err, 1e-4);
  EXPECT_GT(r.layers[0].spmm->sparse_ms, 0);
  EXPECT_TRUE(to_json(r).at("total").contains("spmm"));
}

TEST(SparsePrice, WeightsTensorIsTheMatrixInProblemOrder) {
  // FC, C 2, M 2: the matrix is M x C, the Weights tensor [C, M, R, S, G].
  const workload::Einsum p = workload::to_einsum(workload::fc("f", 1, 2, 2, false));
  EXPECT_EQ(weight_rows(p), 2);
  EXPECT_EQ(weight_cols(p), 2);
  sparse::Mask keep;
  keep.rows = 2;
  keep.cols = 2;
  keep.keep = {1, 0, 1, 1};  // m0: c0; m1: c0, c1
  const workload::DensityModel m = weights_density(p, keep, "f");
  ASSERT_TRUE(m.tensor);
  EXPECT_EQ(m.density, 0.75);
  EXPECT_EQ(m.tensor->shape(), (std::vector<int64_t>{2, 2, 1, 1, 1}));
  // Tiles of one c and both m: c0 holds 2, c1 holds 1.
  EXPECT_EQ(*m.tensor->distribution({1, 2, 1, 1, 1}), (std::vector<double>{0, 0.5, 0.5}));
  // Tiles of one m and both c: m0 holds 1, m1 holds 2.
  EXPECT_EQ(*m.tensor->distribution({2, 1, 1, 1, 1}), (std::vector<double>{0, 0.5, 0.5}));
  keep.cols = 3;
  EXPECT_EQ(error_of([&] { weights_density(p, keep, "f"); }),
            "f: expected a 2 x 2 weight mask, found 2 x 3");
}

TEST(SparsePrice, BadOptionsAreOneLine) {
  const std::string expected =
      "<flag --prune>: expected nm:N:M, vnm:V:N:M, unstructured:S, cvse:V:S or bsr:HxW:S (S a "
      "sparsity in [0, 1)), found '";
  for (const char* bad : {"nm:2", "nm:5:4", "unstructured:1.5", "unstructured:", "cvse:4",
                          "bsr:4x4:x", "csr", "magnitude:0.9", ""})
    EXPECT_EQ(error_of([&] { parse_prune(bad); }), expected + bad + "'") << bad;
  EXPECT_EQ(parse_prune("unstructured:0.9").sparsity, 0.9);
  EXPECT_EQ(parse_prune("unstructured:0.9").format.str(), "csr");
  EXPECT_EQ(parse_prune("nm:2:4").sparsity, -1);
  EXPECT_EQ(parse_prune("cvse:4:0.5").format.str(), "cvse:4");
  EXPECT_EQ(parse_prune("bsr:2x2:0.5").sparsity, 0.5);
  const testing::TempDir d("sparse_price_bad");
  search::Observer quiet;
  Options o = tiny_options(d, "nm:2:4");
  o.density = "Inputs=2";
  EXPECT_EQ(error_of([&] { run(o, quiet); }),
            "<flag --density>: expected DATASPACE=DENSITY[,...] with densities in [0, 1], found "
            "'Inputs=2'");
  o.density = "Psums=0.5";
  EXPECT_EQ(error_of([&] { run(o, quiet); }),
            "<flag --density>: no data space 'Psums': expected Inputs or Outputs");
  o.density = "";
  o.hw = (d.path / "nothing").string();
  EXPECT_EQ(error_of([&] { run(o, quiet); }),
            "<flag --hw>: no file '" + o.hw + "': expected a Sparseloop design");
}

}  // namespace
}  // namespace sparsemap::dse::sparse_price
