// Model totals.
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

}  // namespace sparsemap::workload
