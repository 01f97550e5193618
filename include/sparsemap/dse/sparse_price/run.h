// `sparsemap sparse-price` as a library call: a model pruned by our pruner, priced on a
// Sparseloop-described accelerator. Per GEMM-class layer: seeded weights, pruned
// (sparse::prune_mask); their nonzeros as the Weights tensor of the layer's Timeloop problem
// (the actual-tensor density model, workload/tensor_density.h); the layer mapped by the Timeloop
// mapper (dense objective, dse/timeloop/network.h); that mapping priced by the Sparseloop model
// (cost::evaluate_sparseloop) dense and with the pruned weights; optionally the measured CPU
// SpMM of the same pruned matrix against OpenBLAS. Options / run / Result / to_json, as
// dse/*/run.h; the CLI (apps/cmd_sparse_price.cpp) prints the table.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/sparse/format/dense.h"
#include "sparsemap/sparse/format/format_spec.h"
#include "sparsemap/workload/density.h"
#include "sparsemap/workload/einsum.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::sparse_price {

// One field per flag of `sparsemap sparse-price`, same names, same defaults.
struct Options {
  // --hw: a Sparseloop design, its architecture YAML (v0.4 tag form with sparse_optimizations)
  // or a folder holding arch.yaml; --ert: its ERT (default: the one *ERT.yaml beside it).
  std::string hw, ert;
  std::string model;             // --model: a zoo name or a model file (io::load_model)
  std::string prune = "nm:2:4";  // --prune (parse_prune)
  // --density: other data spaces' densities, "Inputs=0.5,Outputs=0.4" (hypergeometric: zeros
  // placed uniformly at random); a data space not named is dense. Weights take the pruned ones.
  std::string density;
  uint64_t seed = 1;      // --seed: weights of GEMM layer i are measure::random_normal(seed + 2i)
  int64_t budget = 2000;  // --budget: mapper evaluations per distinct layer
  std::string algo = "auto";  // --algo: the Timeloop mapper's (dse/timeloop/mapper.h)
  std::string objective;      // --objective latency|energy|edp; "": the design's, else edp
  // false: a level whose constraints keep some data spaces and bypass none bypasses the others
  // (the Sparseloop designs' per-PE scratchpads, as their own mapper results keep them); true
  // (--free-keep): the others are the mapper's choice, as `sparsemap map` reads them. The JSON's
  // strict_keep is its negation.
  bool free_keep = false;
  int threads = 1;           // --threads: the mapper's and the SpMM kernels'
  bool spmm = false;         // --spmm: measure the CPU SpMM of each pruned layer
  int64_t spmm_cols = 256;   // --spmm-cols: activation columns, at most N x P x Q of the layer
  double spmm_min_ms = 20;   // --spmm-min-ms: each timing's minimum total time
  workload::ZooOptions zoo;  // --batch, --image
  std::optional<workload::Model> model_object;  // in place of `model` (tests, Python)
};

// `sparsemap sparse-price`'s flags and sparsemap.sparse_price's keywords
// (sparsemap/option_table.h): the Options' fields with their help, beside --json and --quiet of
// the CLI.
const options::Table<Options>& option_table();

// --prune: "nm:N:M", "vnm:V:N:M" (their own sparsity 1 - N/M), "unstructured:S" (magnitude,
// sparsity S in [0, 1)), "cvse:V:S" (V x 1 column vectors), "bsr:HxW:S" (blocks). InputError at
// "<flag --prune>" otherwise.
struct PruneSpec {
  sparse::FormatSpec format;  // the pattern (csr for unstructured), and the SpMM kernel's format
  double sparsity = -1;       // target sparsity; -1: the format's own (nm, vnm)
  std::string text;           // as given
};
PruneSpec parse_prune(const std::string& text);

// A layer's weights as the pruner sees them: rows = output channels (G x M, group-major), cols
// = C x R x S (c, then r, then s fastest) of its Timeloop problem (workload::to_einsum).
int64_t weight_rows(const workload::Einsum& p);
int64_t weight_cols(const workload::Einsum& p);

