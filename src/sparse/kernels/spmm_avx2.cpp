// AVX2 + FMA SpMM workers (8 floats per vector, 16 vector registers), chosen at run time.
// Same rules as spmm_avx512.cpp: standard headers before the target pragma, none after.
#include <immintrin.h>

#include <cstdint>

#include "kernel_internal.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2")

namespace sparsemap::sparse::kdetail::avx2 {

namespace {

struct Simd {
  static constexpr int W = 8;
  using Vec = __m256;
  using Mask = __m256i;
  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec load(const float* p) { return _mm256_loadu_ps(p); }
  static Vec load_tail(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
  static void store_tail(float* p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  static Vec set1(float x) { return _mm256_set1_ps(x); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  // Lanes [0, n) set, n in [1, 8].
  static Mask mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
};

// Register tiles: R x NV accumulators + NV vectors of B + 1 broadcast <= 16 registers.
constexpr int nv_max(int rows) {
  return rows <= 1 ? 8 : rows <= 2 ? 4 : rows <= 3 ? 3 : rows <= 6 ? 2 : 1;
}

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

}  // namespace sparsemap::sparse::kdetail::avx2

#pragma GCC pop_options
