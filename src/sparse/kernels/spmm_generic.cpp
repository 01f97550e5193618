// Portable SpMM workers (no ISA extension assumed): the same tiles as the SIMD versions over
// 8-float arrays, which the compiler vectorises for the baseline target.
#include <cstdint>

#include "kernel_internal.h"

namespace sparsemap::sparse::kdetail::generic {

namespace {

struct Simd {
  static constexpr int W = 8;
  struct Vec {
    float x[8];
  };
  using Mask = int;  // lanes [0, mask) are active
  static Vec zero() { return Vec{{0, 0, 0, 0, 0, 0, 0, 0}}; }
  static Vec load(const float* p) {
    Vec v;
    for (int i = 0; i < W; ++i) v.x[i] = p[i];
    return v;
  }
  static Vec load_tail(const float* p, Mask m) {
    Vec v = zero();
    for (int i = 0; i < m; ++i) v.x[i] = p[i];
    return v;
  }
  static void store(float* p, const Vec& v) {
    for (int i = 0; i < W; ++i) p[i] = v.x[i];
  }
  static void store_tail(float* p, const Vec& v, Mask m) {
    for (int i = 0; i < m; ++i) p[i] = v.x[i];
  }
  static Vec set1(float a) { return Vec{{a, a, a, a, a, a, a, a}}; }
  static Vec fma(const Vec& a, const Vec& b, const Vec& c) {
    Vec r;
    for (int i = 0; i < W; ++i) r.x[i] = a.x[i] * b.x[i] + c.x[i];
    return r;
  }
  static Mask mask(int n) { return n; }
};

constexpr int nv_max(int rows) { return rows <= 1 ? 4 : rows <= 2 ? 2 : 1; }

// Bytes of B's panel (K-block x column panel) that a sweep keeps in L2.
constexpr int64_t panel_bytes(int) { return 512 * 1024; }

// CVSE register tiles have at most this many rows (longer vectors run as several tiles).
constexpr int kMaxTileRows = 8;

// Packed B tiles of the row formats: kCsrKc rows x kCsrNv vectors (32 KB). kCsrKc * panel columns
// must fit kScratchFloats.
constexpr int64_t kCsrKc = 256;
constexpr int kCsrNv = 4;
constexpr int64_t kCsrScratchFloats = kScratchFloats;

}  // namespace

#include "spmm_workers.inc"

}  // namespace sparsemap::sparse::kdetail::generic
