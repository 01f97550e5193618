// Optional heavy dependencies (MPI, ONNX with protobuf) live in plugins, shared objects opened
// at first use, so that a command that never needs them does not load them: each linked
// library costs every process its loading and symbol binding (about 4 ms for MPI's eight
// libraries, 4.5 ms for ONNX's three, against 12 ms for the whole start of `sparsemap`).
#pragma once

#include <filesystem>
#include <string>

namespace sparsemap::sys {

// The folder of the executable or shared object (the Python module) holding sparsemap's code:
// what plugins and shipped data are found from. Empty when the loader cannot say.
std::filesystem::path code_folder();

// Opens libsparsemap_<name>.so (RTLD_NOW | RTLD_GLOBAL: MPI's own components need its symbols)
// from, in order: code_folder(), code_folder()/../lib/sparsemap (an installed executable in
// PREFIX/bin), the build tree the plugin was built in (SPARSEMAP_PLUGIN_DIR), the loader's
// search path. Returns the handle
// (opened once per name and kept open); throws std::runtime_error naming every place tried when
// none opens.
void* open_plugin(const std::string& name);

// The symbol `symbol` of an opened plugin; throws std::runtime_error when it is missing.
void* plugin_symbol(void* handle, const std::string& plugin, const char* symbol);

}  // namespace sparsemap::sys
