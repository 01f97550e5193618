// Round trip of --emit-m: every GEMM-class layer of every zoo model, on every preset, under the
// built-in dataflow templates and a few seeded --maestro-compatible map-space mappings, is
// written for MAESTRO, read back by parse_dfsl and costed again: the same costs. Also the
// rewrites MAESTRO needs (N declared, R/S at every level, Y/X trimmed, batched GEMMs split) on
// hand-worked layers, and the one-line refusal of what MAESTRO cannot express.
#include "sparsemap/io/maestro_export.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/mapper/map_space.h"
#include "sparsemap/error.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::io {
namespace {

using mapping::Directive;
using mapping::SizeExpr;
using workload::Dim;
using workload::Layer;
using workload::OpKind;

// Costs of the layers read back from `text`, added up (a batched GEMM is G layers); L1, L2 and
// PEs are per layer, so they must agree between the parts.
cost::Cost read_back_cost(const std::string& text, const arch::Arch& hw,
                          const cost::EvalOptions& eo, size_t* layers = nullptr) {
  const DfslNetwork net = parse_dfsl(text, "emitted.m");
  EXPECT_TRUE(net.warnings.empty()) << net.warnings.front().str() << "\n" << text;
  if (layers) *layers = net.layers.size();
  cost::Cost sum;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const cost::Cost c = cost::evaluate(net.layers[i].layer, hw, net.layers[i].mapping, eo);
    if (i == 0) {
      sum = c;
      continue;
    }
    EXPECT_EQ(c.status, sum.status);
    EXPECT_EQ(c.l1_bytes, sum.l1_bytes);
    EXPECT_EQ(c.l2_bytes, sum.l2_bytes);
    EXPECT_EQ(c.pes_used, sum.pes_used);
    sum.runtime_cycles += c.runtime_cycles;
    sum.macs += c.macs;
    sum.energy_nj += c.energy_nj;
    sum.offchip_words += c.offchip_words;
    for (int t = 0; t < cost::kNumTensors; ++t) {
      sum.access[t].l1_reads += c.access[t].l1_reads;
      sum.access[t].l1_writes += c.access[t].l1_writes;
      sum.access[t].l2_reads += c.access[t].l2_reads;
      sum.access[t].l2_writes += c.access[t].l2_writes;
    }
  }
  return sum;
}

