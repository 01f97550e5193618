// Tests of the Timeloop/Accelergy readers: the exercises' real files (exact values) and
// malformed inputs (exact file:line:column and message).
#include "sparsemap/io/timeloop.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"
#include "support/error_of.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

namespace sparsemap::io {
namespace {

using testing::error_of;

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_timeloop_yaml(text, "in.yaml"); });
}

std::string ex(const std::string& sub) { return testing::test_data_dir("timeloop") + "/" + sub; }

TEST(TimeloopProblem, ReadsTheExerciseProblem) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const auto in =
      read_timeloop_files({ex("04-model-conv1d+oc-3levelspatial/prob/conv1d+oc+ic.prob.yaml")});
  ASSERT_TRUE(in.problem);
  EXPECT_FALSE(in.arch || in.mapping || in.ert || in.art);
  const auto& p = *in.problem;
  EXPECT_EQ(p.name, "Conv1D_OC");
  EXPECT_EQ(p.dims, (std::vector<std::string>{"C", "K", "R", "P"}));
  ASSERT_EQ(p.data_spaces.size(), 3u);
  using T = workload::ProjectionTerm;
  EXPECT_EQ(
      p.data_spaces[0],
      (workload::DataSpace{"Weights", {{T{"C", "", 1}}, {T{"K", "", 1}}, {T{"R", "", 1}}}, false}));
  EXPECT_EQ(
      p.data_spaces[1],
      (workload::DataSpace{"Inputs", {{T{"C", "", 1}}, {T{"R", "", 1}, T{"P", "", 1}}}, false}));
  EXPECT_EQ(p.data_spaces[2],
            (workload::DataSpace{"Outputs", {{T{"K", "", 1}}, {T{"P", "", 1}}}, true}));
  EXPECT_EQ(p.bounds, (std::map<std::string, int64_t>{{"C", 32}, {"K", 32}, {"R", 3}, {"P", 16}}));
  EXPECT_EQ(p.operations(), 49152);
}

TEST(TimeloopProblem, StridedAndDilatedSums) {
  const std::string text = R"(problem:
  shape:
    name: CNN
    dimensions: [C, R, P]
    coefficients:
    - name: Wstride
      default: 1
    - name: Wdilation
      default: 1
    data_spaces:
    - name: Inputs
      projection:
      - [ [C] ]
      - [ [R, Wdilation], [P, Wstride] ]
    - name: Inputs2
      projection: [ C, "Wstride*P + Wdilation*R + 2*C" ]
    - name: Outputs
      projection: [ [[P]] ]
      read-write: true
  instance: {C: 4, R: 3, P: 8, Wstride: 2}
)";
  const auto p = *parse_timeloop_yaml(text, "cnn.yaml").problem;
  using T = workload::ProjectionTerm;
  const workload::ProjectionExpr sum{T{"R", "Wdilation", 1}, T{"P", "Wstride", 1}};
  EXPECT_EQ(p.data_spaces[0].projection,
            (std::vector<workload::ProjectionExpr>{{T{"C", "", 1}}, sum}));
  EXPECT_EQ(p.data_spaces[1].projection,
            (std::vector<workload::ProjectionExpr>{
                {T{"C", "", 1}}, {T{"P", "Wstride", 1}, T{"R", "Wdilation", 1}, T{"C", "", 2}}}));
  EXPECT_TRUE(p.data_spaces[2].read_write);
  EXPECT_EQ(p.coefficient(sum[1]), 2);  // the instance's Wstride
  EXPECT_EQ(p.coefficient(sum[0]), 1);  // Wdilation's default
}

