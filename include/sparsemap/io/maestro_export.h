// Writes evaluated layers as DFSL files that MAESTRO (maestro-project/maestro, commit 4eb08d1)
// runs as written and that parse_dfsl reads back to the same costs.
#pragma once

#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/mapping/mapping.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::io {

// One layer and the mapping it was costed with.
struct MappedLayer {
  workload::Layer layer;
  mapping::Mapping mapping;
};

// The DFSL layers that stand for `in` in a MAESTRO file (usually one; a batched GEMM gives one
// GEMM layer per batch). What changes, and why the cost stays the same in our model:
// - FC is written as CONV with N, K, C and Y = X = R = S = 1 (MAESTRO's parser has no FC);
//   our model costs FC exactly so.
// - TRCONV is written as CONV with stride 1 over its (zero-inserted) input: our model costs it
//   so, and MAESTRO's TRCONV hard-codes an inner stride of 2.
// - A batched GEMM (G batches) is written as G GEMM layers "<name>_b<i>" (MAESTRO has no
//   batched GEMM, and a CONV with N would share one operand across the batch). Its G
//   directives are dropped, so they must walk G one batch at a time (TemporalMap(1,1) G,
//   before any other map of level 0); the G layers' costs sum to the batched layer's.
// - Conv-like layers: Y and X are the input rows and columns the layer uses,
//   (Y' - 1) * stride + max(R, stride) (X likewise, never more than the padded input). This
//   folds zero padding in (MAESTRO has none) and drops trailing rows no output reads (MAESTRO
//   counts them, 1.5x to 2x the runtime on ResNet-50's and MobileNet-V2's strided 3x3 and
//   7x7 layers). With R < stride each output owns `stride` rows: (Y' - 1) * stride + R would
//   make MAESTRO and our model mis-step a split Y' tile. A dilated filter is written as the
//   undilated one over the rows that give the same output size (as our model costs it).
//   Trimming changes what is costed: our model costs the trimmed layer with the same runtime
//   in most cases, and less input traffic.
//   N is declared in every conv-like layer, with TemporalMap(1,1) N at level 0 when no
//   directive maps it: MAESTRO fixes per layer type, from the first layer of that type in a
//   file, whether N belongs to the tensors.
// - Every cluster level of a conv-like layer carries R and S directives: a missing one is
//   written as TemporalMap(R,R) R (S likewise), where our model would complete the level (at
//   the end of level 0, in front of an inner level). Without them MAESTRO reads uninitialised
//   memory.
// - A directive on a dimension the kind does not have, of size 1, is dropped (our model ignores
//   it; MAESTRO rejects undeclared dimensions). Every dimension a directive maps is declared.
// Throws InputError ("Layer 'x': TemporalMap(1,1) R: ...") when MAESTRO cannot express the
// mapping: a TemporalMap on R or S other than the full filter (MAESTRO's parser exits on it),
// a batched GEMM whose G is not walked one batch at a time, a NonGEMM layer.
std::vector<DfslLayer> maestro_layers(const MappedLayer& in);

// A whole network file: maestro_layers of each, then write_dfsl. All checks run before any
// text is returned, so a caller that writes the result never leaves a half-written file.
std::string write_maestro_network(const std::string& name, const std::vector<MappedLayer>& layers);

// MAESTRO's hardware file for `a`: num_pes, l1_size_cstr, l2_size_cstr (bytes), noc_bw_cstr,
// offchip_bw_cstr (words per cycle). MAESTRO reads integers (atoi): a fractional bandwidth is
// written rounded down, and `note` (when given) says so; it is left empty otherwise.
std::string write_maestro_hw(const arch::Arch& a, std::string* note = nullptr);

}  // namespace sparsemap::io
