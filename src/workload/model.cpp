// Model totals and chain edges.
#include "sparsemap/workload/model.h"

namespace sparsemap::workload {

int64_t Model::total_macs() const {
  int64_t s = 0;
  for (const auto& l : layers) s += l.macs();
  return s;
}

int64_t Model::total_params() const {
  int64_t s = 0;
  for (const auto& l : layers) s += l.params();
  return s;
}

int64_t Model::count_gemm_class() const {
  int64_t s = 0;
  for (const auto& l : layers) s += is_gemm_class(l.kind) ? 1 : 0;
  return s;
}

std::vector<std::vector<int>> chain_producers(size_t n) {
  std::vector<std::vector<int>> p(n);
  for (size_t i = 1; i < n; ++i) p[i] = {static_cast<int>(i) - 1};
  return p;
}

}  // namespace sparsemap::workload
