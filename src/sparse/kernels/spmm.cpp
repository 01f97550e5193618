// The fast SpMM entry points: ISA choice, and OpenMP over chunks of lines that are balanced by
// stored entries (operand checks: spmm_check.cpp).
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernel_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::sparse {

namespace kdetail {

int resolve_threads(int threads) {
  if (threads < 0)
    throw InputError({"<threads>", 0, 0},
                     "thread count must be >= 0, got " + std::to_string(threads));
  return threads == 0 ? omp_get_max_threads() : threads;
}

}  // namespace kdetail

namespace {

using kdetail::Args;
using Worker = void (*)(const Args&, int64_t, int64_t, float*);

struct Workers {
  Worker csr, cvse, bsr, nm_row, nm_col, vnm;
};

Workers workers(Isa requested) {
  switch (resolve_isa(requested)) {
    case Isa::Avx512:
      return {kdetail::avx512::csr,    kdetail::avx512::cvse,   kdetail::avx512::bsr,
              kdetail::avx512::nm_row, kdetail::avx512::nm_col, kdetail::avx512::vnm};
    case Isa::Avx2:
      return {kdetail::avx2::csr,    kdetail::avx2::cvse,   kdetail::avx2::bsr,
              kdetail::avx2::nm_row, kdetail::avx2::nm_col, kdetail::avx2::vnm};
    default:
      return {kdetail::generic::csr,    kdetail::generic::cvse,   kdetail::generic::bsr,
              kdetail::generic::nm_row, kdetail::generic::nm_col, kdetail::generic::vnm};
  }
}

// This thread's scratch for the workers (kept between calls: OpenMP's threads persist).
float* thread_scratch() {
  thread_local std::vector<float> buf;
  if (buf.empty()) buf.resize(static_cast<size_t>(kdetail::kScratchFloats));
  return buf.data();
}

// Runs w over lines [0, lines) split into chunks of about equal cost, cost(line i) =
// entries of line i + 1 (`ptr` = nullptr: every line costs the same), `per_thread` chunks per
// thread taken dynamically. Problems below ~64K multiply-adds run on one thread: a parallel
// region costs more than it saves there.
void run(Worker w, const Args& a, int64_t lines, const int32_t* ptr, int64_t values_per_entry,
         int threads, int per_thread = 8) {
  if (lines <= 0) return;
  const int64_t stored = ptr ? ptr[lines] * values_per_entry : lines * values_per_entry;
  const int64_t work = (stored + lines) * std::max<int64_t>(a.n, 1);
  if (threads <= 1 || lines == 1 || work < (int64_t{1} << 16)) {
    w(a, 0, lines, thread_scratch());
    return;
  }
  const int64_t chunks = std::min<int64_t>(lines, int64_t{threads} * per_thread);
  auto cost = [&](int64_t i) { return (ptr ? int64_t{ptr[i]} : i) * values_per_entry + i; };
  std::vector<int64_t> bound(static_cast<size_t>(chunks + 1), lines);
  bound[0] = 0;
  const int64_t total = cost(lines);
  for (int64_t t = 1; t < chunks; ++t) {
    const int64_t target = total * t / chunks;
    int64_t lo = bound[static_cast<size_t>(t - 1)], hi = lines;
    while (lo < hi) {  // first line whose cost reaches the target
      const int64_t mid = lo + (hi - lo) / 2;
      if (cost(mid) < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    bound[static_cast<size_t>(t)] = lo;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t t = 0; t < chunks; ++t) {
    const int64_t lo = bound[static_cast<size_t>(t)], hi = bound[static_cast<size_t>(t + 1)];
    if (lo < hi) w(a, lo, hi, thread_scratch());
  }
}

Args base_args(int64_t m, int64_t k, ConstMatrixView b, MatrixView c) {
  Args a;
  a.m = m;
  a.k = k;
  a.n = b.cols;
  a.b = b.data;
  a.ldb = b.ld;
  a.c = c.data;
  a.ldc = c.ld;
  return a;
}

[[noreturn]] void bad_sizes(const char* format, const std::string& what) {
  throw InputError({std::string("<") + format + ">", 0, 0}, what + " does not match the sizes");
}

}  // namespace

void spmm_csr(const CsrMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt) {
  kdetail::check_operands("csr", a.rows, a.cols, b, c);
  if (a.col_idx.size() != a.values.size()) bad_sizes("csr", "col_idx");
  kdetail::check_ptr("csr", a.row_ptr, a.rows, a.nnz());
  Args x = base_args(a.rows, a.cols, b, c);
  x.ptr = a.row_ptr.data();
  x.idx = a.col_idx.data();
  x.val = a.values.data();
  x.v = 1;
  // Few chunks: each packs B once per K-block, which pays over many rows.
  run(workers(opt.isa).csr, x, a.rows, x.ptr, 1, kdetail::resolve_threads(opt.threads), 2);
}

void spmm_cvse(const CvseMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt) {
  kdetail::check_operands("cvse", a.rows, a.cols, b, c);
  if (!valid_cvse_v(a.v)) bad_sizes("cvse", "V");
  if (a.values.size() != a.col_idx.size() * static_cast<size_t>(a.v)) bad_sizes("cvse", "values");
  kdetail::check_ptr("cvse", a.row_ptr, a.groups(), a.vectors());
  Args x = base_args(a.rows, a.cols, b, c);
  x.ptr = a.row_ptr.data();
  x.idx = a.col_idx.data();
  x.val = a.values.data();
  x.v = a.v;
  run(workers(opt.isa).cvse, x, a.groups(), x.ptr, a.v, kdetail::resolve_threads(opt.threads));
}

void spmm_bsr(const BsrMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt) {
  kdetail::check_operands("bsr", a.rows, a.cols, b, c);
  if (a.bh < 1 || a.bw < 1 || a.bh > 4096 || a.bw > 4096) bad_sizes("bsr", "block size");
  if (a.values.size() != a.col_idx.size() * static_cast<size_t>(a.bh) * static_cast<size_t>(a.bw))
    bad_sizes("bsr", "values");
  kdetail::check_ptr("bsr", a.row_ptr, a.block_rows(), a.blocks());
  Args x = base_args(a.rows, a.cols, b, c);
  x.ptr = a.row_ptr.data();
  x.idx = a.col_idx.data();
  x.val = a.values.data();
  x.v = a.bh;
  x.bw = a.bw;
  run(workers(opt.isa).bsr, x, a.block_rows(), x.ptr, int64_t{a.bh} * a.bw,
      kdetail::resolve_threads(opt.threads));
}

void spmm_nm(const NmMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt) {
  kdetail::check_operands("nm", a.rows, a.cols, b, c);
  if (a.m < 1 || a.m > 255 || a.n < 1 || a.n > a.m) bad_sizes("nm", "N:M");
  const int64_t lines = a.axis == NmAxis::Row ? a.rows : a.cols;
  if (a.slots() != lines * a.groups() * a.n || a.offsets.size() != a.values.size())
    bad_sizes("nm", "values/offsets");
  Args x = base_args(a.rows, a.cols, b, c);
  x.val = a.values.data();
  x.off = a.offsets.data();
  x.nn = a.n;
  x.mm = a.m;
  x.groups = a.groups();
  const Workers w = workers(opt.isa);
  const int threads = kdetail::resolve_threads(opt.threads);
  if (a.axis == NmAxis::Row)
    run(w.nm_row, x, a.rows, nullptr, a.groups() * a.n, threads, 2);
  else
    run(w.nm_col, x, a.groups(), nullptr, a.cols * a.n, threads);
}

void spmm_vnm(const VnmMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt) {
  kdetail::check_operands("vnm", a.rows, a.cols, b, c);
  if (a.v < 1 || a.m < 4 || a.m > 255 || a.n < 1 || a.n > 4) bad_sizes("vnm", "V:N:M");
  if (static_cast<int64_t>(a.values.size()) != a.rows * a.groups() * a.n ||
      a.offsets.size() != a.values.size() ||
      static_cast<int64_t>(a.col_sel.size()) != a.row_blocks() * a.groups() * 4)
    bad_sizes("vnm", "values/offsets/col_sel");
  Args x = base_args(a.rows, a.cols, b, c);
  x.val = a.values.data();
  x.off = a.offsets.data();
  x.sel = a.col_sel.data();
  x.v = a.v;
  x.nn = a.n;
  x.mm = a.m;
  x.groups = a.groups();
  run(workers(opt.isa).vnm, x, a.rows, nullptr, a.groups() * a.n,
      kdetail::resolve_threads(opt.threads), 2);
}

void spmm_dense(const DenseMatrix& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt) {
  if (a.values.size() != static_cast<size_t>(a.rows * a.cols)) bad_sizes("dense", "values");
  sgemm_openblas(a.view(), b, c, opt.threads);
}

void spmm(const AnySparse& a, ConstMatrixView b, MatrixView c, const KernelOptions& opt) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, DenseMatrix>)
          spmm_dense(x, b, c, opt);
        else if constexpr (std::is_same_v<T, CsrMatrix>)
          spmm_csr(x, b, c, opt);
        else if constexpr (std::is_same_v<T, BsrMatrix>)
          spmm_bsr(x, b, c, opt);
        else if constexpr (std::is_same_v<T, CvseMatrix>)
          spmm_cvse(x, b, c, opt);
        else if constexpr (std::is_same_v<T, NmMatrix>)
          spmm_nm(x, b, c, opt);
        else
          spmm_vnm(x, b, c, opt);
      },
      a);
}

}  // namespace sparsemap::sparse
