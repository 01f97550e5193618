// Sparsity vocabulary: metadata sizes, storage ratios, effectual MACs and the CLI parsers.
#include "sparsemap/cost/sparsity.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::cost {
namespace {

constexpr double kIndexBits = 16.0;  // column/block index width of the vector and block formats

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

[[noreturn]] void bad(const std::string& flag, const std::string& msg) {
  throw InputError({"<flag " + flag + ">", 0, 0}, msg);
}

// "W", "I", "O" (any case) -> tensor index.
int tensor_of(const std::string& key, const std::string& flag) {
  const std::string k = lower(trim(key));
  if (k == "w" || k == "weight") return kWeight;
  if (k == "i" || k == "input") return kInput;
  if (k == "o" || k == "output") return kOutput;
  bad(flag, "unknown tensor '" + trim(key) + "': expected W, I or O");
}

double parse_density(const std::string& text, const std::string& flag) {
  const std::string t = trim(text);
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !(d > 0) || d > 1)
    bad(flag, "expected a density in (0, 1], found '" + t + "'");
  return d;
}

int parse_positive(const std::string& text, const std::string& flag, const char* what) {
  const std::string t = trim(text);
  char* end = nullptr;
  const long v = std::strtol(t.c_str(), &end, 10);
  if (t.empty() || end != t.c_str() + t.size() || v <= 0 || v > 1 << 20)
    bad(flag, std::string("expected a positive ") + what + ", found '" + t + "'");
  return static_cast<int>(v);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace

bool TensorSparsity::operator==(const TensorSparsity& o) const {
  return density == o.density && density_lo == o.density_lo && structure == o.structure &&
         n == o.n && m == o.m && vector_length == o.vector_length && block_h == o.block_h &&
         block_w == o.block_w;
}

namespace {

// ceil(log2(choices)): the bits that name one of `choices` positions (0 for choices <= 1).
int index_bits(int choices) {
  int bits = 0;
  while (bits < 31 && (1 << bits) < choices) ++bits;
  return bits;
}

// A unit's rank: an uncompressed one holding `coords` coordinates, or a compressed one holding
// `coords` of its 1-coordinate fibre (per-unit expectations).
workload::RankOccupancy unit_rank(double shape, double coords) { return {shape, 1, 1, coords}; }

}  // namespace

StructureFormat structure_format(const TensorSparsity& t) {
  using workload::cp_rank;
  using workload::dense_rank;
  const int i16 = static_cast<int>(kIndexBits);
  const double d = t.density;
  StructureFormat s;
  switch (t.structure) {
    case Structure::Dense:
      s.format.ranks = {dense_rank("elements", "elements")};
      s.unit = {unit_rank(1, 1)};
      s.unit_elements = 1;
      break;
    case Structure::Unstructured: {
      workload::RankSpec b = cp_rank("elements", "elements", 1, 0);
      b.format = workload::RankFormat::kB;
      s.format.ranks = {b};
      s.unit = {unit_rank(1, d)};
      s.unit_elements = 1;
      break;
    }
    case Structure::NM:
      if (t.m < 1) break;
      s.format.ranks = {dense_rank("elements", "groups/" + std::to_string(t.m)),
                        cp_rank("elements", std::to_string(t.n) + " of " + std::to_string(t.m),
                                index_bits(t.m), 0)};
      s.unit = {unit_rank(1, 1), unit_rank(1, d)};
      s.unit_elements = 1;
      break;
    case Structure::ColumnVector:
      if (t.vector_length < 1) break;
      s.format.ranks = {cp_rank("cols", "vectors", i16, 0),
                        dense_rank("rows", "rows%" + std::to_string(t.vector_length))};
      s.unit = {unit_rank(1, d), unit_rank(t.vector_length, d * t.vector_length)};
      s.unit_elements = t.vector_length;
      break;
    case Structure::Block:
      if (t.block_h * t.block_w < 1) break;
      s.format.ranks = {cp_rank("rows", "blocks", i16, 0),
                        dense_rank("rows", "rows%" + std::to_string(t.block_h)),
                        dense_rank("cols", "cols%" + std::to_string(t.block_w))};
      s.unit = {unit_rank(1, d), unit_rank(t.block_h, d * t.block_h),
                unit_rank(t.block_w, d * t.block_h * t.block_w)};
      s.format.ranks[0].flattened_rank_ids = {{"rows", "cols"}};
      s.unit_elements = t.block_h * t.block_w;
      break;
  }
  return s;
}

double metadata_bits_per_element(const TensorSparsity& t) {
  const StructureFormat s = structure_format(t);
  if (s.format.ranks.empty() || s.unit_elements <= 0) return 0.0;
  return workload::format_bits(s.format, s.unit).total() / s.unit_elements;
}

double storage_ratio(const TensorSparsity& t, SparseMode mode, int word_bits) {
  if (mode == SparseMode::Gate || t.dense()) return 1.0;
  const double r = t.density + metadata_bits_per_element(t) / std::max(1, word_bits);
  return std::min(1.0, r);
}

double effectual_fraction(const SparsityOptions& s) {
  auto d = [](const TensorSparsity& t) {
    return t.dense() ? 1.0 : std::clamp(t.density, 0.0, 1.0);
  };
  return d(s.tensors[kInput]) * d(s.tensors[kWeight]);
}

void parse_density_flag(const std::string& text, SparsityOptions& out, const std::string& flag) {
  for (const std::string& entry : split(text, ',')) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos)
      bad(flag, "expected T=d or T=lo:hi (T in W, I, O), found '" + trim(entry) + "'");
    TensorSparsity& t = out.tensors[tensor_of(entry.substr(0, eq), flag)];
    const std::string val = entry.substr(eq + 1);
    const size_t colon = val.find(':');
    double lo, hi;
    if (colon == std::string::npos) {
      lo = hi = parse_density(val, flag);
    } else {
      lo = parse_density(val.substr(0, colon), flag);
      hi = parse_density(val.substr(colon + 1), flag);
      if (lo > hi) bad(flag, "a density range needs lo <= hi, found '" + trim(val) + "'");
    }
    if (t.structure == Structure::NM && std::abs(hi - t.density) > 1e-12)
      bad(flag, "the N:M structure fixes this tensor's density at " + std::to_string(t.density));
    t.density = hi;
    t.density_lo = lo;
    if (t.structure == Structure::Dense && hi < 1.0) t.structure = Structure::Unstructured;
  }
}