TEST(TimeloopArch, TagFormOfExerciseFour) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const auto h =
      *read_timeloop_files({ex("04-model-conv1d+oc-3levelspatial/arch/3levelspatial.arch.yaml")})
           .arch;
  EXPECT_EQ(h.name, "System");
  EXPECT_EQ(h.technology, "40nm");
  EXPECT_EQ(h.global_cycle_seconds, 1e-9);
  ASSERT_EQ(h.storage.size(), 4u);
  const auto& dram = h.storage[0];
  EXPECT_EQ(dram.name, "MainMemory");
  EXPECT_EQ(dram.component_class, "DRAM");
  EXPECT_EQ(dram.depth, 0);
  EXPECT_EQ(dram.capacity_words(), 0);
  EXPECT_EQ(dram.block_size, 32);  // 256 / 8
  const auto& gb = h.storage[1];
  EXPECT_EQ(gb.name, "GlobalBuffer");
  EXPECT_EQ(gb.instances, 1);
  EXPECT_EQ(gb.depth, 32768);
  EXPECT_EQ(gb.width_bits, 64);
  EXPECT_EQ(gb.datawidth_bits, 8);
  EXPECT_EQ(gb.block_size, 8);
  EXPECT_EQ(gb.capacity_words(), 262144);
  EXPECT_EQ(h.storage[2].name, "inter_PE_spatial");
  EXPECT_TRUE(h.storage[2].dummy);
  EXPECT_EQ(h.storage[2].instances, 1);
  const auto& rf = h.storage[3];
  EXPECT_EQ(rf.name, "RegisterFile");
  EXPECT_EQ(rf.instances, 16);
  EXPECT_EQ(rf.mesh_x, 16);
  EXPECT_EQ(rf.mesh_y, 1);
  EXPECT_EQ(rf.capacity_words(), 64);
  EXPECT_EQ(h.compute.name, "MACC");
  EXPECT_EQ(h.compute.component_class, "intmac");
  EXPECT_EQ(h.compute.instances, 16);
  EXPECT_EQ(h.compute.datawidth_bits, 8);
}

TEST(TimeloopArch, FlattenedFormOfExerciseFour) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const auto in = read_timeloop_files(
      {ex("04-model-conv1d+oc-3levelspatial/ref-output/cp/parsed-processed-input.yaml")});
  ASSERT_TRUE(in.arch && in.problem && in.mapping);
  const auto& h = *in.arch;
  EXPECT_EQ(h.name, "System_top_level");
  ASSERT_EQ(h.storage.size(), 4u);
  EXPECT_EQ(h.storage[0].name, "MainMemory");
  EXPECT_EQ(h.storage[1].name, "inter_PE_spatial");
  EXPECT_TRUE(h.storage[1].dummy);
  EXPECT_EQ(h.storage[2].name, "GlobalBuffer");
  EXPECT_EQ(h.storage[2].instances, 16);
  EXPECT_EQ(h.storage[2].mesh_x, 16);
  EXPECT_EQ(h.storage[2].attributes.at("n_banks"), "2");
  EXPECT_EQ(h.storage[3].name, "RegisterFile");
  EXPECT_EQ(h.storage[3].instances, 16);
  EXPECT_EQ(h.compute.name, "MACC");
  EXPECT_EQ(h.compute.instances, 16);
  // The mapping as timeloop-model read it: comma-separated factors, a bypass entry.
  const auto& d = in.mapping->directives;
  ASSERT_EQ(d.size(), 6u);
  EXPECT_EQ(d[1].target, "inter_PE_spatial");
  EXPECT_EQ(d[1].kind, mapping::LoopNestDirectiveKind::kSpatial);
  EXPECT_EQ(d[1].factors,
            (std::vector<mapping::LoopFactor>{{"R", 1}, {"P", 1}, {"K", 1}, {"C", 16}}));
  EXPECT_EQ(d[1].permutation, "PRKC");
  EXPECT_EQ(d[3].kind, mapping::LoopNestDirectiveKind::kDataspace);
  EXPECT_EQ(d[3].bypass, (std::vector<std::string>{"Weights", "Inputs", "Outputs"}));
  EXPECT_TRUE(d[3].keep.empty());
}

