// Tokenizer of MAESTRO's DFSL files: see dfsl_lexer.h for the token grammar.
#include "dfsl_lexer.h"

#include <climits>
#include <cstdio>

namespace sparsemap::io::dfsl {
namespace {

bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_alpha(c) || is_digit(c) || c == '-' || c == '.'; }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string cut(std::string_view s) {
  constexpr size_t kMax = 40;
  if (s.size() <= kMax) return std::string(s);
  return std::string(s.substr(0, kMax)) + "...";
}

}  // namespace

bool Token::is_word(std::string_view word) const {
  if (kind != TokKind::Ident || text.size() != word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (lower(text[i]) != lower(word[i])) return false;
  return true;
}

std::string describe(const Token& t) {
  if (t.kind == TokKind::End) return "end of file";
  return "'" + cut(t.text) + "'";
}

void Lexer::fail(int line, int column, const std::string& message) const {
  throw InputError({file_, line, column}, message);
}

// Line and column saturate at INT_MAX (a text of 2 GiB on one line stays well defined).
void Lexer::advance() {
  if (text_[pos_] == '\n') {
    if (line_ < INT_MAX) ++line_;
    column_ = 1;
  } else if (column_ < INT_MAX) {
    ++column_;
  }
  ++pos_;
}

void Lexer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (is_space(c)) {
      advance();
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance();
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      const int line = line_, column = column_;
      advance();
      advance();
      while (pos_ < text_.size() &&
             !(text_[pos_] == '*' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/'))
        advance();
      if (pos_ >= text_.size()) fail(line, column, "unterminated comment: expected '*/'");
      advance();
      advance();
    } else {
      return;
    }
  }
}

Token Lexer::next() {
  skip_space_and_comments();
  Token t;
  t.line = line_;
  t.column = column_;
  if (pos_ >= text_.size()) {
    t.text = text_.substr(text_.size());
    return t;
  }
  const size_t start = pos_;
  const char c = text_[pos_];
  if (is_alpha(c)) {
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) advance();
    t.kind = TokKind::Ident;
  } else if (is_digit(c) || (c == '-' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
    const bool negative = c == '-';
    if (negative) advance();
    bool too_large = false;
    int64_t v = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      if (!too_large) {
        v = v * 10 + (text_[pos_] - '0');  // v <= kMaxNumber before, so no overflow here
        too_large = v > kMaxNumber;
      }
      advance();
    }
    if (pos_ < text_.size() && (is_alpha(text_[pos_]) || text_[pos_] == '.')) {
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) advance();
      fail(t.line, t.column,
           "malformed number " + describe({TokKind::Number, text_.substr(start, pos_ - start)}) +
               ": expected an integer");
    }
    if (too_large)
      fail(t.line, t.column,
           "number " + describe({TokKind::Number, text_.substr(start, pos_ - start)}) +
               " is too large (at most " + std::to_string(kMaxNumber) + ")");
    t.kind = TokKind::Number;
    t.value = negative ? -v : v;
  } else if (c == '{' || c == '}' || c == '(' || c == ')' || c == ',' || c == ';' || c == ':' ||
             c == '\'') {
    advance();
    t.kind = TokKind::Punct;
  } else {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x21 && byte < 0x7f)
      fail(t.line, t.column, std::string("unexpected character '") + c + "'");
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", byte);
    fail(t.line, t.column, std::string("unexpected byte ") + hex + " (expected DFSL text)");
  }
  t.text = text_.substr(start, pos_ - start);
  return t;
}

}  // namespace sparsemap::io::dfsl
