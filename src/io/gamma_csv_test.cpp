// Tests of the GAMMA model CSV reader: the layer kinds and MACs of each row type, the committed
// samples in data/gamma/, and the exact messages for bad input.
#include "sparsemap/io/gamma_csv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sparsemap/error.h"

namespace sparsemap::io {
namespace {

using workload::Dim;
using workload::OpKind;

std::string error_of(const std::string& text) {
  try {
    parse_gamma_csv(text, "m.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GammaCsv, RowTypes) {
  const auto m = parse_gamma_csv(
      "K,C,Y,X,R,S,T\n"
      "64,32,56,56,3,3,1\n"
      "1,32,112,112,3,3,2\n"
      "1000,512,1,1,1,1,0\n"
      "768,3072,128,1,1,1,3\n"
      "4096,512,7,7,7,7,0\n",
      "dir/example.csv");
  EXPECT_EQ(m.name, "example");
  ASSERT_EQ(m.layers.size(), 5u);

  const auto& conv = m.layers[0];
  EXPECT_EQ(conv.name, "L0");
  EXPECT_EQ(conv.kind, OpKind::Conv);
  EXPECT_EQ(conv.dim(Dim::K), 64);
  EXPECT_EQ(conv.dim(Dim::C), 32);
  EXPECT_EQ(conv.dim(Dim::Y), 56);
  EXPECT_EQ(conv.dim(Dim::R), 3);
  EXPECT_EQ(conv.stride, (workload::Window2{1, 1}));
  EXPECT_EQ(conv.pad, (workload::Window2{0, 0}));
  EXPECT_EQ(conv.macs(), 64 * 32 * 9 * 54 * 54);  // stride 1, no padding, as GAMMA runs it

  const auto& ds = m.layers[1];
  EXPECT_EQ(ds.kind, OpKind::DsConv);
  EXPECT_EQ(ds.dim(Dim::C), 32);
  EXPECT_EQ(ds.dim(Dim::K), 1);
  EXPECT_EQ(ds.macs(), 32 * 9 * 110 * 110);

  const auto& fc = m.layers[2];
  EXPECT_EQ(fc.kind, OpKind::Fc);
  EXPECT_EQ(fc.dim(Dim::N), 1);
  EXPECT_EQ(fc.dim(Dim::C), 512);
  EXPECT_EQ(fc.dim(Dim::K), 1000);

  const auto& gemm = m.layers[3];  // K = N, C = K, Y = M, X = 1
  EXPECT_EQ(gemm.kind, OpKind::Gemm);
  EXPECT_EQ(gemm.dim(Dim::M), 128);
  EXPECT_EQ(gemm.dim(Dim::N), 768);
  EXPECT_EQ(gemm.dim(Dim::K), 3072);
  EXPECT_EQ(gemm.macs(), 128 * 768 * 3072);

  const auto& fc6 = m.layers[4];  // an FC written as a 7x7 CONV over 7x7: C*R*S inputs
  EXPECT_EQ(fc6.kind, OpKind::Fc);
  EXPECT_EQ(fc6.dim(Dim::C), 512 * 49);
  EXPECT_EQ(fc6.macs(), int64_t{4096} * 512 * 49);
}

TEST(GammaCsv, ColumnsByNameNameColumnCrlfAndBlankLines) {
  const auto m = parse_gamma_csv(
      "name, T, R, S, Y, X, C, K\r\n"
      "\r\n"
      "conv1, 1, 7, 7, 224, 224, 3, 64\r\n"
      " , 2, 3, 3, 10, 10, 8, 8\r\n",
      "m.csv");
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[0].name, "conv1");
  EXPECT_EQ(m.layers[0].dim(Dim::K), 64);
  EXPECT_EQ(m.layers[0].dim(Dim::C), 3);
  EXPECT_EQ(m.layers[0].dim(Dim::R), 7);
  EXPECT_EQ(m.layers[1].name, "L1");  // empty name: the default
  EXPECT_EQ(m.layers[1].kind, OpKind::DsConv);
  EXPECT_EQ(m.layers[1].dim(Dim::K), 1);  // K = C accepted, stored as 1
  EXPECT_EQ(m.layers[1].macs(), 8 * 9 * 8 * 8);
}

TEST(GammaCsv, CommittedSamples) {
  const std::string dir = std::string(SPARSEMAP_SOURCE_DIR) + "/data/gamma/";
  const auto r18 = read_gamma_csv(dir + "resnet18.csv");
  EXPECT_EQ(r18.name, "resnet18");
  EXPECT_EQ(r18.layers.size(), 21u);  // 20 CONV (GAMMA's own file) + the FC
  EXPECT_EQ(r18.total_macs(), 2269682432);
  const auto mb = read_gamma_csv(dir + "mobilenet_v2.csv");
  EXPECT_EQ(mb.layers.size(), 53u);  // 35 CONV + 17 DSCONV + FC
  EXPECT_EQ(mb.total_macs(), 341681216);
  const auto bert = read_gamma_csv(dir + "bert_base_layer_gemm.csv");
  ASSERT_EQ(bert.layers.size(), 6u);
  EXPECT_EQ(bert.layers[4].name, "ffn1");
  EXPECT_EQ(bert.total_macs(), 905969664);  // 128 * (4 * 768 * 768 + 2 * 768 * 3072)
}

TEST(GammaCsv, HeaderlessLikeGammasOwnFiles) {
  // GAMMA's data/modelfile/*_m.csv: K,C,Y,X,R,S,T without a header line.
  const auto m = parse_gamma_csv("64,3,224,224,7,7,1\n64,64,56,56,3,3,1\n", "resnet_m.csv");
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[0].macs(), int64_t{64} * 3 * 49 * 218 * 218);
  EXPECT_EQ(m.layers[1].macs(), int64_t{64} * 64 * 9 * 54 * 54);
}

TEST(GammaCsv, BadInputMessages) {
  const std::string h = "K,C,Y,X,R,S,T\n";
  EXPECT_EQ(error_of(""), "m.csv:1:1: expected header K,C,Y,X,R,S,T, got an empty file");
  EXPECT_EQ(error_of("64,3,224,224,7,7\n"),
            "m.csv:1:1: expected header K,C,Y,X,R,S,T or seven numbers a row, got '64'");
  EXPECT_EQ(error_of("64,3,224,224,7,7,1\n64,3\n"), "m.csv:2:5: expected 7 fields, got 2");
  EXPECT_EQ(error_of("K,C,Y,X,R,Z,T\n"),
            "m.csv:1:11: unknown column 'Z'; expected one of K,C,Y,X,R,S,T (and an optional "
            "leading name column)");
  EXPECT_EQ(error_of("K,C,Y,X,R,S,K\n"), "m.csv:1:13: duplicate column 'K'");
  EXPECT_EQ(error_of("K,C,Y,X,R,S\n"),
            "m.csv:1:1: missing column 'T'; expected header K,C,Y,X,R,S,T");
  EXPECT_EQ(error_of(h), "m.csv:2:1: expected at least one layer row");
  EXPECT_EQ(error_of(h + "64,3,224,224,7,7\n"), "m.csv:2:17: expected 7 fields, got 6");
  EXPECT_EQ(error_of(h + "64,3,224,224,7,7,1,9\n"), "m.csv:2:20: expected 7 fields, got 8");
  EXPECT_EQ(error_of(h + "64,3,2x4,224,7,7,1\n"),
            "m.csv:2:6: expected a positive integer for Y, got '2x4'");
  EXPECT_EQ(error_of(h + "0,3,224,224,7,7,1\n"),
            "m.csv:2:1: expected a positive integer for K, got '0'");
  EXPECT_EQ(error_of(h + "64,-3,224,224,7,7,1\n"),
            "m.csv:2:4: expected a positive integer for C, got '-3'");
  EXPECT_EQ(error_of(h + "64,3,224,224,7,,1\n"),
            "m.csv:2:16: expected a positive integer for S, got ''");
  EXPECT_EQ(error_of(h + "99999999999,3,224,224,7,7,1\n"),
            "m.csv:2:1: K = 99999999999 is too large (at most 2147483647)");
  EXPECT_EQ(error_of(h + "64,3,224,224,7,7,4\n"),
            "m.csv:2:18: expected layer type T 0 (FC), 1 (CONV), 2 (DSCONV) or 3 (GEMM), got '4'");
  EXPECT_EQ(error_of(h + "64,3,224,224,7,7,conv\n"),
            "m.csv:2:18: expected layer type T 0 (FC), 1 (CONV), 2 (DSCONV) or 3 (GEMM), got "
            "'conv'");
  EXPECT_EQ(error_of(h + "64,3,5,224,7,7,1\n"),
            "m.csv:2:12: filter R = 7 is larger than input Y = 5");
  EXPECT_EQ(error_of(h + "64,3,224,5,7,7,1\n"),
            "m.csv:2:14: filter S = 7 is larger than input X = 5");
  EXPECT_EQ(error_of(h + "3,32,112,112,3,3,2\n"),
            "m.csv:2:1: a DSCONV row (T = 2) expects K = 1 (or K = C), got K = 3");
  EXPECT_EQ(error_of(h + "2000000000,2000000000,2000000000,1,1,1,1\n"),
            "m.csv:2:1: layer too large: its MACs overflow 64 bits");
}

TEST(GammaCsv, MissingFile) {
  try {
    read_gamma_csv("/nonexistent/model.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/model.csv");
  }
}

// Issue 19: a UTF-8 byte order mark gave "unknown column 'K'"; terminal escape bytes in a
// header were echoed raw; a 10 MB field made a 10 MB "one line" error.
TEST(GammaCsv, BomEscapesAndHugeFieldsInMessages) {
  const auto m = parse_gamma_csv("\xEF\xBB\xBFK,C,Y,X,R,S,T\n64,3,224,224,7,7,1\n", "bom.csv");
  ASSERT_EQ(m.layers.size(), 1u);
  EXPECT_EQ(m.layers[0].dim(Dim::K), 64);

  const std::string esc = error_of("K,C\x1b[31mRED,Y\n1,2,3\n");
  EXPECT_EQ(esc.find('\x1b'), std::string::npos);
  EXPECT_EQ(esc.rfind("m.csv:1:3: unknown column 'C\\x1b[31mRED'; expected one of", 0), 0u) << esc;

  const std::string huge = error_of("K," + std::string(10'000'000, 'A') + "\n1,2\n");
  EXPECT_LT(huge.size(), 300u);
  EXPECT_EQ(huge.rfind("m.csv:1:3: unknown column 'AAAA", 0), 0u) << huge.substr(0, 100);
  EXPECT_NE(huge.find("...' (10000000 bytes); expected one of K,C,Y,X,R,S,T"), std::string::npos);
}

// A link to /dev/urandom named .csv stops at the bounded read (it grew memory without limit).
TEST(GammaCsv, EndlessDeviceStopsAtTheBoundedRead) {
  const std::filesystem::path link =
      std::filesystem::temp_directory_path() / "sparsemap_gamma_csv_test_urandom.csv";
  std::filesystem::remove(link);
  std::filesystem::create_symlink("/dev/urandom", link);
  try {
    read_gamma_csv(link.string());
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              link.string() + ": more than 256 MiB; expected an input file of sensible size");
  }
  std::filesystem::remove(link);
}

}  // namespace
}  // namespace sparsemap::io
