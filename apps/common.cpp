// Shared CLI helpers: JSON output, tables, model loading, layer descriptions.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::cli {

using workload::Dim;
using workload::Layer;
using workload::OpKind;

namespace {

// CLI11's formatter with its text wrapped to kColumns: an option's description starts at the
// description column (on the next line when the option's name and default are longer) and
// continues there; descriptions of commands likewise.
class WrappingFormatter : public CLI::Formatter {
 public:
  WrappingFormatter() { column_width(32); }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    // A negated flag ("--x,!--no-x") is listed by CLI11 as "--x, --no-x{false}": drop the
    // "{false}", which reads as a default.
    std::string name = make_option_name(opt, is_positional);
    for (size_t at; (at = name.find('{')) != std::string::npos;)
      name.erase(at, name.find('}', at) == std::string::npos ? std::string::npos
                                                             : name.find('}', at) - at + 1);
    return entry(name + make_option_opts(opt), make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return entry(sub->get_display_name(true), sub->get_description());
  }
  std::string make_description(const CLI::App* app) const override {
    const std::string d = CLI::Formatter::make_description(app);
    std::string out;
    for (const std::string& l : wrap_text(d, kColumns)) out += l + "\n";
    return d.empty() ? std::string() : out;
  }

 private:
  std::string entry(const std::string& name, const std::string& desc) const {
    const size_t col = get_column_width();
    std::string out = "  " + name;
    std::vector<std::string> lines = wrap_text(desc, kColumns - col);
    if (desc.empty()) lines.clear();
    if (out.size() >= col && !lines.empty())
      out += "\n" + std::string(col, ' ');
    else if (!lines.empty())
      out += std::string(col - out.size(), ' ');
    for (size_t i = 0; i < lines.size(); ++i)
      out += (i ? "\n" + std::string(col, ' ') : "") + lines[i];
    return out + "\n";
  }
};

}  // namespace

void configure_cli(CLI::App& app) {
  app.formatter(std::make_shared<WrappingFormatter>());
  app.option_defaults()->always_capture_default()->multi_option_policy(
      CLI::MultiOptionPolicy::TakeLast);
}

