// The per-rank vocabulary of tensor formats: names, builders, units and bits (formulas in
// include/sparsemap/workload/tensor_format.h).
#include "sparsemap/workload/tensor_format.h"

#include "sparsemap/error.h"

namespace sparsemap::workload {

const char* rank_format_name(RankFormat f) {
  switch (f) {
    case RankFormat::kUOP:
      return "UOP";
    case RankFormat::kCP:
      return "CP";
    case RankFormat::kB:
      return "B";
    case RankFormat::kUB:
      return "UB";
    case RankFormat::kRLE:
      return "RLE";
  }
  return "?";
}

bool rank_compressed(RankFormat f) {
  return f == RankFormat::kCP || f == RankFormat::kB || f == RankFormat::kRLE;
}

RankSpec dense_rank(const std::string& dim, const std::string& coords) {
  return uop_rank(dim, coords, 0);
}

RankSpec uop_rank(const std::string& dim, const std::string& coords, int offset_bits) {
  RankSpec r;
  r.format = RankFormat::kUOP;
  r.metadata_word_bits = 0;
  r.payload_word_bits = offset_bits;
  r.flattened_rank_ids = {{dim}};
  r.coords = coords;
  return r;
}

RankSpec cp_rank(const std::string& dim, const std::string& coords, int coordinate_bits,
                 int pointer_bits) {
  RankSpec r;
  r.format = RankFormat::kCP;
  r.metadata_word_bits = coordinate_bits;
  r.payload_word_bits = pointer_bits;
  r.flattened_rank_ids = {{dim}};
  r.coords = coords;
  return r;
}

bool TensorFormat::compressed() const {
  for (const auto& r : ranks)
    if (rank_compressed(r.format)) return true;
  return false;
}

std::string TensorFormat::str() const {
  std::string out;
  for (const RankSpec& r : ranks) {
    if (!out.empty()) out += ' ';
    out += r.dense() ? "U" : rank_format_name(r.format);
    std::string inside = r.coords;
    if (inside.empty())
      for (const auto& group : r.flattened_rank_ids)
        for (const auto& d : group) inside += (inside.empty() ? "" : ",") + d;
    std::string bits;
    if (!r.dense()) {
      if (r.metadata_word_bits >= 0 && r.format != RankFormat::kUOP)
        bits += "m" + std::to_string(r.metadata_word_bits);
      if (r.payload_word_bits >= 0)
        bits += (bits.empty() ? "p" : " p") + std::to_string(r.payload_word_bits);
    }
    if (!inside.empty() || !bits.empty())
      out += "(" + inside + (inside.empty() || bits.empty() ? "" : "; ") + bits + ")";
  }
  return out;
}

RankUnits rank_units(RankFormat f, const RankOccupancy& o) {
  RankUnits u;
  switch (f) {
    case RankFormat::kUOP:
      u.payload = o.fibres * (o.fibre_shape + 1);
      break;
    case RankFormat::kCP:
    case RankFormat::kRLE:
      u.metadata = o.coords;
      u.payload = o.coords;
      break;
    case RankFormat::kB:
      u.metadata = o.fibres * o.fibre_shape;
      u.payload = o.coords;
      break;
    case RankFormat::kUB:
      u.metadata = o.all_fibres * o.fibre_shape;
      u.payload = u.metadata;
      break;
  }
  return u;
}

double FormatBits::total() const {
  double t = 0;
  for (size_t r = 0; r < metadata.size(); ++r) t += metadata[r] + payload[r];
  return t;
}

FormatBits format_bits(const TensorFormat& f, const std::vector<RankOccupancy>& occ) {
  if (occ.size() != f.ranks.size())
    throw InputError({"<format>", 0, 0}, "expected one occupancy per rank (" +
                                             std::to_string(f.ranks.size()) + "), got " +
                                             std::to_string(occ.size()));
  FormatBits b;
  for (size_t r = 0; r < occ.size(); ++r) {
    const RankSpec& s = f.ranks[r];
    if (s.metadata_word_bits < 0 || s.payload_word_bits < 0)
      throw InputError({"<format>", 0, 0}, "expected the word bits of rank " + std::to_string(r) +
                                               " (" + f.str() + ") to be given");
    const RankUnits u = rank_units(s.format, occ[r]);
    const bool innermost = r + 1 == occ.size();
    b.metadata.push_back(u.metadata * s.metadata_word_bits);
    b.payload.push_back(innermost ? 0.0 : u.payload * s.payload_word_bits);
  }
  return b;
}

}  // namespace sparsemap::workload
