// N:M and V:N:M (VENOM): conversions, validation and footprints.
#include <algorithm>
#include <string>

#include "format_internal.h"
#include "sparsemap/sparse/format/formats.h"

namespace sparsemap::sparse {

using detail::fail;

namespace {

// Bits a hardware format needs to name one of `choices` positions: ceil(log2(choices)).
int64_t index_bits(int64_t choices) {
  int64_t bits = 0;
  while ((int64_t{1} << bits) < choices) ++bits;
  return bits;
}

int64_t packed_bytes(int64_t count, int64_t bits) { return (count * bits + 7) / 8; }

// Fills `chosen` (sorted, distinct, < limit) up to `want` entries with the smallest unused
// positions, and sorts it.
void fill_slots(std::vector<int>& chosen, int want, int limit) {
  for (int p = 0; static_cast<int>(chosen.size()) < want && p < limit; ++p)
    if (std::find(chosen.begin(), chosen.end(), p) == chosen.end()) chosen.push_back(p);
  std::sort(chosen.begin(), chosen.end());
}

const char* axis_line(NmAxis axis) { return axis == NmAxis::Row ? "row" : "column"; }

void check_nm(int n, int m) {
  if (m < 1 || m > 255 || n < 1 || n > m)
    fail("nm", "N:M needs 1 <= N <= M <= 255, got " + std::to_string(n) + ":" + std::to_string(m));
}

void check_vnm(int v, int n, int m) {
  if (v < 1 || v > 4096 || m < VnmMatrix::kSelected || m > 255 || n < 1 || n > VnmMatrix::kSelected)
    fail("vnm", "V:N:M needs 1 <= V <= 4096, 4 <= M <= 255 and 1 <= N <= 4, got " +
                    std::to_string(v) + ":" + std::to_string(n) + ":" + std::to_string(m));
}

// Geometry of an N:M matrix: lines (rows for axis Row, cols for axis Col), the extent a group
// runs along, and where slot s of group q of a line lives and which entry it names.
struct NmGeometry {
  int64_t lines, extent, groups;
  NmAxis axis;
  int n, m;
  int64_t slot(int64_t line, int64_t q, int s) const {
    return axis == NmAxis::Row ? (line * groups + q) * n + s : (q * lines + line) * n + s;
  }
  // Entry (r, c) of position pos (global along the group axis) of `line`.
  void entry(int64_t line, int64_t pos, int64_t& r, int64_t& c) const {
    if (axis == NmAxis::Row) {
      r = line;
      c = pos;
    } else {
      r = pos;
      c = line;
    }
  }
};

NmGeometry geometry(int64_t rows, int64_t cols, int n, int m, NmAxis axis) {
  NmGeometry g{};
  g.axis = axis;
  g.n = n;
  g.m = m;
  g.lines = axis == NmAxis::Row ? rows : cols;
  g.extent = axis == NmAxis::Row ? cols : rows;
  g.groups = (g.extent + m - 1) / m;
  return g;
}

}  // namespace

// ---------------------------------------------------------------------------------------- N:M

int64_t NmMatrix::groups() const {
  const int64_t extent = axis == NmAxis::Row ? cols : rows;
  return m > 0 ? (extent + m - 1) / m : 0;
}

bool NmMatrix::operator==(const NmMatrix& o) const {
  return rows == o.rows && cols == o.cols && n == o.n && m == o.m && axis == o.axis &&
         values == o.values && offsets == o.offsets;
}

NmMatrix nm_from_dense(ConstMatrixView a, int n, int m, NmAxis axis, const Mask* keep) {
  check_nm(n, m);
  detail::check_input("nm", a, keep);
  NmMatrix s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.n = n;
  s.m = m;
  s.axis = axis;
  const NmGeometry g = geometry(a.rows, a.cols, n, m, axis);
  const int64_t slots = g.lines * g.groups * n;
  detail::check_count("nm", slots);
  s.values.assign(static_cast<size_t>(slots), 0.0f);
  s.offsets.assign(static_cast<size_t>(slots), 0);
  std::vector<int> chosen;
  for (int64_t line = 0; line < g.lines; ++line) {
    for (int64_t q = 0; q < g.groups; ++q) {
      chosen.clear();
      for (int p = 0; p < m && q * m + p < g.extent; ++p) {
        int64_t r, c;
        g.entry(line, q * m + p, r, c);
        if (detail::kept(a, keep, r, c)) chosen.push_back(p);
      }
      if (static_cast<int>(chosen.size()) > n)
        fail("nm", "group " + std::to_string(q) + " of " + axis_line(axis) + " " +
                       std::to_string(line) + " keeps " + std::to_string(chosen.size()) +
                       " entries, more than N = " + std::to_string(n) +
                       " of M = " + std::to_string(m));
      fill_slots(chosen, n, m);
      for (int sl = 0; sl < n; ++sl) {
        const size_t idx = static_cast<size_t>(g.slot(line, q, sl));
        const int64_t pos = q * m + chosen[static_cast<size_t>(sl)];
        s.offsets[idx] = static_cast<uint8_t>(chosen[static_cast<size_t>(sl)]);
        if (pos < g.extent) {
          int64_t r, c;
          g.entry(line, pos, r, c);
          if (detail::kept(a, keep, r, c)) s.values[idx] = a.data[r * a.ld + c];
        }
      }
    }
  }
  return s;
}

void validate(const NmMatrix& a) {
  check_nm(a.n, a.m);
  detail::check_shape("nm", a.rows, a.cols);
  const NmGeometry g = geometry(a.rows, a.cols, a.n, a.m, a.axis);
  const int64_t slots = g.lines * g.groups * a.n;
  if (a.slots() != slots || static_cast<int64_t>(a.offsets.size()) != slots)
    fail("nm", "values/offsets have " + std::to_string(a.values.size()) + "/" +
                   std::to_string(a.offsets.size()) + " entries, expected " +
                   std::to_string(slots) + " (lines x groups x N)");
  for (int64_t line = 0; line < g.lines; ++line)
    for (int64_t q = 0; q < g.groups; ++q)
      for (int sl = 0; sl < a.n; ++sl) {
        const size_t idx = static_cast<size_t>(g.slot(line, q, sl));
        const int off = a.offsets[idx];
        if (off >= a.m)
          fail("nm", "offset " + std::to_string(off) + " at slot " + std::to_string(idx) +
                         " is not below M = " + std::to_string(a.m));
        if (sl > 0 && a.offsets[idx - 1] >= off)
          fail("nm", "offsets of group " + std::to_string(q) + " of " + axis_line(a.axis) + " " +
                         std::to_string(line) + " are not strictly increasing");
        if (q * a.m + off >= g.extent && a.values[idx] != 0.0f)
          fail("nm", "slot " + std::to_string(idx) + " lies outside the matrix but is not 0");
      }
}

DenseMatrix to_dense(const NmMatrix& a) {
  validate(a);
  DenseMatrix d(a.rows, a.cols);
  const NmGeometry g = geometry(a.rows, a.cols, a.n, a.m, a.axis);
  for (int64_t line = 0; line < g.lines; ++line)
    for (int64_t q = 0; q < g.groups; ++q)
      for (int sl = 0; sl < a.n; ++sl) {
        const size_t idx = static_cast<size_t>(g.slot(line, q, sl));
        const int64_t pos = q * a.m + a.offsets[idx];
        if (pos >= g.extent) continue;
        int64_t r, c;
        g.entry(line, pos, r, c);
        d.at(r, c) = a.values[idx];
      }
  return d;
}

// N:M: values = 4 * slots; metadata = ceil(slots * ceil(log2 M) / 8) (packed offsets).
Footprint footprint(const NmMatrix& a) {
  return {4 * a.slots(), packed_bytes(a.slots(), index_bits(a.m))};
}

// -------------------------------------------------------------------------------------- V:N:M

bool VnmMatrix::operator==(const VnmMatrix& o) const {
  return rows == o.rows && cols == o.cols && v == o.v && n == o.n && m == o.m &&
         col_sel == o.col_sel && values == o.values && offsets == o.offsets;
}

VnmMatrix vnm_from_dense(ConstMatrixView a, int v, int n, int m, const Mask* keep) {
  check_vnm(v, n, m);
  detail::check_input("vnm", a, keep);
  constexpr int kSel = VnmMatrix::kSelected;
  VnmMatrix s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.v = v;
  s.n = n;
  s.m = m;
  const int64_t groups = s.groups(), blocks = s.row_blocks();
  detail::check_count("vnm", a.rows * groups * n);
  s.col_sel.assign(static_cast<size_t>(blocks * groups * kSel), 0);
  s.values.assign(static_cast<size_t>(a.rows * groups * n), 0.0f);
  s.offsets.assign(s.values.size(), 0);
  std::vector<int> cols_used, slots;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t r0 = b * v, r1 = std::min<int64_t>(a.rows, r0 + v);
    for (int64_t q = 0; q < groups; ++q) {
      cols_used.clear();
      for (int p = 0; p < m && q * m + p < a.cols; ++p) {
        bool any = false;
        for (int64_t r = r0; r < r1 && !any; ++r) any = detail::kept(a, keep, r, q * m + p);
        if (any) cols_used.push_back(p);
      }
      if (static_cast<int>(cols_used.size()) > kSel)
        fail("vnm", "block " + std::to_string(b) + " uses " + std::to_string(cols_used.size()) +
                        " columns of group " + std::to_string(q) + ", more than 4");
      fill_slots(cols_used, kSel, m);
      for (int t = 0; t < kSel; ++t)
        s.col_sel[static_cast<size_t>((b * groups + q) * kSel + t)] =
            static_cast<uint8_t>(cols_used[static_cast<size_t>(t)]);
      for (int64_t r = r0; r < r1; ++r) {
        slots.clear();
        for (int t = 0; t < kSel; ++t) {
          const int64_t c = q * m + cols_used[static_cast<size_t>(t)];
          if (c < a.cols && detail::kept(a, keep, r, c)) slots.push_back(t);
        }
        if (static_cast<int>(slots.size()) > n)
          fail("vnm", "row " + std::to_string(r) + " keeps " + std::to_string(slots.size()) +
                          " entries in group " + std::to_string(q) +
                          ", more than N = " + std::to_string(n));
        fill_slots(slots, n, kSel);
        for (int sl = 0; sl < n; ++sl) {
          const size_t idx = static_cast<size_t>((r * groups + q) * n + sl);
          const int t = slots[static_cast<size_t>(sl)];
          const int64_t c = q * m + cols_used[static_cast<size_t>(t)];
          s.offsets[idx] = static_cast<uint8_t>(t);
          if (c < a.cols && detail::kept(a, keep, r, c)) s.values[idx] = a.data[r * a.ld + c];
        }
      }
    }
  }
  return s;
}

