// Errors shared by every layer: InputError for bad user input, SPARSEMAP_ASSERT for invariants.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sparsemap {

// `s` made safe to print as part of one terminal line: control bytes (C0, DEL, and C1 as
// UTF-8 encodes them) become \xNN, so input can neither break the line nor drive the
// terminal; text longer than `max_bytes` keeps its first `head` bytes and its last
// max_bytes - head - 5, joined by " ... " (cut on UTF-8 character boundaries). The result is
// at most 4 max_bytes long (an escaped byte takes 4).
inline std::string printable_text(std::string_view s, size_t max_bytes, size_t head) {
  auto escape = [](std::string_view part) {
    static const char* kHex = "0123456789abcdef";
    std::string out;
    out.reserve(part.size());
    for (size_t i = 0; i < part.size(); ++i) {
      const auto c = static_cast<unsigned char>(part[i]);
      const bool c1 = c == 0xc2 && i + 1 < part.size() &&
                      static_cast<unsigned char>(part[i + 1]) >= 0x80 &&
                      static_cast<unsigned char>(part[i + 1]) <= 0x9f;
      if (c < 0x20 || c == 0x7f || c1) {
        const auto b = c1 ? static_cast<unsigned char>(part[++i]) : c;
        out += "\\x";
        out += kHex[b >> 4];
        out += kHex[b & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
    return out;
  };
  if (s.size() <= max_bytes) return escape(s);
  auto boundary = [&](size_t i) {  // back to the start of a UTF-8 character
    while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80) --i;
    return i;
  };
  head = std::min(head, max_bytes);
  const size_t tail = max_bytes > head + 5 ? max_bytes - head - 5 : 0;
  const size_t cut = boundary(head), resume = boundary(s.size() - tail);
  return escape(s.substr(0, cut)) + " ... " + escape(s.substr(resume));
}

// A fragment of the user's input quoted in a message: 'text', escaped as printable_text does,
// at most `max_bytes` of it (then "...' (N bytes)").
inline std::string quote_input(std::string_view s, size_t max_bytes = 60) {
  if (s.size() <= max_bytes) return "'" + printable_text(s, max_bytes, max_bytes) + "'";
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
  return "'" + printable_text(s.substr(0, cut), cut, cut) + "...' (" + std::to_string(s.size()) +
         " bytes)";
}

// Where in a user's input something was found. line and column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;  // path as the user gave it, or a label such as "<flag --hw>"
  int line = 0;
  int column = 0;

  // "file:line:column", "file:line" or "file", depending on what is known.
  std::string str() const {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (line > 0) s += ":" + std::to_string(line);
    if (line > 0 && column > 0) s += ":" + std::to_string(column);
    return s;
  }
};

// Bad user input (a file or a flag). what() is one line: "file:line:column: message".
// The CLI catches it, prints what(), and exits with status 2. Whatever a site quotes from the
// input, what() stays one printable line of bounded length: the location and the message go
// through printable_text (at most 300 and 1,500 bytes; a long message keeps its start and its
// end, where "expected ..." usually is).
class InputError : public std::runtime_error {
 public:
  static constexpr size_t kMaxLocationBytes = 300;
  static constexpr size_t kMaxMessageBytes = 1500;
  InputError(SourceLocation where, const std::string& message)
      : std::runtime_error(printable_text(where.str(), kMaxLocationBytes, 200) + ": " +
                           printable_text(message, kMaxMessageBytes, 1000)),
        where_(std::move(where)),
        message_(printable_text(message, kMaxMessageBytes, 1000)) {}

  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// A warning about user input that was accepted after a correction (e.g. a clamped tile).
struct InputWarning {
  SourceLocation where;
  std::string message;
  std::string str() const { return where.str() + ": warning: " + message; }
};

}  // namespace sparsemap

// Internal invariant: a failure is a bug in sparsemap, never bad input.
#define SPARSEMAP_ASSERT(cond)                                                                  \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "%s:%d: internal error: assertion failed: %s\n", __FILE__, __LINE__, \
                   #cond);                                                                      \
      std::abort();                                                                             \
    }                                                                                           \
  } while (0)