TEST(TimeloopArch, VersionThreeSubtreesWithHyphenatedKeys) {
  const std::string text = R"(architecture:
  version: 0.3
  subtree:
  - name: system
    local:
    - name: DRAM
      class: DRAM
      attributes: {word-bits: 16, block-size: 4, read_bandwidth: 8}
    subtree:
    - name: chip
      local:
      - name: GLB
        class: smartbuffer_SRAM
        attributes: {depth: 1024, width: 64, word-bits: 16, meshX: 1}
      subtree:
      - name: PE[0..15]
        local:
        - name: spad[0..1]
          class: regfile
          attributes: {depth: 12, width: 16, word-bits: 16, meshX: 8}
        - name: mac
          class: intmac
          attributes: {datawidth: 16}
)";
  const auto h = *parse_timeloop_yaml(text, "v3.yaml").arch;
  ASSERT_EQ(h.storage.size(), 3u);
  EXPECT_EQ(h.storage[0].datawidth_bits, 16);
  EXPECT_EQ(h.storage[0].block_size, 4);
  EXPECT_EQ(h.storage[0].read_bandwidth, 8);
  EXPECT_EQ(h.storage[1].block_size, 4);  // 64 / 16
  EXPECT_EQ(h.storage[2].name, "spad");
  EXPECT_EQ(h.storage[2].instances, 32);
  EXPECT_EQ(h.storage[2].mesh_x, 8);
  EXPECT_EQ(h.storage[2].mesh_y, 4);
  EXPECT_EQ(h.compute.instances, 16);
  EXPECT_EQ(h.compute.mesh_x, 16);
}

TEST(TimeloopArch, TagFormConstraints) {
  const std::string text = R"(architecture:
  version: 0.4
  nodes:
  - !Container
    name: top
  - !Component
    name: Buf
    class: SRAM
    attributes: {depth: 16, width: 32, datawidth: 8, read_bandwidth: 2}
    constraints:
      dataspace: {keep: [Inputs], bypass: [Weights]}
      temporal: {factors: [R=1, S=1], permutation: [R, S]}
  - !Container
    name: PE
    spatial: {meshX: 4, meshY: 2}
    constraints:
      spatial: {factors: C=4, permutation: CK, split: 1}
  - !Parallel
    nodes:
    - !Component {name: A, class: regfile, attributes: {depth: 2, width: 8, datawidth: 8}}
  - !Component {name: mac, class: intmac, attributes: {width: 8}}
)";
  const auto h = *parse_timeloop_yaml(text, "c.yaml").arch;
  ASSERT_EQ(h.storage.size(), 3u);
  EXPECT_EQ(h.storage[0].constraints.keep, (std::vector<std::string>{"Inputs"}));
  EXPECT_EQ(h.storage[0].constraints.bypass, (std::vector<std::string>{"Weights"}));
  EXPECT_EQ(h.storage[0].constraints.temporal_factors, "R=1 S=1");
  EXPECT_EQ(h.storage[0].constraints.temporal_permutation, "R S");
  EXPECT_EQ(h.storage[0].block_size, 4);
  EXPECT_EQ(h.storage[0].read_bandwidth, 2);
  EXPECT_EQ(h.storage[1].name, "inter_PE_spatial");
  EXPECT_EQ(h.storage[1].constraints.spatial_factors, "C=4");
  EXPECT_EQ(h.storage[1].constraints.spatial_split, 1);
  EXPECT_EQ(h.storage[2].name, "A");
  EXPECT_EQ(h.storage[2].instances, 8);
  EXPECT_EQ(h.storage[2].mesh_x, 4);
  EXPECT_EQ(h.storage[2].mesh_y, 2);
}

TEST(TimeloopMapping, ReadsTheExerciseMapping) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const auto m =
      *read_timeloop_files({ex("03-model-conv1d+oc-3level/map/conv1d+oc-3level-bypass.map.yaml")})
           .mapping;
  ASSERT_EQ(m.directives.size(), 5u);
  EXPECT_EQ(m.directives[1], (mapping::LoopNestDirective{"GlobalBuffer",
                                                         mapping::LoopNestDirectiveKind::kTemporal,
                                                         {{"R", 1}, {"P", 16}, {"K", 16}},
                                                         "PRK",
                                                         -1,
                                                         {},
                                                         {}}));
  EXPECT_EQ(m.directives[4], (mapping::LoopNestDirective{"RegisterFile",
                                                         mapping::LoopNestDirectiveKind::kDataspace,
                                                         {},
                                                         "",
                                                         -1,
                                                         {"Outputs"},
                                                         {"Weights", "Inputs"}}));
}

