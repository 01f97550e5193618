// Tests of the readers of Sparseloop's inputs: sparse_optimizations (per component in the tag
// form, and the top-level `targets:` form) and the problem's densities; real files (exact
// values) and malformed ones (exact file:line:column and message).
#include <gtest/gtest.h>

#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"
#include "support/error_of.h"
#include "support/test_data.h"

namespace sparsemap::io {
namespace {

using testing::error_of;

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_timeloop_yaml(text, "in.yaml"); });
}

std::string design(const std::string& d) {
  return testing::test_data_dir("sparseloop") + "/" + d + "/";
}

TEST(TimeloopSparse, ReadsTheTagFormOptimizations) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const auto in = read_timeloop_files({design("01.2.3-SCDU-dot-product") + "arch.yaml"});
  ASSERT_TRUE(in.arch && in.sparse);
  ASSERT_EQ(in.sparse->levels.size(), 1u);
  const auto& l = in.sparse->levels[0];
  EXPECT_EQ(l.level, "Buffer");
  ASSERT_EQ(l.formats.size(), 1u);
  EXPECT_EQ(l.formats[0].data_space, "A");
  ASSERT_EQ(l.formats[0].ranks.size(), 1u);
  EXPECT_EQ(l.formats[0].ranks[0].format, arch::RankFormat::kCP);
  EXPECT_EQ(l.formats[0].ranks[0].metadata_word_bits, -1);
  EXPECT_TRUE(l.formats[0].compressed());
  ASSERT_EQ(l.actions.size(), 2u);
  EXPECT_EQ(l.actions[0].kind, arch::ActionKind::kSkipping);
  EXPECT_EQ(l.actions[0].target, "B");
  EXPECT_EQ(l.actions[0].condition_on, std::vector<std::string>{"A"});
  EXPECT_EQ(l.actions[0].group, 1);
  EXPECT_EQ(l.actions[1].target, "Z");
  EXPECT_EQ(l.actions[1].group, 2);
  // The component's metadata attributes stay with the architecture.
  EXPECT_EQ(in.arch->storage[0].attributes.at("metadata_storage_width"), "4");
  EXPECT_EQ(in.sources.at("sparse_optimizations"), design("01.2.3-SCDU-dot-product") + "arch.yaml");
}

TEST(TimeloopSparse, ReadsDensities) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const auto in = read_timeloop_files({design("02.2.1-spMspM") + "problem.yaml"});
  ASSERT_TRUE(in.problem);
  ASSERT_EQ(in.densities.size(), 2u);
  EXPECT_EQ(in.densities.at("A").distribution, workload::DensityDistribution::kFixedStructured);
  EXPECT_EQ(in.densities.at("A").density, 0.25);
  EXPECT_EQ(in.densities.at("B").density, 0.5);
  EXPECT_FALSE(in.sparse);
}

// The front end's flattened input carries the same optimisations in the `targets:` form.
TEST(TimeloopSparse, ReadsTheTopLevelTargetsForm) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const std::string d = design("01.2.3-SCDU-dot-product");
  const auto in = read_timeloop_files({d + "parsed-processed-input.yaml"});
  ASSERT_TRUE(in.sparse && in.arch && in.problem);
  const auto tag = read_timeloop_files({d + "arch.yaml", d + "problem.yaml"});
  ASSERT_TRUE(tag.sparse);
  EXPECT_EQ(*in.sparse, *tag.sparse);
  EXPECT_EQ(in.densities, tag.densities);
  EXPECT_EQ(in.sources.at("sparse_optimizations"), d + "parsed-processed-input.yaml");
}