void validate(const VnmMatrix& a) {
  check_vnm(a.v, a.n, a.m);
  detail::check_shape("vnm", a.rows, a.cols);
  constexpr int kSel = VnmMatrix::kSelected;
  const int64_t groups = a.groups(), blocks = a.row_blocks();
  if (static_cast<int64_t>(a.col_sel.size()) != blocks * groups * kSel)
    fail("vnm", "col_sel has " + std::to_string(a.col_sel.size()) + " entries, expected " +
                    std::to_string(blocks * groups * kSel) + " (row blocks x groups x 4)");
  const int64_t slots = a.rows * groups * a.n;
  if (static_cast<int64_t>(a.values.size()) != slots ||
      static_cast<int64_t>(a.offsets.size()) != slots)
    fail("vnm", "values/offsets have " + std::to_string(a.values.size()) + "/" +
                    std::to_string(a.offsets.size()) + " entries, expected " +
                    std::to_string(slots) + " (rows x groups x N)");
  for (size_t i = 0; i < a.col_sel.size(); ++i) {
    if (a.col_sel[i] >= a.m)
      fail("vnm",
           "col_sel entry " + std::to_string(i) + " is not below M = " + std::to_string(a.m));
    if (i % kSel != 0 && a.col_sel[i - 1] >= a.col_sel[i])
      fail("vnm",
           "col_sel of block-group " + std::to_string(i / kSel) + " is not strictly increasing");
  }
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t q = 0; q < groups; ++q)
      for (int sl = 0; sl < a.n; ++sl) {
        const size_t idx = static_cast<size_t>((r * groups + q) * a.n + sl);
        const int t = a.offsets[idx];
        if (t >= kSel) fail("vnm", "offset at slot " + std::to_string(idx) + " is not below 4");
        if (sl > 0 && a.offsets[idx - 1] >= t)
          fail("vnm", "offsets of row " + std::to_string(r) + " group " + std::to_string(q) +
                          " are not strictly increasing");
        const int64_t c =
            q * a.m + a.col_sel[static_cast<size_t>(((r / a.v) * groups + q) * kSel + t)];
        if (c >= a.cols && a.values[idx] != 0.0f)
          fail("vnm", "slot " + std::to_string(idx) + " lies outside the matrix but is not 0");
      }
}

DenseMatrix to_dense(const VnmMatrix& a) {
  validate(a);
  constexpr int kSel = VnmMatrix::kSelected;
  DenseMatrix d(a.rows, a.cols);
  const int64_t groups = a.groups();
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t q = 0; q < groups; ++q)
      for (int sl = 0; sl < a.n; ++sl) {
        const size_t idx = static_cast<size_t>((r * groups + q) * a.n + sl);
        const int64_t c =
            q * a.m +
            a.col_sel[static_cast<size_t>(((r / a.v) * groups + q) * kSel + a.offsets[idx])];
        if (c < a.cols) d.at(r, c) = a.values[idx];
      }
  return d;
}

// V:N:M: values = 4 * rows * groups * N; metadata = ceil(slots * 2 / 8) (offsets among the 4
// selected columns) + ceil(row_blocks * groups * 4 * ceil(log2 M) / 8) (the selections).
Footprint footprint(const VnmMatrix& a) {
  const int64_t slots = static_cast<int64_t>(a.values.size());
  return {4 * slots, packed_bytes(slots, 2) +
                         packed_bytes(static_cast<int64_t>(a.col_sel.size()), index_bits(a.m))};
}

}  // namespace sparsemap::sparse
