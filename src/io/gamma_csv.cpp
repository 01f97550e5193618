// Reader of GAMMA's model CSVs (maestro-project/gamma, data/model/*.csv).
//
// GAMMA writes every row to MAESTRO as one layer "Dimensions { K, C, Y, X, R, S }" with
// stride 1 and no padding, typed CONV for T = 0, 1 and 3 and DSCONV for T = 2. This reader
// keeps those MACs exactly, K*C*R*S*Y'*X' with Y' = Y-R+1 and X' = X-S+1, and gives each row
// the kind that says what it is:
//   T = 1 CONV    Conv:   N 1, K, C, Y, X, R, S; stride 1, pad 0.
//   T = 2 DSCONV  DsConv: C, Y, X, R, S (K must be 1, as GAMMA writes it, or equal C).
//   T = 0 FC      Fc:     N = Y'*X', C = C*R*S (inputs), K = K (outputs).
//   T = 3 GEMM    Gemm:   M = Y'*X', K = C*R*S, N = K. A GEMM O[M][N] written the GAMMA way
//                 (as a 1x1 CONV with K = N, C = K, Y = M, X = 1) reads back as M, N, K.
#include "sparsemap/io/gamma_csv.h"

#include <array>
#include <cctype>
#include <optional>
#include <string_view>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::io {
namespace {

using workload::Dim;
using workload::Layer;

constexpr int64_t kMaxValue = 2147483647;
constexpr std::array<char, 7> kColumns = {'K', 'C', 'Y', 'X', 'R', 'S', 'T'};
constexpr const char* kHeader = "K,C,Y,X,R,S,T";
constexpr const char* kTypes = "0 (FC), 1 (CONV), 2 (DSCONV) or 3 (GEMM)";

struct Field {
  std::string_view text;  // trimmed
  int column = 1;         // 1-based column of the field's first character
};

std::string_view trim(std::string_view s, size_t& lead) {
  lead = 0;
  while (lead < s.size() && (s[lead] == ' ' || s[lead] == '\t')) ++lead;
  size_t end = s.size();
  while (end > lead && (s[end - 1] == ' ' || s[end - 1] == '\t')) --end;
  return s.substr(lead, end - lead);
}

std::vector<Field> split(std::string_view line) {
  std::vector<Field> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    const std::string_view raw = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t lead = 0;
    const std::string_view t = trim(raw, lead);
    fields.push_back(Field{t, static_cast<int>(start + (t.empty() ? 0 : lead)) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

// Digits only, no sign; nullopt when not an integer, kMaxValue + 1 when too large.
std::optional<int64_t> parse_uint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > kMaxValue) return kMaxValue + 1;
  }
  return v;
}

bool is_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t') return false;
  return true;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

std::string stem_of(const std::string& file) {
  std::string stem = file.substr(file.find_last_of('/') + 1);
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".csv") == 0)
    stem.resize(stem.size() - 4);
  return stem;
}

}  // namespace