TEST(TimeloopSparse, ReadsEveryFormAndKey) {
  const auto in = parse_timeloop_yaml(R"(
sparse_optimizations:
  version: 0.4
  targets:
  - name: GLB
    representation_format:
      data_spaces:
      - name: W
        rank_application_order: outer_to_inner
        ranks:
        - format: UOP
          payload_word_bits: 0
        - format: RLE
          metadata_word_bits: 5
          flattened_rankIDs: [[C, R]]
        compression_rate: 0.5
    action_optimization:
    - type: skipping_spatial
      target: I
      condition_on: W
  - name: MAC
    compute_optimization:
    - type: gating
    - type: skip_on_not_aligned_operands
problem:
  shape: {name: p, dimensions: [C, R], data_spaces: [{name: W, projection: [[[C]], [[R]]]}]}
  instance:
    C: 2
    R: 3
    densities:
      W: 0.5
)",
                                      "in.yaml");
  ASSERT_TRUE(in.sparse);
  ASSERT_EQ(in.sparse->levels.size(), 2u);
  const auto& g = in.sparse->levels[0];
  ASSERT_EQ(g.formats.size(), 1u);
  const auto& f = g.formats[0];
  EXPECT_FALSE(f.inner_to_outer);
  EXPECT_EQ(f.compression_rate, 0.5);
  ASSERT_EQ(f.ranks.size(), 2u);
  EXPECT_EQ(f.ranks[0].format, arch::RankFormat::kUOP);
  EXPECT_EQ(f.ranks[0].payload_word_bits, 0);
  EXPECT_EQ(f.ranks[1].format, arch::RankFormat::kRLE);
  EXPECT_EQ(f.ranks[1].metadata_word_bits, 5);
  EXPECT_EQ(f.ranks[1].flattened_rank_ids, (std::vector<std::vector<std::string>>{{"C", "R"}}));
  ASSERT_EQ(g.actions.size(), 1u);
  EXPECT_EQ(g.actions[0].kind, arch::ActionKind::kSpatialSkipping);
  EXPECT_EQ(g.actions[0].condition_on, std::vector<std::string>{"W"});
  EXPECT_TRUE(in.sparse->levels[1].gate_on_zero_operand);
  EXPECT_TRUE(in.sparse->levels[1].skip_on_not_aligned_operands);
  EXPECT_EQ(in.densities.at("W").density, 0.5);
  EXPECT_EQ(in.densities.at("W").distribution, workload::DensityDistribution::kFixedStructured);
}

// timeloop-model v3.0.3's spelling (tests/data/sparseloop/generated): hyphenated keys and the
// values fixed-structured and skipping-spatial read as their underscore forms.
TEST(TimeloopSparse, ReadsTimeloop303Spelling) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  const auto rle = read_timeloop_files({dir + "/generated/dot-rle-2bit-skip/input.yaml"});
  ASSERT_TRUE(rle.sparse && rle.problem);
  ASSERT_EQ(rle.densities.count("A"), 1u);
  EXPECT_EQ(rle.densities.at("A").distribution, workload::DensityDistribution::kFixedStructured);
  EXPECT_DOUBLE_EQ(rle.densities.at("A").density, 0.35);
  const auto* buffer = rle.sparse->find("Buffer");
  ASSERT_NE(buffer, nullptr);
  ASSERT_NE(buffer->format("A"), nullptr);
  EXPECT_EQ(buffer->format("A")->ranks.at(0).format, arch::RankFormat::kRLE);
  EXPECT_EQ(buffer->format("A")->ranks.at(0).metadata_word_bits, 2);
  ASSERT_EQ(buffer->actions.size(), 2u);
  EXPECT_EQ(buffer->actions[1].condition_on, std::vector<std::string>{"A"});
  const auto spatial = read_timeloop_files({dir + "/generated/stc-gemm-spatial-skip/input.yaml"});
  ASSERT_TRUE(spatial.sparse);
  const auto* lrf = spatial.sparse->find("LRF");
  ASSERT_NE(lrf, nullptr);
  ASSERT_EQ(lrf->actions.size(), 1u);
  EXPECT_EQ(lrf->actions[0].kind, arch::ActionKind::kSpatialSkipping);
  EXPECT_EQ(parse_error("problem:\n  shape: {name: s, dimensions: [K], data-spaces: [{name: A, "
                        "projection: [[[K]]]}]}\n  instance:\n    K: 4\n    densities:\n      A: "
                        "{distribution: fixed-structure, density: 0.5}\n"),
            "in.yaml:6:25: expected a distribution fixed_structured, hypergeometric, banded or actual, "
            "found 'fixed_structure'");
}

TEST(TimeloopSparse, HypergeometricDensity) {
  const auto in = parse_timeloop_yaml(R"(problem:
  shape: {name: p, dimensions: [K], data_spaces: [{name: A, projection: [[[K]]]}]}
  instance:
    K: 8
    densities:
      A: {distribution: uniform, density: 0.3, workload_tensor_size: 100}
)",
                                      "in.yaml");
  const auto& m = in.densities.at("A");
  EXPECT_EQ(m.distribution, workload::DensityDistribution::kHypergeometric);
  EXPECT_EQ(m.workload_tensor_size, 100);
}

