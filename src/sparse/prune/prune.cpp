// Magnitude, column-vector, block, N:M and V:N:M pruning.
#include "sparsemap/sparse/prune/prune.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::sparse {

namespace {

[[noreturn]] void fail(const std::string& message) { throw InputError({"<prune>", 0, 0}, message); }

void check_sparsity(double s) {
  if (!(s >= 0.0 && s <= 1.0)) fail("sparsity must be in [0, 1], got " + std::to_string(s));
}

Mask empty_mask(ConstMatrixView w) {
  check_view(w, "W");
  return Mask{w.rows, w.cols, std::vector<uint8_t>(static_cast<size_t>(w.rows * w.cols), 0)};
}

// Exact top-k selection by radix select, O(n): keep[i] = 1 for the `keep` largest keys, equal
// keys going to the lower index (the order of a stable sort by descending key, cut after `keep`).
// Keys are unsigned integers ordered as the scores they stand for: the bit patterns of
// non-negative IEEE-754 numbers (+0 for -0; a NaN ranks above +inf).
//   1. Find T, the keep-th largest key, digit by digit from the top (11 bits at a time): a
//      histogram of the current digit over the candidates (all keys at first), the bucket that
//      holds rank `r` becomes T's digit, and its keys the next candidates (compacted in place).
//   2. Keep every key > T and the first r keys == T (r: T's rank among the keys equal to it).
// About three streaming passes over the keys whatever the ties, against the O(n log n) sort (or
// the indirect nth_element) it replaces. find_threshold returns T and r; key_at(j) gives key j;
// `cand` is scratch space, reused between calls.
template <class K>
struct Threshold {
  K key = 0;         // T
  int64_t ties = 0;  // how many keys equal to T are kept (the first ones)
};

template <class K, class KeyAt>
Threshold<K> find_threshold(int64_t n, int64_t keep, KeyAt key_at, std::vector<K>& cand) {
  if (keep >= n) return {K{0}, n};  // every key is > 0 or one of the (at most n) zeros
  if (keep <= 0) return {static_cast<K>(~K{0}), 0};
  constexpr int kBits = static_cast<int>(sizeof(K) * 8), kDigit = 11;
  int64_t hist[size_t{1} << kDigit];
  K threshold = 0;
  int64_t rank = keep;  // rank of T among the candidates, 1 = the largest
  int64_t m = n;
  bool first = true;
  for (int shift = kBits; shift > 0;) {
    const int d = std::min(kDigit, shift);
    shift -= d;
    const K digit_mask = static_cast<K>((K{1} << d) - 1);
    const int64_t buckets = int64_t{1} << d;
    std::fill(hist, hist + buckets, int64_t{0});
    if (first)
      for (int64_t j = 0; j < m; ++j) ++hist[(key_at(j) >> shift) & digit_mask];
    else
      for (int64_t j = 0; j < m; ++j) ++hist[(cand[static_cast<size_t>(j)] >> shift) & digit_mask];
    int64_t b = buckets - 1;
    while (hist[b] < rank) rank -= hist[b--];
    threshold |= static_cast<K>(static_cast<K>(b) << shift);
    if (shift == 0) break;
    // Branch-free compaction (the test holds for a scattered fraction of the keys); it writes
    // one slot past the last match, hence the + 1.
    if (first) cand.resize(static_cast<size_t>(hist[b]) + 1);
    int64_t w = 0;
    for (int64_t j = 0; j < m; ++j) {
      const K k = first ? key_at(j) : cand[static_cast<size_t>(j)];
      cand[static_cast<size_t>(w)] = k;
      w += ((k >> shift) & digit_mask) == static_cast<K>(b);
    }
    m = w;
    first = false;
  }
  return {threshold, rank};
}

// keep[i] = 1 for the `keep` largest keys (see find_threshold).
template <class K>
void select_top(const std::vector<K>& key, int64_t keep, std::vector<K>& cand, uint8_t* out) {
  const int64_t n = static_cast<int64_t>(key.size());
  const Threshold<K> t = find_threshold<K>(
      n, keep, [&](int64_t j) { return key[static_cast<size_t>(j)]; }, cand);
  int64_t ties = t.ties;  // branch-free: kept entries are scattered, a branch would mispredict
  for (int64_t i = 0; i < n; ++i) {
    const K k = key[static_cast<size_t>(i)];
    const int64_t tie = (k == t.key) & (ties > 0);
    out[i] = static_cast<uint8_t>((k > t.key) | tie);
    ties -= tie;
  }
}

// Keeps the rectangular units of a grid of uh x uw cells, scored by their L2 norm (ranked by the
// squared norm, the same order). Entries (1 x 1 units) are ranked by |w| through the bits of
// the float (|w| and w^2 order and tie alike); larger units by the bits of their double sum.
Mask unit_mask(ConstMatrixView w, int64_t uh, int64_t uw, double sparsity) {
  Mask mask = empty_mask(w);
  const int64_t gr = (w.rows + uh - 1) / uh, gc = (w.cols + uw - 1) / uw;
  const int64_t keep = kept_units(gr * gc, sparsity);
  if (uh == 1 && uw == 1) {
    const MagnitudeThreshold t = magnitude_threshold(w, sparsity);
    int64_t ties = t.ties;  // branch-free, as in select_top
    for (int64_t r = 0; r < w.rows; ++r) {
      const float* row = w.data + r * w.ld;
      uint8_t* out = mask.keep.data() + r * w.cols;
      for (int64_t c = 0; c < w.cols; ++c) {
        uint32_t bits;
        std::memcpy(&bits, row + c, sizeof bits);
        bits &= 0x7fffffffu;  // |w|
        const int64_t tie = (bits == t.bits) & (ties > 0);
        out[c] = static_cast<uint8_t>((bits > t.bits) | tie);
        ties -= tie;
      }
    }
    return mask;
  }
  std::vector<double> score(static_cast<size_t>(gr * gc), 0.0);
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c) {
      const double x = w.data[r * w.ld + c];
      score[static_cast<size_t>((r / uh) * gc + c / uw)] += x * x;
    }
  std::vector<uint64_t> key(score.size()), cand;
  for (size_t i = 0; i < score.size(); ++i) std::memcpy(&key[i], &score[i], sizeof(double));
  std::vector<uint8_t> unit(score.size());
  select_top(key, keep, cand, unit.data());
  for (int64_t u = 0; u < gr * gc; ++u) {
    if (!unit[static_cast<size_t>(u)]) continue;
    const int64_t r0 = (u / gc) * uh, c0 = (u % gc) * uw;
    for (int64_t r = r0; r < std::min(w.rows, r0 + uh); ++r)
      for (int64_t c = c0; c < std::min(w.cols, c0 + uw); ++c)
        mask.keep[static_cast<size_t>(r * w.cols + c)] = 1;
  }
  return mask;
}