// The Weights data space's tensor [C, M, R, S, G] (row-major) of a keep-mask of that matrix:
// point (c, m, r, s, g) is nonzero when keep(g M + m, (c R + r) S + s). InputError when the
// mask's shape is not weight_rows x weight_cols. `source` labels the tensor.
workload::DensityModel weights_density(const workload::Einsum& p, const sparse::Mask& keep,
                                       const std::string& source);

// What the Sparseloop model says of one run.
struct Priced {
  int64_t cycles = 0;
  double energy_pj = 0;
  int64_t algorithmic_computes = 0, actual_computes = 0, gated_computes = 0, skipped_computes = 0;
};

// The measured SpMM of the pruned matrix (rows x cols) times `cols` activation columns.
struct SpmmMeasure {
  int64_t cols = 0;
  double dense_ms = 0, sparse_ms = 0;  // OpenBLAS sgemm / our kernel, best of the timings
  double max_rel_err = 0;              // the kernel against OpenBLAS
  double speedup() const { return sparse_ms > 0 ? dense_ms / sparse_ms : 0; }
};

struct LayerRow {
  std::string name;
  std::string same_as;  // the first layer of the same problem (its mapping search reused)
  workload::Einsum problem;
  int64_t macs = 0;
  int64_t weights = 0, weight_nonzeros = 0;
  double weight_density = 1;  // nonzeros / weights of the pruned matrix
  bool found = false;         // the mapper found a mapping that fits
  std::string reason;         // why not, or why the sparse model refused it
  int64_t evaluations = 0;
  Priced dense, sparse;         // the same mapping, every tensor dense / with the pruned weights
  double speedup() const;       // dense cycles / sparse cycles (0 when not priced)
  double energy_ratio() const;  // sparse energy / dense energy (0 when not priced)
  std::optional<SpmmMeasure> spmm;
};

struct Totals {
  int64_t layers = 0, priced = 0;  // layers, and those with a mapping and both prices
  int64_t weights = 0, weight_nonzeros = 0;
  Priced dense, sparse;                          // sums over the priced layers
  double spmm_dense_ms = 0, spmm_sparse_ms = 0;  // sums over the measured layers
  double weight_density() const;
  double speedup() const;
  double energy_ratio() const;
};

struct Result {
  Options options;  // as given (model_object dropped)
  PruneSpec prune;
  std::string model_name, arch_name, arch_file, ert_file;
  std::map<std::string, double> densities;  // --density, parsed
  std::vector<LayerRow> layers;             // the model's GEMM-class layers, in order
  Totals total;
  std::string isa, spmm_warning;  // with --spmm: the kernels' ISA; a busy-machine warning
  double map_s = 0, price_s = 0, spmm_s = 0;  // wall time of each stage (never in the JSON)
};

// Runs it: loads the design and model, prunes, maps (progress per distinct layer: label "map"),
// prices (label "price"), measures (label "spmm"). Deterministic for a seed apart from the SpMM
// timings. InputError for bad options or files (before any work), and when no layer has a
// mapping. Writes nothing.
Result run(const Options& o, search::Observer& observer);

// {model, hw (the arch file), arch (its name), ert, prune, seed, budget, algo, strict_keep,
// objective, densities, layers: [{name, same_as?, macs, weights, weight_nonzeros,
// weight_density, found, reason?, evaluations, dense: {cycles, energy_pj, algorithmic_computes,
// actual_computes, gated_computes, skipped_computes}, sparse: {...}, speedup, energy_ratio,
// spmm?: {cols, dense_ms, sparse_ms, speedup, max_rel_err}}], total: {layers, priced, weights,
// weight_nonzeros, weight_density, dense, sparse, speedup, energy_ratio, spmm?: {dense_ms,
// sparse_ms, speedup}}}.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::dse::sparse_price
