// Errors shared by every layer: InputError for bad user input, SPARSEMAP_ASSERT for invariants.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace sparsemap {

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
// The CLI catches it, prints what(), and exits with status 2.
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& message)
      : std::runtime_error(where.str() + ": " + message),
        where_(std::move(where)),
        message_(message) {}

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