void parse_structure_flag(const std::string& text, SparsityOptions& out, const std::string& flag) {
  for (const std::string& entry : split(text, ',')) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos)
      bad(flag, "expected T=nm:N:M, T=cvse:V, T=block:HxW, T=unstructured or T=dense, found '" +
                    trim(entry) + "'");
    TensorSparsity& t = out.tensors[tensor_of(entry.substr(0, eq), flag)];
    const std::vector<std::string> parts = split(lower(trim(entry.substr(eq + 1))), ':');
    const std::string& kind = parts[0];
    if (kind == "dense" && parts.size() == 1) {
      t = TensorSparsity{};
    } else if (kind == "unstructured" && parts.size() == 1) {
      t.structure = Structure::Unstructured;
    } else if (kind == "nm" && parts.size() == 3) {
      const int n = parse_positive(parts[1], flag, "N"), m = parse_positive(parts[2], flag, "M");
      if (n > m) bad(flag, "nm:N:M needs N <= M, found nm:" + parts[1] + ":" + parts[2]);
      const double d = static_cast<double>(n) / m;
      if (t.density < 1.0 && std::abs(t.density - d) > 1e-12)
        bad(flag, "nm:" + parts[1] + ":" + parts[2] + " has density " + std::to_string(d) +
                      ", not the " + std::to_string(t.density) + " given by --density");
      t.structure = Structure::NM;
      t.n = n;
      t.m = m;
      t.density = t.density_lo = d;
    } else if (kind == "cvse" && parts.size() == 2) {
      t.structure = Structure::ColumnVector;
      t.vector_length = parse_positive(parts[1], flag, "vector length V");
    } else if (kind == "block" && parts.size() == 2) {
      const size_t x = parts[1].find('x');
      if (x == std::string::npos) bad(flag, "expected block:HxW, found block:" + parts[1]);
      t.structure = Structure::Block;
      t.block_h = parse_positive(parts[1].substr(0, x), flag, "block height");
      t.block_w = parse_positive(parts[1].substr(x + 1), flag, "block width");
    } else {
      bad(flag, "expected nm:N:M, cvse:V, block:HxW, unstructured or dense, found '" +
                    trim(entry.substr(eq + 1)) + "'");
    }
  }
}

SparseMode parse_sparse_mode(const std::string& text, const std::string& flag) {
  const std::string t = lower(trim(text));
  if (t == "gate" || t == "gating") return SparseMode::Gate;
  if (t == "skip" || t == "skipping") return SparseMode::Skip;
  bad(flag, "expected skip or gate, found '" + trim(text) + "'");
}

std::string describe(const TensorSparsity& t) {
  auto num = [](double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  std::string d =
      t.density_lo < t.density ? num(t.density_lo) + ":" + num(t.density) : num(t.density);
  switch (t.structure) {
    case Structure::Dense:
      return "dense";
    case Structure::Unstructured:
      return "d=" + d;
    case Structure::NM:
      return "nm:" + std::to_string(t.n) + ":" + std::to_string(t.m);
    case Structure::ColumnVector:
      return "cvse:" + std::to_string(t.vector_length) + " d=" + d;
    default:
      return "block:" + std::to_string(t.block_h) + "x" + std::to_string(t.block_w) + " d=" + d;
  }
}

}  // namespace sparsemap::cost
