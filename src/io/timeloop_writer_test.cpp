// Tests of write_timeloop_mapping: the exact text of a small mapping, and every committed
// map.yaml of tests/data/timeloop read, written and read back equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"
#include "support/error_of.h"
#include "support/test_data.h"

namespace sparsemap::io {
namespace {

using mapping::LoopNestDirectiveKind;

using testing::error_of;

mapping::LoopNestDirective directive(std::string target, LoopNestDirectiveKind kind,
                                     std::vector<mapping::LoopFactor> factors = {},
                                     std::string permutation = "", int split = -1,
                                     std::vector<std::string> keep = {},
                                     std::vector<std::string> bypass = {}) {
  mapping::LoopNestDirective d;
  d.target = std::move(target);
  d.kind = kind;
  d.factors = std::move(factors);
  d.permutation = std::move(permutation);
  d.split = split;
  d.keep = std::move(keep);
  d.bypass = std::move(bypass);
  return d;
}

TEST(TimeloopWriter, ExactTextOfASmallMapping) {
  mapping::LoopNest m;
  m.directives.push_back(
      directive("MainMemory", LoopNestDirectiveKind::kTemporal, {{"R", 1}, {"P", 2}}, "PR", -1));
  m.directives.push_back(
      directive("PE", LoopNestDirectiveKind::kSpatial, {{"K", 4}, {"C", 2}}, "KC", 1));
  m.directives.push_back(
      directive("RegisterFile", LoopNestDirectiveKind::kTemporal, {{"R", 3}, {"P", 8}}, "RP"));
  m.directives.push_back(directive("RegisterFile", LoopNestDirectiveKind::kDataspace, {}, "", -1,
                                   {"Outputs"}, {"Weights", "Inputs"}));
  m.directives.push_back(
      directive("inter PE: spatial", LoopNestDirectiveKind::kDataspace, {}, "", -1, {}, {}));
  EXPECT_EQ(write_timeloop_mapping(m),
            "mapping:\n"
            "  - target: MainMemory\n"
            "    type: temporal\n"
            "    factors: R=1 P=2\n"
            "    permutation: PR\n"
            "  - target: PE\n"
            "    type: spatial\n"
            "    factors: K=4 C=2\n"
            "    permutation: KC\n"
            "    split: 1\n"
            "  - target: RegisterFile\n"
            "    type: temporal\n"
            "    factors: R=3 P=8\n"
            "    permutation: RP\n"
            "  - target: RegisterFile\n"
            "    type: datatype\n"
            "    keep:\n"
            "      - Outputs\n"
            "    bypass:\n"
            "      - Weights\n"
            "      - Inputs\n"
            "  - target: \"inter PE: spatial\"\n"
            "    type: datatype\n"
            "    keep: []\n"
            "    bypass: []\n");
  const auto back = parse_timeloop_yaml(write_timeloop_mapping(m), "w.yaml");
  ASSERT_TRUE(back.mapping);
  EXPECT_EQ(*back.mapping, m);
}

TEST(TimeloopWriter, RefusesWhatCannotReadBack) {
  mapping::LoopNest m;
  m.directives.push_back(directive("", LoopNestDirectiveKind::kTemporal, {{"R", 1}}, "R"));
  EXPECT_THROW(write_timeloop_mapping(m), InputError);
  m.directives[0].target = "Buf";
  m.directives[0].factors = {{"R S", 2}};
  EXPECT_THROW(write_timeloop_mapping(m), InputError);
  m.directives[0].factors = {{"R", 0}};
  EXPECT_THROW(write_timeloop_mapping(m), InputError);
}

// Fuzz finding (timeloop_mapping): a target holding bytes that are not UTF-8 ("outpu\xff\xff\t")
// was written by yaml-cpp as U+FFFD and read back as another name. Such text is refused;
// well-formed UTF-8, tabs and YAML's special characters are written and read back equal.
TEST(TimeloopWriter, NamesMustBeUtf8AndReadBackEqual) {
  mapping::LoopNest m;
  m.directives.push_back(
      directive("outpu\xff\xff\t_reg", LoopNestDirectiveKind::kTemporal, {{"R", 1}}));
  EXPECT_EQ(error_of([&] { write_timeloop_mapping(m); }),
            "<mapping>: mapping directive 0: cannot write the target 'outpu\xff\xff\\x09_reg' "
            "(expected UTF-8 text)");
  for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xe2\x82"}) {
    m.directives[0].target = bad;
    EXPECT_THROW(write_timeloop_mapping(m), InputError) << bad;
  }
  m.directives[0] = directive("caf\xc3\xa9 \t- [x]: #y", LoopNestDirectiveKind::kDataspace, {}, "",
                              -1, {"\xf0\x9f\x98\x80", "&a", "*b", "!c", "null", "~", "'q'"},
                              {"\"d\"", "- e", "? f"});
  const auto back = parse_timeloop_yaml(write_timeloop_mapping(m), "w.yaml");
  ASSERT_TRUE(back.mapping);
  EXPECT_EQ(*back.mapping, m);
}

// Fuzz finding (timeloop_mapping): a target ending in carriage returns ("MainMemory\r\r...") was
// written plain with the raw bytes, and yaml-cpp read them back as line breaks, one fewer. Text
// with control characters (or non-ASCII) is now double-quoted, where the emitter escapes them.
TEST(TimeloopWriter, ControlCharactersAreQuotedAndReadBackEqual) {
  mapping::LoopNest m;
  m.directives.push_back(directive("MainMemory\r\r\r", LoopNestDirectiveKind::kDataspace, {}, "",
                                   -1, {"Weig\rts", "\x7f", "\x01\n"}, {"O\x1b[0m"}));
  m.directives.push_back(
      directive("\rBuf\xc2\x85\xe2\x80\xa8", LoopNestDirectiveKind::kTemporal, {{"R", 3}}, "R\r"));
  const std::string text = write_timeloop_mapping(m);
  EXPECT_NE(text.find("target: \"MainMemory\\r\\r\\r\""), std::string::npos) << text;
  const auto back = parse_timeloop_yaml(text, "w.yaml");
  ASSERT_TRUE(back.mapping);
  EXPECT_EQ(*back.mapping, m) << text;
}

// Every map.yaml Timeloop's tutorial and example designs hold (the exercises' hand-written ones
// with "R=3" factors and `type: dataspace`, timeloop-mapper's with "R3" and `type: datatype`).
std::vector<std::string> committed_maps(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 9 && name.substr(name.size() - 9) == ".map.yaml")
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TimeloopWriter, EveryCommittedMapReadsBackEqual) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const auto maps = committed_maps(dir);
  EXPECT_EQ(maps.size(), 19u);
  for (const std::string& path : maps) {
    const auto in = read_timeloop_files({path});
    ASSERT_TRUE(in.mapping) << path;
    const std::string text = write_timeloop_mapping(*in.mapping);
    const auto back = parse_timeloop_yaml(text, path + " (written)");
    ASSERT_TRUE(back.mapping) << path;
    EXPECT_EQ(*back.mapping, *in.mapping) << path << "\n" << text;
    EXPECT_EQ(write_timeloop_mapping(*back.mapping), text) << path;  // a fixed point
  }
}

}  // namespace
}  // namespace sparsemap::io
