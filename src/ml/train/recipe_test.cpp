// Recipe formulas: phases, beta(t) at chosen steps, the structure-decay sequences and stages,
// the FLOPs count, and bad input.
#include "sparsemap/ml/train/recipe.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sparsemap/error.h"

namespace sparsemap::ml::train {
namespace {

Recipe make(RecipeKind k, NmRatio nm, double dense, double fine) {
  Recipe r;
  r.kind = k;
  r.nm = nm;
  r.dense_fraction = dense;
  r.fine_fraction = fine;
  return r;
}

TEST(Recipe, PhasesAreFractionsOfTheRun) {
  const Plan p(make(RecipeKind::Ste, {2, 4}, 0.1, 0.2), 100);
  EXPECT_EQ(p.sparse_start(), 10);
  EXPECT_EQ(p.fine_start(), 80);
  EXPECT_EQ(p.phase(9), Phase::Dense);
  EXPECT_EQ(p.phase(10), Phase::Sparse);
  EXPECT_EQ(p.phase(79), Phase::Sparse);
  EXPECT_EQ(p.phase(80), Phase::Fine);
  EXPECT_EQ(p.ratio_at(5), (NmRatio{4, 4}));  // dense phase
  EXPECT_EQ(p.ratio_at(50), (NmRatio{2, 4}));
}

TEST(Recipe, BetaMatchesItsFormulaFromTheEndOfTheDensePhase) {
  Recipe r = make(RecipeKind::MdgfLinear, {1, 8}, 0.2, 0.2);
  r.alpha = 0.01;
  const Plan lin(r, 200);  // dense [0, 40), sparse [40, 160), fine [160, 200)
  EXPECT_DOUBLE_EQ(lin.beta(39), 1.0);
  EXPECT_DOUBLE_EQ(lin.beta(40), 1.0);
  EXPECT_DOUBLE_EQ(lin.beta(65), 1.0 - 0.01 * 25);
  EXPECT_DOUBLE_EQ(lin.beta(139), 1.0 - 0.01 * 99);
  EXPECT_DOUBLE_EQ(lin.beta(150), 0.0);  // max(0, 1 - 1.1)
  EXPECT_DOUBLE_EQ(lin.beta(170), 0.0);  // fine-tune: binary
  r.kind = RecipeKind::MdgfExp;
  r.alpha = 0.05;
  const Plan ex(r, 200);
  EXPECT_DOUBLE_EQ(ex.beta(40), 1.0);
  EXPECT_DOUBLE_EQ(ex.beta(60), std::exp(-0.05 * 20));
  EXPECT_DOUBLE_EQ(ex.beta(159), std::exp(-0.05 * 119));
  // Default alpha: linear reaches 0 at 3/4 of the sparse phase (120 steps -> 90).
  const Plan def(make(RecipeKind::MdgfLinear, {1, 8}, 0.2, 0.2), 200);
  EXPECT_DOUBLE_EQ(def.alpha(), 1.0 / 90.0);
  EXPECT_NEAR(def.beta(40 + 45), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(def.beta(40 + 90), 0.0);
  EXPECT_DOUBLE_EQ(Plan(make(RecipeKind::SrSte, {1, 8}, 0, 0), 10).beta(3), 0.0);
}

TEST(Recipe, StructureDecaySequences) {
  EXPECT_EQ(sparsify_sequence({1, 16}),
            (std::vector<NmRatio>{{16, 16}, {15, 16}, {8, 16}, {4, 16}, {2, 16}, {1, 16}}));
  EXPECT_EQ(sparsify_sequence({2, 4}), (std::vector<NmRatio>{{4, 4}, {3, 4}, {2, 4}}));
  EXPECT_EQ(sparsify_sequence({1, 4}), (std::vector<NmRatio>{{4, 4}, {3, 4}, {2, 4}, {1, 4}}));
  EXPECT_EQ(fine_sequence({1, 8}), (std::vector<NmRatio>{{8, 64}, {4, 32}, {2, 16}, {1, 8}}));
  // 8:256 exceeds the largest group (255): left out.
  EXPECT_EQ(fine_sequence({1, 32}), (std::vector<NmRatio>{{4, 128}, {2, 64}, {1, 32}}));
}

TEST(Recipe, StructureDecayStagesShareTheSparsePhase) {
  // 1:8 sparsify: 8:8, 7:8, 4:8, 2:8, 1:8 over the sparse phase [0, 100) in stages of 20.
  const Plan p(make(RecipeKind::SdgfSparsify, {1, 8}, 0.0, 0.0), 100);
  EXPECT_EQ(p.ratio_at(0), (NmRatio{8, 8}));
  EXPECT_EQ(p.ratio_at(19), (NmRatio{8, 8}));
  EXPECT_EQ(p.ratio_at(20), (NmRatio{7, 8}));
  EXPECT_EQ(p.ratio_at(45), (NmRatio{4, 8}));
  EXPECT_EQ(p.ratio_at(60), (NmRatio{2, 8}));
  EXPECT_EQ(p.ratio_at(99), (NmRatio{1, 8}));
  // Fine, with a fine-tune: stages over [0, 80), then 1:8.
  const Plan f(make(RecipeKind::SdgfFine, {1, 8}, 0.0, 0.2), 100);
  EXPECT_EQ(f.ratio_at(0), (NmRatio{8, 64}));
  EXPECT_EQ(f.ratio_at(20), (NmRatio{4, 32}));
  EXPECT_EQ(f.ratio_at(40), (NmRatio{2, 16}));
  EXPECT_EQ(f.ratio_at(60), (NmRatio{1, 8}));
  EXPECT_EQ(f.ratio_at(90), (NmRatio{1, 8}));
  // A given list.
  Recipe r = make(RecipeKind::SdgfFine, {1, 4}, 0.0, 0.0);
  r.sequence = {{3, 4}, {1, 4}};
  const Plan g(r, 10);
  EXPECT_EQ(g.ratio_at(4), (NmRatio{3, 4}));
  EXPECT_EQ(g.ratio_at(5), (NmRatio{1, 4}));
}

TEST(Recipe, TrainingFlops) {
  // Dense: 6 B (pruned + dense) per step.
  const Plan d(make(RecipeKind::Dense, {1, 4}, 0, 0), 10);
  EXPECT_DOUBLE_EQ(training_flops(d, 100, 50, 2), 10 * 6.0 * 2 * 150);
  // SR-STE 1:4, no dense phase, fine-tune 5 of 10 steps: sparse steps 2 B (50 + 100 (2/4 + 1)),
  // fine steps 2 B (3 * 50 + 3/4 * 100) ... written out:
  const Plan s(make(RecipeKind::SrSte, {1, 4}, 0, 0.5), 10);
  const double sparse_step = 2.0 * 2 * (3 * 50 + (2 * 0.25 + 1) * 100);
  const double fine_step = 2.0 * 2 * (3 * 50 + 3 * 0.25 * 100);
  EXPECT_DOUBLE_EQ(step_flops(s, 0, 100, 50, 2), sparse_step);
  EXPECT_DOUBLE_EQ(step_flops(s, 7, 100, 50, 2), fine_step);
  EXPECT_DOUBLE_EQ(training_flops(s, 100, 50, 2), 5 * sparse_step + 5 * fine_step);
  // Mask decay with beta > 0 runs a dense forward.
  Recipe m = make(RecipeKind::MdgfExp, {1, 4}, 0, 0);
  m.alpha = 0.1;
  EXPECT_DOUBLE_EQ(step_flops(Plan(m, 10), 3, 100, 0, 1), 2.0 * 3 * 100);
}

TEST(Recipe, NamesAndBadInput) {
  for (RecipeKind k : all_recipes()) EXPECT_EQ(parse_recipe(recipe_name(k)), k);
  EXPECT_EQ(parse_recipe("SR_STE"), RecipeKind::SrSte);
  EXPECT_EQ(parse_recipe("mdgf_exp"), RecipeKind::MdgfExp);
  EXPECT_THROW(parse_recipe("rigl"), InputError);
  EXPECT_EQ(parse_nm("1:16"), (NmRatio{1, 16}));
  for (const char* bad : {"", "2", "4:2", "0:4", "1:256", "a:4", "2:4:1", "-1:4"})
    EXPECT_THROW(parse_nm(bad), InputError) << bad;
  EXPECT_THROW(Plan(make(RecipeKind::Ste, {2, 4}, 0.6, 0.6), 10), InputError);
  EXPECT_THROW(Plan(make(RecipeKind::Ste, {2, 4}, -0.1, 0), 10), InputError);
  EXPECT_THROW(Plan(make(RecipeKind::Ste, {2, 4}, 0, 0), 0), InputError);
  Recipe r = make(RecipeKind::SdgfFine, {1, 4}, 0, 0);
  r.sequence = {{2, 4}};
  EXPECT_THROW(r.validate(), InputError);
}

}  // namespace
}  // namespace sparsemap::ml::train
