// Readers of Timeloop's and Accelergy's YAML: problem, architecture (v0.4 tag form and the
// flattened parsed-processed-input form, v0.3 keys too), mapping, ERT and ART; a writer of
// Timeloop's mapping.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/arch/sparse_optimizations.h"
#include "sparsemap/error.h"
#include "sparsemap/mapping/loop_nest.h"
#include "sparsemap/workload/density.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::io {

// What one or more Timeloop input files hold; each part is optional, as Timeloop merges its
// files by their top-level keys (`problem`, `architecture`, `mapping`, `ERT`, `ART`).
struct TimeloopInputs {
  std::optional<workload::Einsum> problem;
  std::optional<arch::Hierarchy> arch;
  std::optional<mapping::LoopNest> mapping;
  std::optional<arch::EnergyTable> ert;
  std::optional<arch::AreaTable> art;
  // Sparseloop's inputs (Timeloop 3): the sparse optimisations, from the top-level
  // `sparse_optimizations:` or the tag form's per-component `sparse_optimizations` (absent: a
  // dense run), and the problem instance's `densities` (a data space not named is dense).
  std::optional<arch::SparseOptimizations> sparse;
  std::map<std::string, workload::DensityModel> densities;
  // The mapper's `optimization_metrics` (v0.4; `optimization_metric` in older files), as
  // written: the mapper's default objective. Other mapper settings are not read.
  std::vector<std::string> optimization_metrics;
  // Part ("problem", "architecture", "mapping", "ERT", "ART", "sparse_optimizations") -> the file
  // it came from.
  std::map<std::string, std::string> sources;

  // What the loop-nest model needs: throws InputError at "<arguments>" naming every missing
  // part among architecture, problem and mapping ("expected an architecture, a mapping among
  // the files").
  void require_evaluable() const;
};

// Parses one YAML document (`file` labels errors). Top-level keys read: problem, architecture
// (with architecture_constraints in the flattened form), mapping, ERT, ART; other keys
// (mapper, mapspace, globals, ...) are ignored; a document with none of the five is an error.
// Text holding Jinja templating ("{{", "{%", "{#") is refused at the first one. Every malformed
// value is an InputError at file:line:column saying what was expected.
//
// Architecture, tag form (`nodes:` list): a !Container opens a scope; its `spatial: {meshX,
// meshY}` multiplies the instances of every node after it and adds a dummy storage level
// `inter_<name>_spatial` (bypassing everything) that hosts the fan-out's spatial loops; a
// !Component is a storage level, except the last one, the compute unit; a !Parallel group's
// components are storage levels side by side (listed in order). Flattened form (`subtree` /
// `local`): a `name[a..b]` range multiplies instances by b - a + 1; locals are listed outermost
// first, then the subtrees nested in them; the last local of the innermost subtree computes.
// Attributes read: depth, width, datawidth (v0.3: word-bits), block_size (default width /
// datawidth), read_bandwidth, write_bandwidth, shared_bandwidth, multiple_buffering, meshX,
// meshY; hyphenated v0.3 keys are read as the underscored ones.
TimeloopInputs parse_timeloop_yaml(const std::string& text, const std::string& file);

// read_file + parse_timeloop_yaml of each path, merged; a part given by two files is an
// InputError at the second one.
TimeloopInputs read_timeloop_files(const std::vector<std::string>& paths);

// Factors as Timeloop writes them: "R=3 P=16", "R=3,P=16", or timeloop-mapper's "R3 P16" (a
// name without "=" ends before its trailing digits; names are letters, digits, _).
// Throws InputError at `where` (column advanced to the offending character when known).
std::vector<mapping::LoopFactor> parse_timeloop_factors(const std::string& text,
                                                        const SourceLocation& where);

// `m` as Timeloop v0.4's map.yaml (`mapping:` list, one entry per directive in order), written
// with yaml-cpp's emitter: target, type (temporal, spatial, or datatype as timeloop-mapper
// writes it), factors "R=3 P=16" (omitted when empty), permutation as stored (omitted when
// empty), split (spatial, only when >= 0), keep and bypass (datatype entries always, others only
// when non-empty). parse_timeloop_yaml of the text gives back a mapping equal to `m` (names are
// quoted by the emitter where YAML needs it). Throws InputError when `m` holds what the format
// cannot carry back (an empty target, a factor name the factor syntax cannot read, a factor < 1).
std::string write_timeloop_mapping(const mapping::LoopNest& m);

}  // namespace sparsemap::io
