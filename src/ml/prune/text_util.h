// Small text helpers shared by the pruning library's parsers (private to src/ml/prune).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace sparsemap::ml::prune {

// Splits on `sep`; "" gives {""}.
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// A whole decimal integer (optional leading '-'), at most 12 digits.
inline bool parse_int(const std::string& s, int64_t& out) {
  const size_t digits = s.size() - (!s.empty() && s[0] == '-' ? 1 : 0);
  if (digits == 0 || digits > 12 ||
      s.find_first_not_of("0123456789", s[0] == '-' ? 1 : 0) != std::string::npos)
    return false;
  out = std::stoll(s);
  return true;
}

// A whole finite decimal number.
inline bool parse_double(const std::string& s, double& out) {
  if (s.empty() || s.size() > 32 || s.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size() && out == out;
}

// Lower case, '-' -> '_': "Magnitude-STE" -> "magnitude_ste".
inline std::string canonical_name(std::string s) {
  for (char& c : s) {
    if (c == '-') c = '_';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

}  // namespace sparsemap::ml::prune
