// Sparsity vocabulary (metadata, storage, effectual MACs, flags) and its effect on evaluate().
#include "sparsemap/cost/sparsity.h"

#include <gtest/gtest.h>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/cost/utilisation.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::cost {
namespace {

TensorSparsity parsed(const std::string& density, const std::string& structure, int t = kWeight) {
  SparsityOptions s;
  if (!density.empty()) parse_density_flag(density, s);
  if (!structure.empty()) parse_structure_flag(structure, s);
  return s.tensors[t];
}

std::string density_error(const std::string& text) {
  SparsityOptions s;
  try {
    parse_density_flag(text, s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string structure_error(const std::string& text, const std::string& density = "") {
  SparsityOptions s;
  try {
    if (!density.empty()) parse_density_flag(density, s);
    parse_structure_flag(text, s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Sparsity, MetadataAndStorage) {
  EXPECT_EQ(metadata_bits_per_element(TensorSparsity{}), 0.0);
  const TensorSparsity u = parsed("W=0.25", "");
  EXPECT_EQ(u.structure, Structure::Unstructured);
  EXPECT_DOUBLE_EQ(metadata_bits_per_element(u), 1.0);  // bitmask
  EXPECT_DOUBLE_EQ(storage_ratio(u, SparseMode::Skip, 8), 0.25 + 1.0 / 8);
  EXPECT_DOUBLE_EQ(storage_ratio(u, SparseMode::Skip, 16), 0.25 + 1.0 / 16);
  EXPECT_DOUBLE_EQ(storage_ratio(u, SparseMode::Gate, 8), 1.0);  // gating keeps dense storage
  // Nearly dense: the bitmask would cost more than it saves, so the tensor stays dense.
  EXPECT_DOUBLE_EQ(storage_ratio(parsed("W=0.95", ""), SparseMode::Skip, 8), 1.0);

  const TensorSparsity nm = parsed("", "W=nm:2:4");
  EXPECT_EQ(nm.structure, Structure::NM);
  EXPECT_DOUBLE_EQ(nm.density, 0.5);
  EXPECT_DOUBLE_EQ(metadata_bits_per_element(nm), 0.5 * 2);  // 2-bit index per kept value
  EXPECT_DOUBLE_EQ(storage_ratio(nm, SparseMode::Skip, 16), 0.5 + 1.0 / 16);
  EXPECT_DOUBLE_EQ(metadata_bits_per_element(parsed("", "W=nm:1:8")), 0.125 * 3);

  const TensorSparsity cv = parsed("W=0.5", "W=cvse:8");
  EXPECT_EQ(cv.structure, Structure::ColumnVector);
  EXPECT_DOUBLE_EQ(metadata_bits_per_element(cv), 0.5 * 16 / 8);  // a 16-bit index per vector
  const TensorSparsity blk = parsed("W=0.25", "W=block:4x4");
  EXPECT_DOUBLE_EQ(metadata_bits_per_element(blk), 0.25 * 16 / 16);
}

// The MAESTRO-class structures in the one vocabulary of formats: each one's per-rank formats,
// and the metadata bits of one unit (exact: the numbers above come from these).
TEST(Sparsity, StructuresAreFormatsOfTheOneVocabulary) {
  auto str = [](const TensorSparsity& t) { return structure_format(t).format.str(); };
  EXPECT_EQ(str(TensorSparsity{}), "U(elements)");
  EXPECT_EQ(str(parsed("W=0.25", "")), "B(elements; m1 p0)");
  EXPECT_EQ(str(parsed("", "W=nm:2:4")), "U(groups/4) CP(2 of 4; m2 p0)");
  EXPECT_EQ(str(parsed("", "W=nm:3:5")), "U(groups/5) CP(3 of 5; m3 p0)");
  EXPECT_EQ(str(parsed("W=0.5", "W=cvse:8")), "CP(vectors; m16 p0) U(rows%8)");
  EXPECT_EQ(str(parsed("W=0.25", "W=block:4x2")), "CP(blocks; m16 p0) U(rows%4) U(cols%2)");
  // cvse:8 at d = 0.5: a unit of 8 elements holds 0.5 vectors: 0.5 * 16 = 8 bits, 1 per element.
  const StructureFormat cv = structure_format(parsed("W=0.5", "W=cvse:8"));
  EXPECT_EQ(cv.unit_elements, 8);
  EXPECT_EQ(workload::format_bits(cv.format, cv.unit).total(), 8);
  EXPECT_EQ(metadata_bits_per_element(parsed("W=0.5", "W=cvse:8")), 1);
  // nm:3:5: 0.6 coordinates per element of 3 bits.
  EXPECT_EQ(metadata_bits_per_element(parsed("", "W=nm:3:5")), 0.6 * 3);
  // block:4x2 at d = 0.25: 0.25 * 16 / 8 = 0.5.
  EXPECT_EQ(metadata_bits_per_element(parsed("W=0.25", "W=block:4x2")), 0.5);
  TensorSparsity bad;
  bad.structure = Structure::ColumnVector;  // no V
  EXPECT_TRUE(structure_format(bad).format.ranks.empty());
  EXPECT_EQ(metadata_bits_per_element(bad), 0);
}

TEST(Sparsity, EffectualFraction) {
  SparsityOptions s;
  EXPECT_EQ(effectual_fraction(s), 1.0);
  parse_density_flag("W=0.5,I=0.5", s);
  EXPECT_DOUBLE_EQ(effectual_fraction(s), 0.25);
  parse_density_flag("O=0.1", s);  // output density does not change the MACs
  EXPECT_DOUBLE_EQ(effectual_fraction(s), 0.25);
  SparsityOptions n;
  parse_structure_flag("W=nm:2:4", n);
  EXPECT_DOUBLE_EQ(effectual_fraction(n), 0.5);
}

TEST(Sparsity, Flags) {
  const TensorSparsity r = parsed("W=0.1:0.5", "");
  EXPECT_DOUBLE_EQ(r.density, 0.5);  // evaluation uses the upper end
  EXPECT_DOUBLE_EQ(r.density_lo, 0.1);
  EXPECT_EQ(describe(r), "d=0.1:0.5");
  EXPECT_EQ(describe(parsed("", "W=nm:2:4")), "nm:2:4");
  EXPECT_EQ(describe(parsed("w=0.5", "w=cvse:8")), "cvse:8 d=0.5");
  EXPECT_EQ(describe(parsed("I=1.0", "", kInput)), "dense");
  EXPECT_EQ(parse_sparse_mode("skip"), SparseMode::Skip);
  EXPECT_EQ(parse_sparse_mode("Gate"), SparseMode::Gate);
  EXPECT_EQ(density_error("X=0.5"), "<flag --density>: unknown tensor 'X': expected W, I or O");
  EXPECT_EQ(density_error("W=1.5"), "<flag --density>: expected a density in (0, 1], found '1.5'");
  EXPECT_EQ(density_error("W0.5"),
            "<flag --density>: expected T=d or T=lo:hi (T in W, I, O), found 'W0.5'");
  EXPECT_EQ(density_error("W=0.6:0.2"),
            "<flag --density>: a density range needs lo <= hi, found '0.6:0.2'");
  EXPECT_EQ(structure_error("W=nm:5:4"), "<flag --structure>: nm:N:M needs N <= M, found nm:5:4");
  EXPECT_EQ(structure_error("W=nm:2:4", "W=0.25"),
            "<flag --structure>: nm:2:4 has density 0.500000, not the 0.250000 given by "
            "--density");
  EXPECT_EQ(structure_error("W=foo"),
            "<flag --structure>: expected nm:N:M, cvse:V, block:HxW, unstructured or dense, "
            "found 'foo'");
  EXPECT_EQ(structure_error("W=block:4"), "<flag --structure>: expected block:HxW, found block:4");
  EXPECT_THROW(parse_sparse_mode("maybe"), InputError);
}

// N:M weights with skipping on a compute-bound mapping: half the compute, never slower.
TEST(Sparsity, NMSkippingHalvesCompute) {
  const workload::Layer l = workload::conv2d("c", 1, 64, 16, 16, 64, 3, 1, 1);
  using mapping::Directive;
  using mapping::SizeExpr;
  using workload::Dim;
  auto T = [](Dim d, int64_t s, bool p = false) {
    return Directive::temporal(d, SizeExpr::lit(s), SizeExpr::lit(s), p);
  };
  const mapping::Mapping m{{Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(1)),
                            T(Dim::C, 64), T(Dim::Y, 4, true), T(Dim::X, 4, true), T(Dim::R, 3),
                            T(Dim::S, 3)}};
  const arch::Arch a = arch::preset("gamma-edge");
  const Cost dense = evaluate(l, a, m);
  EvalOptions o;
  parse_structure_flag("W=nm:2:4", o.sparsity);
  o.sparsity.mode = SparseMode::Skip;
  const Cost s = evaluate(l, a, m, o);
  ASSERT_TRUE(s.ok()) << s.reason;
  EXPECT_DOUBLE_EQ(s.compute_cycles, dense.compute_cycles / 2);
  EXPECT_LE(s.runtime_cycles, dense.runtime_cycles);
  EXPECT_DOUBLE_EQ(s.effectual_macs, dense.mapped_macs / 2);
  EXPECT_LT(s.l1_bytes_by_tensor[kWeight], dense.l1_bytes_by_tensor[kWeight]);
  EXPECT_EQ(s.l1_bytes_by_tensor[kInput], dense.l1_bytes_by_tensor[kInput]);
  EXPECT_EQ(s.macs, dense.macs);  // the layer's MACs are the layer's
}

// PE utilisation is the layer's effectual MACs per PE-cycle, never above 100%: `map --density
// W=0.2:0.8 --sparse-mode skip` reported 123.9% on resnet18's fc layer (dense MACs divided by a
// runtime that skipping had shortened). Every GEMM-class layer of resnet18, under every dataflow
// template, at every density of I and W in {0.1, 0.2, 0.5, 0.8, 1} and 2:4 weights, gated and
// skipped, on two accelerators.
TEST(Sparsity, PeUtilisationNeverAbove100) {
  const workload::Model m = workload::zoo_model("resnet18");
  int over_before = 0, checked = 0;
  for (const char* hw : {"maestro-example", "gamma-edge"}) {
    const arch::Arch a = arch::preset(hw);
    for (const workload::Layer& l : m.layers) {
      if (!workload::is_gemm_class(l.kind)) continue;
      for (const auto& df : dataflow_templates()) {
        const mapping::Mapping map = dataflow_mapping(df.name, l, a.num_pes);
        for (SparseMode mode : {SparseMode::Gate, SparseMode::Skip})
          for (const char* w : {"0.1", "0.2", "0.5", "0.8", "1", "nm"})
            for (const char* i : {"0.1", "0.5", "1"}) {
              EvalOptions o;
              o.sparsity.mode = mode;
              if (std::string(w) == "nm")
                parse_structure_flag("W=nm:2:4", o.sparsity);
              else
                parse_density_flag(std::string("W=") + w + ",I=" + i, o.sparsity);
              const Cost c = evaluate(l, a, map, o);
              if (!c.ok()) continue;
              ++checked;
              const double u = pe_utilisation_pct(c, a.num_pes);
              EXPECT_GT(u, 0) << hw << " " << l.name << " " << df.name << " W=" << w;
              EXPECT_LE(u, 100.0) << hw << " " << l.name << " " << df.name << " W=" << w
                                  << " I=" << i << (mode == SparseMode::Skip ? " skip" : " gate");
              // The former formula, dense MACs per PE-cycle:
              if (100.0 * static_cast<double>(c.macs) /
                      (static_cast<double>(a.num_pes) * static_cast<double>(c.runtime_cycles)) >
                  100.0)
                ++over_before;
            }
      }
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(over_before, 0);  // the combinations this test would have caught
}

// Hand-worked: K 64 x C 64 x 3 x 3 over 16 x 16 outputs is 9,437,184 MACs; at W density 0.2 and
// skipping, 1,887,436.8 effectual MACs. Utilisation = that / (PEs x runtime).
TEST(Sparsity, PeUtilisationCountsEffectualMacs) {
  const workload::Layer l = workload::conv2d("c", 1, 64, 16, 16, 64, 3, 1, 1);
  const arch::Arch a = arch::preset("gamma-edge");
  const mapping::Mapping map = dataflow_mapping("kcp_ws", l, a.num_pes);
  EvalOptions o;
  parse_density_flag("W=0.2", o.sparsity);
  o.sparsity.mode = SparseMode::Skip;
  const Cost c = evaluate(l, a, map, o);
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.macs, 9437184);
  EXPECT_NEAR(pe_utilisation_pct(c, a.num_pes),
              100.0 * 1887436.8 / (static_cast<double>(a.num_pes) * c.runtime_cycles), 1e-9);
  const Cost dense = evaluate(l, a, map);
  EXPECT_DOUBLE_EQ(pe_utilisation_pct(dense, a.num_pes),
                   100.0 * 9437184.0 / (static_cast<double>(a.num_pes) * dense.runtime_cycles));
  Cost bad = c;
  bad.status = Status::Invalid;
  EXPECT_EQ(pe_utilisation_pct(bad, a.num_pes), 0);
}

}  // namespace
}  // namespace sparsemap::cost
