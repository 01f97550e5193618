// Adaptive column-vector pruning: our reading of the paper's ad-colPrune (Castro et al.,
// PACT 2022). Choose the vector length V per layer, or per panel of rows, to meet a
// reconstruction-error budget at the best speed.
//
// The rule. For a target sparsity s, an error budget beta >= 0 and candidate lengths with a
// cost each (lower is faster: measured kernel times, or cvse_cost_model below):
//   err(V)  = ||W - P_V(W)||_F / ||W||_F, P_V = column-vector magnitude pruning at s (V = 1 is
//             unstructured magnitude pruning);
//   allowed = { V : err(V) <= (1 + beta) * err(1) };
//   choice  = the allowed V of lowest cost (ties: the longer V); V = 1 is always allowed.
// Per panel: rows are cut into panels of `panel_rows` (a multiple of the longest candidate),
// each panel pruned at s on its own and given its own V by the same rule (err(1) is then the
// panel's unstructured error). Smooth panels get long vectors, irregular ones short vectors.
#pragma once

#include <vector>

#include "sparsemap/sparse/format/formats.h"
#include "sparsemap/sparse/kernels/spmm.h"

namespace sparsemap::sparse {

struct VCandidate {
  int v = 1;
  double cost = 0;  // lower is faster (ms, or a model's units)
};

struct AdaptiveChoice {
  int v = 1;
  double rel_error = 0;           // err(chosen V)
  double unstructured_error = 0;  // err(1)
  std::vector<double> errors;     // err(V) per candidate, in the order given
};

// The rule above for one matrix. Throws InputError for an empty candidate list, V not in
// {1, 2, 4, 8, 16, 32}, beta < 0 or s outside [0, 1].
AdaptiveChoice choose_vector_length(ConstMatrixView w, double sparsity, double beta,
                                    const std::vector<VCandidate>& candidates);

// The rule alone, on errors already measured: errors[i] is err(candidates[i].v).
int pick_vector_length(const std::vector<VCandidate>& candidates, const std::vector<double>& errors,
                       double unstructured_error, double beta);

// A relative cost model for CVSE with vector length v (v = 1: the CSR kernel) when measurements
// are not at hand: cost = 1 / (measured speedup over dense at 90% sparsity); see adaptive.cpp.
double cvse_cost_model(int v);

// A matrix pruned per panel of rows, each panel a CVSE matrix with its own V.
struct AdaptiveCvse {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t panel_rows = 32;
  std::vector<CvseMatrix> panels;  // panel i holds rows [i * panel_rows, ...)
  std::vector<AdaptiveChoice> choices;
};

AdaptiveCvse adaptive_cvse(ConstMatrixView w, double sparsity, double beta,
                           const std::vector<VCandidate>& candidates, int64_t panel_rows = 32);
DenseMatrix to_dense(const AdaptiveCvse& a);
// C = A B panel by panel with the CVSE kernel (same contract as spmm_cvse).
void spmm_adaptive(const AdaptiveCvse& a, ConstMatrixView b, MatrixView c,
                   const KernelOptions& opt = {});

}  // namespace sparsemap::sparse
