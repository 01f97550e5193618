// A model by name or file, as every command's --model takes it: a zoo name, a MAESTRO .m, a
// GAMMA .csv or an ONNX file; and the models a program holds in memory under a key (the Python
// module hands its Model objects to the systems this way).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::io {

// The model `name_or_path` names: in_memory_models()[name_or_path] when held there, else a zoo
// model (built with `opt`), else a file by its extension (.m: MAESTRO DFSL; .csv: GAMMA;
// .onnx). A .m file's warnings are appended to `warnings` when given, else printed on stderr
// ("sparsemap: FILE:LINE:COL: ..."). Throws InputError naming the file or the unknown name.
// Defined in sparsemap_onnx (it reads ONNX).
workload::Model load_model(const std::string& name_or_path, const workload::ZooOptions& opt,
                           std::vector<InputWarning>* warnings = nullptr);

// Models held in memory by the program, by key: load_model(key) returns them before anything
// else. Empty in the CLI. Not synchronised: change it only while no load_model runs.
std::map<std::string, workload::Model>& in_memory_models();

}  // namespace sparsemap::io
