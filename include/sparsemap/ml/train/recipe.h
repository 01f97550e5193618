// N:M sparse-training recipes (Kao et al. 2022, "Training Recipe for N:M Structured Sparsity with
// Decaying Pruning Mask"; Bambhaniya et al. 2024, "Progressive Gradient Flow for Robust N:M
// Sparsity Training in Transformers") as formulas of the step: phases, the mask-decay factor
// beta(t), the structure-decay sequence, and the training FLOPs. Torch-free.
//
// A run of T optimiser steps has three phases, as fractions of T:
//   dense     [0, D):       no mask (every recipe; 0 by default);
//   sparse    [D, D + S):   the recipe's masked training, masks recomputed every step from |w|;
//   fine-tune [D + S, T):   the final N:M mask fixed (binary), gradients of pruned weights zeroed.
// Recipes during the sparse phase (t = step - D, counted from the end of the dense phase):
//   dense:          no mask at all, in every phase (the reference);
//   ste:            forward with w * mask, gradient straight through to the dense w;
//   srste:          ste plus lambda_W * (1 - mask) * w added to the gradient (lambda_W = 2e-4;
//                   ml/prune's SR-STE);
//   mdgf-linear:    forward with w * (mask + (1 - mask) * beta(t)), beta = max(0, 1 - alpha t);
//   mdgf-exp:       the same with beta = exp(-alpha t); for both the gradient is that of the
//                   product (pruned weights get beta times their gradient);
//   sdgf-sparsify:  ste whose ratio steps through M:M (dense), (M-1):M, M/2:M, M/4:M, ..., N:M
//                   (halving while above N), equal shares of the sparse phase;
//   sdgf-fine:      ste through 8N:8M, 4N:4M, 2N:2M, N:M (stages whose M exceeds 255, the
//                   largest group sparse/prune takes, are left out);
//   a given sequence ("sdgf-list", Recipe::sequence) replaces either.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::ml::train {

enum class RecipeKind { Dense, Ste, SrSte, MdgfLinear, MdgfExp, SdgfSparsify, SdgfFine };

// "dense", "ste", "srste", "mdgf-linear", "mdgf-exp", "sdgf-sparsify", "sdgf-fine".
const char* recipe_name(RecipeKind k);
// Accepts those names ('_' for '-', "sr-ste" for srste). Throws InputError (file
// "<flag --recipe>") listing them.
RecipeKind parse_recipe(const std::string& text);
std::vector<RecipeKind> all_recipes();

struct NmRatio {
  int n = 2;
  int m = 4;
  bool operator==(const NmRatio& o) const { return n == o.n && m == o.m; }
  std::string str() const { return std::to_string(n) + ":" + std::to_string(m); }
};
// "N:M" with 1 <= N <= M <= 255. Throws InputError (file "<flag --nm>").
NmRatio parse_nm(const std::string& text, const std::string& flag = "<flag --nm>");

struct Recipe {
  RecipeKind kind = RecipeKind::SrSte;
  NmRatio nm;
  double dense_fraction = 0.0;  // D / T
  double fine_fraction = 0.2;   // (T - D - S) / T: fine-tuning with the fixed binary mask
  double srste_lambda = 2e-4;   // lambda_W of SR-STE
  // alpha of beta(t) per optimiser step; <= 0: the default, which makes beta reach 0 (linear) or
  // exp(-5) (exponential) at 3/4 of the sparse phase.
  double alpha = 0.0;
  std::vector<NmRatio> sequence;  // SDGF: a given sequence (empty: the recipe's own)

  // Throws InputError (file "<recipe>") for fractions outside [0, 1] or summing above 1, a
  // negative lambda, or a sequence whose last ratio differs from nm.
  void validate() const;
  bool sparse() const { return kind != RecipeKind::Dense; }
};

enum class Phase { Dense, Sparse, Fine };
const char* phase_name(Phase p);

// The step plan of a recipe over `total_steps` optimiser steps.
class Plan {
 public:
  Plan(Recipe recipe, int64_t total_steps);

  const Recipe& recipe() const { return recipe_; }
  int64_t total_steps() const { return total_; }
  int64_t sparse_start() const { return sparse_start_; }  // D (in steps, rounded down)
  int64_t fine_start() const { return fine_start_; }      // D + S
  Phase phase(int64_t step) const;
  // The alpha in use (Recipe::alpha or its default).
  double alpha() const { return alpha_; }
  // beta(t) at `step` for the mdgf recipes (t = step - D; 1 before D, 0 from the fine-tune on);
  // 0 for the other recipes.
  double beta(int64_t step) const;
  // The SDGF sequence (one ratio, nm, for the non-SDGF recipes).
  const std::vector<NmRatio>& sequence() const { return sequence_; }
  // The ratio in force at `step` (the dense phase: M:M; sparse phase: stage
  // floor(t * stages / S) of the sequence; fine-tune: nm).
  NmRatio ratio_at(int64_t step) const;

 private:
  Recipe recipe_;
  int64_t total_ = 0, sparse_start_ = 0, fine_start_ = 0;
  double alpha_ = 0;
  std::vector<NmRatio> sequence_;
};

// The SDGF sequences of the header comment for a target N:M.
std::vector<NmRatio> sparsify_sequence(NmRatio target);
std::vector<NmRatio> fine_sequence(NmRatio target);

// Training FLOPs (1 multiply-add = 2 FLOPs) of one step of a model whose prunable GEMMs are
// `pruned_macs` multiply-adds per example forward and the rest `dense_macs`, at batch B:
//   forward        2 B (dense_macs + d_fwd pruned_macs)
//   input grads    2 B (dense_macs + d_fwd pruned_macs)
//   weight grads   2 B (dense_macs + d_wgt pruned_macs)
// with d_fwd = N/M when the forward is N:M (sparse phase with beta = 0, and fine-tune), else 1;
// d_wgt = 1 in the sparse phase (STE needs the dense weight gradient) and N/M in the fine-tune
// (pruned weights are frozen). The dense phase and the dense recipe count d = 1 throughout.
double step_flops(const Plan& plan, int64_t step, double pruned_macs, double dense_macs,
                  int64_t batch);
// Sum over steps [0, total).
double training_flops(const Plan& plan, double pruned_macs, double dense_macs, int64_t batch);

}  // namespace sparsemap::ml::train