// The positions of the `n` largest of `score` (ties: lower position), in `out`.
void keep_top_n(const std::vector<double>& score, int n, std::vector<int>& out) {
  const size_t len = score.size();
  if (len <= 16) {
    // Small groups (N:M with M <= 16, every step of straight-through training): position p is
    // kept when fewer than n entries beat it (a larger score, or an equal one earlier), the
    // same set as the stable sort below, without its allocations.
    out.clear();
    for (size_t p = 0; p < len; ++p) {
      int beaten = 0;
      for (size_t q = 0; q < len; ++q)
        beaten += score[q] > score[p] || (score[q] == score[p] && q < p);
      if (beaten < n) out.push_back(static_cast<int>(p));
    }
    return;
  }
  out.resize(len);
  std::iota(out.begin(), out.end(), 0);
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    return score[static_cast<size_t>(a)] > score[static_cast<size_t>(b)];
  });
  out.resize(std::min<size_t>(out.size(), static_cast<size_t>(n)));
}

}  // namespace

Mask magnitude_mask(ConstMatrixView w, double sparsity) { return unit_mask(w, 1, 1, sparsity); }

namespace {

uint32_t abs_bits(const float* x) {
  uint32_t bits;
  std::memcpy(&bits, x, sizeof bits);
  return bits & 0x7fffffffu;
}

}  // namespace

int64_t kept_units(int64_t units, double sparsity) {
  check_sparsity(sparsity);
  return units - std::llround(sparsity * static_cast<double>(units));
}

MagnitudeThreshold magnitude_threshold(ConstMatrixView w, double sparsity) {
  check_view(w, "W");
  const int64_t n = w.rows * w.cols;
  const int64_t keep = kept_units(n, sparsity);
  if (w.ld == w.cols || w.rows <= 1) return top_magnitude_threshold(w.data, n, keep);
  thread_local std::vector<uint32_t> cand;
  const Threshold<uint32_t> t = find_threshold<uint32_t>(
      n, keep, [&](int64_t j) { return abs_bits(w.data + (j / w.cols) * w.ld + j % w.cols); },
      cand);
  return {t.key, t.ties};
}

MagnitudeThreshold top_magnitude_threshold(const float* x, int64_t n, int64_t keep) {
  thread_local std::vector<uint32_t> cand;
  const Threshold<uint32_t> t = find_threshold<uint32_t>(
      n, keep, [&](int64_t j) { return abs_bits(x + j); }, cand);
  return {t.key, t.ties};
}