TEST(TimeloopTables, ReadsErtAndArt) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const std::string ref = ex("04-model-conv1d+oc-3levelspatial/ref-output/kp/");
  const auto in =
      read_timeloop_files({ref + "timeloop-model.ERT.yaml", ref + "timeloop-model.ART.yaml"});
  ASSERT_TRUE(in.ert && in.art);
  ASSERT_EQ(in.ert->components.size(), 4u);
  const auto* gb = in.ert->find("GlobalBuffer");
  ASSERT_NE(gb, nullptr);
  EXPECT_EQ(gb->name, "System_top_level.GlobalBuffer[1..16]");
  EXPECT_EQ(gb->energy_pj("read"), 43.353054);
  EXPECT_EQ(gb->energy_pj("write"), 30.878292);
  EXPECT_EQ(gb->energy_pj("leak"), 0.007972);
  EXPECT_EQ(gb->actions[0].arguments.at("action_latency_cycles"), "1");
  EXPECT_FALSE(gb->energy_pj("compute"));
  EXPECT_EQ(in.ert->find("MACC")->energy_pj("compute"), 0.845);
  EXPECT_EQ(in.art->find("RegisterFile")->area_um2, 887.84);
  EXPECT_EQ(arch::component_base_name("System_top_level.GlobalBuffer[1..16]"), "GlobalBuffer");
}

TEST(TimeloopFiles, MergesAndRefusesAPartGivenTwice) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const std::string e = ex("01-model-conv1d-2level/");
  const auto in = read_timeloop_files({e + "arch/2level.arch.yaml", e + "prob/conv1d.prob.yaml",
                                       e + "map/conv1d-2level-os.map.yaml"});
  EXPECT_TRUE(in.arch && in.problem && in.mapping);
  EXPECT_EQ(error_of([&] {
              read_timeloop_files({e + "arch/2level.arch.yaml", e + "arch/2level.arch.yaml"});
            }),
            e + "arch/2level.arch.yaml:1:1: a second architecture (the first is in " + e +
                "arch/2level.arch.yaml): expected each part once across the files");
}

TEST(TimeloopFiles, MapperProcessedInputHasNoMappingAndExtraInstanceKeys) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  // timeloop-mapper's processed input: `mapping: []` and instance keys H, W, Hpad, ... that are
  // neither dimensions nor coefficients (Timeloop ignores them, so do we).
  const std::string d = ex("example_designs/simple_weight_stationary/");
  const auto in =
      read_timeloop_files({d + "parsed-processed-input.yaml", d + "timeloop-mapper.map.yaml"});
  ASSERT_TRUE(in.problem && in.arch && in.mapping);
  EXPECT_EQ(in.sources.at("mapping"), d + "timeloop-mapper.map.yaml");
  EXPECT_EQ(in.sources.at("problem"), d + "parsed-processed-input.yaml");
  EXPECT_EQ(in.problem->bounds.size(), 7u);
  EXPECT_EQ(in.problem->bounds.at("P"), 112);
  EXPECT_EQ(in.problem->coefficient_values.at("Hstride"), 2);
  EXPECT_EQ(in.mapping->directives[0].kind,
            mapping::LoopNestDirectiveKind::kDataspace);  // "datatype"
  EXPECT_EQ(in.mapping->directives[9].factors,
            (std::vector<mapping::LoopFactor>{
                {"C", 1}, {"M", 1}, {"R", 1}, {"S", 1}, {"N", 1}, {"P", 28}, {"Q", 4}}));
}