workload::Model parse_gamma_csv(const std::string& text, const std::string& file) {
  auto error = [&](int line, int column, const std::string& message) {
    return InputError(SourceLocation{file, line, column}, message);
  };

  // Lines, 1-based, without their "\n" or "\r\n".
  std::vector<std::string_view> lines;
  const std::string_view all = without_bom(text);
  for (size_t pos = 0; pos < all.size();) {
    size_t nl = all.find('\n', pos);
    if (nl == std::string_view::npos) nl = all.size();
    std::string_view l = all.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back(l);
    pos = nl + 1;
  }

  // Header: the first non-blank line. Columns by name; an optional leading name column.
  size_t li = 0;
  while (li < lines.size() && is_blank(lines[li])) ++li;
  if (li == lines.size())
    throw error(1, 1, std::string("expected header ") + kHeader + ", got an empty file");
  const int header_line = static_cast<int>(li) + 1;
  const std::vector<Field> header = split(lines[li]);
  std::array<int, 7> col_of{-1, -1, -1, -1, -1, -1, -1};  // field index of K, C, ..., T
  int name_col = -1;
  // GAMMA's own *_m.csv files have no header: seven numbers a row, in the order K,C,Y,X,R,S,T.
  const bool headerless = header.size() == kColumns.size() && parse_uint(header[0].text);
  if (headerless) {
    for (size_t c = 0; c < kColumns.size(); ++c) col_of[c] = static_cast<int>(c);
  }
  for (size_t i = 0; i < header.size() && !headerless; ++i) {
    const Field& f = header[i];
    const std::string u = upper(f.text);
    if (i == 0 && (u == "NAME" || u == "LAYER")) {
      name_col = 0;
      continue;
    }
    int which = -1;
    for (size_t c = 0; c < kColumns.size(); ++c)
      if (u.size() == 1 && u[0] == kColumns[c]) which = static_cast<int>(c);
    if (which < 0) {
      if (i == 0 && parse_uint(f.text))
        throw error(header_line, f.column,
                    std::string("expected header ") + kHeader + " or seven numbers a row, got " +
                        quote_input(f.text));
      throw error(header_line, f.column,
                  "unknown column " + quote_input(f.text) + "; expected one of " + kHeader +
                      " (and an optional leading name column)");
    }
    if (col_of[which] >= 0)
      throw error(header_line, f.column, "duplicate column " + quote_input(f.text));
    col_of[which] = static_cast<int>(i);
  }
  for (size_t c = 0; c < kColumns.size(); ++c)
    if (col_of[c] < 0)
      throw error(header_line, 1,
                  std::string("missing column '") + kColumns[c] + "'; expected header " + kHeader);

  workload::Model model;
  model.name = stem_of(file);
  for (li += headerless ? 0 : 1; li < lines.size(); ++li) {
    if (is_blank(lines[li])) continue;
    const int line = static_cast<int>(li) + 1;
    const std::vector<Field> fields = split(lines[li]);
    if (fields.size() != header.size()) {
      const int column = fields.size() > header.size() ? fields[header.size()].column
                                                       : static_cast<int>(lines[li].size()) + 1;
      throw error(line, column,
                  "expected " + std::to_string(header.size()) + " fields, got " +
                      std::to_string(fields.size()));
    }
    std::array<int64_t, 7> v{};
    for (size_t c = 0; c < kColumns.size(); ++c) {
      const Field& f = fields[col_of[c]];
      const auto value = parse_uint(f.text);
      if (kColumns[c] == 'T') {
        if (!value || *value > 3)
          throw error(
              line, f.column,
              std::string("expected layer type T ") + kTypes + ", got " + quote_input(f.text));
      } else if (!value || *value == 0) {
        throw error(line, f.column,
                    std::string("expected a positive integer for ") + kColumns[c] + ", got " +
                        quote_input(f.text));
      } else if (*value > kMaxValue) {
        throw error(line, f.column,
                    std::string(1, kColumns[c]) + " = " + std::string(f.text) +
                        " is too large (at most " + std::to_string(kMaxValue) + ")");
      }
      v[c] = *value;
    }
    const int64_t k = v[0], c = v[1], y = v[2], x = v[3], r = v[4], s = v[5], t = v[6];
    if (r > y)
      throw error(
          line, fields[col_of[4]].column,
          "filter R = " + std::to_string(r) + " is larger than input Y = " + std::to_string(y));
    if (s > x)
      throw error(
          line, fields[col_of[5]].column,
          "filter S = " + std::to_string(s) + " is larger than input X = " + std::to_string(x));
    if (t == 2 && k != 1 && k != c)
      throw error(line, fields[col_of[0]].column,
                  "a DSCONV row (T = 2) expects K = 1 (or K = C), got K = " + std::to_string(k));
    // Every product below is at most 2^31 * 2^31 * 2^31 in the worst case: check it fits.
    const long double macs = static_cast<long double>(k) * c * r * s * (y - r + 1) * (x - s + 1);
    if (macs > 4e18L) throw error(line, 1, "layer too large: its MACs overflow 64 bits");

    std::string name = "L" + std::to_string(model.layers.size());
    if (name_col >= 0 && !fields[name_col].text.empty()) name = std::string(fields[name_col].text);
    const int64_t out_pixels = (y - r + 1) * (x - s + 1);
    Layer l;
    switch (t) {
      case 0:
        l = workload::fc(name, out_pixels, c * r * s, k, false);
        break;
      case 3:
        l = workload::gemm(name, out_pixels, k, c * r * s);
        break;
      default:
        l = workload::conv2d(name, 1, c, y, x, k, 1);
        l.dim(Dim::R) = r;
        l.dim(Dim::S) = s;
        if (t == 2) {  // one filter per channel, whatever C is (C = 1 included)
          l.kind = workload::OpKind::DsConv;
          l.dim(Dim::K) = 1;
        }
        break;
    }
    model.layers.push_back(std::move(l));
  }
  if (model.layers.empty())
    throw error(static_cast<int>(lines.size()) + 1, 1, "expected at least one layer row");
  return model;
}

workload::Model read_gamma_csv(const std::string& path) {
  return parse_gamma_csv(read_file(path), path);
}

}  // namespace sparsemap::io