void write_json(const nlohmann::json& j, const std::string& dest) {
  const std::string text = j.dump(2) + "\n";
  if (dest == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(dest, std::ios::binary);
  if (!out || !(out << text)) throw InputError({dest, 0, 0}, "cannot write the JSON file");
}

void refuse_flags(CLI::App* cmd, std::initializer_list<const char*> flags, const std::string& why) {
  for (const char* flag : flags)
    if (cmd->count(flag))
      throw InputError({std::string("<flag ") + flag + ">"}, std::string(flag) + " " + why);
}

const CLI::Validator& positive_integer() {
  static const CLI::Validator positive(
      [](std::string& value) -> std::string {
        const bool ok = value.find_first_not_of("0123456789") == std::string::npos &&
                        value.find_first_not_of('0') != std::string::npos;
        return ok ? "" : "expected a positive integer (leave the flag out for the default)";
      },
      "POSITIVE");
  return positive;
}

void check_seed_options(CLI::App& app) {
  const CLI::Validator digits(
      [](std::string& value) -> std::string {
        const bool ok =
            !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
        return ok ? "" : "expected a non-negative integer";
      },
      "SEED");
  std::vector<CLI::App*> todo = {&app};
  while (!todo.empty()) {
    CLI::App* a = todo.back();
    todo.pop_back();
    if (CLI::Option* o = a->get_option_no_throw("--seed")) o->check(digits);
    for (CLI::App* sub : a->get_subcommands({})) todo.push_back(sub);
  }
}

std::vector<std::string> wrap_text(const std::string& text, size_t width) {
  width = std::max<size_t>(width, 1);
  std::vector<std::string> lines;
  std::istringstream paragraphs(text);
  std::string para;
  while (std::getline(paragraphs, para)) {
    std::istringstream words(para);
    std::string word, line;
    while (words >> word) {
      while (word.size() > width) {  // a word longer than a line: cut it after a . _ / or -
        if (!line.empty()) lines.push_back(line), line.clear();
        size_t cut = word.find_last_of("._/-", width - 1);
        cut = cut == std::string::npos || cut == 0 ? width : cut + 1;
        lines.push_back(word.substr(0, cut));
        word.erase(0, cut);
      }
      if (!line.empty() && line.size() + 1 + word.size() > width)
        lines.push_back(line), line.clear();
      line += (line.empty() ? "" : " ") + word;
    }
    lines.push_back(line);
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

void print_warning(const std::string& text) {
  const std::string prefix = "sparsemap: warning: ";
  const std::vector<std::string> lines = wrap_text(prefix + text, kColumns);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == 0) {
      std::cerr << lines[i] << "\n";
      continue;
    }
    for (const std::string& l : wrap_text(lines[i], kColumns - 2)) std::cerr << "  " << l << "\n";
  }
}

void warn_timing_environment(const std::string& command) {
  for (const std::string& w : measure::timing_environment_warnings(command)) print_warning(w);
}

namespace {

bool numeric_cell(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789,.-%e+x") == std::string::npos &&
         s.find_first_of("0123456789") != std::string::npos;
}

}  // namespace

std::string Table::str(size_t max_columns) const {
  const size_t n = header_.size();
  // A column is numeric when most of its filled cells are numbers: all its cells (the header,
  // "-", "infeasible") are then right-aligned, so the numbers line up.
  std::vector<bool> right(n, false);
  for (size_t i = 0; i < n; ++i) {
    int nums = 0, texts = 0;
    for (const auto& r : rows_)
      if (i < r.size() && !r[i].empty() && r[i] != "-") (numeric_cell(r[i]) ? nums : texts)++;
    right[i] = nums > 0 && nums >= texts;
  }
  std::vector<size_t> width(n, 0);
  auto widen = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < n; ++i) width[i] = std::max(width[i], r[i].size());
  };
  widen(header_);
  for (const auto& r : rows_) widen(r);
  auto total_width = [&] {
    size_t t = 0;
    for (size_t w : width) t += w + 2;
    return t > 2 ? t - 2 : 0;
  };
  // Too wide: narrow the widest text column (to no less than 12 columns) and wrap its cells;
  // then the next widest, until the table fits or no text column is left to narrow.
  if (max_columns > 0) {
    std::vector<bool> narrowed(n, false);
    while (total_width() > max_columns) {
      size_t pick = n;
      for (size_t i = 0; i < n; ++i)
        if (!right[i] && !narrowed[i] && width[i] > 12 && (pick == n || width[i] > width[pick]))
          pick = i;
      if (pick == n) break;
      narrowed[pick] = true;
      const size_t excess = total_width() - max_columns;
      width[pick] = width[pick] > excess + 12 ? width[pick] - excess : 12;
    }
  }
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& r) {
    std::vector<std::vector<std::string>> cells(n);
    size_t height = 1;
    for (size_t i = 0; i < n; ++i) {
      const std::string& c = i < r.size() ? r[i] : std::string();
      cells[i] = c.size() > width[i] ? wrap_text(c, width[i]) : std::vector<std::string>{c};
      height = std::max(height, cells[i].size());
    }
    for (size_t k = 0; k < height; ++k) {
      std::string text;
      for (size_t i = 0; i < n; ++i) {
        const std::string c = k < cells[i].size() ? cells[i][k] : "";
        const std::string pad(width[i] - std::min(width[i], c.size()), ' ');
        text += (i ? "  " : "") + (right[i] ? pad + c : c + pad);
      }
      os << text.substr(0, text.find_last_not_of(' ') + 1) << "\n";
    }
  };
  line(header_);
  os << std::string(total_width(), '-') << "\n";
  for (const auto& r : rows_) line(r);
  return os.str();
}

// The progress line on stderr: distinct layer, samples of its budget, best fitness.
void print_search_progress(size_t u, size_t n, int64_t s, int64_t b, double best) {
  const int w = 30;
  const int fill = static_cast<int>(
      w *
      std::clamp(static_cast<double>(s) / static_cast<double>(std::max<int64_t>(1, b)), 0.0, 1.0));
  std::fprintf(stderr, "\r[%3zu/%zu] [%s%s] %lld/%lld best %.4g   ", u + 1, n,
               std::string(static_cast<size_t>(fill), '#').c_str(),
               std::string(static_cast<size_t>(w - fill), '.').c_str(), static_cast<long long>(s),
               static_cast<long long>(b), best >= search::kInfeasible ? 0.0 : best);
}

}  // namespace sparsemap::cli