TEST(TimeloopErrors, JinjaIsRefused) {
  EXPECT_EQ(parse_error("problem:\n  instance:\n    C: {{C}}\n"),
            "in.yaml:3:8: this file holds Jinja templating ('{{', '{%' or '{#') other than "
            "{{include_text('file')}}; render it first (timeloopfe does) and pass the rendered "
            "YAML");
  EXPECT_EQ(parse_error("{% set x = 1 %}\nproblem: {}\n"),
            "in.yaml:1:1: this file holds Jinja templating ('{{', '{%' or '{#') other than "
            "{{include_text('file')}}; render it first (timeloopfe does) and pass the rendered "
            "YAML");
}

// The layer_shapes form: {{include_text('...')}} of a base holding an anchor, merged by '<<<'.
TEST(TimeloopInclude, LayerShapesIncludeAndDeepMerge) {
  const testing::TempDir t("timeloop_include");
  t.write("base.yaml",
          "base_ignore: &base\n"
          "  instance: {C: 1, M: 1, H: 1}\n"
          "  shape:\n"
          "    name: mm\n"
          "    dimensions: [C, M]\n"
          "    data_spaces:\n"
          "    - {name: A, projection: [[[C]]]}\n"
          "    - {name: Z, projection: [[[M]]], read_write: true}\n");
  const std::string f = t.write("net/01.yaml",
                                "{{include_text('../base.yaml')}}\n"
                                "problem:\n"
                                "  <<<: *base\n"
                                "  instance: {C: 64}\n");
  const auto in = read_timeloop_files({f});
  ASSERT_TRUE(in.problem);
  EXPECT_EQ(in.problem->name, "mm");
  EXPECT_EQ(in.problem->bound("C"), 64);
  EXPECT_EQ(in.problem->bound("M"), 1);
  // An error in the included text names the included file and its line.
  t.write("bad.yaml", "base_ignore: &base\n  instance: {C: 0}\n  shape: {name: x}\n");
  const std::string g =
      t.write("net/02.yaml", "{{ include_text('../bad.yaml') }}\nproblem:\n  <<<: *base\n");
  const std::string e = error_of([&] { read_timeloop_files({g}); });
  EXPECT_EQ(e.rfind((t.path / "net/../bad.yaml").string() + ":", 0), 0u) << e;
  // A missing include is an error at the directive; other Jinja is still refused.
  const std::string h = t.write("net/03.yaml", "x: 1\n{{include_text('nope.yaml')}}\n");
  EXPECT_NE(
      error_of([&] { read_timeloop_files({h}); }).find(h + ":2:1: cannot include 'nope.yaml'"),
      std::string::npos);
  const std::string k = t.write("net/04.yaml", "{{include_text(name)}}\n");
  EXPECT_NE(error_of([&] { read_timeloop_files({k}); }).find(k + ":1:1: this file holds Jinja"),
            std::string::npos);
  const std::string m = t.write("net/05.yaml", "problem:\n  <<<: 3\n");
  EXPECT_NE(error_of([&] { read_timeloop_files({m}); }).find("expected a mapping (an anchored one"),
            std::string::npos);
}

