// Tests of the DFSL reader and writer: MAESTRO's reference files (tests/data/maestro), clamping,
// round trips, and the exact message of every kind of bad input.
#include "sparsemap/io/dfsl.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "sparsemap/io/util.h"
#include "support/test_data.h"

namespace sparsemap::io {
namespace {

namespace fs = std::filesystem;
using mapping::Directive;
using mapping::SizeExpr;
using workload::Dim;
using workload::OpKind;

// what() of the InputError that parse_dfsl throws on `text`, or "no error".
std::string error_of(const std::string& text) {
  try {
    parse_dfsl(text, "t.m");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// One layer with `body` inside "Layer L { ... }".
std::string in_layer(const std::string& body) {
  return "Network n {\nLayer L {\n" + body + "\n}\n}\n";
}
// One CONV layer K=C=8, R=S=3, Y=X=16 with `dataflow` inside its Dataflow block.
std::string in_dataflow(const std::string& dataflow) {
  return in_layer("Type: CONV\nDimensions { K: 8, C: 8, R: 3, S: 3, Y: 16, X: 16 }\nDataflow {\n" +
                  dataflow + "\n}");
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string p = e.path().string();
    if (e.path().extension() == ".m" && p.size() > 5 && p.substr(p.size() - 5) != ".hw.m")
      out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_round_trip(const DfslNetwork& net, const std::string& label) {
  const std::string text = write_dfsl(net);
  const DfslNetwork back = parse_dfsl(text, label + " (written)");
  EXPECT_EQ(back, net) << label;
  EXPECT_TRUE(back.warnings.empty()) << label << ": " << back.warnings.front().str();
}

TEST(DfslReference, AllNetworksParseWithExactLayerCountsAndRoundTrip) {
  SPARSEMAP_TEST_DATA(ref, "maestro");
  const auto files = files_in(ref + "/networks");
  ASSERT_EQ(files.size(), 41u);
  const std::map<std::string, size_t> expected = {{"GEMM_Example", 1},
                                                  {"MobileNetV2_kcp_ws", 56},
                                                  {"ResNeXt50_rs", 50},
                                                  {"Resnet50_kcp_ws", 66},
                                                  {"Transformer_Complete", 288},
                                                  {"Transformer_Layers", 6},
                                                  {"UNet_RS", 23},
                                                  {"example", 1},
                                                  {"gnmt_nmk", 9},
                                                  {"googlenet_rs", 64},
                                                  {"mnasnet_ykp_os", 53},
                                                  {"ncf_nmk", 12},
                                                  {"squeezenet1_0_rs", 26},
                                                  {"vgg16_nlr", 13}};
  size_t total = 0, checked = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const DfslNetwork net = read_dfsl(f);
    total += net.layers.size();
    if (auto it = expected.find(fs::path(f).stem().string()); it != expected.end()) {
      EXPECT_EQ(net.layers.size(), it->second);
      ++checked;
    }
    for (const auto& l : net.layers) EXPECT_FALSE(l.mapping.empty()) << l.layer.name;
    expect_round_trip(net, f);
  }
  EXPECT_EQ(checked, expected.size());
  EXPECT_EQ(total, 1817u);
}

TEST(DfslReference, Resnet50Conv1IsReadExactlyAndItsCTileClamped) {
  SPARSEMAP_TEST_DATA(ref, "maestro");
  const std::string path = ref + "/networks/Resnet50_kcp_ws.m";
  const DfslNetwork net = read_dfsl(path);
  EXPECT_EQ(net.name, "Resnet50");
  ASSERT_EQ(net.layers.size(), 66u);
  const DfslLayer& conv1 = net.layers[0];
  EXPECT_EQ(conv1.layer.name, "CONV1");
  EXPECT_EQ(conv1.layer.kind, OpKind::Conv);
  EXPECT_EQ(conv1.layer.dims, (workload::DimArray{1, 1, 64, 3, 224, 224, 7, 7, 1}));
  EXPECT_EQ(conv1.layer.stride, (workload::Window2{2, 2}));
  EXPECT_EQ(conv1.where.line, 3);  // the file starts with an empty line
  EXPECT_TRUE(conv1.clamped);
  const auto R = SizeExpr::sz(Dim::R), S = SizeExpr::sz(Dim::S), one = SizeExpr::lit(1);
  const std::vector<Directive> want = {
      Directive::spatial(Dim::K, one, one),
      Directive::temporal(Dim::C, SizeExpr::lit(3), SizeExpr::lit(3)),  // (64,64) clamped
      Directive::temporal(Dim::R, R, R),
      Directive::temporal(Dim::S, S, S),
      Directive::temporal(Dim::Y, R, one),
      Directive::temporal(Dim::X, S, one),
      Directive::cluster(SizeExpr::lit(64)),
      Directive::spatial(Dim::C, one, one),
      Directive::temporal(Dim::Y, R, one),
      Directive::temporal(Dim::X, S, one),
      Directive::temporal(Dim::R, R, R),
      Directive::temporal(Dim::S, S, S)};
  EXPECT_EQ(conv1.mapping.directives, want);
  EXPECT_FALSE(net.layers[1].clamped);  // CONV2_1_1: C = 64
  ASSERT_FALSE(net.warnings.empty());
  const InputWarning& w = net.warnings.front();
  EXPECT_EQ(w.where.line, 9);
  EXPECT_EQ(w.where.column, 4);
  EXPECT_EQ(w.str(), path +
                         ":9:4: warning: TemporalMap(64,64) C: tile 64 larger than C = 3; "
                         "clamped to 3");
}

TEST(DfslReference, GemmConstantsAndDuplicatedDimension) {
  SPARSEMAP_TEST_DATA(ref, "maestro");
  const DfslNetwork gemm = read_dfsl(ref + "/networks/GEMM_Example.m");
  EXPECT_EQ(gemm.name, "BLAS3");
  ASSERT_EQ(gemm.layers.size(), 1u);
  const auto& l = gemm.layers[0].layer;
  EXPECT_EQ(l.kind, OpKind::Gemm);
  EXPECT_EQ(l.dim(Dim::M), 100);
  EXPECT_EQ(l.dim(Dim::N), 100);
  EXPECT_EQ(l.dim(Dim::K), 100);
  const auto one = SizeExpr::lit(1), hundred = SizeExpr::lit(100);
  const std::vector<Directive> want = {
      Directive::temporal(Dim::N, one, one),         Directive::spatial(Dim::M, one, one),
      Directive::temporal(Dim::K, hundred, hundred), Directive::cluster(hundred),
      Directive::temporal(Dim::N, one, one),         Directive::temporal(Dim::M, one, one),
      Directive::spatial(Dim::K, one, one)};
  EXPECT_EQ(gemm.layers[0].mapping.directives, want);
  EXPECT_TRUE(gemm.warnings.empty());

  const DfslNetwork tr = read_dfsl(ref + "/networks/Transformer_Complete.m");
  EXPECT_EQ(tr.layers[1].layer.name, "SD_MatMul_QK_00");
  EXPECT_EQ(tr.layers[1].layer.dim(Dim::K), 128);  // K: Seq_Len
  EXPECT_EQ(tr.layers[1].layer.dim(Dim::X), 128);

  const std::string unet = ref + "/networks/UNet_RS.m";
  const DfslNetwork u = read_dfsl(unet);
  ASSERT_EQ(u.warnings.size(), 2u);
  EXPECT_EQ(u.warnings[0].str(),
            unet + ":7:4: warning: TemporalMap(2,2) C: tile 2 larger than C = 1; clamped to 1");
  EXPECT_EQ(u.warnings[1].str(),
            unet + ":85:22: warning: N given twice in Dimensions (both 1); using it once");
}

TEST(DfslReference, RandomUnevenInvalidAndDefectCasesParse) {
  SPARSEMAP_TEST_DATA(ref, "maestro");
  const std::pair<const char*, size_t> dirs[] = {
      {"random", 240}, {"uneven", 120}, {"invalid", 8}, {"defects", 4}};
  for (const auto& [dir, count] : dirs) {
    auto files = files_in(ref + "/" + dir);
    ASSERT_EQ(files.size(), count) << dir;
    for (const auto& f : files) {
      SCOPED_TRACE(f);
      std::string text = read_file(f);
      if (f.find("template") != std::string::npos) {  // OUTER/INNER placeholders
        EXPECT_NE(error_of(text), "no error");
        for (auto [from, to] : {std::pair{"OUTER", "35"}, std::pair{"INNER", "34"}})
          for (size_t p; (p = text.find(from)) != std::string::npos;) text.replace(p, 5, to);
      }
      const DfslNetwork net = parse_dfsl(text, f);
      ASSERT_EQ(net.layers.size(), 1u);
      EXPECT_EQ(net.layers[0].clamped, std::string(dir) == "invalid" ||
                                           f.find("resnet50_l10") != std::string::npos ||
                                           f.find("resnet50_l30") != std::string::npos);
      expect_round_trip(net, f);
    }
  }
}

TEST(DfslReference, InvalidCasesGetOutputTilesClampedToTheOutputSize) {
  SPARSEMAP_TEST_DATA(ref, "maestro");
  const std::string path = ref + "/invalid/case000.m";  // Y = 16, R = 3: Y' = 14
  const DfslNetwork net = read_dfsl(path);
  const auto& dl = net.layers[0];
  EXPECT_EQ(dl.layer.out_y(), 14);
  EXPECT_EQ(dl.mapping.directives[0],
            Directive::spatial(Dim::Y, SizeExpr::lit(14), SizeExpr::lit(14), true));
  ASSERT_EQ(net.warnings.size(), 1u);
  EXPECT_EQ(
      net.warnings[0].str(),
      path + ":6:1: warning: SpatialMap(16,16) Y': tile 16 larger than Y' = 14; clamped to 14");
  for (const auto& f : files_in(ref + "/invalid")) {
    const DfslNetwork n = read_dfsl(f);
    const auto& l = n.layers[0].layer;
    EXPECT_FALSE(n.warnings.empty()) << f;
    for (const auto& d : n.layers[0].mapping.directives) {
      if (!d.primed) continue;
      EXPECT_LE(d.size.resolve(l), d.dim == Dim::Y ? l.out_y() : l.out_x()) << f;
    }
  }
}

TEST(Dfsl, AcceptsMaestroSyntaxVariants) {
  const std::string text = R"(// leading comment
Constant Tile 4;
Constant T2 Tile;
Network Net-1 {
  Layer Conv2d-1 { // comment
    type: dsconv // comment after the type
    Stride { X 2 Y: 1, }
    Dimensions { K 1,C 32 R: 3 S: 3, Y:18, X:17 }
    Dataflow {
      TemporalMap (Tile,T2) C;
      SpatialMap(Sz(R), 1) Y;
      TemporalMap(Sz(S),1) X';
      Cluster(Sz(R),P);
      Cluster(2, L);
      Cluster(3);
      SpatialMap(1,1) y';
    }
  }
  Constant Later 2;
  Layer OnlyType { Type: FC }
  Layer G { Type: GEMM; Dimensions { M: Later, N: 3, K: 5 } /* block
  comment */ }
}
)";
  const DfslNetwork net = parse_dfsl(text, "v.m");
  EXPECT_EQ(net.name, "Net-1");
  ASSERT_EQ(net.layers.size(), 3u);
  const auto& l = net.layers[0];
  EXPECT_EQ(l.layer.name, "Conv2d-1");
  EXPECT_EQ(l.layer.kind, OpKind::DsConv);
  EXPECT_EQ(l.layer.stride, (workload::Window2{1, 2}));
  EXPECT_EQ(l.layer.dims, (workload::DimArray{1, 1, 1, 32, 18, 17, 3, 3, 1}));
  EXPECT_EQ(l.where.line, 5);
  EXPECT_EQ(l.where.column, 3);
  const std::vector<Directive> want = {
      Directive::temporal(Dim::C, SizeExpr::lit(4), SizeExpr::lit(4)),
      Directive::spatial(Dim::Y, SizeExpr::sz(Dim::R), SizeExpr::lit(1)),
      Directive::temporal(Dim::X, SizeExpr::sz(Dim::S), SizeExpr::lit(1), true),
      Directive::cluster(SizeExpr::sz(Dim::R)),
      Directive::cluster(SizeExpr::lit(2), true),
      Directive::cluster(SizeExpr::lit(3)),
      Directive::spatial(Dim::Y, SizeExpr::lit(1), SizeExpr::lit(1), true)};
  EXPECT_EQ(l.mapping.directives, want);
  EXPECT_FALSE(l.clamped);
  EXPECT_EQ(net.layers[1].layer.kind, OpKind::Fc);
  EXPECT_EQ(net.layers[1].layer.dims, workload::Layer{}.dims);
  EXPECT_TRUE(net.layers[1].mapping.empty());
  EXPECT_EQ(net.layers[2].layer.dim(Dim::M), 2);
  EXPECT_TRUE(net.warnings.empty());
  expect_round_trip(net, "variants");
}

TEST(Dfsl, ClampsTilesAndOffsetsToTheirExtents) {
  // Y = X = 16, R = S = 3, stride 1: Y' = X' = 14.
  const DfslNetwork net = parse_dfsl(in_dataflow("TemporalMap(Sz(R),7) R;\n"  // 6: silent
                                                 "TemporalMap(1,8) C;\n"      // 7: fits
                                                 "TemporalMap(20,2) Y;\n"     // 8: tile
                                                 "TemporalMap(Sz(Y),1) S;\n"  // 9: Sz > S
                                                 "SpatialMap(15,15) X';\n"    // 10: tile
                                                 "TemporalMap(14,14) Y';"),   // 11: fits
                                     "c.m");
  const auto& d = net.layers[0].mapping.directives;
  EXPECT_TRUE(net.layers[0].clamped);
  EXPECT_EQ(d[0], Directive::temporal(Dim::R, SizeExpr::sz(Dim::R), SizeExpr::lit(3)));
  EXPECT_EQ(d[1], Directive::temporal(Dim::C, SizeExpr::lit(1), SizeExpr::lit(8)));
  EXPECT_EQ(d[2], Directive::temporal(Dim::Y, SizeExpr::lit(16), SizeExpr::lit(2)));
  EXPECT_EQ(d[3], Directive::temporal(Dim::S, SizeExpr::lit(3), SizeExpr::lit(1)));
  EXPECT_EQ(d[4], Directive::spatial(Dim::X, SizeExpr::lit(14), SizeExpr::lit(14), true));
  EXPECT_EQ(d[5], Directive::temporal(Dim::Y, SizeExpr::lit(14), SizeExpr::lit(14), true));
  std::vector<std::string> got;
  for (const auto& w : net.warnings) got.push_back(w.str());
  const std::vector<std::string> want = {
      "c.m:8:1: warning: TemporalMap(20,2) Y: tile 20 larger than Y = 16; clamped to 16",
      "c.m:9:1: warning: TemporalMap(Sz(Y),1) S: tile Sz(Y) = 16 larger than S = 3; clamped to 3",
      "c.m:10:1: warning: SpatialMap(15,15) X': tile 15 larger than X' = 14; clamped to 14"};
  EXPECT_EQ(got, want);

  // Offset beyond the extent with a smaller tile (C = 8).
  const DfslNetwork off = parse_dfsl(in_dataflow("TemporalMap(2,9) C;"), "o.m");
  EXPECT_EQ(off.layers[0].mapping.directives[0],
            Directive::temporal(Dim::C, SizeExpr::lit(2), SizeExpr::lit(8)));
  ASSERT_EQ(off.warnings.size(), 1u);
  EXPECT_EQ(off.warnings[0].str(),
            "o.m:6:1: warning: TemporalMap(2,9) C: offset 9 larger than C = 8; clamped to 8");
  EXPECT_TRUE(off.layers[0].clamped);
}

TEST(Dfsl, BadInputGivesLocatedErrors) {
  const std::pair<std::string, std::string> cases[] = {
      // empty file, comments only, binary garbage, stray characters
      {"", "t.m:1:1: expected a Network block, found end of file"},
      {"// nothing\n\n", "t.m:3:1: expected a Network block, found end of file"},
      {std::string("\x00\x01\x02", 3), "t.m:1:1: unexpected byte 0x00 (expected DFSL text)"},
      {"Network n { Layer L @", "t.m:1:21: unexpected character '@'"},
      {"Network n { \xff }", "t.m:1:13: unexpected byte 0xFF (expected DFSL text)"},
      {"/* open", "t.m:1:1: unterminated comment: expected '*/'"},
      // unknown keywords
      {"Netwrk n {}", "t.m:1:1: expected 'Network' or 'Constant', found 'Netwrk'"},
      {"Network n { Lyer L {} }", "t.m:1:13: expected 'Layer', 'Constant' or '}', found 'Lyer'"},
      {in_layer("Type: CONV\nStrides { X: 1 }"),
       "t.m:4:1: expected 'Type', 'Stride', 'Dimensions', 'Dataflow' or '}', found 'Strides'"},
      {in_dataflow("SpatialMapp(1,1) K;"),
       "t.m:6:1: expected 'SpatialMap', 'TemporalMap', 'Cluster' or '}', found 'SpatialMapp'"},
      {in_layer("Type: POOL"),
       "t.m:3:7: expected a layer type (CONV, DSCONV, NGCONV, TRCONV, GEMM or FC), found 'POOL'"},
      {"Network n {}\nNetwork m {}",
       "t.m:2:1: a second Network block: expected one Network per file"},
      // missing braces, parentheses, semicolons
      {"Network n\nLayer L {", "t.m:2:1: expected '{' after the Network name, found 'Layer'"},
      {"Network n { Layer L Type: CONV }",
       "t.m:1:21: expected '{' after the Layer name, found 'Type'"},
      {in_dataflow("SpatialMap(1,1 K;"),
       "t.m:6:16: expected ')' after the offset of SpatialMap, found 'K'"},
      {in_dataflow("SpatialMap 1,1) K;"), "t.m:6:12: expected '(' after SpatialMap, found '1'"},
      {in_dataflow("SpatialMap(1 1) K;"),
       "t.m:6:14: expected ',' between the size and the offset of SpatialMap, found '1'"},
      {in_dataflow("SpatialMap(1,1) K\nTemporalMap(1,1) C;"),
       "t.m:7:1: expected ';' after SpatialMap(...) K, found 'TemporalMap'"},
      {in_dataflow("Cluster(4 P);"),
       "t.m:6:11: expected ')' after the cluster size and type, found 'P'"},
      {"Constant A 1\nNetwork n {}",
       "t.m:2:1: expected ';' after the value of Constant A, found 'Network'"},
      // unterminated blocks
      {"Network n {\n Layer L {\n Type: CONV\n",
       "t.m:4:1: expected '}' to close Layer 'L' (opened at 2:10), found end of file"},
      {"Network n {\n",
       "t.m:2:1: expected '}' to close Network 'n' (opened at 1:11), found end of file"},
      {"Network n { Layer L { Dimensions { K: 1 ",
       "t.m:1:41: expected '}' to close Dimensions block (opened at 1:34), found end of file"},
      {"Network n { Layer L { Dataflow { SpatialMap(1,1) K;",
       "t.m:1:52: expected '}' to close Dataflow block (opened at 1:32), found end of file"},
      // zero and negative values
      {in_dataflow("SpatialMap(0,1) K;"), "t.m:6:12: expected a positive size, found '0'"},
      {in_dataflow("TemporalMap(1,-2) K;"), "t.m:6:15: expected a positive offset, found '-2'"},
      {in_dataflow("Cluster(0,P);"), "t.m:6:9: expected a positive cluster size, found '0'"},
      {in_layer("Type: CONV\nStride { X: 0, Y: 1 }"),
       "t.m:4:13: expected a positive stride, found '0'"},
      {in_layer("Type: CONV\nDimensions { K: -64 }"),
       "t.m:4:17: expected a positive dimension value, found '-64'"},
      {"Constant A 0;", "t.m:1:12: expected a positive constant value, found '0'"},
      // constants, dimension letters, numbers
      {in_dataflow("TemporalMap(Tile,Tile) K;"),
       "t.m:6:13: undefined constant 'Tile': expected a positive size (an integer or a Constant "
       "defined above)"},
      {"Constant A 1;\nConstant A 2;", "t.m:2:10: Constant A redefined as 2 (it was 1 at 1:10)"},
      {in_dataflow("TemporalMap(1,1) Q;"),
       "t.m:6:18: expected a dimension (N, G, K, C, Y, X, R, S or M), found 'Q'"},
      {in_layer("Type: CONV\nDimensions { K: 4, Q: 3 }"),
       "t.m:4:20: expected a dimension (N, G, K, C, Y, X, R, S or M) or '}' in Dimensions, "
       "found 'Q'"},
      {in_layer("Type: CONV\nStride { Z: 2 }"),
       "t.m:4:10: expected X, Y or '}' in Stride, found 'Z'"},
      {in_dataflow("TemporalMap(1,1) K';"),
       "t.m:6:18: only Y and X can be primed (output rows and columns), found K'"},
      {in_dataflow("TemporalMap(Sz(Q),1) K;"),
       "t.m:6:16: expected a dimension (N, G, K, C, Y, X, R, S or M), found 'Q'"},
      {in_layer("Type: CONV\nDimensions { K: 99999999999 }"),
       "t.m:4:17: number '99999999999' is too large (at most 2147483647)"},
      {in_layer("Type: CONV\nDimensions { K: 12ab }"),
       "t.m:4:17: malformed number '12ab': expected an integer"},
      {in_layer("Type: CONV\nDimensions { K: 1.5 }"),
       "t.m:4:17: malformed number '1.5': expected an integer"},
      // layer semantics
      {in_layer("Dimensions { K: 4 }"),
       "t.m:2:1: Layer 'L' has no Type: expected 'Type: CONV' (or CONV, DSCONV, NGCONV, TRCONV, "
       "GEMM or FC)"},
      {in_layer("Type: CONV\nType: GEMM"), "t.m:4:1: duplicate Type in Layer 'L'"},
      {in_layer("Type: CONV\nDimensions { K: 4 }\nDimensions { K: 4 }"),
       "t.m:5:1: duplicate Dimensions block in Layer 'L' (first at 4:1)"},
      {in_layer("Type: CONV\nDimensions { N: 1, N: 2 }"),
       "t.m:4:20: N given twice in Dimensions with different values (1 at 4:14, then 2)"},
      {in_layer("Type: GEMM\nDimensions { M: 4, C: 3 }"),
       "t.m:4:20: C = 3 is not used by GEMM layers: expected M, N, K (or C: 1)"},
      {in_layer("Type: DSCONV\nDimensions { K: 32, C: 32 }"),
       "t.m:4:14: K = 32 is not used by DSCONV layers: expected N, C, Y, X, R, S (or K: 1)"},
      {in_layer("Type: CONV\nDimensions { R: 5, S: 3, Y: 4, X: 4 }"),
       "t.m:4:1: filter R = 5 is larger than input Y = 4 in Layer 'L'"},
      {in_layer("Type: NGCONV\nDimensions { N: 2147483647, G: 2147483647, K: 2 }"),
       "t.m:4:1: Layer 'L' is too large: the product of its dimensions exceeds 2^62"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(error_of(text), want) << text;
}

TEST(Dfsl, ReadDfslNamesUnreadablePaths) {
  try {
    read_dfsl("/nonexistent/dir/x.m");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/dir/x.m: cannot read: No such file or directory");
  }
  try {
    read_file(fs::temp_directory_path().string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(), "cannot read: is a directory, expected a file");
    EXPECT_EQ(e.where().file, fs::temp_directory_path().string());
  }
}

TEST(DfslWriter, WritesWhatDfslCanDescribe) {
  DfslNetwork net;
  net.name = "my net";
  DfslLayer conv;
  conv.layer = workload::conv2d("layer1/conv 1", 1, 64, 56, 56, 64, 3, 1, 1);
  conv.mapping.directives = {Directive::spatial(Dim::K, SizeExpr::lit(1), SizeExpr::lit(1)),
                             Directive::cluster(SizeExpr::lit(8), true),
                             Directive::temporal(Dim::Y, SizeExpr::sz(Dim::R), SizeExpr::lit(1))};
  net.layers.push_back(conv);
  DfslLayer fc;
  fc.layer = workload::fc("fc", 4, 512, 1000);
  net.layers.push_back(fc);
  const std::string text = write_dfsl(net);
  EXPECT_EQ(text,
            "Network my_net {\n"
            "\tLayer layer1_conv_1 {\n"
            "\t\t// zero padding 1x1 folded into the input: Y = 56 + 2*1, X = 56 + 2*1\n"
            "\t\tType: CONV\n"
            "\t\tStride { X: 1, Y: 1 }\n"
            "\t\tDimensions { K: 64, C: 64, R: 3, S: 3, Y: 58, X: 58 }\n"
            "\t\tDataflow {\n"
            "\t\t\tSpatialMap(1,1) K;\n"
            "\t\t\tCluster(8,L);\n"
            "\t\t\tTemporalMap(Sz(R),1) Y;\n"
            "\t\t}\n"
            "\t}\n"
            "\n"
            "\tLayer fc {\n"
            "\t\tType: FC\n"
            "\t\tDimensions { N: 4, K: 1000, C: 512 }\n"
            "\t}\n"
            "}\n");
  const DfslNetwork back = parse_dfsl(text, "w.m");
  EXPECT_EQ(back.layers[0].layer.out_y(), conv.layer.out_y());
  EXPECT_EQ(back.layers[0].layer.macs(), conv.layer.macs());
  EXPECT_EQ(back.layers[0].mapping, conv.mapping);
  EXPECT_EQ(back.layers[1].layer.macs(), fc.layer.macs());

  DfslLayer softmax;
  softmax.layer = workload::nongemm("sm", OpKind::Softmax, "softmax", {1, 128});
  net.layers.push_back(softmax);
  try {
    write_dfsl(net);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(),
              "Layer 'sm' is a SOFTMAX layer: DFSL describes only CONV, DSCONV, NGCONV, TRCONV, "
              "GEMM and FC");
  }
}

}  // namespace
}  // namespace sparsemap::io
