// Tests of what every error message shows of the user's input (include/sparsemap/error.h):
// control bytes escaped, length bounded, one line whatever the input.
#include <gtest/gtest.h>

#include <string>

#include "sparsemap/error.h"

namespace sparsemap {
namespace {

TEST(InputText, ControlBytesAreEscaped) {
  EXPECT_EQ(printable_text("a\x1b[2Jb\n\r\t\x7f", 100, 100), "a\\x1b[2Jb\\x0a\\x0d\\x09\\x7f");
  // C1 controls as UTF-8 encodes them (U+009B is a one-byte CSI on some terminals); other UTF-8
  // (an accented path) stays as it is.
  EXPECT_EQ(printable_text("x\xc2\x9by", 100, 100), "x\\x9by");
  EXPECT_EQ(printable_text("caf\xc3\xa9", 100, 100), "caf\xc3\xa9");
}

TEST(InputText, LongTextKeepsItsStartAndEnd) {
  const std::string s = std::string(50, 'a') + std::string(50, 'b');
  EXPECT_EQ(printable_text(s, 25, 10), std::string(10, 'a') + " ... " + std::string(10, 'b'));
  // Never cut inside a UTF-8 character.
  const std::string e = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";  // six e-acute
  EXPECT_EQ(printable_text(e, 8, 3), "\xc3\xa9 ... ");
}

TEST(InputText, QuoteInputBoundsTheFragment) {
  EXPECT_EQ(quote_input("abc"), "'abc'");
  EXPECT_EQ(quote_input(std::string(100, 'z'), 5), "'zzzzz...' (100 bytes)");
  EXPECT_EQ(quote_input("a\x1b"), "'a\\x1b'");
}

// Whatever a call site pastes into a message, what() is one printable line of bounded size.
TEST(InputText, InputErrorIsOneBoundedLine) {
  const InputError e({"in\nput.csv", 3, 4},
                     "bad '" + std::string(10'000'000, 'x') + "\x1b'; expected y");
  const std::string w = e.what();
  EXPECT_LE(w.size(), InputError::kMaxLocationBytes + InputError::kMaxMessageBytes + 2);
  EXPECT_EQ(w.find('\n'), std::string::npos);
  EXPECT_EQ(w.find('\x1b'), std::string::npos);
  EXPECT_EQ(w.substr(0, 20), "in\\x0aput.csv:3:4: b");
  EXPECT_EQ(w.substr(w.size() - 17), "\\x1b'; expected y");
}

}  // namespace
}  // namespace sparsemap
