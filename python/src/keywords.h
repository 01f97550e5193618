// Keyword arguments of the system functions (map_model, ...) read into a system's Options with
// the CLI's rules and the CLI's error lines: foo_bar=x sets what --foo-bar x sets; True sets a
// flag; None and False leave an option out; a list is comma-joined. A value is turned into the
// text the CLI would see (flag_value), then converted as CLI11 converts it, so that a bad value
// raises ValueError with the first line the CLI prints for it.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sparsemap::python {

// A flag's value as the CLI reads it: lists comma-joined, floats by repr (shortest exact text).
std::string flag_value(pybind11::handle v);

// CLI11's conversions of a flag's text (ValueError "Could not convert: --FLAG = TEXT" when the
// text is not one): integers in C's base-0 syntax, doubles by strtod, whole text consumed.
int64_t to_int64(const std::string& flag, const std::string& text);
uint64_t to_uint64(const std::string& flag, const std::string& text);
double to_double(const std::string& flag, const std::string& text);
// The CLI's --seed check: digits only ("--seed: expected a non-negative integer").
uint64_t to_seed(const std::string& flag, const std::string& text);
// The CLI's --seq / --image check: a positive integer.
int64_t to_positive(const std::string& flag, const std::string& text);

// One keyword of a function: its flag ("--foo-bar"), whether it is an on/off flag, and how the
// flag's text (an on/off flag: "true") sets the options.
template <class Options>
struct Keyword {
  std::string flag;
  bool on_off = false;
  std::function<void(Options&, const std::string&)> set;
};

// Table rows: a text option, a converted one (conv: to_int64, to_seed, ...), an on/off flag,
// and one that is read (converted, so that a bad value is refused) but changes nothing.
#define SM_KW_TEXT(O, flag, field)                               \
  ::sparsemap::python::Keyword<O> {                              \
    flag, false, [](O& o, const std::string& v) { o.field = v; } \
  }
#define SM_KW_NUM(O, flag, field, conv)                        \
  ::sparsemap::python::Keyword<O> {                            \
    flag, false, [](O& o, const std::string& v) {              \
      o.field = static_cast<decltype(o.field)>(conv(flag, v)); \
    }                                                          \
  }
#define SM_KW_ON(O, flag, field)                                 \
  ::sparsemap::python::Keyword<O> {                              \
    flag, true, [](O& o, const std::string&) { o.field = true; } \
  }
#define SM_KW_IGNORED(O, flag, on_off, conv)                            \
  ::sparsemap::python::Keyword<O> {                                     \
    flag, on_off, [](O&, const std::string& v) { (void)conv(flag, v); } \
  }

// The text itself (a conversion for SM_KW_IGNORED text options).
inline std::string as_text(const std::string&, const std::string& v) { return v; }

// "--foo-bar" for foo_bar.
std::string flag_of(const std::string& key);

// Raises ValueError with CLI11's line for flags it does not know ("The following argument was
// not expected: --colour" / "... arguments were not expected: blue --colour"), `args` being
// what the CLI would have seen (flag, then its text when it has one).
[[noreturn]] void unexpected_arguments(const std::vector<std::string>& args);

// Reads `kwargs` into `o` through `table`; `skip` names keywords the caller handles itself.
// json= and quiet= raise ValueError (the function returns the JSON; it prints nothing).
template <class Options>
void read_keywords(const pybind11::kwargs& kwargs, const std::vector<Keyword<Options>>& table,
                   Options& o, const std::vector<std::string>& skip = {}) {
  std::vector<std::string> unexpected;
  for (auto item : kwargs) {
    const std::string key = pybind11::str(item.first);
    if (key == "json" || key == "quiet")
      throw pybind11::value_error(
          key + ": the function returns the JSON as a dict; it takes no --" + key);
    bool skipped = false;
    for (const std::string& s : skip) skipped = skipped || s == key;
    if (skipped || item.second.is_none()) continue;
    const std::string flag = flag_of(key);
    const Keyword<Options>* kw = nullptr;
    for (const auto& k : table)
      if (k.flag == flag) kw = &k;
    const bool is_bool = pybind11::isinstance<pybind11::bool_>(item.second);
    if (!kw) {
      if (is_bool && !item.second.template cast<bool>()) continue;
      unexpected.push_back(flag);
      if (!is_bool) unexpected.push_back(flag_value(item.second));
      continue;
    }
    if (kw->on_off) {
      if (PyObject_IsTrue(item.second.ptr()) == 1) kw->set(o, "true");
      continue;
    }
    if (is_bool) {
      if (!item.second.template cast<bool>()) continue;
      throw pybind11::value_error(flag + ": 1 required " + "value missing");
    }
    kw->set(o, flag_value(item.second));
  }
  if (!unexpected.empty()) unexpected_arguments(unexpected);
}

}  // namespace sparsemap::python
