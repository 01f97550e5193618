// without_ignored_blocks (timeloop_yaml.h): which blocks are emptied, and that every other line
// keeps its text and its number.
#include <gtest/gtest.h>

#include <string>

#include "timeloop_yaml.h"

namespace sparsemap::io::timeloop_detail {
namespace {

const std::vector<std::string> kIgnored = {"compound_components"};

TEST(TimeloopIgnoredBlocks, EmptiesABlockStyleBodyAndKeepsLineNumbers) {
  const std::string text =
      "architecture:\n  version: 0.4\n"
      "compound_components:  # ignored\n  version: 0.4\n  classes:\n- name: mac\n"
      "\n    attributes: {a: 1}\n# comment\n"
      "problem:\n  shape: x\n";
  const std::string expected =
      "architecture:\n  version: 0.4\n"
      "compound_components:  # ignored\n\n\n\n\n\n\n"
      "problem:\n  shape: x\n";
  EXPECT_EQ(without_ignored_blocks(text, kIgnored), expected);
}

TEST(TimeloopIgnoredBlocks, AtTheEndOfTheText) {
  EXPECT_EQ(without_ignored_blocks("a: 1\ncompound_components:\n  x: 1\n  y: 2", kIgnored),
            "a: 1\ncompound_components:\n\n");
}

// Kept whole: anchors, aliases or tags inside (something may refer to them), a flow or scalar
// value after the colon, a key that only starts like the ignored one, and an indented key.
TEST(TimeloopIgnoredBlocks, KeepsWhatCouldMatter) {
  for (const std::string text :
       {"compound_components:\n  base: &b {x: 1}\nother: *b\n",
        "compound_components:\n  - !tag x\n", "compound_components: [a,\n  b]\n",
        "compound_components: none\n  more\n", "compound_components_x:\n  a: 1\n",
        "top:\n  compound_components:\n    a: 1\n"})
    EXPECT_EQ(without_ignored_blocks(text, kIgnored), text) << text;
}

// Formulas with '*' in plain scalars are text, not aliases: the block is emptied.
TEST(TimeloopIgnoredBlocks, StarsInsideScalarsAreText) {
  EXPECT_EQ(without_ignored_blocks("compound_components:\n  - name: s[1..width*depth]\n"
                                   "    scale: a * (b ** 2)\n",
                                   kIgnored),
            "compound_components:\n\n\n");
  for (const std::string text :
       {"compound_components:\n  - *x\n", "compound_components:\n  a: [1, *x]\n",
        "compound_components:\n  a:   &x 1\n", "compound_components:\n  *x : 1\n"})
    EXPECT_EQ(without_ignored_blocks(text, kIgnored), text) << text;
}

// A document marker ends the block.
TEST(TimeloopIgnoredBlocks, StopsAtADocumentMarker) {
  EXPECT_EQ(without_ignored_blocks("compound_components:\n  a: 1\n---\nb: 2\n", kIgnored),
            "compound_components:\n\n---\nb: 2\n");
}

}  // namespace
}  // namespace sparsemap::io::timeloop_detail
