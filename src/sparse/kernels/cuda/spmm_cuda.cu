// CUDA SpMM kernels and their host front end (see cuda_spmm.h).
//
// Kernels (C = A B, A sparse M x K, B dense K x N row-major, C M x N row-major fp32):
//   cvse_f32:     one warp per row group of V rows and 32 * kCols columns of C; each lane keeps a
//                 V x kCols register tile; the group's column indices are read 32 at a time and
//                 broadcast with shuffles, so every lane reads B's row once per vector
//                 (coalesced, 16-byte loads when N % 4 == 0). CSR is this kernel with V = 1.
//   cvse_f16_mma: CLASP-style column-vector SpMM on tensor cores. A warp computes a row group
//                 (V = 8, 16 or 32 rows) times TN = 16 * NJ columns of C as C^T = B^T A^T with
//                 mma.sync.m16n8k16: the 16 columns of C are the MMA's M, the group's rows its
//                 N (8 per MMA), and 16 stored vectors its K. The 16 gathered rows of B are
//                 staged in shared memory (16-byte loads) and read as the A fragment; the
//                 vectors' values are the B fragment (shared by the NJ column tiles).
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/sparse/kernels/cuda_spmm.h"

namespace sparsemap::sparse::cuda {

namespace {

void check(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + " (spmm_cuda.cu:" +
                             std::to_string(line) + "): " + cudaGetErrorString(e));
}
void check(cublasStatus_t e, const char* what, int line) {
  if (e != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS error ") + std::to_string(static_cast<int>(e)) +
                             " in " + what + " (spmm_cuda.cu:" + std::to_string(line) + ")");
}
void check(cusparseStatus_t e, const char* what, int line) {
  if (e != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSPARSE error in ") + what + ": " +
                             cusparseGetErrorString(e) + " (spmm_cuda.cu:" + std::to_string(line) +
                             ")");
}
#define SPARSEMAP_CUDA(call) check((call), #call, __LINE__)

constexpr int kWarpsPerBlock = 4;

// ------------------------------------------------------------------------------ fp32 kernel

template <int V, int kCols>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    cvse_f32_kernel(const int* __restrict__ ptr, const int* __restrict__ idx,
                    const float* __restrict__ val, int64_t groups, int64_t m, int64_t n,
                    const float* __restrict__ b, int64_t ldb, float* __restrict__ c, int64_t ldc) {
  const int lane = threadIdx.x;
  const int64_t g = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.y;
  if (g >= groups) return;  // the whole warp leaves together
  const int64_t col0 = (static_cast<int64_t>(blockIdx.y) * 32 + lane) * kCols;
  const bool full = col0 + kCols <= n;
  float acc[V][kCols];
#pragma unroll
  for (int i = 0; i < V; ++i)
#pragma unroll
    for (int q = 0; q < kCols; ++q) acc[i][q] = 0.0f;
  const int p0 = ptr[g], p1 = ptr[g + 1];
  for (int base = p0; base < p1; base += 32) {
    const int cnt = min(32, p1 - base);
    const int my_col = lane < cnt ? idx[base + lane] : 0;
    for (int j = 0; j < cnt; ++j) {
      const int64_t kk = __shfl_sync(0xffffffffu, my_col, j);
      const float* brow = b + kk * ldb + col0;
      float bv[kCols];
      if constexpr (kCols == 4) {
        if (full) {
          const float4 x = __ldg(reinterpret_cast<const float4*>(brow));
          bv[0] = x.x, bv[1] = x.y, bv[2] = x.z, bv[3] = x.w;
        } else {
#pragma unroll
          for (int q = 0; q < kCols; ++q) bv[q] = col0 + q < n ? __ldg(brow + q) : 0.0f;
        }
      } else {
        bv[0] = col0 < n ? __ldg(brow) : 0.0f;
      }
      const float* a = val + static_cast<int64_t>(base + j) * V;
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const float ai = __ldg(a + i);  // the same address in every lane: one broadcast
#pragma unroll
        for (int q = 0; q < kCols; ++q) acc[i][q] = fmaf(ai, bv[q], acc[i][q]);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < V; ++i) {
    const int64_t row = g * V + i;
    if (row >= m) break;
#pragma unroll
    for (int q = 0; q < kCols; ++q)
      if (col0 + q < n) c[row * ldc + col0 + q] = acc[i][q];
  }
}

// -------------------------------------------------------------------------- tensor-core kernel

__device__ __forceinline__ uint32_t pack_half2(__half lo, __half hi) {
  return static_cast<uint32_t>(__half_as_ushort(lo)) |
         (static_cast<uint32_t>(__half_as_ushort(hi)) << 16);
}

// d = a (16x16, row) * b (16x8, col) + d, fp16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4],
                                          const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <int V, int NJ>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    cvse_f16_mma_kernel(const int* __restrict__ ptr, const int* __restrict__ idx,
                        const __half* __restrict__ val, int64_t groups, int64_t m, int64_t n,
                        const __half* __restrict__ b, int64_t ldb, bool vec8, float* __restrict__ c,
                        int64_t ldc) {
  constexpr int TN = 16 * NJ;  // columns of C per warp
  constexpr int kPad = 8;      // halves of padding per shared row (16 bytes)
  constexpr int R8 = V / 8;    // MMA column tiles (8 rows of the group each)
  __shared__ __align__(16) __half sb[kWarpsPerBlock][16][TN + kPad];
  const int warp = threadIdx.y, lane = threadIdx.x, gid = lane >> 2, tig = lane & 3;
  const int64_t g = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (g >= groups) return;  // no block-wide barriers below: warps are independent
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * TN;
  float acc[R8][NJ][4];
#pragma unroll
  for (int r = 0; r < R8; ++r)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[r][j][e] = 0.0f;
  const __half zero = __float2half(0.0f);
  __half(*s)[TN + kPad] = sb[warp];
  const int p0 = ptr[g], p1 = ptr[g + 1];
  for (int base = p0; base < p1; base += 16) {
    const int cnt = min(16, p1 - base);
    __syncwarp();
    // Stage the gathered rows: 16 rows x TN halves, in 16-byte chunks (TN / 8 per row).
    for (int ch = lane; ch < 16 * (TN / 8); ch += 32) {
      const int r = ch / (TN / 8), cc = (ch % (TN / 8)) * 8;
      uint4 v = make_uint4(0u, 0u, 0u, 0u);
      if (r < cnt) {
        const int64_t kk = idx[base + r];
        const __half* src = b + kk * ldb + n0 + cc;
        if (vec8 && n0 + cc + 8 <= n) {
          v = __ldg(reinterpret_cast<const uint4*>(src));
        } else {
          __half h[8];
#pragma unroll
          for (int e = 0; e < 8; ++e) h[e] = n0 + cc + e < n ? src[e] : zero;
          v.x = pack_half2(h[0], h[1]);
          v.y = pack_half2(h[2], h[3]);
          v.z = pack_half2(h[4], h[5]);
          v.w = pack_half2(h[6], h[7]);
        }
      }
      *reinterpret_cast<uint4*>(&s[r][cc]) = v;
    }
    __syncwarp();
    // A fragments (rows = columns of C, cols = the 16 vectors), one per column tile.
    uint32_t af[NJ][4];
#pragma unroll
    for (int j = 0; j < NJ; ++j) {
      const int mc = j * 16 + gid;
      af[j][0] = pack_half2(s[2 * tig][mc], s[2 * tig + 1][mc]);
      af[j][1] = pack_half2(s[2 * tig][mc + 8], s[2 * tig + 1][mc + 8]);
      af[j][2] = pack_half2(s[2 * tig + 8][mc], s[2 * tig + 9][mc]);
      af[j][3] = pack_half2(s[2 * tig + 8][mc + 8], s[2 * tig + 9][mc + 8]);
    }
#pragma unroll
    for (int r8 = 0; r8 < R8; ++r8) {
      // B fragment: vectors k = 2t, 2t+1 (reg 0) and 2t+8, 2t+9 (reg 1), row r8*8 + gid.
      __half h[4];
      const int ks[4] = {2 * tig, 2 * tig + 1, 2 * tig + 8, 2 * tig + 9};
#pragma unroll
      for (int e = 0; e < 4; ++e)
        h[e] = ks[e] < cnt ? val[static_cast<int64_t>(base + ks[e]) * V + r8 * 8 + gid] : zero;
      const uint32_t bf[2] = {pack_half2(h[0], h[1]), pack_half2(h[2], h[3])};
#pragma unroll
      for (int j = 0; j < NJ; ++j) mma_16816(acc[r8][j], af[j], bf);
    }
  }
  // D element e: column of C = n0 + j*16 + gid (+8 for e >= 2), row of the group = r8*8 + 2t
  // (+1 for odd e).
#pragma unroll
  for (int r8 = 0; r8 < R8; ++r8)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t row = g * V + r8 * 8 + 2 * tig + (e & 1);
        const int64_t col = n0 + j * 16 + gid + (e >= 2 ? 8 : 0);
        if (row < m && col < n) c[row * ldc + col] = acc[r8][j][e];
      }
}

// ------------------------------------------------------------------------------------ host

template <class T>
T* upload(const T* host, size_t count) {
  T* d = nullptr;
  if (count == 0) count = 1;  // keep pointers valid for empty arrays
  SPARSEMAP_CUDA(cudaMalloc(&d, count * sizeof(T)));
  if (host)
    SPARSEMAP_CUDA(cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice));
  else
    SPARSEMAP_CUDA(cudaMemset(d, 0, count * sizeof(T)));
  return d;
}