TEST(TimeloopErrors, MalformedInputsSayWhereAndWhat) {
  EXPECT_EQ(parse_error("mapping: [1\n"),
            "in.yaml:2:1: invalid YAML: end of sequence flow not found");
  EXPECT_EQ(parse_error("- 1\n"),
            "in.yaml:1:1: expected a Timeloop input: a mapping with problem, architecture, "
            "mapping, ERT or ART");
  EXPECT_EQ(parse_error("globals: {}\n"),
            "in.yaml:1:1: expected a Timeloop input: none of problem, architecture, mapping, ERT "
            "or ART is a top-level key here");
  // Mapping: factors, types, keys.
  EXPECT_EQ(parse_error("mapping:\n- target: Buf\n  type: temporal\n  factors: R=3 P\n"),
            "in.yaml:4:17: expected '=' after 'P' in factors (as in \"R=3 P=16\" or \"R3 "
            "P16\")");
  EXPECT_EQ(parse_error("mapping:\n- target: Buf\n  type: temporal\n  factors: \"R=3 P=0\"\n"),
            "in.yaml:4:19: expected a positive integer factor for P");
  EXPECT_EQ(parse_error("mapping:\n- target: Buf\n  type: temporl\n"),
            "in.yaml:3:9: expected type temporal, spatial, dataspace or bypass, found 'temporl'");
  EXPECT_EQ(parse_error("mapping:\n- type: temporal\n"),
            "in.yaml:2:3: expected a mapping directive with a target");
  EXPECT_EQ(parse_error("mapping:\n- target: Buf\n  type: temporal\n  factor: R=3\n"),
            "in.yaml:4:3: unknown key 'factor' in a mapping directive: expected target, type, "
            "factors, permutation, split, keep or bypass");
  // Problem: projections and instances.
  const std::string shape =
      "problem:\n  shape:\n    name: S\n    dimensions: [R, P]\n    data_spaces:\n";
  EXPECT_EQ(
      parse_error(shape + "    - name: W\n      projection: [ [[Q]] ]\n  instance: {R: 3, P: 4}\n"),
      "in.yaml:7:23: expected a dimension of S, found 'Q'");
  EXPECT_EQ(
      parse_error(shape +
                  "    - name: W\n      projection: [ \"R+P*\" ]\n  instance: {R: 3, P: 4}\n"),
      "in.yaml:7:26: expected a dimension or coefficient in projection 'R+P*'");
  EXPECT_EQ(parse_error(shape + "    - name: W\n      projection: [ [[R]] ]\n  instance: {R: 3}\n"),
            "in.yaml:8:13: expected a bound for dimension P in the instance");
  EXPECT_EQ(parse_error(shape +
                        "    - name: W\n      projection: [ [[R]] ]\n  instance: {R: 3, P: -4}\n"),
            "in.yaml:8:23: expected a positive integer for the bound of P, found -4");
  EXPECT_EQ(
      parse_error(shape + "    - name: W\n      projection: [ [[R]] ]\n      read_write: maybe\n"
                          "  instance: {R: 3, P: 4}\n"),
      "in.yaml:8:19: expected true or false for read_write, found 'maybe'");
  // Architecture.
  EXPECT_EQ(parse_error("architecture:\n  nodes:\n  - !Box\n    name: x\n"),
            "in.yaml:3:5: expected a node tagged !Container, !Component, !Parallel, "
            "!Hierarchical or !Nothing, found '!Box'");
  EXPECT_EQ(parse_error("architecture:\n  nodes:\n  - !Component\n    name: x\n    class: SRAM\n"
                        "    attributes: {depth: lots}\n  - !Component {name: m, class: intmac}\n"),
            "in.yaml:6:25: expected a number for depth of x, found 'lots'");
  EXPECT_EQ(
      parse_error("architecture:\n  subtree:\n  - name: top\n    local:\n    - name: B[3..1]\n"
                  "      class: SRAM\n"),
      "in.yaml:5:13: expected an instance range [a..b] with a <= b, found 'B[3..1]'");
  EXPECT_EQ(parse_error("architecture:\n  nodes:\n  - !Component {name: m, class: intmac}\n"),
            "in.yaml:2:3: expected at least one storage level above the compute unit m");
  // ERT / ART.
  EXPECT_EQ(parse_error(
                "ERT:\n  tables:\n  - name: B\n    actions:\n    - name: read\n      energy: x\n"),
            "in.yaml:6:15: expected a number for an action's energy (pJ), found 'x'");
  EXPECT_EQ(parse_error("ART:\n  tables:\n  - name: B\n"),
            "in.yaml:3:5: expected an ART table with a name and an area");
}

