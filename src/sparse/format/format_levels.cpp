// The kernels' formats in the one vocabulary of formats (workload/tensor_format.h): each
// FormatSpec's per-rank formats, and what a stored matrix holds of each rank. Table in
// docs/formats.md. Widths are what footprint() counts: 32-bit offsets (row_ptr) and
// coordinates (col_idx), ceil(log2 M)-bit N:M offsets, 2-bit V:N:M offsets among the 4
// selected columns. Pointers from a compressed rank to its sub-fibres are implicit in our
// arrays (block p's values start at p * bh * bw), hence 0-bit payloads.
#include <variant>

#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::sparse {

namespace {

using workload::cp_rank;
using workload::dense_rank;
using workload::RankOccupancy;
using workload::uop_rank;

constexpr int kIndexBits = 32;  // int32 row_ptr and col_idx

// ceil(log2(choices)): the bits that name one of `choices` positions.
int index_bits(int choices) {
  int bits = 0;
  while ((1 << bits) < choices) ++bits;
  return bits;
}

double d(int64_t x) { return static_cast<double>(x); }

}  // namespace

workload::TensorFormat FormatSpec::levels() const {
  const std::string vs = std::to_string(v), ms = std::to_string(m), ns = std::to_string(n);
  const int mb = index_bits(m);
  switch (kind) {
    case FormatKind::Dense:
      return {{dense_rank("rows", "rows"), dense_rank("cols", "cols")}};
    case FormatKind::Csr:
      return {{uop_rank("rows", "rows", kIndexBits), cp_rank("cols", "cols", kIndexBits, 0)}};
    case FormatKind::Bsr: {
      const std::string hs = std::to_string(bh), ws = std::to_string(bw);
      return {{uop_rank("rows", "rows/" + hs, kIndexBits),
               cp_rank("cols", "cols/" + ws, kIndexBits, 0), dense_rank("rows", "rows%" + hs),
               dense_rank("cols", "cols%" + ws)}};
    }
    case FormatKind::Cvse:
      return {{uop_rank("rows", "rows/" + vs, kIndexBits), cp_rank("cols", "cols", kIndexBits, 0),
               dense_rank("rows", "rows%" + vs)}};
    case FormatKind::Nm:
      if (axis == NmAxis::Row)
        return {{dense_rank("rows", "rows"), dense_rank("cols", "cols/" + ms),
                 cp_rank("cols", ns + " of cols%" + ms, mb, 0)}};
      return {{dense_rank("rows", "rows/" + ms), dense_rank("cols", "cols"),
               cp_rank("rows", ns + " of rows%" + ms, mb, 0)}};
    case FormatKind::Vnm:
      return {{dense_rank("rows", "rows/" + vs), dense_rank("cols", "cols/" + ms),
               cp_rank("cols", "4 of cols%" + ms, mb, 0), dense_rank("rows", "rows%" + vs),
               cp_rank("cols", ns + " of 4", index_bits(VnmMatrix::kSelected), 0)}};
  }
  return {};
}

namespace {

// An uncompressed rank of fibres of `shape` coordinates: all of them held.
RankOccupancy full(int64_t shape, int64_t fibres) {
  return {d(shape), d(fibres), d(fibres), d(shape * fibres)};
}

// A compressed rank: `coords` coordinates held over `fibres` fibres of `shape`.
RankOccupancy held(int64_t shape, int64_t fibres, int64_t coords) {
  return {d(shape), d(fibres), d(fibres), d(coords)};
}

std::vector<RankOccupancy> occupancy(const DenseMatrix& a) {
  return {full(a.rows, 1), full(a.cols, a.rows)};
}

std::vector<RankOccupancy> occupancy(const CsrMatrix& a) {
  return {full(a.rows, 1), held(a.cols, a.rows, a.nnz())};
}

std::vector<RankOccupancy> occupancy(const BsrMatrix& a) {
  const int64_t br = a.block_rows(), bc = (a.cols + a.bw - 1) / a.bw, b = a.blocks();
  return {full(br, 1), held(bc, br, b), full(a.bh, b), full(a.bw, b * a.bh)};
}

std::vector<RankOccupancy> occupancy(const CvseMatrix& a) {
  const int64_t g = a.groups(), vec = a.vectors();
  return {full(g, 1), held(a.cols, g, vec), full(a.v, vec)};
}

// Row axis: rows, groups of M columns, N slots of each group; Col axis: groups of M rows,
// columns, N slots.
std::vector<RankOccupancy> occupancy(const NmMatrix& a) {
  const int64_t g = a.groups();
  const int64_t outer = a.axis == NmAxis::Row ? a.rows : g;
  const int64_t inner = a.axis == NmAxis::Row ? g : a.cols;
  return {full(outer, 1), full(inner, outer), held(a.m, outer * inner, a.slots())};
}

// Row blocks, column groups, the 4 selected columns of each (block, group), the block's rows
// (one fibre per (block, group): the selection is shared by its V rows), N of the 4 per row.
std::vector<RankOccupancy> occupancy(const VnmMatrix& a) {
  const int64_t b = a.row_blocks(), g = a.groups();
  const int64_t sel = static_cast<int64_t>(a.col_sel.size());
  const int64_t slots = static_cast<int64_t>(a.values.size());
  return {full(b, 1), full(g, b), held(a.m, b * g, sel), held(a.v, b * g, a.rows * g),
          held(VnmMatrix::kSelected, a.rows * g, slots)};
}

}  // namespace

std::vector<RankOccupancy> rank_occupancy(const AnySparse& a) {
  return std::visit([](const auto& x) { return occupancy(x); }, a);
}

}  // namespace sparsemap::sparse
