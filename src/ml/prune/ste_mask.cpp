#include "sparsemap/ml/prune/ste_mask.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sparsemap/sparse/kernels/spmm.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::ml::prune {

namespace {

// The bits of |x|: an unsigned integer ordered as |x| (a NaN above +inf). They are below 2^31,
// so signed comparisons (which vectorise) order them as unsigned ones do.
inline uint32_t abs_bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b & 0x7fffffffu;
}

inline float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Pass 1 over [from, n): mk = |s| > tp, out = w masked with mk; the entries with
// lo <= |s| <= hi are appended to idx. Returns how many have |s| > hi.
int64_t first_pass_scalar(const float* w, const float* s, float* out, float* mk, int64_t from,
                          int64_t n, float beta, uint32_t tp, uint32_t lo, uint32_t hi,
                          std::vector<int32_t>& idx) {
  int64_t above = 0;
  for (int64_t j = from; j < n; ++j) {
    const uint32_t key = abs_bits(s[j]);
    const bool k = key > tp;
    if (mk) mk[j] = k ? 1.0f : 0.0f;
    out[j] = k ? w[j] : w[j] * beta;
    above += key > hi;
    if (key >= lo && key <= hi) idx.push_back(static_cast<int32_t>(j));
  }
  return above;
}

// The same, 8 entries at a time (WriteMask: mk is given).
template <bool WriteMask>
__attribute__((target("avx2"))) int64_t first_pass_avx2(const float* w, const float* s, float* out,
                                                        float* mk, int64_t n, float beta,
                                                        uint32_t tp, uint32_t lo, uint32_t hi,
                                                        std::vector<int32_t>& idx) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
  const __m256i vtp = _mm256_set1_epi32(static_cast<int32_t>(tp));
  const __m256i vhi = _mm256_set1_epi32(static_cast<int32_t>(hi));
  const __m256i vlo = _mm256_set1_epi32(static_cast<int32_t>(lo));
  const __m256 vbeta = _mm256_set1_ps(beta), one = _mm256_set1_ps(1.0f);
  __m256i count = _mm256_setzero_si256();  // minus the entries above hi, per lane
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256i key = _mm256_and_si256(_mm256_castps_si256(_mm256_loadu_ps(s + j)), abs_mask);
    const __m256 x = _mm256_loadu_ps(w + j);
    const __m256 kept = _mm256_castsi256_ps(_mm256_cmpgt_epi32(key, vtp));
    if constexpr (WriteMask) _mm256_storeu_ps(mk + j, _mm256_and_ps(kept, one));
    _mm256_storeu_ps(out + j, _mm256_blendv_ps(_mm256_mul_ps(x, vbeta), x, kept));
    const __m256i gt_hi = _mm256_cmpgt_epi32(key, vhi);
    count = _mm256_add_epi32(count, gt_hi);
    // In the band: neither above hi nor below lo.
    const __m256i outside = _mm256_or_si256(gt_hi, _mm256_cmpgt_epi32(vlo, key));
    unsigned in = ~static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(outside))) & 0xffu;
    for (; in; in &= in - 1) idx.push_back(static_cast<int32_t>(j + __builtin_ctz(in)));
  }
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), count);
  int64_t above = 0;
  for (int32_t c : lanes) above -= c;  // at most n / 8 per lane
  return above + first_pass_scalar(w, s, out, mk, j, n, beta, tp, lo, hi, idx);
}

// The next step's band: centred where T should move if the kept count changes as it just did
// (by dk), wide enough for band.delta more entries either way (band.density entries per unit
// of |score| near T), and always holding T itself (pass 1 masks with it).
void place_band(SteBand& band, uint32_t t, int64_t keep) {
  const int64_t dk = band.valid ? keep - band.keep : 0;
  band.t = t;
  band.keep = keep;
  band.valid = true;
  const double tf = bits_float(t);
  double lo = tf * (1 - 1.0 / 32), hi = tf * (1 + 1.0 / 32);  // no estimate yet: T -+ 1/32
  if (band.density > 0 && std::isfinite(tf)) {
    const double centre = tf - static_cast<double>(dk) / band.density;
    const double half = (band.delta + 2.0 * std::abs(static_cast<double>(dk))) / band.density;
    lo = centre - half;
    hi = centre + half;
  }
  band.lo = std::min(t, abs_bits(static_cast<float>(std::max(0.0, lo))));
  band.hi = std::max(t, abs_bits(static_cast<float>(std::min(3.0e38, hi))));
}

}  // namespace

