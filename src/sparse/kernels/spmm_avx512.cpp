// AVX-512 SpMM workers (16 floats per vector, 32 vector registers), chosen at run time.
//
// Everything after the `#pragma GCC target` below is compiled for AVX-512 (never -march=native):
// the standard headers are all included before it and the workers use no standard-library
// templates, so no AVX-512 instantiation can leak into code that runs on other CPUs.
#include <immintrin.h>

#include <cstdint>

#include "kernel_internal.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2")

namespace sparsemap::sparse::kdetail::avx512 {

namespace {

struct Simd {
  static constexpr int W = 16;
  using Vec = __m512;
  using Mask = __mmask16;
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec load(const float* p) { return _mm512_loadu_ps(p); }
  static Vec load_tail(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
  static void store_tail(float* p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  static Vec set1(float x) { return _mm512_set1_ps(x); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Mask mask(int n) { return static_cast<Mask>((1u << n) - 1u); }  // n in [1, 16]
};

// Register tiles: R x NV accumulators + NV vectors of B + 1 broadcast <= 32 registers.
constexpr int nv_max(int rows) {
  return rows <= 1 ? 16 : rows <= 2 ? 8 : rows <= 4 ? 6 : rows <= 6 ? 4 : 3;
}

// Bytes of B's block (K-block x column panel) that a sweep over a chunk keeps in L2.
constexpr int64_t panel_bytes(int) { return 512 * 1024; }

// CVSE register tiles have at most this many rows (longer vectors run as several tiles).
constexpr int kMaxTileRows = 8;

// CSR's packed B tiles: kCsrKc rows x kCsrNv vectors (64 KB with AVX-512, measured best
// among 32-128 KB tiles of 2-8 vectors on Zen 5). kCsrKc * panel columns
// must fit kScratchFloats.
constexpr int64_t kCsrKc = 256;
constexpr int kCsrNv = 4;
constexpr int64_t kCsrScratchFloats = kScratchFloats;

}  // namespace

#include "spmm_workers.inc"

}  // namespace sparsemap::sparse::kdetail::avx512

#pragma GCC pop_options
