// A system's option table (sparsemap/option_table.h) as CLI11 flags: each row registered in
// table order with its help, its field's default (--help shows it) and its checks; rows of the
// CLI only (--json, --quiet, --wide) bound to the command's own variables.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <type_traits>
#include <variant>

#include "sparsemap/error.h"
#include "sparsemap/option_table.h"

namespace sparsemap::cli {

// CLI11's check of a positive integer ("expected a positive integer (leave the flag out for the
// default)").
const CLI::Validator& positive_integer();

// The command's own variables for its CliSwitch / CliValue rows, by flag.
using CliVariables = std::map<std::string, std::variant<bool*, std::string*>>;

// Registers every row of `table` on `cmd`, bound to `target`'s fields (which must outlive the
// command) and `own`'s variables.
template <class T>
void add_options(CLI::App* cmd, const options::Table<T>& table, T& target,
                 const CliVariables& own = {}) {
  for (const options::Option<T>& row : table) {
    CLI::Option* o = std::visit(
        [&](auto field) -> CLI::Option* {
          using F = decltype(field);
          if constexpr (std::is_same_v<F, std::monostate>) {
            return nullptr;
          } else if constexpr (std::is_same_v<F, options::CliSwitch>) {
            return cmd->add_flag(row.flag, *std::get<bool*>(own.at(row.flag)), row.help);
          } else if constexpr (std::is_same_v<F, options::CliValue>) {
            return cmd->add_option(row.flag, *std::get<std::string*>(own.at(row.flag)), row.help);
          } else if constexpr (std::is_same_v<std::decay_t<decltype(field(target))>, bool>) {
            return cmd->add_flag(row.flag, field(target), row.help);
          } else {
            return cmd->add_option(row.flag, field(target), row.help);
          }
        },
        row.field);
    if (!o) continue;
    if (row.list_delimiter) o->delimiter(row.list_delimiter);
    if (!row.members.empty()) o->check(CLI::IsMember(row.members));
    if (row.positive) o->check(positive_integer());
    if (row.is_required) o->required();
  }
}

// After parsing: copies each given row's field to its mirror (the other system's option).
template <class T>
void copy_mirrors(CLI::App* cmd, const options::Table<T>& table, T& target) {
  for (const options::Option<T>& row : table) {
    if (!cmd->count(row.name()) || std::holds_alternative<std::monostate>(row.mirror)) continue;
    std::visit(
        [&](auto from) {
          using F = decltype(from);
          if constexpr (std::is_pointer_v<F>) std::get<F>(row.mirror)(target) = from(target);
        },
        row.field);
  }
}

// Throws InputError at "<flag F>" saying "F <why>" for the first row given to `cmd` that a
// Timeloop architecture refuses.
template <class T>
void refuse_with_timeloop(CLI::App* cmd, const options::Table<T>& table, const std::string& why) {
  for (const options::Option<T>& row : table)
    if (row.timeloop_refuses && cmd->count(row.name()))
      throw InputError({"<flag " + row.name() + ">"}, row.name() + " " + why);
}

}  // namespace sparsemap::cli
