// SpMM on NVIDIA GPUs (built only with a CUDA toolkit): column-vector SpMM on tensor cores
// (fp16 inputs, fp32 accumulation, mma.sync), an fp32 CUDA-core CVSE kernel, CSR, and the
// vendor baselines (cuBLAS dense, cuSPARSE CSR). Plain C++ interface: no CUDA types.
#pragma once

#include <memory>
#include <string>

#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::sparse::cuda {

// Whether a CUDA device can run kernels. On any CUDA error (no device, a driver older than
// the runtime, ...) returns false and puts CUDA's message in *reason.
bool available(std::string* reason = nullptr);
// "NVIDIA H200 (sm_90, 132 SMs)", or "" without a device.
std::string device_description();

enum class GpuKernel {
  CvseF32,      // CVSE, fp32, CUDA cores: one warp per row group, 4 columns per lane
  CvseF16Mma,   // CVSE (V in {8, 16, 32}), fp16 A and B, fp32 C, mma.sync.m16n8k16
  CsrF32,       // CSR, fp32, CUDA cores (the CVSE kernel with V = 1)
  CusparseCsr,  // cusparseSpMM, CSR, fp32
  CublasSgemm,  // cublasSgemm, dense fp32
  CublasHgemm,  // cublasGemmEx, dense fp16 A and B, fp32 C and compute
};
const char* gpu_kernel_name(GpuKernel k);
// Whether the kernel takes fp16 inputs (the host rounds A and B to fp16 on upload).
bool gpu_kernel_is_f16(GpuKernel k);

// One SpMM problem C (M x N) = A (M x K) B (K x N) resident on the GPU.
class GpuSpmm {
 public:
  // Uploads A and B (and converts them for fp16 kernels). A must be a CvseMatrix for the Cvse
  // kernels, a CsrMatrix for CsrF32 and CusparseCsr, a DenseMatrix for the cuBLAS ones.
  // Throws InputError on a format/kernel mismatch or bad sizes (as the CPU kernels do), and
  // std::runtime_error on CUDA errors.
  GpuSpmm(GpuKernel kernel, const AnySparse& a, ConstMatrixView b);
  ~GpuSpmm();
  GpuSpmm(const GpuSpmm&) = delete;
  GpuSpmm& operator=(const GpuSpmm&) = delete;

  void run();  // one launch (asynchronous)
  // Median over `reps` launches, each timed with CUDA events, after `warmup` launches.
  double time_ms(int reps = 20, int warmup = 3);
  // Synchronizes and copies C back.
  DenseMatrix result();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sparsemap::sparse::cuda
