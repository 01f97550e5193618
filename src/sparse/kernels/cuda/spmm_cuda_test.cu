// Self-contained test of the CUDA SpMM kernels (no GoogleTest: the GPU machine has only the CUDA
// toolkit). Compares every GPU kernel with the CPU reference on awkward shapes and checks bad
// arguments. Exits 77 (ctest: skipped) on any CUDA error at start-up: no device, a driver older
// than the runtime, ... Usage: sparse_cuda_tests [--json FILE]
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/sparse/kernels/cuda_spmm.h"
#include "sparsemap/sparse/kernels/spmm.h"
#include "sparsemap/sparse/prune/prune.h"

using namespace sparsemap;
using namespace sparsemap::sparse;
using sparsemap::sparse::cuda::GpuKernel;

namespace {

int passed = 0, failed = 0;
std::string json_checks;

void record(bool ok, const std::string& what, double err) {
  (ok ? passed : failed)++;
  if (!ok) std::printf("FAIL: %s (max error %.3g)\n", what.c_str(), err);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", err);
  json_checks += std::string(json_checks.empty() ? "" : ",\n    ") + "{\"check\": \"" + what +
                 "\", \"ok\": " + (ok ? "true" : "false") + ", \"max_err\": " + buf + "}";
}

DenseMatrix random_dense(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  DenseMatrix d(rows, cols);
  for (auto& x : d.values) x = u(rng);
  return d;
}

DenseMatrix round_half(const DenseMatrix& d) {
  DenseMatrix r = d;
  for (auto& x : r.values) x = __half2float(__float2half(x));
  return r;
}

// max |x - y| / (1 + |y|)
double max_err(const DenseMatrix& x, const DenseMatrix& y) {
  if (x.rows != y.rows || x.cols != y.cols) return INFINITY;
  double e = 0;
  for (size_t i = 0; i < x.values.size(); ++i)
    e = std::max(e, std::fabs(double{x.values[i]} - y.values[i]) / (1.0 + std::fabs(y.values[i])));
  return e;
}

struct Shape {
  int64_t m, k, n;
  double sparsity;
};

void check_kernel(GpuKernel kernel, const Shape& s, int v, uint32_t seed) {
  const bool f16 = cuda::gpu_kernel_is_f16(kernel);
  DenseMatrix w = random_dense(s.m, s.k, seed), b = random_dense(s.k, s.n, seed + 1);
  if (f16) {
    w = round_half(w);
    b = round_half(b);
  }
  AnySparse a;
  switch (kernel) {
    case GpuKernel::CvseF32:
    case GpuKernel::CvseF16Mma:
      a = prune(w.view(), parse_format("cvse:" + std::to_string(v)), s.sparsity);
      break;
    case GpuKernel::CsrF32:
    case GpuKernel::CusparseCsr:
      a = prune(w.view(), parse_format("csr"), s.sparsity);
      break;
    default:
      a = apply_mask(w.view(), magnitude_mask(w.view(), s.sparsity));
      break;
  }
  DenseMatrix ref(s.m, s.n);
  spmm_ref(a, b.view(), ref.view());
  const std::string what = std::string(cuda::gpu_kernel_name(kernel)) + " v=" + std::to_string(v) +
                           " " + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" +
                           std::to_string(s.n) + " s=" + std::to_string(s.sparsity);
  try {
    cuda::GpuSpmm g(kernel, a, b.view());
    g.run();
    const DenseMatrix c = g.result();
    // fp16 inputs are exact here (rounded on the host); fp32 accumulation order differs.
    const double tol = f16 ? 2e-3 : 1e-4;
    const double e = max_err(c, ref);
    record(e <= tol, what, e);
  } catch (const std::exception& ex) {
    std::printf("FAIL: %s threw: %s\n", what.c_str(), ex.what());
    record(false, what + " threw", INFINITY);
  }
}

template <class F>
void expect_input_error(const std::string& what, F f) {
  bool ok = false;
  try {
    f();
  } catch (const InputError&) {
    ok = true;
  } catch (const std::exception& e) {
    std::printf("  %s: wrong exception: %s\n", what.c_str(), e.what());
  }
  record(ok, what, 0);
}

}  // namespace

int main(int argc, char** argv) {
  std::string json;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json = argv[++i];
  std::string why;
  if (!cuda::available(&why)) {
    std::printf("SKIP: no usable CUDA device: %s\n", why.c_str());
    if (!json.empty())
      std::ofstream(json) << "{\"skipped\": true, \"reason\": \"" << why << "\"}\n";
    return 77;
  }
  std::printf("device: %s\n", cuda::device_description().c_str());
  // Empty rows (high sparsity), M not a multiple of V, K or N of 1, N not a multiple of the
  // vector width (4 or 8), fully dense and fully empty, and a larger shape.
  const Shape shapes[] = {{37, 29, 45, 0.8},  {64, 64, 64, 0.5},  {33, 17, 1, 0.7},
                          {19, 1, 23, 0.5},   {50, 31, 100, 0.0}, {23, 41, 17, 1.0},
                          {70, 90, 257, 0.9}, {8, 8, 16, 0.99},   {256, 512, 256, 0.9},
                          {130, 70, 300, 0.6}};
  uint32_t seed = 1;
  for (const Shape& s : shapes) {
    for (int v : {1, 2, 4, 8, 16, 32}) check_kernel(GpuKernel::CvseF32, s, v, seed++);
    for (int v : {8, 16, 32}) check_kernel(GpuKernel::CvseF16Mma, s, v, seed++);
    check_kernel(GpuKernel::CsrF32, s, 1, seed++);
    check_kernel(GpuKernel::CusparseCsr, s, 1, seed++);
    check_kernel(GpuKernel::CublasSgemm, s, 1, seed++);
    check_kernel(GpuKernel::CublasHgemm, s, 1, seed++);
  }
  // Bad arguments: a clear InputError, never a crash.
  const DenseMatrix w = random_dense(16, 8, 3), b = random_dense(8, 4, 4), wrong_b(7, 4);
  const AnySparse csr = csr_from_dense(w.view()), cv4 = cvse_from_dense(w.view(), 4);
  expect_input_error("format mismatch", [&] { cuda::GpuSpmm(GpuKernel::CvseF32, csr, b.view()); });
  expect_input_error("f16 needs V multiple of 8",
                     [&] { cuda::GpuSpmm(GpuKernel::CvseF16Mma, cv4, b.view()); });
  expect_input_error("shape mismatch",
                     [&] { cuda::GpuSpmm(GpuKernel::CsrF32, csr, wrong_b.view()); });
  expect_input_error("negative sizes", [&] {
    cuda::GpuSpmm(GpuKernel::CsrF32, csr, ConstMatrixView{b.values.data(), 8, -1, 4});
  });
  std::printf("%d passed, %d failed\n", passed, failed);
  if (!json.empty())
    std::ofstream(json) << "{\"device\": \"" << cuda::device_description()
                        << "\", \"passed\": " << passed << ", \"failed\": " << failed
                        << ",\n  \"checks\": [\n    " << json_checks << "\n  ]\n}\n";
  return failed == 0 ? 0 : 1;
}
