// Sparsity distributions: how a model-level target sparsity is shared among its parameters
// (uniform, ERK with its re-solve, a per-layer custom map) and which parameters are pruned at
// all (a filter that leaves biases, norms and 1-D parameters dense). Torch-free.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparsemap::ml::prune {

// A parameter as the distribution sees it: its name ("fc1.weight") and shape (PyTorch order,
// e.g. [out, in] or [out, in, kh, kw]).
struct ParamShape {
  std::string name;
  std::vector<int64_t> shape;
  int64_t numel() const;
};

enum class DistributionKind { Uniform, Erk };

struct Distribution {
  DistributionKind kind = DistributionKind::Uniform;
  // Per-parameter sparsity by exact name. Overrides the rule for that parameter, prunes it even
  // if the filter would leave it dense, and (ERK) is left out of the ERK solve.
  std::map<std::string, double> custom;
  // Parameters whose name contains one of these are left dense (unless in `custom`).
  std::vector<std::string> keep_dense;
  // ERK: raw density of a layer is (sum(shape) / prod(shape))^erk_power.
  double erk_power = 1.0;
};

// The default filter: a parameter is pruned when it has >= 2 dimensions and its name has no
// "bias", "norm" or "bn" in it.
bool default_prunable(const ParamShape& p);

// Per parameter (same order): its target sparsity in [0, 1], or nullopt when it stays dense.
//   Uniform: `sparsity` for every parameter the filter prunes.
//   ERK (Evci et al., RigL): density_l = eps * raw_l with raw_l = (sum(shape_l)/prod(shape_l))^p,
//     eps chosen so that the pruned layers keep as many weights as uniform would:
//       eps * sum_{l not dense} raw_l N_l = sum_{l not dense} (N_l - floor(s N_l))
//                                            - sum_{l dense} floor(s N_l)
//     Layers with eps * raw_l > 1 become dense (sparsity 0) and eps is solved again, until none
//     exceeds 1 (JaxPruner's get_sparsities_erdos_renyi).
// Throws InputError (file "<distribution>") for a sparsity outside [0, 1], a custom sparsity
// outside [0, 1] or naming no parameter, and ERK with no prunable parameter.
std::vector<std::optional<double>> layer_sparsities(const std::vector<ParamShape>& params,
                                                    double sparsity, const Distribution& dist);

// Parses "uniform" | "erk". Throws InputError (file "<flag --dist>").
DistributionKind parse_distribution(const std::string& text);
const char* distribution_name(DistributionKind kind);

// Parses "NAME=S,NAME=S" into a custom map. Throws InputError (file "<flag --layer-sparsity>").
std::map<std::string, double> parse_custom_map(const std::string& text);

}  // namespace sparsemap::ml::prune
