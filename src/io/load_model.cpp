// load_model: a zoo name or a model file (.m, .csv, .onnx), or a model held in memory.
#include "sparsemap/io/load_model.h"

#include <iostream>

#include "sparsemap/error.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/gamma_csv.h"
#include "sparsemap/io/onnx_import.h"

namespace sparsemap::io {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::map<std::string, workload::Model>& in_memory_models() {
  static std::map<std::string, workload::Model> models;
  return models;
}

workload::Model load_model(const std::string& spec, const workload::ZooOptions& opt,
                           std::vector<InputWarning>* warnings) {
  if (const auto it = in_memory_models().find(spec); it != in_memory_models().end())
    return it->second;
  if (!workload::zoo_canonical_name(spec).empty()) return workload::zoo_model(spec, opt);
  if (ends_with(spec, ".m")) {
    const DfslNetwork net = read_dfsl(spec);
    for (const auto& w : net.warnings) {
      if (warnings)
        warnings->push_back(w);
      else
        std::cerr << "sparsemap: " << w.str() << "\n";
    }
    workload::Model m;
    m.name = net.name;
    for (const auto& l : net.layers) m.layers.push_back(l.layer);
    return m;
  }
  if (ends_with(spec, ".csv")) return read_gamma_csv(spec);
  if (ends_with(spec, ".onnx")) return read_onnx(spec);
  throw InputError({spec, 0, 0},
                   "expected a model name (see `sparsemap models`) or a .m, .csv or .onnx file");
}

}  // namespace sparsemap::io
