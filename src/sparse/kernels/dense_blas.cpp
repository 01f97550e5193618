// The dense baseline: OpenBLAS sgemm behind the kernels' contract.
#include <cblas.h>

#include <algorithm>
#include <string>

#include "kernel_internal.h"

// OpenBLAS extensions (declared here so that any cblas.h will do).
extern "C" {
void openblas_set_num_threads(int num_threads);
char* openblas_get_corename(void);
char* openblas_get_config(void);
}

namespace sparsemap::sparse {

void sgemm_openblas(ConstMatrixView a, ConstMatrixView b, MatrixView c, int threads) {
  check_view(a, "A");
  kdetail::check_operands("dense", a.rows, a.cols, b, c);
  if (threads < 0) kdetail::resolve_threads(threads);  // throws
  if (c.rows == 0 || c.cols == 0) return;
  if (a.cols == 0) {  // C = 0 (cblas rejects K = 0 with lda = 0)
    for (int64_t r = 0; r < c.rows; ++r)
      std::fill(c.data + r * c.ld, c.data + r * c.ld + c.cols, 0.0f);
    return;
  }
  if (threads > 0) openblas_set_num_threads(threads);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(a.rows),
              static_cast<int>(b.cols), static_cast<int>(a.cols), 1.0f, a.data,
              static_cast<int>(a.ld), b.data, static_cast<int>(b.ld), 0.0f, c.data,
              static_cast<int>(c.ld));
}

std::string openblas_core_name() {
  const char* s = openblas_get_corename();
  return s ? s : "";
}

std::string openblas_best_core() {
  const Isa isa = detected_isa();
  if (isa == Isa::Avx512) {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx512bf16")) return "Cooperlake";
#endif
    return "SkylakeX";
  }
  return isa == Isa::Avx2 ? "Haswell" : "";
}

std::string openblas_config() {
  const char* s = openblas_get_config();
  return s ? s : "";
}

}  // namespace sparsemap::sparse
