// Two conveniences of Timeloop's front end that the exercises' layer_shapes files use:
// `{{include_text('path')}}` (the text of another file, relative to the including one) and the
// `<<<` key (a deep merge of an anchored mapping under the keys beside it).
#include <algorithm>
#include <filesystem>

#include "sparsemap/io/util.h"
#include "timeloop_yaml.h"

namespace sparsemap::io::timeloop_detail {
namespace {

constexpr int kMaxIncludeDepth = 8;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "include_text('a/b.yaml')" (or with double quotes) -> "a/b.yaml"; "" otherwise.
std::string include_path(const std::string& expr) {
  const std::string head = "include_text(";
  if (expr.size() < head.size() + 4 || expr.compare(0, head.size(), head) != 0 ||
      expr.back() != ')')
    return "";
  const std::string arg = trim(expr.substr(head.size(), expr.size() - head.size() - 1));
  if (arg.size() < 3 || (arg.front() != '\'' && arg.front() != '"') || arg.back() != arg.front())
    return "";
  const std::string path = arg.substr(1, arg.size() - 2);
  return path.find_first_of("'\"{}") == std::string::npos ? path : "";
}

[[noreturn]] void jinja_error(const SourceLocation& where) {
  throw InputError(where,
                   "this file holds Jinja templating ('{{', '{%' or '{#') other than "
                   "{{include_text('file')}}; render it first (timeloopfe does) and pass the "
                   "rendered YAML");
}

void expand_into(IncludedText& out, const std::string& text, const std::string& file, int depth) {
  int line = 1, col = 1;
  auto put = [&](char c) {
    if (out.text.empty() || out.text.back() == '\n') out.origins.push_back({file, line});
    out.text += c;
  };
  for (size_t i = 0; i < text.size();) {
    const bool open = text[i] == '{' && i + 1 < text.size() &&
                      (text[i + 1] == '{' || text[i + 1] == '%' || text[i + 1] == '#');
    if (!open) {
      put(text[i]);
      if (text[i++] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
      continue;
    }
    const SourceLocation here{file, line, col};
    const size_t end = text[i + 1] == '{' ? text.find("}}", i + 2) : std::string::npos;
    const std::string path =
        end == std::string::npos ? "" : include_path(trim(text.substr(i + 2, end - i - 2)));
    if (path.empty()) jinja_error(here);
    if (depth >= kMaxIncludeDepth)
      throw InputError(
          here, "expected includes nested at most " + std::to_string(kMaxIncludeDepth) + " deep");
    const std::string full = (std::filesystem::path(file).parent_path() / path).string();
    std::string sub;
    try {
      sub = read_file(full);
    } catch (const InputError& e) {
      throw InputError(here, "cannot include " + quote_input(path) + ": " + e.message());
    }
    expand_into(out, std::string(without_bom(sub)), full, depth + 1);
    col += static_cast<int>(end + 2 - i);
    i = end + 2;
  }
}

// Adds to map `into` every entry of map `base` it lacks; entries both hold as maps merge the
// same way (the keys beside `<<<` win).
void deep_merge(YAML::Node into, const YAML::Node& base) {
  for (const auto& kv : base) {
    const std::string key = kv.first.Scalar();
    YAML::Node mine = into[key];
    if (!mine.IsDefined() || mine.IsNull())
      into[key] = kv.second;
    else if (mine.IsMap() && kv.second.IsMap())
      deep_merge(mine, kv.second);
  }
}

}  // namespace

IncludedText expand_includes(const std::string& text, const std::string& file) {
  IncludedText out;
  expand_into(out, text, file, 0);
  return out;
}

SourceLocation IncludedText::origin(const SourceLocation& at) const {
  if (at.line < 1 || at.line > static_cast<int>(origins.size())) return at;
  const auto& o = origins[at.line - 1];
  return {o.first, o.second, at.column};
}

namespace {

// Whether text[b, e) holds an anchor, alias or tag: a '&', '*' or '!' where a node starts (after
// the line's indentation, "[", "{", ",", or ": ", "- ", "? "). A '*' inside a plain scalar
// ("width*depth", "a * b") is text.
bool has_node_property(const std::string& text, size_t b, size_t e) {
  for (size_t i = text.find_first_of("&*!", b); i < e; i = text.find_first_of("&*!", i + 1)) {
    size_t p = i;
    while (p > b && text[p - 1] == ' ') --p;
    if (p == b || text[p - 1] == '\n' || text[p - 1] == '[' || text[p - 1] == '{' ||
        text[p - 1] == ',')
      return true;
    if (p < i && (text[p - 1] == ':' || text[p - 1] == '-' || text[p - 1] == '?')) return true;
  }
  return false;
}

}  // namespace

std::string without_ignored_blocks(std::string text, const std::vector<std::string>& ignored) {
  // [begin, end) of each line.
  auto line_end = [&](size_t b) {
    const size_t e = text.find('\n', b);
    return e == std::string::npos ? text.size() : e;
  };
  auto block_key = [&](size_t b, size_t e) -> bool {
    for (const std::string& key : ignored) {
      if (text.compare(b, key.size(), key) != 0 || b + key.size() >= e ||
          text[b + key.size()] != ':')
        continue;
      const size_t rest = text.find_first_not_of(" \t", b + key.size() + 1);
      return rest >= e || text[rest] == '#';
    }
    return false;
  };
  // A line inside a top-level block: empty, indented, a comment, or a column-0 "- " entry.
  auto inside = [&](size_t b, size_t e) {
    if (b == e || text[b] == ' ' || text[b] == '#') return true;
    return text[b] == '-' && (b + 1 == e || text[b + 1] == ' ');
  };
  for (size_t b = 0; b < text.size(); b = line_end(b) + 1) {
    if (!block_key(b, line_end(b))) continue;
    const size_t body = std::min(text.size(), line_end(b) + 1);
    size_t end = body;
    while (end < text.size() && inside(end, line_end(end))) end = line_end(end) + 1;
    end = std::min(end, text.size());
    if (has_node_property(text, body, end)) continue;
    std::string kept;
    for (size_t i = body; i < end; ++i)
      if (text[i] == '\n') kept += '\n';
    text.replace(body, end - body, kept);
  }
  return text;
}

void apply_merge_keys(const Reader& r, YAML::Node n) {
  if (n.IsSequence())
    for (auto item : n) apply_merge_keys(r, item);
  if (!n.IsMap()) return;
  for (auto kv : n) apply_merge_keys(r, kv.second);
  const YAML::Node base = n["<<<"];
  if (!base.IsDefined()) return;
  if (!base.IsMap()) r.fail(base, "expected a mapping (an anchored one, *name) after '<<<'");
  n.remove("<<<");
  deep_merge(n, base);
}

}  // namespace sparsemap::io::timeloop_detail
