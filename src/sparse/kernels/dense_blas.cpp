// The dense baseline: OpenBLAS sgemm behind the kernels' contract.
//
// OpenBLAS is opened on first use (dlopen), not linked: a linked OpenBLAS starts its worker
// threads when the process starts, and they spin (sched_yield) for about 0.1 s waiting for
// work, taking a core from every command that never multiplies a dense matrix (map, timeloop,
// codesign, ...), half of a 2-core machine.
#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernel_internal.h"

namespace sparsemap::sparse {

namespace {

// The OpenBLAS entry points used here, resolved once from the shared library.
struct OpenBlas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  void (*set_num_threads)(int) = nullptr;
  char* (*get_corename)() = nullptr;
  char* (*get_config)() = nullptr;
};

// Opens the runtime library (Debian's libopenblas0 installs libopenblas.so.0), else the path
// CMake linked against at build time; throws Error when neither opens.
const OpenBlas& openblas() {
  static const OpenBlas lib = [] {
    void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen(SPARSEMAP_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      throw std::runtime_error(
          std::string("OpenBLAS: cannot open libopenblas.so.0 (install libopenblas0): ") +
          dlerror());
    OpenBlas b;
    b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(h, "cblas_sgemm"));
    b.set_num_threads =
        reinterpret_cast<decltype(b.set_num_threads)>(dlsym(h, "openblas_set_num_threads"));
    b.get_corename = reinterpret_cast<decltype(b.get_corename)>(dlsym(h, "openblas_get_corename"));
    b.get_config = reinterpret_cast<decltype(b.get_config)>(dlsym(h, "openblas_get_config"));
    if (!b.sgemm || !b.set_num_threads || !b.get_corename || !b.get_config)
      throw std::runtime_error(
          "OpenBLAS: the opened library lacks cblas_sgemm or the openblas_* functions");
    return b;
  }();
  return lib;
}

}  // namespace

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
  const OpenBlas& blas = openblas();
  if (threads > 0) blas.set_num_threads(threads);
  blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(a.rows),
             static_cast<int>(b.cols), static_cast<int>(a.cols), 1.0f, a.data,
             static_cast<int>(a.ld), b.data, static_cast<int>(b.ld), 0.0f, c.data,
             static_cast<int>(c.ld));
}

std::string openblas_core_name() {
  const char* s = openblas().get_corename();
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
  const char* s = openblas().get_config();
  return s ? s : "";
}

}  // namespace sparsemap::sparse
