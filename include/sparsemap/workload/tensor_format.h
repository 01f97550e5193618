// The one vocabulary of tensor formats (issue 28): a tensor's representation format is a list of
// per-rank formats, outermost rank first, each in Sparseloop's (Timeloop 3's) terms. The
// Sparseloop model (arch::SparseOptimizations), the MAESTRO-class --structure path
// (cost::metadata_bits_per_element) and the kernels' matrix formats (sparse::FormatSpec::levels)
// all describe their formats with these types; docs/formats.md has the table.
//
// A rank's fibre has f coordinates; a rank stores, per fibre that it holds:
//   UOP  uncompressed offset pair: f + 1 offsets (payload), no coordinates. With
//        payload_word_bits == 0 it stores nothing: TACO's "dense" level (Sparseloop's idiom).
//   CP   coordinate payload: one coordinate per nonzero coordinate (metadata) and one pointer
//        to its sub-fibre per nonzero coordinate (payload).
//   B    bitmask: f bits (metadata), a pointer per nonzero coordinate (payload).
//   UB   uncompressed bitmask: f bits and f pointers for every fibre, empty ones included.
//   RLE  run-length encoding: a run length per nonzero coordinate (metadata and payload).
// The payload of the innermost rank is the data itself (the values), not counted as format bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::workload {

// A rank's representation format (Sparseloop's names).
enum class RankFormat { kUOP, kCP, kB, kUB, kRLE };

const char* rank_format_name(RankFormat f);  // "UOP", "CP", "B", "UB", "RLE"

// Whether a rank in this format stores only the nonzero coordinates (CP, B, RLE): Timeloop's
// "rank compressed"; UOP and UB keep every coordinate.
bool rank_compressed(RankFormat f);

struct RankSpec {
  RankFormat format = RankFormat::kUOP;
  int metadata_word_bits = -1;  // bits per metadata word; -1: the storage level's metadata
                                // datawidth (Sparseloop); the kernels' formats always give it
  int payload_word_bits = -1;   // bits per payload word; -1: the level's default
  // Dimensions this rank flattens, one list per fibre rank (Sparseloop's `flattened_rankIDs`):
  // problem dimensions in a Timeloop problem, "rows" / "cols" for a matrix format.
  std::vector<std::vector<std::string>> flattened_rank_ids;
  // What a coordinate of this rank is, for people: "rows/8" (block-rows of 8 rows), "rows%8"
  // (the row within the block), "cols%8:4" (4 selected of the 8 columns of a group), "" when
  // read from a Sparseloop input. Not used by any model.
  std::string coords;

  // A UOP rank with 0-bit payload: every coordinate, nothing stored (TACO's dense level).
  bool dense() const { return format == RankFormat::kUOP && payload_word_bits == 0; }
  bool operator==(const RankSpec& o) const {
    return format == o.format && metadata_word_bits == o.metadata_word_bits &&
           payload_word_bits == o.payload_word_bits && flattened_rank_ids == o.flattened_rank_ids &&
           coords == o.coords;
  }
};

// Builders for the kernels' formats: bits as given, rank over `dim` ("rows" or "cols").
RankSpec dense_rank(const std::string& dim, const std::string& coords);
RankSpec uop_rank(const std::string& dim, const std::string& coords, int offset_bits);
RankSpec cp_rank(const std::string& dim, const std::string& coords, int coordinate_bits,
                 int pointer_bits);

struct TensorFormat {
  std::vector<RankSpec> ranks;  // outermost rank first
  bool compressed() const;      // some rank is compressed
  // One line: ranks outermost first, "U(rows) CP(cols; m32 p0)"; a dense rank prints as U, and
  // the bits as m<metadata> p<payload> where given.
  std::string str() const;
  bool operator==(const TensorFormat& o) const { return ranks == o.ranks; }
};

// How much of a rank a tensor (or a tile, or one unit of a structure) holds. Counts may be
// expectations (fractions).
struct RankOccupancy {
  double fibre_shape = 1;  // f: coordinates of one fibre
  double fibres = 1;       // fibres held (nonempty ones, below a compressed rank)
  double all_fibres = 1;   // fibres that can exist (empty ones included): UB stores them all
  double coords = 0;       // nonzero coordinates held, summed over the fibres (CP, B, RLE)
};

// Metadata and payload words of one rank (Sparseloop's units):
//   UOP  metadata 0,                  payload fibres * (f + 1)
//   CP   metadata coords,             payload coords
//   B    metadata fibres * f,         payload coords
//   UB   metadata all_fibres * f,     payload all_fibres * f
//   RLE  metadata coords,             payload coords
struct RankUnits {
  double metadata = 0;
  double payload = 0;
};
RankUnits rank_units(RankFormat f, const RankOccupancy& o);

// Bits of a format holding `occ` (one per rank, outermost first, as f.ranks): per rank,
// metadata units * metadata_word_bits and payload units * payload_word_bits; the innermost
// rank's payload is the data, 0 here. Word bits must be given (>= 0). Throws InputError when
// the sizes differ or a width is not given.
struct FormatBits {
  std::vector<double> metadata;  // per rank, outermost first
  std::vector<double> payload;
  double total() const;  // sum over the ranks of metadata + payload, outermost first
};
FormatBits format_bits(const TensorFormat& f, const std::vector<RankOccupancy>& occ);

}  // namespace sparsemap::workload
