// Operand checks shared by every SpMM kernel (CPU and CUDA front ends).
#include <string>
#include <vector>

#include "kernel_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::sparse::kdetail {

void check_operands(const char* format, int64_t a_rows, int64_t a_cols, ConstMatrixView b,
                    MatrixView c) {
  check_view(b, "B");
  check_view(c, "C");
  const SourceLocation where{std::string("<spmm ") + format + ">", 0, 0};
  auto dims = [](int64_t r, int64_t k) { return std::to_string(r) + " x " + std::to_string(k); };
  if (b.rows != a_cols)
    throw InputError(where, "shape mismatch: A is " + dims(a_rows, a_cols) + " but B is " +
                                dims(b.rows, b.cols) + " (B needs " + std::to_string(a_cols) +
                                " rows)");
  if (c.rows != a_rows || c.cols != b.cols)
    throw InputError(where, "shape mismatch: C is " + dims(c.rows, c.cols) + ", expected " +
                                dims(a_rows, b.cols));
}

void check_ptr(const char* format, const std::vector<int32_t>& ptr, int64_t lines,
               int64_t entries) {
  const SourceLocation where{std::string("<") + format + ">", 0, 0};
  if (static_cast<int64_t>(ptr.size()) != lines + 1 || ptr[0] != 0 ||
      ptr[static_cast<size_t>(lines)] != entries)
    throw InputError(where, "row_ptr does not match the sizes (" + std::to_string(ptr.size()) +
                                " entries for " + std::to_string(lines) + " lines and " +
                                std::to_string(entries) + " stored entries)");
  for (int64_t i = 0; i < lines; ++i)
    if (ptr[static_cast<size_t>(i + 1)] < ptr[static_cast<size_t>(i)])
      throw InputError(where, "row_ptr decreases at line " + std::to_string(i));
}

}  // namespace sparsemap::sparse::kdetail