Mask column_vector_mask(ConstMatrixView w, int v, double sparsity) {
  if (!valid_cvse_v(v)) fail("V must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(v));
  return unit_mask(w, v, 1, sparsity);
}

Mask block_mask(ConstMatrixView w, int bh, int bw, double sparsity) {
  if (bh < 1 || bw < 1 || bh > 4096 || bw > 4096)
    fail("block sizes must be in [1, 4096], got " + std::to_string(bh) + "x" + std::to_string(bw));
  return unit_mask(w, bh, bw, sparsity);
}

Mask nm_mask(ConstMatrixView w, int n, int m, NmAxis axis) {
  if (m < 1 || m > 255 || n < 1 || n > m)
    fail("N:M needs 1 <= N <= M <= 255, got " + std::to_string(n) + ":" + std::to_string(m));
  Mask mask = empty_mask(w);
  const int64_t lines = axis == NmAxis::Row ? w.rows : w.cols;
  const int64_t extent = axis == NmAxis::Row ? w.cols : w.rows;
  std::vector<double> score;
  std::vector<int> top;
  for (int64_t line = 0; line < lines; ++line)
    for (int64_t p0 = 0; p0 < extent; p0 += m) {
      const int64_t len = std::min<int64_t>(m, extent - p0);
      score.resize(static_cast<size_t>(len));
      for (int64_t p = 0; p < len; ++p) {
        const int64_t r = axis == NmAxis::Row ? line : p0 + p;
        const int64_t c = axis == NmAxis::Row ? p0 + p : line;
        score[static_cast<size_t>(p)] = std::fabs(w.data[r * w.ld + c]);
      }
      keep_top_n(score, n, top);
      for (int p : top) {
        const int64_t r = axis == NmAxis::Row ? line : p0 + p;
        const int64_t c = axis == NmAxis::Row ? p0 + p : line;
        mask.keep[static_cast<size_t>(r * w.cols + c)] = 1;
      }
    }
  return mask;
}

Mask vnm_mask(ConstMatrixView w, int v, int n, int m) {
  if (v < 1 || v > 4096 || m < 4 || m > 255 || n < 1 || n > 4)
    fail("V:N:M needs 1 <= V <= 4096, 4 <= M <= 255 and 1 <= N <= 4, got " + std::to_string(v) +
         ":" + std::to_string(n) + ":" + std::to_string(m));
  Mask mask = empty_mask(w);
  std::vector<double> score;
  std::vector<int> cols4, top;
  for (int64_t r0 = 0; r0 < w.rows; r0 += v) {
    const int64_t r1 = std::min<int64_t>(w.rows, r0 + v);
    for (int64_t c0 = 0; c0 < w.cols; c0 += m) {
      const int64_t len = std::min<int64_t>(m, w.cols - c0);
      score.assign(static_cast<size_t>(len), 0.0);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t p = 0; p < len; ++p) {
          const double x = w.data[r * w.ld + c0 + p];
          score[static_cast<size_t>(p)] += x * x;
        }
      keep_top_n(score, VnmMatrix::kSelected, cols4);
      std::sort(cols4.begin(), cols4.end());
      for (int64_t r = r0; r < r1; ++r) {
        score.resize(cols4.size());
        for (size_t t = 0; t < cols4.size(); ++t)
          score[t] = std::fabs(w.data[r * w.ld + c0 + cols4[t]]);
        keep_top_n(score, n, top);
        for (int t : top)
          mask.keep[static_cast<size_t>(r * w.cols + c0 + cols4[static_cast<size_t>(t)])] = 1;
      }
    }
  }
  return mask;
}

Mask prune_mask(ConstMatrixView w, const FormatSpec& spec, double sparsity) {
  if (spec.kind == FormatKind::Nm || spec.kind == FormatKind::Vnm) {
    const double own = spec.intrinsic_sparsity();
    if (sparsity >= 0.0 && std::fabs(sparsity - own) > 1e-6)
      fail(spec.str() + " fixes the sparsity at " + std::to_string(own) + ", asked for " +
           std::to_string(sparsity));
    return spec.kind == FormatKind::Nm ? nm_mask(w, spec.n, spec.m, spec.axis)
                                       : vnm_mask(w, spec.v, spec.n, spec.m);
  }
  switch (spec.kind) {
    case FormatKind::Bsr:
      return block_mask(w, spec.bh, spec.bw, sparsity);
    case FormatKind::Cvse:
      return column_vector_mask(w, spec.v, sparsity);
    default:
      return magnitude_mask(w, sparsity);
  }
}

AnySparse prune(ConstMatrixView w, const FormatSpec& spec, double sparsity) {
  const Mask mask = prune_mask(w, spec, sparsity);
  return convert(w, spec, &mask);
}

double relative_error(ConstMatrixView w, const Mask& keep) {
  check_view(w, "W");
  if (keep.rows != w.rows || keep.cols != w.cols) fail("mask and matrix sizes differ");
  double dropped = 0.0, total = 0.0;
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c) {
      const double x = w.data[r * w.ld + c];
      total += x * x;
      if (!keep.at(r, c)) dropped += x * x;
    }
  return total > 0.0 ? std::sqrt(dropped / total) : 0.0;
}

}  // namespace sparsemap::sparse
