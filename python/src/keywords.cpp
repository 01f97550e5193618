// Keyword arguments read with the CLI's conversions and error lines (keywords.h).
#include "keywords.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

namespace sparsemap::python {

namespace py = pybind11;

namespace {

[[noreturn]] void not_converted(const std::string& flag, const std::string& text) {
  throw py::value_error("Could not convert: " + flag + " = " + text);
}

}  // namespace

std::string flag_value(py::handle v) {
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::string s;
    for (py::handle x : v) s += (s.empty() ? "" : ",") + flag_value(x);
    return s;
  }
  if (py::isinstance<py::float_>(v)) return py::str(py::repr(v));  // shortest exact text
  return py::str(v);
}

std::string flag_of(const std::string& key) {
  std::string flag = "--" + key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

int64_t to_int64(const std::string& flag, const std::string& text) {
  if (text.empty()) not_converted(flag, text);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 0);
  if (errno == ERANGE || end != text.c_str() + text.size()) not_converted(flag, text);
  return v;
}

uint64_t to_uint64(const std::string& flag, const std::string& text) {
  if (text.empty() || text[0] == '-') not_converted(flag, text);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno == ERANGE || end != text.c_str() + text.size()) not_converted(flag, text);
  return v;
}

double to_double(const std::string& flag, const std::string& text) {
  if (text.empty()) not_converted(flag, text);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) not_converted(flag, text);
  return v;
}

uint64_t to_seed(const std::string& flag, const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw py::value_error(flag + ": expected a non-negative integer");
  return to_uint64(flag, text);
}

int64_t to_positive(const std::string& flag, const std::string& text) {
  if (text.find_first_not_of("0123456789") != std::string::npos ||
      text.find_first_not_of('0') == std::string::npos)
    throw py::value_error(flag +
                          ": expected a positive integer (leave the flag out for the default)");
  return to_int64(flag, text);
}

std::string member_of(const std::string& flag, const std::string& text,
                      const std::vector<std::string>& names) {
  std::string set;
  for (const auto& n : names) {
    if (n == text) return text;
    set += (set.empty() ? "" : ",") + n;
  }
  throw py::value_error(flag + ": " + text + " not in {" + set + "}");
}

int to_int(const std::string& flag, const std::string& text) {
  const int64_t v = to_int64(flag, text);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    not_converted(flag, text);
  return static_cast<int>(v);
}

std::vector<std::string> split_values(const std::string& text, char delimiter) {
  if (!delimiter) return {text};
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t at; (at = text.find(delimiter, from)) != std::string::npos; from = at + 1)
    parts.push_back(text.substr(from, at - from));
  parts.push_back(text.substr(from));
  return parts;
}

std::string default_text(bool v) { return v ? "True" : "False"; }
std::string default_text(int v) { return std::to_string(v); }
std::string default_text(int64_t v) { return std::to_string(v); }
std::string default_text(uint64_t v) { return std::to_string(v); }
std::string default_text(double v) { return py::str(py::repr(py::float_(v))); }
std::string default_text(const std::string& v) { return v.empty() ? "None" : "'" + v + "'"; }

std::string key_of(const std::string& flag) {
  std::string key = flag.substr(flag.find_first_not_of('-'));
  for (char& c : key)
    if (c == '-' || c == '.') c = '_';
  return key;
}

std::string keyword_line(const std::string& flag, const std::string& type,
                         const std::string& default_value, const std::string& help) {
  return "  " + key_of(flag) + " (" + type + ", default " + default_value + "): " + help + "\n";
}

void unexpected_arguments(const std::vector<std::string>& args) {
  std::string joined;
  for (auto it = args.rbegin(); it != args.rend(); ++it)
    joined += (joined.empty() ? "" : " ") + *it;
  throw py::value_error(std::string(args.size() > 1 ? "The following arguments were not expected: "
                                                    : "The following argument was not expected: ") +
                        joined);
}

}  // namespace sparsemap::python