void ste_mask_unstructured(const float* w, const float* s, float* out, float* mk, int64_t n,
                           int64_t keep, float beta, SteBand& band) {
  band.last_keep = std::clamp<int64_t>(keep, 0, n);
  if (keep <= 0 || keep >= n) {  // all or nothing: no threshold to track
    const float k = keep > 0 ? 1.0f : 0.0f, scale = keep > 0 ? 1.0f : beta;
    for (int64_t j = 0; j < n; ++j) {
      if (mk) mk[j] = k;
      out[j] = w[j] * scale;
    }
    band.valid = false;
    return;
  }
  // Pass 1: mask with the previous threshold, count above the band, list the band.
  const uint32_t tp = band.valid ? band.t : 0x7fffffffu;
  const uint32_t lo = band.valid ? band.lo : 1u, hi = band.valid ? band.hi : 0u;  // empty band
  band.idx.clear();
  const int64_t above = sparse::detected_isa() < sparse::Isa::Avx2
                            ? first_pass_scalar(w, s, out, mk, 0, n, beta, tp, lo, hi, band.idx)
                        : mk ? first_pass_avx2<true>(w, s, out, mk, n, beta, tp, lo, hi, band.idx)
                             : first_pass_avx2<false>(w, s, out, mk, n, beta, tp, lo, hi, band.idx);
  const int64_t m = static_cast<int64_t>(band.idx.size());
  if (band.valid && above < keep && keep <= above + m) {
    // The new threshold is among the band's entries: select there and fix up those only.
    band.keys.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i)
      band.keys[static_cast<size_t>(i)] = s[band.idx[static_cast<size_t>(i)]];
    const sparse::MagnitudeThreshold t =
        sparse::top_magnitude_threshold(band.keys.data(), m, keep - above);
    int64_t ties = t.ties;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t j = band.idx[static_cast<size_t>(i)];
      const uint32_t key = abs_bits(band.keys[static_cast<size_t>(i)]);
      const bool kept = key > t.bits || (key == t.bits && ties > 0);
      ties -= key == t.bits && kept;
      if (mk) mk[j] = kept ? 1.0f : 0.0f;
      out[j] = kept ? w[j] : w[j] * beta;
    }
    const double width = static_cast<double>(bits_float(band.hi)) - bits_float(band.lo);
    if (m >= 16 && width > 0) band.density = static_cast<double>(m) / width;
    band.delta = std::max(band.delta * 0.95, std::max(32.0, static_cast<double>(n) / 2048));
    place_band(band, t.bits, keep);
    return;
  }
  // A miss: full selection and a second pass, which also measures the density near T.
  ++band.full_selects;
  const sparse::MagnitudeThreshold t = sparse::top_magnitude_threshold(s, n, keep);
  const float tf = bits_float(t.bits);
  const uint32_t near_lo = abs_bits(tf * 0.95f), near_hi = abs_bits(tf * 1.05f);
  int64_t ties = t.ties, near = 0;  // branch-free: kept entries are scattered
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t key = abs_bits(s[j]);
    const int64_t tie = (key == t.bits) & (ties > 0);
    ties -= tie;
    near += (key >= near_lo) & (key <= near_hi);
    const float k = static_cast<float>((key > t.bits) | tie);
    if (mk) mk[j] = k;
    out[j] = w[j] * (k + (1.0f - k) * beta);
  }
  if (near >= 16 && tf > 0 && std::isfinite(tf))
    band.density = static_cast<double>(near) / (0.1 * tf);
  band.delta = band.valid ? std::min(band.delta * 2, static_cast<double>(n) / 4)
                          : std::max(32.0, static_cast<double>(n) / 256);
  place_band(band, t.bits, keep);
}

void ste_gradient(float* g, const float* w, const float* mk, float lambda, float gscale,
                  int64_t n) {
  for (int64_t j = 0; j < n; ++j) {  // vectorised
    const float k = mk[j];
    g[j] = g[j] * (k + (1.0f - k) * gscale) + lambda * (w[j] * (1.0f - k));
  }
}

void ste_decay(float* g, const float* w, const float* masked, float lambda, int64_t n) {
  for (int64_t j = 0; j < n; ++j) g[j] += lambda * (w[j] - masked[j]);  // vectorised
}

}  // namespace sparsemap::ml::prune
