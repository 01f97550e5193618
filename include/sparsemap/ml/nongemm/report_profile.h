// The NonGEMM section of `sparsemap report` measured in libtorch: the profiler that
// report::Options::profiler takes. The header is torch-free.
#pragma once

#include "sparsemap/report/run.h"

namespace sparsemap::ml::nongemm {

// Profiles the report's model when it is one of the suite's (at its default image size): one
// warm-up and Options::profile_iters recorded inferences at Options::threads threads, batch
// and tokens from Options::zoo, weights from Options::seed, combined by their minimum (robust on
// a shared machine), the GEMM shapes on Options::hw when the cost model evaluates them. Before
// profiling, progress labelled "nongemm: profiling NAME in libtorch" (done = total = 0). A model
// outside the suite, or --image, leaves the section unmeasured with why_absent saying so.
report::NonGemmProfiler report_profiler();

}  // namespace sparsemap::ml::nongemm