std::vector<__half> to_half(const float* p, size_t count) {
  std::vector<__half> h(count);
  for (size_t i = 0; i < count; ++i) h[i] = __float2half(p[i]);
  return h;
}

// A dense row-major copy of a view (ld == cols).
std::vector<float> packed(ConstMatrixView v) {
  std::vector<float> out(static_cast<size_t>(v.rows * v.cols));
  for (int64_t r = 0; r < v.rows; ++r)
    std::copy(v.data + r * v.ld, v.data + r * v.ld + v.cols, out.begin() + r * v.cols);
  return out;
}

[[noreturn]] void mismatch(GpuKernel k, const char* want) {
  throw InputError({"<cuda spmm>", 0, 0}, std::string(gpu_kernel_name(k)) + " needs A as " + want);
}

}  // namespace

bool available(std::string* reason) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    if (reason) *reason = cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky error
    return false;
  }
  if (count == 0) {
    if (reason) *reason = "no CUDA device";
    return false;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || p.major < 8) {
    if (reason) *reason = "device 0 is not sm_80 or newer";
    cudaGetLastError();
    return false;
  }
  return true;
}

std::string device_description() {
  cudaDeviceProp p{};
  if (!available() || cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "";
  return std::string(p.name) + " (sm_" + std::to_string(p.major * 10 + p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

const char* gpu_kernel_name(GpuKernel k) {
  switch (k) {
    case GpuKernel::CvseF32:
      return "cvse_f32";
    case GpuKernel::CvseF16Mma:
      return "cvse_f16_mma";
    case GpuKernel::CsrF32:
      return "csr_f32";
    case GpuKernel::CusparseCsr:
      return "cusparse_csr_f32";
    case GpuKernel::CublasSgemm:
      return "cublas_sgemm";
    case GpuKernel::CublasHgemm:
      return "cublas_hgemm_f32acc";
  }
  return "?";
}

bool gpu_kernel_is_f16(GpuKernel k) {
  return k == GpuKernel::CvseF16Mma || k == GpuKernel::CublasHgemm;
}

struct GpuSpmm::Impl {
  GpuKernel kernel;
  int64_t m = 0, k = 0, n = 0, groups = 0;
  int v = 1;
  int* ptr = nullptr;
  int* idx = nullptr;
  float* val32 = nullptr;  // sparse values, or dense A (fp32)
  __half* val16 = nullptr;
  float* b32 = nullptr;
  __half* b16 = nullptr;
  float* c = nullptr;
  int64_t nnz = 0;
  cublasHandle_t cublas = nullptr;
  cusparseHandle_t cusparse = nullptr;
  cusparseSpMatDescr_t sp_a = nullptr;
  cusparseDnMatDescr_t dn_b = nullptr, dn_c = nullptr;
  void* sp_buffer = nullptr;

  ~Impl() {
    if (sp_a) cusparseDestroySpMat(sp_a);
    if (dn_b) cusparseDestroyDnMat(dn_b);
    if (dn_c) cusparseDestroyDnMat(dn_c);
    if (cusparse) cusparseDestroy(cusparse);
    if (cublas) cublasDestroy(cublas);
    for (void* p : {static_cast<void*>(ptr), static_cast<void*>(idx), static_cast<void*>(val32),
                    static_cast<void*>(val16), static_cast<void*>(b32), static_cast<void*>(b16),
                    static_cast<void*>(c), sp_buffer})
      if (p) cudaFree(p);
  }

  void launch_cvse_f32() {
    if (m == 0 || n == 0) return;
    const bool vec4 = n % 4 == 0;
    const int cols_per_warp = vec4 ? 128 : 32;
    const dim3 block(32, kWarpsPerBlock);
    const dim3 grid(static_cast<unsigned>((groups + kWarpsPerBlock - 1) / kWarpsPerBlock),
                    static_cast<unsigned>((n + cols_per_warp - 1) / cols_per_warp));
#define SPARSEMAP_F32(VV)                                                                   \
  case VV:                                                                                  \
    if (vec4)                                                                               \
      cvse_f32_kernel<VV, 4><<<grid, block>>>(ptr, idx, val32, groups, m, n, b32, n, c, n); \
    else                                                                                    \
      cvse_f32_kernel<VV, 1><<<grid, block>>>(ptr, idx, val32, groups, m, n, b32, n, c, n); \
    break;
    switch (v) {
      SPARSEMAP_F32(1)
      SPARSEMAP_F32(2)
      SPARSEMAP_F32(4)
      SPARSEMAP_F32(8)
      SPARSEMAP_F32(16)
      SPARSEMAP_F32(32)
      default:
        throw std::runtime_error("cvse_f32: unsupported V");
    }
#undef SPARSEMAP_F32
    SPARSEMAP_CUDA(cudaGetLastError());
  }

  void launch_cvse_f16() {
    if (m == 0 || n == 0) return;
    // Narrower column tiles when there are few warps' worth of work (keeps the SMs busy).
    const bool wide = groups * ((n + 63) / 64) >= 2048;
    const int tn = wide ? 64 : 32;
    const dim3 block(32, kWarpsPerBlock);
    const dim3 grid(static_cast<unsigned>((groups + kWarpsPerBlock - 1) / kWarpsPerBlock),
                    static_cast<unsigned>((n + tn - 1) / tn));
    const bool vec8 = n % 8 == 0;
#define SPARSEMAP_F16(VV)                                                       \
  case VV:                                                                      \
    if (wide)                                                                   \
      cvse_f16_mma_kernel<VV, 4>                                                \
          <<<grid, block>>>(ptr, idx, val16, groups, m, n, b16, n, vec8, c, n); \
    else                                                                        \
      cvse_f16_mma_kernel<VV, 2>                                                \
          <<<grid, block>>>(ptr, idx, val16, groups, m, n, b16, n, vec8, c, n); \
    break;
    switch (v) {
      SPARSEMAP_F16(8)
      SPARSEMAP_F16(16)
      SPARSEMAP_F16(32)
      default:
        throw std::runtime_error("cvse_f16_mma: V must be 8, 16 or 32");
    }
#undef SPARSEMAP_F16
    SPARSEMAP_CUDA(cudaGetLastError());
  }

  void launch_cublas() {
    if (m == 0 || n == 0) return;
    // Row-major C = A B is column-major C^T = B^T A^T: (n x k) times (k x m).
    const float one = 1.0f, zero = 0.0f;
    if (k == 0) {
      SPARSEMAP_CUDA(cudaMemsetAsync(c, 0, static_cast<size_t>(m * n) * sizeof(float)));
      return;
    }
    const int in = static_cast<int>(n), im = static_cast<int>(m), ik = static_cast<int>(k);
    if (kernel == GpuKernel::CublasSgemm)
      SPARSEMAP_CUDA(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, b32, in, val32,
                                 ik, &zero, c, in));
    else
      SPARSEMAP_CUDA(cublasGemmEx(cublas, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, b16,
                                  CUDA_R_16F, in, val16, CUDA_R_16F, ik, &zero, c, CUDA_R_32F, in,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

  void launch_cusparse() {
    if (m == 0 || n == 0) return;
    const float one = 1.0f, zero = 0.0f;
    SPARSEMAP_CUDA(cusparseSpMM(cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &one, sp_a, dn_b, &zero, dn_c,
                                CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, sp_buffer));
  }
};

GpuSpmm::GpuSpmm(GpuKernel kernel, const AnySparse& a, ConstMatrixView b)
    : impl_(std::make_unique<Impl>()) {
  Impl& x = *impl_;
  x.kernel = kernel;
  x.m = rows_of(a);
  x.k = cols_of(a);
  check_view(b, "B");
  if (b.rows != x.k)
    throw InputError({"<cuda spmm>", 0, 0}, "shape mismatch: A is " + std::to_string(x.m) + " x " +
                                                std::to_string(x.k) + " but B has " +
                                                std::to_string(b.rows) + " rows");
  x.n = b.cols;
  if (x.m > (int64_t{1} << 31) - 1 || x.k > (int64_t{1} << 31) - 1 || x.n > (int64_t{1} << 31) - 1)
    throw InputError({"<cuda spmm>", 0, 0}, "sizes must be < 2^31");
  const bool f16 = gpu_kernel_is_f16(kernel);
  switch (kernel) {
    case GpuKernel::CvseF32:
    case GpuKernel::CvseF16Mma: {
      const auto* s = std::get_if<CvseMatrix>(&a);
      if (!s) mismatch(kernel, "CVSE (cvse:V)");
      validate(*s);
      if (f16 && s->v % 8 != 0)
        throw InputError({"<cuda spmm>", 0, 0},
                         "cvse_f16_mma needs V = 8, 16 or 32, got " + std::to_string(s->v));
      x.v = s->v;
      x.groups = s->groups();
      x.ptr = upload(s->row_ptr.data(), s->row_ptr.size());
      x.idx = upload(s->col_idx.data(), s->col_idx.size());
      if (f16) {
        const auto h = to_half(s->values.data(), s->values.size());
        x.val16 = upload(h.data(), h.size());
      } else {
        x.val32 = upload(s->values.data(), s->values.size());
      }
      break;
    }
    case GpuKernel::CsrF32:
    case GpuKernel::CusparseCsr: {
      const auto* s = std::get_if<CsrMatrix>(&a);
      if (!s) mismatch(kernel, "CSR");
      validate(*s);
      x.v = 1;
      x.groups = s->rows;
      x.nnz = s->nnz();
      x.ptr = upload(s->row_ptr.data(), s->row_ptr.size());
      x.idx = upload(s->col_idx.data(), s->col_idx.size());
      x.val32 = upload(s->values.data(), s->values.size());
      break;
    }
    case GpuKernel::CublasSgemm:
    case GpuKernel::CublasHgemm: {
      const auto* d = std::get_if<DenseMatrix>(&a);
      if (!d) mismatch(kernel, "a dense matrix");
      if (f16) {
        const auto h = to_half(d->values.data(), d->values.size());
        x.val16 = upload(h.data(), h.size());
      } else {
        x.val32 = upload(d->values.data(), d->values.size());
      }
      SPARSEMAP_CUDA(cublasCreate(&x.cublas));
      break;
    }
  }
  const std::vector<float> hb = packed(b);
  if (f16) {
    const auto h = to_half(hb.data(), hb.size());
    x.b16 = upload(h.data(), h.size());
  } else {
    x.b32 = upload(hb.data(), hb.size());
  }
  x.c = upload<float>(nullptr, static_cast<size_t>(x.m * x.n));
  if (kernel == GpuKernel::CusparseCsr && x.m > 0 && x.n > 0) {
    SPARSEMAP_CUDA(cusparseCreate(&x.cusparse));
    SPARSEMAP_CUDA(cusparseCreateCsr(&x.sp_a, x.m, x.k, x.nnz, x.ptr, x.idx, x.val32,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSEMAP_CUDA(
        cusparseCreateDnMat(&x.dn_b, x.k, x.n, x.n, x.b32, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    SPARSEMAP_CUDA(
        cusparseCreateDnMat(&x.dn_c, x.m, x.n, x.n, x.c, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    const float one = 1.0f, zero = 0.0f;
    size_t bytes = 0;
    SPARSEMAP_CUDA(cusparseSpMM_bufferSize(
        x.cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
        x.sp_a, x.dn_b, &zero, x.dn_c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
    SPARSEMAP_CUDA(cudaMalloc(&x.sp_buffer, std::max<size_t>(bytes, 16)));
  }
}

GpuSpmm::~GpuSpmm() = default;

void GpuSpmm::run() {
  Impl& x = *impl_;
  switch (x.kernel) {
    case GpuKernel::CvseF32:
    case GpuKernel::CsrF32:
      x.launch_cvse_f32();
      break;
    case GpuKernel::CvseF16Mma:
      x.launch_cvse_f16();
      break;
    case GpuKernel::CusparseCsr:
      x.launch_cusparse();
      break;
    case GpuKernel::CublasSgemm:
    case GpuKernel::CublasHgemm:
      x.launch_cublas();
      break;
  }
}

double GpuSpmm::time_ms(int reps, int warmup) {
  for (int i = 0; i < warmup; ++i) run();
  SPARSEMAP_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  SPARSEMAP_CUDA(cudaEventCreate(&start));
  SPARSEMAP_CUDA(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    SPARSEMAP_CUDA(cudaEventRecord(start));
    run();
    SPARSEMAP_CUDA(cudaEventRecord(stop));
    SPARSEMAP_CUDA(cudaEventSynchronize(stop));
    float t = 0;
    SPARSEMAP_CUDA(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(ms);
}

DenseMatrix GpuSpmm::result() {
  Impl& x = *impl_;
  SPARSEMAP_CUDA(cudaDeviceSynchronize());
  DenseMatrix out(x.m, x.n);
  if (!out.values.empty())
    SPARSEMAP_CUDA(cudaMemcpy(out.values.data(), x.c, out.values.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace sparsemap::sparse::cuda
