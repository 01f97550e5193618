// Internals of the CPU kernels: operand checks, the plain-pointer argument block that the
// per-ISA workers take, and the workers' declarations (one namespace per ISA).
#pragma once

#include <cstdint>
#include <vector>

#include "sparsemap/sparse/kernels/spmm.h"

namespace sparsemap::sparse::kdetail {

// Checks B (a_cols x N) and C (a_rows x N) against A's sizes; throws InputError naming `format`.
void check_operands(const char* format, int64_t a_rows, int64_t a_cols, ConstMatrixView b,
                    MatrixView c);
// A pointer array of lines + 1 non-decreasing entries from 0 to `entries` (O(lines)).
void check_ptr(const char* format, const std::vector<int32_t>& ptr, int64_t lines, int64_t entries);
// opt.threads resolved: 0 -> omp_get_max_threads(); throws InputError when negative.
int resolve_threads(int threads);

// Everything a worker needs, as plain pointers (so that ISA-specific code instantiates no
// standard-library templates). Fields a format does not use stay 0.
struct Args {
  const int32_t* ptr = nullptr;  // csr/cvse/bsr pointers
  const int32_t* idx = nullptr;  // csr/cvse/bsr column (block) indices
  const float* val = nullptr;
  const uint8_t* off = nullptr;  // nm/vnm offsets
  const uint8_t* sel = nullptr;  // vnm column selections
  int64_t m = 0;                 // rows of A and C
  int64_t k = 0;                 // cols of A, rows of B
  int64_t n = 0;                 // cols of B and C
  int v = 1;                     // cvse V; vnm V; bsr bh
  int bw = 1;                    // bsr bw
  int nn = 0, mm = 0;            // N and M of nm/vnm
  int64_t groups = 0;            // nm/vnm groups per line
  const float* b = nullptr;
  int64_t ldb = 0;
  float* c = nullptr;
  int64_t ldc = 0;
};

// Floats of per-thread scratch a worker may use (the CSR worker packs B there); workers
// called with scratch = nullptr do without.
constexpr int64_t kScratchFloats = 256 * 512;

// Workers compute the lines [lo, hi) of a format fully (all N columns of C):
//   csr: rows; cvse: row groups; bsr: block rows; nm (axis Row): rows; nm (axis Col): row
//   groups of M rows; vnm: rows.
#define SPARSEMAP_DECLARE_WORKERS                                     \
  void csr(const Args& a, int64_t lo, int64_t hi, float* scratch);    \
  void cvse(const Args& a, int64_t lo, int64_t hi, float* scratch);   \
  void bsr(const Args& a, int64_t lo, int64_t hi, float* scratch);    \
  void nm_row(const Args& a, int64_t lo, int64_t hi, float* scratch); \
  void nm_col(const Args& a, int64_t lo, int64_t hi, float* scratch); \
  void vnm(const Args& a, int64_t lo, int64_t hi, float* scratch);

namespace generic {
SPARSEMAP_DECLARE_WORKERS
}
namespace avx2 {
SPARSEMAP_DECLARE_WORKERS
}
namespace avx512 {
SPARSEMAP_DECLARE_WORKERS
}

}  // namespace sparsemap::sparse::kdetail