// Exact where integer, to 1e-12 relative where a sum of doubles (batched GEMMs add up G parts).
::testing::AssertionResult same_cost(const cost::Cost& a, const cost::Cost& b) {
  auto near = [](double x, double y) {
    return std::abs(x - y) <= 1e-12 * std::max({1.0, std::abs(x), std::abs(y)});
  };
  std::string diff;
  auto check = [&](bool ok, const std::string& what, const std::string& x, const std::string& y) {
    if (!ok) diff += " " + what + " " + x + " vs " + y + ";";
  };
  auto num = [](double v) { return std::to_string(v); };
  check(a.status == b.status, "status", std::string(cost::status_name(a.status)),
        std::string(cost::status_name(b.status)) + " (" + b.reason + ")");
  check(a.runtime_cycles == b.runtime_cycles, "runtime", num(a.runtime_cycles),
        num(b.runtime_cycles));
  check(a.macs == b.macs, "macs", num(a.macs), num(b.macs));
  check(a.l1_bytes == b.l1_bytes, "l1", num(a.l1_bytes), num(b.l1_bytes));
  check(a.l2_bytes == b.l2_bytes, "l2", num(a.l2_bytes), num(b.l2_bytes));
  check(a.pes_used == b.pes_used, "pes", num(a.pes_used), num(b.pes_used));
  check(near(a.energy_nj, b.energy_nj), "energy", num(a.energy_nj), num(b.energy_nj));
  check(near(a.offchip_words, b.offchip_words), "offchip", num(a.offchip_words),
        num(b.offchip_words));
  for (int t = 0; t < cost::kNumTensors; ++t) {
    const std::string n(cost::tensor_name(t));
    check(near(a.access[t].l1_reads, b.access[t].l1_reads), n + " l1_reads",
          num(a.access[t].l1_reads), num(b.access[t].l1_reads));
    check(near(a.access[t].l2_reads, b.access[t].l2_reads), n + " l2_reads",
          num(a.access[t].l2_reads), num(b.access[t].l2_reads));
    check(near(a.access[t].l1_writes, b.access[t].l1_writes), n + " l1_writes",
          num(a.access[t].l1_writes), num(b.access[t].l1_writes));
    check(near(a.access[t].l2_writes, b.access[t].l2_writes), n + " l2_writes",
          num(a.access[t].l2_writes), num(b.access[t].l2_writes));
  }
  if (diff.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << diff;
}

// A key of what the cost depends on, so that repeated shapes are checked once.
std::string shape_key(const Layer& l) {
  std::string k = std::string(workload::op_kind_name(l.kind));
  for (int64_t d : l.dims) k += "," + std::to_string(d);
  k += "|" + std::to_string(l.stride.y) + "," + std::to_string(l.stride.x) + "," +
       std::to_string(l.pad.y) + "," + std::to_string(l.pad.x) + "," +
       std::to_string(l.dilation.y) + "," + std::to_string(l.dilation.x);
  return k;
}

// Our model's cost of what maestro_layers writes (a batched GEMM's parts added up).
cost::Cost written_cost(const std::vector<DfslLayer>& v, const arch::Arch& hw,
                        const cost::EvalOptions& eo) {
  DfslNetwork net;
  net.layers = v;
  return read_back_cost(write_dfsl(net), hw, eo);
}

// The layer our model costs when its input is trimmed as maestro_layers trims it.
Layer trimmed(const Layer& l, const DfslLayer& w) {
  Layer t = l;
  t.pad = {0, 0};
  t.dim(Dim::Y) = w.layer.dim(Dim::Y);
  t.dim(Dim::X) = w.layer.dim(Dim::X);
  return t;
}

bool is_trimmed(const Layer& l, const DfslLayer& w) {
  if (l.kind == OpKind::Fc || l.kind == OpKind::Gemm || l.kind == OpKind::BatchedGemm ||
      l.kind == OpKind::TrConv || l.dilation != workload::Window2{1, 1})
    return false;
  return w.layer.dim(Dim::Y) != l.dim(Dim::Y) + 2 * l.pad.y ||
         w.layer.dim(Dim::X) != l.dim(Dim::X) + 2 * l.pad.x;
}

// Every GEMM-class layer shape of every zoo model, on every preset, under the three templates
// and two seeded 3-level --maestro-compatible decodings:
// - the file reads back to exactly the costs of what maestro_layers wrote (text round trip);
// - those are exactly the costs of the layer and mapping we were given: FC as CONV, TRCONV as
//   stride-1 CONV, padding and dilation folded, N/R/S directives added change nothing. Two
//   rewrites change what is costed, on purpose, and are compared with what they stand for: a
//   trimmed input (unused rows dropped) with the trimmed layer under the same mapping, and a
//   batched GEMM (G GEMM layers) with G times one batch. The batched layer's own runtime
//   differs (it overlaps one batch's fill with the last one's compute, which separate layers
//   cannot): here 295 of 300 within 0.5%, at most 8.51% apart. 274 of the 360 trimmed inputs
//   keep the untrimmed runtime.
TEST(MaestroExport, EveryZooModelOnEveryPresetReadsBackToTheSameCosts) {
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> u(0.0, 0.999999);
  int checked = 0, trims = 0, trims_same_runtime = 0, batched = 0, batched_close = 0;
  double batched_worst = 0;
  std::set<OpKind> kinds;
  for (const auto& entry : workload::zoo_entries()) {
    std::set<std::string> seen;
    std::vector<Layer> layers;
    for (const Layer& l : workload::zoo_model(entry.name).layers)
      if (workload::is_gemm_class(l.kind) && seen.insert(shape_key(l)).second) layers.push_back(l);
    for (const arch::Arch& hw : arch::presets()) {
      cost::EvalOptions eo;  // the buffer limits do not matter: equal costs, feasible or not
      for (const Layer& l : layers) {
        std::vector<std::pair<std::string, mapping::Mapping>> maps;
        for (const auto& t : cost::dataflow_templates())
          maps.emplace_back(t.name, cost::dataflow_mapping(t.name, l, hw.num_pes));
        dse::mapper::MapSpaceOptions mo;
        mo.maestro_compatible = true;
        mo.divisors_only = true;
        mo.max_levels = 3;
        const dse::mapper::MapSpace space(l, hw, mo);
        for (int k = 0; k < 2; ++k) {
          search::Genome g(space.dims());
          for (double& x : g) x = u(rng);
          maps.emplace_back("genome " + std::to_string(k), space.decode(g));
        }
        for (const auto& [label, m] : maps) {
          const std::vector<DfslLayer> v = maestro_layers({l, m});
          const std::string text = write_maestro_network(entry.name, {{l, m}});
          const cost::Cost wrote = written_cost(v, hw, eo);
          const std::string where = entry.name + " " + l.name + " on " + hw.name + ", " + label;
          ASSERT_TRUE(same_cost(wrote, read_back_cost(text, hw, eo))) << where << "\n" << text;
          const cost::Cost given = cost::evaluate(l, hw, m, eo);
          if (l.kind == OpKind::BatchedGemm) {
            ASSERT_EQ(v.size(), static_cast<size_t>(l.dim(Dim::G))) << where;
            const cost::Cost one = cost::evaluate(v[0].layer, hw, v[0].mapping, eo);
            ASSERT_EQ(wrote.runtime_cycles, one.runtime_cycles * l.dim(Dim::G)) << where;
            ASSERT_EQ(wrote.status, given.status) << where;
            if (given.ok()) {
              const double dev = std::abs(static_cast<double>(wrote.runtime_cycles) /
                                              static_cast<double>(given.runtime_cycles) -
                                          1.0);
              batched_worst = std::max(batched_worst, dev);
              batched_close += dev <= 0.005;
            }
            ++batched;
          } else if (is_trimmed(l, v[0])) {
            ASSERT_TRUE(same_cost(cost::evaluate(trimmed(l, v[0]), hw, m, eo), wrote)) << where;
            ++trims;
            trims_same_runtime += given.runtime_cycles == wrote.runtime_cycles;
          } else {
            ASSERT_TRUE(same_cost(given, wrote)) << where << "\n" << text;
          }
          ++checked;
          kinds.insert(l.kind);
        }
      }
    }
  }
  std::printf(
      "checked %d mappings: %d batched GEMMs (%d within 0.5%% of the batched layer's "
      "runtime, at most %.2f%% apart), %d trimmed inputs (%d with the untrimmed runtime)\n",
      checked, batched, batched_close, 100 * batched_worst, trims, trims_same_runtime);
  EXPECT_EQ(checked, 3340);
  EXPECT_EQ(batched, 300);
  EXPECT_GE(batched_close, 295);
  EXPECT_LE(batched_worst, 0.0852);
  EXPECT_EQ(trims, 360);
  for (OpKind k : {OpKind::Conv, OpKind::DsConv, OpKind::Fc, OpKind::Gemm, OpKind::BatchedGemm})
    EXPECT_TRUE(kinds.count(k)) << workload::op_kind_name(k);
}

// ResNet-50's stem: 7x7 stride 2, pad 3 on 224x224 (112x112 out). Written: Y = X = 111*2 + 7 =
// 229 (230 padded rows, the last unused); N declared with TemporalMap(1,1) N at the end of
// level 0; R and S inherited in front of the inner level.
TEST(MaestroExport, ConvIsTrimmedDeclaresNAndCarriesRAndSAtEveryLevel) {
  const Layer l = workload::conv2d("conv1", 1, 3, 224, 224, 64, 7, 2, 3);
  mapping::Mapping m;
  m.directives = {Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::temporal(Dim::C, SizeExpr::lit(3), SizeExpr::lit(3)),
                  Directive::temporal(Dim::R, SizeExpr::sz(Dim::R), SizeExpr::sz(Dim::R)),
                  Directive::temporal(Dim::S, SizeExpr::lit(7), SizeExpr::lit(7)),
                  Directive::temporal(Dim::Y, SizeExpr::lit(4), SizeExpr::lit(4), true),
                  Directive::temporal(Dim::X, SizeExpr::lit(8), SizeExpr::lit(8), true),
                  Directive::cluster(SizeExpr::lit(8)),
                  Directive::spatial(Dim::X, SizeExpr::lit(1), SizeExpr::lit(1), true),
                  Directive::temporal(Dim::Y, SizeExpr::lit(4), SizeExpr::lit(4), true)};
  const std::vector<DfslLayer> v = maestro_layers({l, m});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].layer.dim(Dim::Y), 229);
  EXPECT_EQ(v[0].layer.dim(Dim::X), 229);
  EXPECT_EQ(v[0].layer.pad, (workload::Window2{0, 0}));
  EXPECT_EQ(v[0].layer.out_y(), 112);
  const std::string text = write_maestro_network("resnet50", {{l, m}});
  EXPECT_NE(text.find("Dimensions { N: 1, K: 64, C: 3, R: 7, S: 7, Y: 229, X: 229 }"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TemporalMap(8,8) X';\n\t\t\tTemporalMap(1,1) N;\n\t\t\tCluster(8,P);\n"
                      "\t\t\tTemporalMap(7,7) S;\n\t\t\tTemporalMap(7,7) R;\n"
                      "\t\t\tSpatialMap(1,1) X';"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("// zero padding 3x3 folded into the input (224x224 -> 230x230); Y, X = "
                      "the input rows and columns used"),
            std::string::npos)
      << text;
  // Our model costs the 229 rows as the trimmed layer, and the 230 in the same runtime.
  const arch::Arch hw = arch::preset("gamma-edge");
  Layer t = l;
  t.pad = {0, 0};
  t.dim(Dim::Y) = t.dim(Dim::X) = 229;
  const cost::Cost back = read_back_cost(text, hw, {});
  EXPECT_TRUE(same_cost(cost::evaluate(t, hw, m), back));
  EXPECT_EQ(cost::evaluate(l, hw, m).runtime_cycles, back.runtime_cycles);
  // A 1x1 stride-2 layer keeps the rows its outputs own: 56 of 56, not (28-1)*2+1 = 55.
  const Layer ds = workload::conv2d("ds", 1, 256, 56, 56, 512, 1, 2);
  EXPECT_EQ(maestro_layers({ds, cost::dataflow_mapping("kcp_ws", ds, 168)})[0].layer.dim(Dim::Y),
            56);
}

