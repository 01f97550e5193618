// Run-time ISA detection (cpuid through the compiler's builtins).
#include <string>

#include "sparsemap/error.h"
#include "sparsemap/sparse/kernels/spmm.h"

namespace sparsemap::sparse {

Isa detected_isa() {
  static const Isa isa = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
      return Isa::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
    return Isa::Generic;
  }();
  return isa;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Auto:
      return "auto";
    case Isa::Generic:
      return "generic";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
  }
  return "?";
}

Isa resolve_isa(Isa requested) {
  const Isa best = detected_isa();
  if (requested == Isa::Auto) return best;
  if (static_cast<int>(requested) > static_cast<int>(best))
    throw InputError({"<isa>", 0, 0}, std::string("this CPU does not support ") +
                                          isa_name(requested) + " (best: " + isa_name(best) + ")");
  return requested;
}

}  // namespace sparsemap::sparse
