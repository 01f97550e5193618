// Reader and writer of MAESTRO's DFSL files (.m): constants, a network of layers, and each
// layer's dataflow directives.
#pragma once

#include <string>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/mapping/mapping.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::io {

struct DfslLayer {
  workload::Layer layer;
  mapping::Mapping mapping;        // empty when the file has no Dataflow block for the layer
  SourceLocation where;            // the "Layer" keyword
  bool clamped = false;            // some tile (or offset) exceeded its extent and was clamped
  std::vector<std::string> notes;  // written as `//` comment lines; never read back
  bool operator==(const DfslLayer& o) const { return layer == o.layer && mapping == o.mapping; }
};

struct DfslNetwork {
  std::string name;
  std::vector<DfslLayer> layers;
  std::vector<InputWarning> warnings;  // e.g. clamped tiles, duplicated dimensions
  bool operator==(const DfslNetwork& o) const { return name == o.name && layers == o.layers; }
};

// Parses DFSL text. `file` names the source in errors and warnings. Throws InputError
// ("file:line:column: expected ...") on any malformed input; never crashes.
DfslNetwork parse_dfsl(const std::string& text, const std::string& file);
DfslNetwork read_dfsl(const std::string& path);  // reads the file, then parse_dfsl

// Writes DFSL that parse_dfsl reads back to an equal DfslNetwork. Every dimension a directive
// maps is declared, size 1 included.
std::string write_dfsl(const DfslNetwork& net);

}  // namespace sparsemap::io