TEST(TimeloopSparse, MalformedInputsAreOneLineErrors) {
  const std::string head = "sparse_optimizations:\n  targets:\n  - name: B\n";
  EXPECT_EQ(parse_error(head + "    representation_format:\n      data_spaces:\n      - name: A\n"
                               "        ranks:\n        - format: XYZ\n"),
            "in.yaml:8:19: expected a rank format UOP, CP, B, UB or RLE, found 'XYZ'");
  EXPECT_EQ(parse_error(head + "    action_optimization:\n    - type: gate\n"),
            "in.yaml:5:13: expected an optimization type gating, skipping or skipping_spatial, "
            "found 'gate'");
  EXPECT_EQ(parse_error(head + "    action_optimization:\n    - type: gating\n      options:\n"
                               "      - target: A\n"),
            "in.yaml:7:9: expected condition_on: the data spaces the optimization leads on");
  EXPECT_EQ(parse_error(head + "    colour: red\n"),
            "in.yaml:4:5: unknown key 'colour' in sparse optimizations: expected name, "
            "representation_format, action_optimization or compute_optimization");
  EXPECT_EQ(parse_error("sparse_optimizations:\n  targets:\n  - representation_format: {}\n"),
            "in.yaml:3:5: expected a sparse optimization target with a name");
  EXPECT_EQ(parse_error(head + "    representation_format:\n      data_spaces:\n      - name: A\n"
                               "        ranks:\n        - format: UOP\n        - format: CP\n"
                               "      - name: A\n        ranks: [{format: CP}]\n"),
            "in.yaml:10:9: a second format for 'A' at 'B'");
  EXPECT_EQ(parse_error(head + "    representation_format:\n      data_spaces:\n      - name: A\n"
                               "        ranks:\n        - format: CP\n        - format: UOP\n"),
            "in.yaml:8:11: expected no compressed rank (CP) above an uncompressed one: Timeloop "
            "does not support it");
  EXPECT_EQ(parse_error(head + "    compute_optimization:\n    - type: fast\n"),
            "in.yaml:5:13: expected a compute optimization type gating (gate_on_zero_operand) or "
            "skipping (skip_on_not_aligned_operands), found 'fast'");
  const std::string prob =
      "problem:\n  shape: {name: p, dimensions: [K], data_spaces: [{name: A, projection: "
      "[[[K]]]}]}\n  instance:\n    K: 8\n    densities:\n";
  EXPECT_EQ(parse_error(prob + "      A: 1.5\n"),
            "in.yaml:6:10: expected a density between 0 and 1");
  EXPECT_EQ(parse_error(prob + "      A: {distribution: fancy, density: 0.5}\n"),
            "in.yaml:6:25: expected a distribution fixed_structured, hypergeometric, banded or "
            "actual, found 'fancy'");
  EXPECT_EQ(parse_error(prob + "      A: {distribution: hypergeometric}\n"),
            "in.yaml:6:10: expected a density for 'A'");
  EXPECT_EQ(parse_error(prob + "      Q: 0.5\n"),
            "in.yaml:6:7: expected densities of the problem's data spaces, found 'Q'");
}

TEST(TimeloopSparse, TagAndTopLevelFormsTogetherAreRefused) {
  const std::string arch = R"(architecture:
  version: 0.4
  nodes:
  - !Container
    name: PE
  - !Component
    name: Buffer
    class: storage
    attributes: {depth: 64, width: 8, datawidth: 8}
    sparse_optimizations:
      action_optimization:
      - type: gating
        options:
        - target: B
          condition_on: [A]
  - !Component
    name: mac
    class: intmac
    attributes: {multiplier_width: 8}
)";
  const auto in = parse_timeloop_yaml(arch, "in.yaml");
  ASSERT_TRUE(in.sparse);
  EXPECT_EQ(in.sparse->levels.at(0).level, "Buffer");
  EXPECT_EQ(parse_error(arch + "sparse_optimizations:\n  targets: []\n"),
            "in.yaml:2:3: sparse optimizations both in the architecture's components and at the "
            "top level: expected one of the two");
}

}  // namespace
}  // namespace sparsemap::io
