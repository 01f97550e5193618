// SpMM kernels on the CPU: C (M x N) = A (M x K, sparse) x B (K x N, dense row-major), fp32.
// Every fast kernel has a scalar `_ref` twin with the same contract; tests compare the two.
//
// Contract of every kernel:
//   - B is a.cols x N and C is a.rows x N (views with explicit sizes and leading dimensions);
//     C is overwritten (C = A B; rows of A with no entries give zero rows of C).
//   - Sizes, strides and array lengths are checked on entry and a mismatch throws InputError.
//     The `_ref` kernels also validate() the whole format; the fast kernels check the format's
//     array lengths and pointers (O(rows)) and trust its column indices, so a format read from
//     a file must pass validate() first (the conversions always produce valid formats).
//   - C must not overlap A or B. Kernels are thread-safe on distinct outputs.
#pragma once

#include <string>

#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::sparse {

// Instruction sets a fast kernel can use; Auto picks the best one this CPU has (cpuid).
enum class Isa { Auto, Generic, Avx2, Avx512 };

struct KernelOptions {
  int threads = 0;      // OpenMP threads; 0 = omp_get_max_threads()
  Isa isa = Isa::Auto;  // forcing an ISA the CPU lacks throws InputError
};

// The best ISA of this CPU: Avx512 (avx512f+vl+bw+dq), Avx2 (avx2+fma) or Generic.
Isa detected_isa();
const char* isa_name(Isa isa);
// Auto -> detected_isa(); an ISA above detected_isa() throws InputError.
Isa resolve_isa(Isa requested);

// Fast kernels (SIMD, OpenMP over row blocks balanced by stored entries).
void spmm_csr(const CsrMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt = {});
void spmm_bsr(const BsrMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt = {});
void spmm_cvse(const CvseMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt = {});
void spmm_nm(const NmMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt = {});
void spmm_vnm(const VnmMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt = {});
// Dense A: OpenBLAS sgemm with opt.threads threads (0 = OpenBLAS's default).
void spmm_dense(const DenseMatrix& a, ConstMatrixView b, MatrixView c,
                const KernelOptions& opt = {});
// Any format.
void spmm(const AnySparse& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt = {});

// Scalar references: plain loops, one thread, fp32 accumulation in stored-entry order.
void spmm_csr_ref(const CsrMatrix& a, ConstMatrixView b, MatrixView c);
void spmm_bsr_ref(const BsrMatrix& a, ConstMatrixView b, MatrixView c);
void spmm_cvse_ref(const CvseMatrix& a, ConstMatrixView b, MatrixView c);
void spmm_nm_ref(const NmMatrix& a, ConstMatrixView b, MatrixView c);
void spmm_vnm_ref(const VnmMatrix& a, ConstMatrixView b, MatrixView c);
void spmm_dense_ref(const DenseMatrix& a, ConstMatrixView b, MatrixView c);
void spmm_ref(const AnySparse& a, ConstMatrixView b, MatrixView c);

// Dense baseline: C = A B with OpenBLAS cblas_sgemm on `threads` threads (0 = its default).
// Sizes are checked as for the kernels.
void sgemm_openblas(ConstMatrixView a, ConstMatrixView b, MatrixView c, int threads);
// OpenBLAS's kernel name for this CPU ("Haswell", "SkylakeX", ...) and its build config.
std::string openblas_core_name();
// The OpenBLAS kernel (OPENBLAS_CORETYPE value) that suits this CPU's flags: "Cooperlake" with
// avx512_bf16, "SkylakeX" with AVX-512 (detected_isa), "Haswell" with AVX2, else "" (none
// better than what OpenBLAS detects).
std::string openblas_best_core();
std::string openblas_config();

}  // namespace sparsemap::sparse
