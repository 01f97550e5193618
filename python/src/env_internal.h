// Shared parts of the gym-style environments (bind_env.cpp, bind_env_codesign.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>

#include "core_internal.h"

namespace sparsemap::python {

void bind_codesign_env(py::module_& m);  // bind_env_codesign.cpp

// sparsemap.spaces.Box(low, high) with `n` entries, all in [lo, hi].
inline py::object box_space(size_t n, double lo, double hi) {
  py::array_t<double> low(static_cast<py::ssize_t>(n)), high(static_cast<py::ssize_t>(n));
  for (size_t i = 0; i < n; ++i) {
    low.mutable_data()[i] = lo;
    high.mutable_data()[i] = hi;
  }
  return py::module_::import("sparsemap.spaces").attr("Box")(low, high);
}
inline py::object discrete_space(size_t n) {
  return py::module_::import("sparsemap.spaces").attr("Discrete")(n);
}

// log2(v) / 32 clamped to [0, 1]: sizes up to 2^32 as observation features.
inline double log_feature(double v) { return v <= 1 ? 0.0 : std::min(1.0, std::log2(v) / 32.0); }

// Episode bookkeeping shared by both environments: the RNG that reset(seed) reseeds.
struct EnvRng {
  std::mt19937_64 rng{0};
  void reseed(const std::optional<uint64_t>& seed) {
    if (seed) rng.seed(*seed);
  }
  double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }
};

}  // namespace sparsemap::python