TEST(TimeloopErrors, FactorStrings) {
  const SourceLocation at{"m.yaml", 4, 12};
  EXPECT_EQ(parse_timeloop_factors("R=3 P=16", at),
            (std::vector<mapping::LoopFactor>{{"R", 3}, {"P", 16}}));
  EXPECT_EQ(parse_timeloop_factors("R=3,P=16", at),
            (std::vector<mapping::LoopFactor>{{"R", 3}, {"P", 16}}));
  // timeloop-mapper writes "C1 M16 R3" (names end before their trailing digits).
  EXPECT_EQ(parse_timeloop_factors("C1 M16 R3 Q2x4", at),
            (std::vector<mapping::LoopFactor>{{"C", 1}, {"M", 16}, {"R", 3}, {"Q2x", 4}}));
  EXPECT_EQ(error_of([&] { parse_timeloop_factors("R=3 P", at); }),
            "m.yaml:4:17: expected '=' after 'P' in factors (as in \"R=3 P=16\" or \"R3 P16\")");
  EXPECT_EQ(error_of([&] { parse_timeloop_factors("R=3 R=1", at); }),
            "m.yaml:4:16: duplicate factor for R");
  EXPECT_EQ(error_of([&] { parse_timeloop_factors("R=3x", at); }),
            "m.yaml:4:15: expected a space or ',' after the factor of R, found 'x'");
  EXPECT_EQ(error_of([&] { parse_timeloop_factors("=3", at); }),
            "m.yaml:4:12: expected a factor DIM=N (as in \"R=3 P=16\"), found '='");
}

// Fuzz finding (timeloop_mapping): `factors: [P=3, P1]` gave P twice (each item was checked
// alone), a mapping that written as "P=3 P=1" no longer read back. A dimension repeated across
// the items is an error at the item that repeats it.
TEST(TimeloopErrors, FactorRepeatedAcrossSequenceItems) {
  EXPECT_EQ(parse_error("mapping:\n- target: GlobalBuffer\n  type: temporal\n"
                        "  factors: [P=3, P1]\n"),
            "in.yaml:4:18: duplicate factor for 'P'");
  const auto in = parse_timeloop_yaml(
      "mapping:\n- target: B\n  type: temporal\n  factors: [P=3, R1 K2]\n", "in.yaml");
  ASSERT_TRUE(in.mapping);
  EXPECT_EQ(in.mapping->directives[0].factors,
            (std::vector<mapping::LoopFactor>{{"P", 3}, {"R", 1}, {"K", 2}}));
}

}  // namespace
}  // namespace sparsemap::io

namespace sparsemap::io {
namespace {

// The example designs' own v0.4 tag-form arch.yaml against the flattened architecture that
// timeloop-mapper read (its processed input): the same levels, in the same order, with the same
// instances and dummies.
TEST(TimeloopArch, TagFormMatchesTheProcessedFormOfTheExampleDesigns) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  for (const char* design :
       {"simple_weight_stationary", "simple_output_stationary", "eyeriss_like", "simba_like"}) {
    SCOPED_TRACE(design);
    const std::string d = ex(std::string("example_designs/") + design + "/");
    const auto tag = *read_timeloop_files({d + "arch.yaml"}).arch;
    const auto flat = *read_timeloop_files({d + "parsed-processed-input.yaml"}).arch;
    std::string a, b;
    for (const auto& s : tag.storage)
      a += s.name + "[" + std::to_string(s.instances) + (s.dummy ? "d" : "") + "] ";
    for (const auto& s : flat.storage)
      b += s.name + "[" + std::to_string(s.instances) + (s.dummy ? "d" : "") + "] ";
    a += tag.compute.name + "[" + std::to_string(tag.compute.instances) + "]";
    b += flat.compute.name + "[" + std::to_string(flat.compute.instances) + "]";
    EXPECT_EQ(a, b);
    if (std::string(design) == "simba_like") {  // cluster_size 64: 512 / 8 / 64 = 1 word a block
      const auto& regs = flat.storage[flat.find("PEWeightRegs")];
      EXPECT_EQ(regs.cluster_size, 64);
      EXPECT_EQ(regs.block_size, 1);
      EXPECT_EQ(regs.capacity_words(), 1);
    }
    for (size_t i = 0; i < std::min(tag.storage.size(), flat.storage.size()); ++i) {
      EXPECT_EQ(tag.storage[i].capacity_words(), flat.storage[i].capacity_words())
          << tag.storage[i].name;
      EXPECT_EQ(tag.storage[i].block_size, flat.storage[i].block_size) << tag.storage[i].name;
    }
  }
}

}  // namespace
}  // namespace sparsemap::io
