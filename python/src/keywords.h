// Keyword arguments of the system functions (map_model, ...) read into a system's Options through
// its option table (sparsemap/option_table.h, the one the CLI's flags are registered from) with
// the CLI's rules and the CLI's error lines: foo_bar=x sets what --foo-bar x sets; True sets a
// flag; None and False leave an option out; a list is comma-joined. A value is turned into the
// text the CLI would see (flag_value), then converted as CLI11 converts it, so that a bad value
// raises ValueError with the first line the CLI prints for it.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.h"
#include "sparsemap/error.h"
#include "sparsemap/option_table.h"

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
// CLI11's IsMember check, with its line ("--init: x not in {random,heuristics}").
std::string member_of(const std::string& flag, const std::string& text,
                      const std::vector<std::string>& names);
// CLI11's conversion of an int flag: out of int's range is "Could not convert".
int to_int(const std::string& flag, const std::string& text);
// `text` cut at each `delimiter` (0: the whole text).
std::vector<std::string> split_values(const std::string& text, char delimiter);

// "--foo-bar" for foo_bar.
std::string flag_of(const std::string& key);
// The keyword of a flag: foo_bar for "--foo-bar", timeloop_3_0_3 for "--timeloop-3.0.3".
std::string key_of(const std::string& flag);

// Raises ValueError with CLI11's line for flags it does not know ("The following argument was
// not expected: --colour" / "... arguments were not expected: blue --colour"), `args` being
// what the CLI would have seen (flag, then its text when it has one).
[[noreturn]] void unexpected_arguments(const std::vector<std::string>& args);

// Sets `row`'s field (and mirror) of `target` from the flag's text as the CLI converts and
// checks it.
template <class T>
void set_option(const options::Option<T>& row, T& target, const std::string& text) {
  const std::string flag = row.name();
  auto value_of = [&](auto* tag, const std::string& v) {
    using F = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<F, int>) {
      return row.positive ? static_cast<int>(to_positive(flag, v)) : to_int(flag, v);
    } else if constexpr (std::is_same_v<F, int64_t>) {
      return row.positive ? to_positive(flag, v) : to_int64(flag, v);
    } else if constexpr (std::is_same_v<F, uint64_t>) {
      return flag == "--seed" ? to_seed(flag, v) : to_uint64(flag, v);
    } else if constexpr (std::is_same_v<F, double>) {
      return to_double(flag, v);
    } else {
      return row.members.empty() ? v : member_of(flag, v, row.members);
    }
  };
  auto set = [&](auto field) {
    using F = decltype(field);
    if constexpr (std::is_pointer_v<F>) {
      auto& to = field(target);
      using V = std::decay_t<decltype(to)>;
      if constexpr (std::is_same_v<V, bool>) {
        to = text == "true";
      } else if constexpr (std::is_arithmetic_v<V> || std::is_same_v<V, std::string>) {
        to = value_of(static_cast<V*>(nullptr), text);
      } else {
        // As CLI11: empty items of a delimited text are dropped, the values replace the
        // default, and one that does not convert fails them all ("Could not convert: --FLAG =
        // 1,x,2", the items joined).
        std::vector<std::string> items;
        for (const std::string& v : split_values(text, row.list_delimiter))
          if (!v.empty() || !row.list_delimiter) items.push_back(v);
        V values;
        try {
          for (const std::string& v : items)
            values.push_back(value_of(static_cast<typename V::value_type*>(nullptr), v));
        } catch (const pybind11::value_error& e) {
          if (std::string(e.what()).rfind("Could not convert: ", 0) != 0) throw;
          std::string joined;
          for (const std::string& v : items) joined += (joined.empty() ? "" : ",") + v;
          throw pybind11::value_error("Could not convert: " + flag + " = " + joined);
        }
        to = std::move(values);
      }
    }
  };
  std::visit(set, row.field);
  std::visit(set, row.mirror);
}

