// Test helper: the MAESTRO-class `--density` run of sparseloop_maestro_test.cpp's case, defined
// in src/cost/sparsity_density_case_test.cpp (mapping/mapping.h and mapping/loop_nest.h cannot
// share a translation unit: both name mapping::DirectiveKind).
#pragma once

#include <cstdint>

namespace sparsemap::cost::density_case {

// What the --density path reports for the case (fc 16 x 64 -> 64 on maestro-example under the
// kcp_ws template; weights unstructured at density d with skipping, d = 1: dense).
struct Figures {
  bool ok = false;
  double effectual_macs = 0;
  int64_t runtime_cycles = 0;
  double mac_nj = 0, l1_nj = 0, l2_nj = 0, energy_nj = 0;
};
Figures density_path(double d);

}  // namespace sparsemap::cost::density_case