// FC maps N (bert-base's and every classifier's batch dimension in the map space): written as
// CONV that declares N, with R and S at both levels.
TEST(MaestroExport, FcIsAConvThatDeclaresTheNItMaps) {
  const Layer l = workload::fc("fc", 4, 2048, 1000);
  mapping::Mapping m;
  m.directives = {Directive::spatial(Dim::K, SizeExpr::lit(8), SizeExpr::lit(8)),
                  Directive::temporal(Dim::C, SizeExpr::lit(64), SizeExpr::lit(64)),
                  Directive::temporal(Dim::N, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::cluster(SizeExpr::lit(8)),
                  Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::temporal(Dim::C, SizeExpr::lit(64), SizeExpr::lit(64))};
  const std::string text = write_maestro_network("m", {{l, m}});
  EXPECT_NE(text.find("Type: CONV\n\t\tStride { X: 1, Y: 1 }\n\t\tDimensions { N: 4, K: 1000, C: "
                      "2048, R: 1, S: 1, Y: 1, X: "
                      "1 }"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TemporalMap(1,1) N;\n\t\t\tTemporalMap(1,1) R;\n\t\t\tTemporalMap(1,1) "
                      "S;\n\t\t\tCluster(8,P);\n\t\t\tTemporalMap(1,1) S;\n\t\t\tTemporalMap(1,1) "
                      "R;\n\t\t\tSpatialMap(1,1) K;"),
            std::string::npos)
      << text;
  const arch::Arch hw = arch::preset("gamma-edge");
  EXPECT_TRUE(same_cost(cost::evaluate(l, hw, m), read_back_cost(text, hw, {})));
}

// A batched GEMM (G = 3) is three GEMM layers without G. Each costs what one batch costs; the
// batched layer pipelines one batch's fill under the last one's compute: 2 cycles fewer here.
TEST(MaestroExport, BatchedGemmIsOneGemmPerBatch) {
  const Layer l = workload::batched_gemm("qk", 3, 16, 16, 8);
  const mapping::Mapping m = cost::dataflow_mapping("kcp_ws", l, 168);
  const std::vector<DfslLayer> v = maestro_layers({l, m});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[2].layer.name, "qk_b2");
  EXPECT_EQ(v[2].layer.kind, OpKind::Gemm);
  EXPECT_EQ(v[2].layer.dim(Dim::G), 1);
  for (const Directive& d : v[2].mapping.directives)
    EXPECT_TRUE(d.kind == mapping::DirectiveKind::Cluster || d.dim != Dim::G);
  const arch::Arch hw = arch::preset("gamma-edge");
  const cost::Cost back = read_back_cost(write_maestro_network("m", {{l, m}}), hw, {});
  EXPECT_EQ(back.runtime_cycles, 3 * cost::evaluate(v[0].layer, hw, v[0].mapping).runtime_cycles);
  EXPECT_EQ(back.runtime_cycles, 771);
  EXPECT_EQ(cost::evaluate(l, hw, m).runtime_cycles, 769);
}