// Reads `kwargs` into `target` through `table` as the CLI reads the flags: foo_bar=x is
// --foo-bar x, True sets an on/off flag (no_x=True its negation "--x,!--no-x"), None and False
// leave a keyword out. `skip` names keywords the caller handles itself. json= and quiet= raise
// ValueError (the function returns the JSON; it prints nothing); rows of the CLI only are read
// and change nothing.
template <class T>
void read_options(const pybind11::kwargs& kwargs, const options::Table<T>& table, T& target,
                  const std::vector<std::string>& skip = {}) {
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
    const options::Option<T>* row = nullptr;
    bool negated = false;
    for (const auto& r : table) {
      if (key_of(r.name()) == key) row = &r;
      if (!r.negation().empty() && key_of(r.negation()) == key) row = &r, negated = true;
    }
    const bool is_bool = pybind11::isinstance<pybind11::bool_>(item.second);
    if (!row) {
      if (is_bool && !item.second.template cast<bool>()) continue;
      unexpected.push_back(flag);
      if (!is_bool) unexpected.push_back(flag_value(item.second));
      continue;
    }
    const bool on_off = std::holds_alternative<options::CliSwitch>(row->field) ||
                        std::holds_alternative<options::Ref<T, bool>>(row->field);
    if (on_off) {
      if (PyObject_IsTrue(item.second.ptr()) == 1) set_option(*row, target, negated ? "" : "true");
      continue;
    }
    if (is_bool) {
      if (!item.second.template cast<bool>()) continue;
      throw pybind11::value_error(flag + ": 1 required " + "value missing");
    }
    set_option(*row, target, flag_value(item.second));
  }
  if (!unexpected.empty()) unexpected_arguments(unexpected);
}

// One line per keyword of `table` for a docstring: "  foo_bar (int, default 3): HELP", the
// default read from `defaults` (a default-constructed target); the CLI's own rows (json=,
// quiet=, ...) and positional rows left out.
std::string default_text(bool v);
std::string default_text(int v);
std::string default_text(int64_t v);
std::string default_text(uint64_t v);
std::string default_text(double v);
std::string default_text(const std::string& v);
template <class V>
std::string default_text(const std::vector<V>& v) {
  std::string s;
  for (const V& x : v) s += (s.empty() ? "" : ",") + default_text(x);
  return s;
}
std::string keyword_line(const std::string& flag, const std::string& type,
                         const std::string& default_value, const std::string& help);

template <class T>
std::string describe_options(const options::Table<T>& table, T defaults = T{}) {
  std::string out = "\n\nKeywords (the CLI's flags; defaults as its --help shows them):\n";
  for (const auto& row : table)
    if (row.name().rfind("--", 0) == 0)  // a positional row is the function's own argument
      std::visit(
          [&](auto field) {
            if constexpr (std::is_pointer_v<decltype(field)>) {
              const auto& v = field(defaults);
              using V = std::decay_t<decltype(v)>;
              const char* type = std::is_same_v<V, bool>          ? "bool"
                                 : std::is_same_v<V, double>      ? "float"
                                 : std::is_same_v<V, std::string> ? "str"
                                 : std::is_arithmetic_v<V>        ? "int"
                                                                  : "list";
              if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>)
                out += keyword_line(
                    row.name(), type,
                    default_text(
                        static_cast<std::conditional_t<std::is_signed_v<V>, int64_t, uint64_t>>(v)),
                    row.help);
              else
                out += keyword_line(row.name(), type, default_text(v), row.help);
            }
          },
          row.field);
  return out;
}

// The body of a system function: `o` (the system's defaults) read from `kwargs` through `table`
// (`skip`: keywords the caller reads itself; progress= always), then run(o, observer) with the
// GIL released (run_released, progress= its callback); returns run's result.
template <class T, class Run>
auto run_with_options(const pybind11::kwargs& kwargs, const options::Table<T>& table, T o, Run run,
                      std::vector<std::string> skip = {}) {
  skip.push_back("progress");
  read_options(kwargs, table, o, skip);
  return run_released(progress_argument(kwargs),
                      [&o, &run](search::Observer& obs) { return run(o, obs); });
}

// The CLI's refusal (InputError at "<flag F>": "F <why>") of the first row of `table`, in table
// order, that `kwargs` sets (a value other than None / False) and a Timeloop architecture
// refuses.
template <class T>
void refuse_with_timeloop(const pybind11::kwargs& kwargs, const options::Table<T>& table,
                          const std::string& why) {
  for (const auto& row : table) {
    if (!row.timeloop_refuses) continue;
    for (auto item : kwargs) {
      const pybind11::handle v = item.second;
      if (std::string(pybind11::str(item.first)) != key_of(row.name()) || v.is_none() ||
          (pybind11::isinstance<pybind11::bool_>(v) && !v.cast<bool>()))
        continue;
      throw InputError({"<flag " + row.name() + ">"}, row.name() + " " + why);
    }
  }
}

}  // namespace sparsemap::python
