// Internal to ml/nongemm: scopes that the profiler understands (torch-free to include).
#pragma once

namespace sparsemap::ml::nongemm {

// Operators recorded while a ScaledRegion lives count `weight` times, and the wall time of the
// region counts `weight` times in the inference scope: a model that runs 1 of 32 identical
// blocks reports the 32-block model. Regions do not nest; the weight applies to the calling
// thread only. Cheap (two clock reads) when no profiler is recording.
class ScaledRegion {
 public:
  explicit ScaledRegion(double weight);
  ~ScaledRegion();
  ScaledRegion(const ScaledRegion&) = delete;
  ScaledRegion& operator=(const ScaledRegion&) = delete;

 private:
  double weight_;
  long long start_ns_;
};

}  // namespace sparsemap::ml::nongemm

// A composite operator counted as one top-level operator named "sparsemap::<name>" (the
// taxonomy file names them). Must be used with a string literal, in a scope of its own.
#define SPARSEMAP_COMPOSITE_OP(name) RECORD_USER_SCOPE("sparsemap::" name)
