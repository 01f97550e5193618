// A system's options as data: one table per command, next to its Options, that both the CLI
// (apps/option_table.h registers each row as a CLI11 flag, in table order, with its help and
// default) and the Python keywords (python/src/keywords.h reads foo_bar= as --foo-bar) are made
// from, so that a flag's name, type, default, help and checks are written once.
//
// A row names a field of the command's target (its Options, or a struct holding the Options of
// the two systems a command can run) through SM_FIELD. Its type decides the conversion, as
// CLI11 converts: bool is an on/off flag; int, int64_t and uint64_t in C's base-0 syntax (out of
// range is refused); double by strtod; a list takes one value per flag or `delimiter`-separated
// values. A "--seed" row takes digits only.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace sparsemap::options {

// A flag of the command line only, about how to print (--json, --quiet, --wide): the CLI binds
// it to a variable of its own; Python refuses json= and quiet= and takes the others as no-ops.
struct CliSwitch {};  // on/off
struct CliValue {};   // takes a text value

template <class T, class F>
using Ref = F& (*)(T&);

template <class T>
using Field =
    std::variant<std::monostate, CliSwitch, CliValue, Ref<T, bool>, Ref<T, int>, Ref<T, int64_t>,
                 Ref<T, uint64_t>, Ref<T, double>, Ref<T, std::string>, Ref<T, std::vector<int>>,
                 Ref<T, std::vector<double>>, Ref<T, std::vector<std::string>>>;

// The field `member` (a member path such as zoo.batch) of a T, as a Field<T>.
#define SM_FIELD(T, member) (+[](T& o) -> decltype((o.member)) { return o.member; })

template <class T>
struct Option {
  Option(std::string flag_, std::string help_, Field<T> field_)
      : flag(std::move(flag_)), help(std::move(help_)), field(field_) {}

  std::string flag;  // CLI11's name: "--budget", or "--x,!--no-x" for a flag and its negation
  std::string help;
  Field<T> field;
  Field<T> mirror;  // set too when the flag is given: the same option of the other system
  std::vector<std::string> members;  // the values it takes (none: any)
  bool positive = false;             // an integer > 0 (0 would mean "the default")
  bool is_required = false;
  bool timeloop_refuses = false;  // refused when the command runs on a Timeloop architecture
  char list_delimiter = 0;        // a list's separator within one value (0: one value a flag)

  Option& also(Field<T> f) { return mirror = f, *this; }
  Option& one_of(std::vector<std::string> v) { return members = std::move(v), *this; }
  Option& positive_only() { return positive = true, *this; }
  Option& required() { return is_required = true, *this; }
  Option& not_with_timeloop() { return timeloop_refuses = true, *this; }
  Option& delimiter(char c) { return list_delimiter = c, *this; }

  // The first name ("--x" of "--x,!--no-x").
  std::string name() const { return flag.substr(0, flag.find(',')); }
  // The negation's name ("--no-x" of "--x,!--no-x"; "" when there is none).
  std::string negation() const {
    const size_t at = flag.find(",!");
    return at == std::string::npos ? std::string() : flag.substr(at + 2);
  }
};

template <class T>
using Table = std::vector<Option<T>>;

// The help of the CLI's --json (a CliValue row, or a field of a command of the CLI only).
inline constexpr const char* kJsonHelp = "Write JSON to FILE, or - for stdout";

// The help of --batch, --seq and --image: a zoo model's sizes.
inline constexpr const char* kBatchHelp = "Batch size (zoo models)";
inline constexpr const char* kSeqHelp = "Sequence length (zoo language models)";
inline constexpr const char* kImageHelp = "Image side in pixels (zoo vision models)";

// The rows --batch, --seq and --image (--seq and --image positive) of the workload::ZooOptions
// `zoo` (a member path) of a T, inside a table's braces.
#define SM_ZOO_OPTIONS(T, zoo)                                                     \
  ::sparsemap::options::Option<T>{"--batch", ::sparsemap::options::kBatchHelp,     \
                                  SM_FIELD(T, zoo.batch)},                         \
      ::sparsemap::options::Option<T>{"--seq", ::sparsemap::options::kSeqHelp,     \
                                      SM_FIELD(T, zoo.seq_len)}                    \
          .positive_only(),                                                        \
      ::sparsemap::options::Option<T>{"--image", ::sparsemap::options::kImageHelp, \
                                      SM_FIELD(T, zoo.image_size)}                 \
          .positive_only()

}  // namespace sparsemap::options
