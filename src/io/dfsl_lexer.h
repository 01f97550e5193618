// Tokenizer of MAESTRO's DFSL (.m) files, used by dfsl_reader.cpp. Internal to io/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sparsemap/error.h"

namespace sparsemap::io::dfsl {

// Largest integer a DFSL file may contain. Every DFSL number is a size, an offset, a stride or
// a constant; 2^31 - 1 keeps every product the cost model forms of a few of them inside int64.
inline constexpr int64_t kMaxNumber = 2147483647;

enum class TokKind { End, Ident, Number, Punct };

// One token. `text` views the source (it lives as long as the text given to the Lexer).
struct Token {
  TokKind kind = TokKind::End;
  std::string_view text;
  int64_t value = 0;  // Number: the value, negative when written with a leading '-'
  int line = 1;       // 1-based
  int column = 1;     // 1-based, in bytes (a tab counts as one column)

  bool is_punct(char c) const { return kind == TokKind::Punct && text.size() == 1 && text[0] == c; }
  // Ident whose text equals `word`, ignoring ASCII case.
  bool is_word(std::string_view word) const;
};

// How a token reads in an error message: "'Layer'", "'{'", "'-3'" or "end of file". Long
// texts are cut to 40 characters plus "...".
std::string describe(const Token& t);

// Turns DFSL text into tokens, one at a time, skipping whitespace, `// line` and `/* block */`
// comments. Tokens:
//   Ident  [A-Za-z_][A-Za-z0-9_.-]*   (names such as Conv2d-1 or layer1.0.conv1)
//   Number -?[0-9]+                   (at most kMaxNumber in magnitude)
//   Punct  one of { } ( ) , ; : '
// next() throws InputError at the offending byte for any other character, a malformed or too
// large number, or an unterminated block comment. It never reads past the text.
class Lexer {
 public:
  Lexer(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  Token next();
  SourceLocation where(const Token& t) const { return {file_, t.line, t.column}; }
  const std::string& file() const { return file_; }

 private:
  void skip_space_and_comments();
  void advance();  // one byte, tracking line and column
  [[noreturn]] void fail(int line, int column, const std::string& message) const;

  std::string_view text_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace sparsemap::io::dfsl