std::string error_of(const Layer& l, const mapping::Mapping& m) {
  try {
    write_maestro_network("m", {{l, m}});
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MaestroExport, RefusesWhatMaestroCannotExpressWithOneLine) {
  const Layer conv = workload::conv2d("c3", 1, 8, 16, 16, 8, 3, 1, 1);
  mapping::Mapping m;
  m.directives = {Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::temporal(Dim::R, SizeExpr::lit(1), SizeExpr::lit(1))};
  EXPECT_EQ(error_of(conv, m),
            "<flag --emit-m>: Layer 'c3': TemporalMap(1,1) R cannot be written for MAESTRO: its "
            "parser accepts only full-size temporal maps on R and S (TemporalMap(3,3) R); search "
            "with --maestro-compatible");
  m.directives[1] = Directive::temporal(Dim::S, SizeExpr::lit(3), SizeExpr::lit(1));
  EXPECT_NE(error_of(conv, m).find("TemporalMap(3,1) S cannot be written"), std::string::npos);

  const Layer bg = workload::batched_gemm("qk", 4, 16, 16, 8);
  m.directives = {Directive::spatial(Dim::G, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::temporal(Dim::M, SizeExpr::lit(4), SizeExpr::lit(4))};
  EXPECT_EQ(error_of(bg, m),
            "<flag --emit-m>: Layer 'qk': SpatialMap(1,1) G cannot be written for MAESTRO: a "
            "batched GEMM is written as one GEMM layer per batch, which needs TemporalMap(1,1) G "
            "outermost");
  m.directives = {Directive::spatial(Dim::M, SizeExpr::lit(1), SizeExpr::lit(1)),
                  Directive::temporal(Dim::G, SizeExpr::lit(1), SizeExpr::lit(1))};
  EXPECT_NE(error_of(bg, m).find("TemporalMap(1,1) G cannot be written"), std::string::npos);
  m.directives = {Directive::spatial(Dim::M, SizeExpr::lit(1), SizeExpr::lit(1))};
  EXPECT_NE(error_of(bg, m).find("the mapping does not map G"), std::string::npos);

  const Layer relu = workload::nongemm("relu", OpKind::Activation, "relu", {1, 8});
  EXPECT_NE(error_of(relu, m).find("Layer 'relu': a ACTIVATION layer has no MACs"),
            std::string::npos);
  EXPECT_EQ(error_of(conv, {}), "<flag --emit-m>: Layer 'c3': no mapping to write");
}

// --maestro-compatible: R and S untiled and never parallel (unless a constraint fixes them), a
// batched GEMM's G outermost one batch at a time; so every decoding can be written.
TEST(MaestroExport, MaestroCompatibleMapSpaceOnlyDecodesWritableMappings) {
  const arch::Arch hw = arch::preset("gamma-edge");
  dse::mapper::MapSpaceOptions mo;
  mo.maestro_compatible = true;
  mo.max_levels = 3;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 0.999999);
  const Layer layers[] = {workload::conv2d("c", 1, 16, 14, 14, 32, 3, 1, 1),
                          workload::batched_gemm("qk", 12, 128, 128, 64)};
  for (const Layer& l : layers) {
    const dse::mapper::MapSpace space(l, hw, mo);
    for (int s : space.parallel_choices()) EXPECT_TRUE(s != 4 && s != 5);
    for (int k = 0; k < 300; ++k) {
      search::Genome g(space.dims());
      for (double& x : g) x = u(rng);
      const dse::mapper::MapSpace::Decoded d = space.decode_raw(g);
      for (int l = 0; l < d.levels; ++l) {
        EXPECT_EQ(d.tile[l][4], std::max<int64_t>(1, space.extent(4)));
        EXPECT_EQ(d.tile[l][5], std::max<int64_t>(1, space.extent(5)));
        EXPECT_TRUE(d.parallel[l] != 4 && d.parallel[l] != 5);
      }
      EXPECT_NO_THROW(write_maestro_network("m", {{l, space.to_mapping(d)}})) << l.name;
    }
  }
  // The eyeriss constraint puts R across level 1: kept, whole (SpatialMap(3,3) R).
  mo.constraint = dse::mapper::Constraint::Eyeriss;
  const dse::mapper::MapSpace rs(layers[0], hw, mo);
  search::Genome g(rs.dims(), 0.3);
  const mapping::Mapping m = rs.decode(g);
  EXPECT_NO_THROW(write_maestro_network("m", {{layers[0], m}}));
  bool whole_r = false;
  for (const Directive& d : m.directives)
    whole_r |= d.kind == mapping::DirectiveKind::Spatial && d.dim == Dim::R && d.size.literal == 3;
  EXPECT_TRUE(whole_r);
}

// MAESTRO's hardware file: integers; a fractional bandwidth rounded down, and said so.
TEST(MaestroExport, HardwareFileHasIntegersAndSaysWhatWasRounded) {
  std::string note;
  EXPECT_EQ(write_maestro_hw(arch::preset("gamma-edge"), &note),
            "num_pes: 168\nl1_size_cstr: 512\nl2_size_cstr: 108000\nnoc_bw_cstr: 81920000\n"
            "offchip_bw_cstr: 81920000\n");
  EXPECT_EQ(note, "");
  EXPECT_NE(write_maestro_hw(arch::preset("flat-edge"), &note).find("offchip_bw_cstr: 28\n"),
            std::string::npos);
  EXPECT_EQ(note, "offchip_bw_cstr 28.556963 words/cycle written as 28 (MAESTRO reads integers)");
}

}  // namespace
}  // namespace sparsemap::io
