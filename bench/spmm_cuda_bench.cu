// Benchmark of the CUDA SpMM kernels against cuBLAS (dense) and cuSPARSE (CSR), on the `dl`
// shapes with N = 4096 (batch x tokens) by default. Self-contained (no Google Benchmark: the GPU
// machine has only the CUDA toolkit). Usage:
//   spmm_cuda_bench [--n N] [--sparsity 0.5,0.7,...] [--reps R] [--json FILE]
// Exits 77 when no CUDA device is usable.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/sparse/kernels/cuda_spmm.h"
#include "sparsemap/sparse/prune/prune.h"

using namespace sparsemap::sparse;
using namespace sparsemap::measure;
using sparsemap::geomean;
using sparsemap::sparse::cuda::GpuKernel;

namespace {

struct Result {
  GemmShape shape;
  std::string kernel, format, baseline;
  double sparsity, ms, baseline_ms;
};

double time_kernel(GpuKernel k, const AnySparse& a, const DenseMatrix& b, int reps) {
  cuda::GpuSpmm g(k, a, b.view());
  return g.time_ms(reps, 3);
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 4096;
  int reps = 20;
  std::string json, sparsity_list = "0.5,0.7,0.8,0.9,0.95";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n"))
      n = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps"))
      reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--json"))
      json = argv[i + 1];
    else if (!std::strcmp(argv[i], "--sparsity"))
      sparsity_list = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  std::vector<double> sparsities;
  {
    std::stringstream ss(sparsity_list);
    std::string t;
    while (std::getline(ss, t, ',')) sparsities.push_back(std::atof(t.c_str()));
  }
  std::string why;
  if (!cuda::available(&why)) {
    std::printf("SKIP: no usable CUDA device: %s\n", why.c_str());
    if (!json.empty()) std::ofstream(json) << "{\"skipped\": true}\n";
    return 77;
  }
  const std::string device = cuda::device_description();
  std::printf("device: %s, N = %lld, median of %d launches\n", device.c_str(),
              static_cast<long long>(n), reps);
  std::vector<Result> results;
  uint64_t seed = 1;
  for (const GemmShape& sh : dl_shapes(n)) {
    const DenseMatrix w = random_normal(sh.m, sh.k, seed++), b = random_normal(sh.k, sh.n, seed++);
    const double hgemm = time_kernel(GpuKernel::CublasHgemm, w, b, reps);
    const double sgemm = time_kernel(GpuKernel::CublasSgemm, w, b, reps);
    std::printf(
        "%5lld x %5lld x %5lld  hgemm %.4f ms (%.0f TFLOP/s)  sgemm %.4f ms (%.1f TFLOP/s)  %s\n",
        static_cast<long long>(sh.m), static_cast<long long>(sh.k), static_cast<long long>(sh.n),
        hgemm, 2.0 * sh.m * sh.k * sh.n / hgemm / 1e9, sgemm,
        2.0 * sh.m * sh.k * sh.n / sgemm / 1e9, sh.name.c_str());
    for (double s : sparsities) {
      for (int v : {8, 16}) {
        const AnySparse cv = prune(w.view(), parse_format("cvse:" + std::to_string(v)), s);
        results.push_back({sh, "cvse_f16_mma", "cvse:" + std::to_string(v), "cublas_hgemm_f32acc",
                           s, time_kernel(GpuKernel::CvseF16Mma, cv, b, reps), hgemm});
        if (v == 8)
          results.push_back({sh, "cvse_f32", "cvse:8", "cublas_sgemm", s,
                             time_kernel(GpuKernel::CvseF32, cv, b, reps), sgemm});
      }
      const AnySparse csr = prune(w.view(), parse_format("csr"), s);
      results.push_back({sh, "csr_f32", "csr", "cublas_sgemm", s,
                         time_kernel(GpuKernel::CsrF32, csr, b, reps), sgemm});
      results.push_back({sh, "cusparse_csr_f32", "csr", "cublas_sgemm", s,
                         time_kernel(GpuKernel::CusparseCsr, csr, b, reps), sgemm});
    }
  }
  // Geomean speedups per (kernel, format, sparsity): over all shapes and over the BERT/GPT-2 ones.
  std::map<std::string, std::vector<double>> all, bert;
  for (const Result& r : results) {
    char key[128];
    std::snprintf(key, sizeof key, "%-17s %-8s %.2f", r.kernel.c_str(), r.format.c_str(),
                  r.sparsity);
    all[key].push_back(r.baseline_ms / r.ms);
    if (r.shape.name.find("bert") != std::string::npos ||
        r.shape.name.find("gpt2") != std::string::npos)
      bert[key].push_back(r.baseline_ms / r.ms);
  }
  std::printf(
      "\n%-17s %-8s %-8s %10s %12s   (speedup over the baseline: cuBLAS for cvse/csr,\n"
      "%48s   cvse_f16 vs HGEMM fp32-accumulate)\n",
      "kernel", "format", "sparsity", "all shapes", "bert/gpt2", "");
  for (const auto& [key, v] : all)
    std::printf("%s %10.2fx %11.2fx\n", key.c_str(), geomean(v), geomean(bert[key]));
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"device\": \"" << json_escape(device) << "\",\n  \"n\": " << n
        << ",\n  \"results\": [\n";
    for (size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      out << "    {\"M\": " << r.shape.m << ", \"K\": " << r.shape.k << ", \"N\": " << r.shape.n
          << ", \"shape\": \"" << json_escape(r.shape.name) << "\", \"kernel\": \"" << r.kernel
          << "\", \"format\": \"" << r.format << "\", \"sparsity\": " << r.sparsity
          << ", \"ms\": " << r.ms << ", \"baseline\": \"" << r.baseline
          << "\", \"baseline_ms\": " << r.baseline_ms << ", \"speedup\": " << r.baseline_ms / r.ms
          << "}" << (i + 1 < results.size() ? "," : "") << "\n";
    }
    out << "  ],\n  \"summary\": [\n";
    size_t i = 0;
    for (const auto& [key, v] : all) {
      std::istringstream ks(key);
      std::string kernel, format;
      double s;
      ks >> kernel >> format >> s;
      out << "    {\"kernel\": \"" << kernel << "\", \"format\": \"" << format
          << "\", \"sparsity\": " << s << ", \"geomean_speedup\": " << geomean(v)
          << ", \"geomean_speedup_bert_gpt2\": " << geomean(bert[key]) << "}"
          << (++i < all.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  return 0;
}
