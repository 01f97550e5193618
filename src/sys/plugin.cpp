// open_plugin (include/sparsemap/sys/plugin.h). SPARSEMAP_PLUGIN_DIR is defined for this file
// only (CMakeLists.txt): the folder the build writes the plugins to.
#include "sparsemap/sys/plugin.h"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace sparsemap::sys {

std::filesystem::path code_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&code_folder), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::filesystem::path{} : p.parent_path();
}

void* open_plugin(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, void*> opened;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = opened.find(name); it != opened.end()) return it->second;
  const std::string file = "libsparsemap_" + name + ".so";
  std::vector<std::string> tries;
  if (const auto dir = code_folder(); !dir.empty()) {
    tries.push_back((dir / file).string());
    tries.push_back((dir.parent_path() / "lib" / "sparsemap" / file).string());
  }
#ifdef SPARSEMAP_PLUGIN_DIR
  tries.push_back((std::filesystem::path(SPARSEMAP_PLUGIN_DIR) / file).string());
#endif
  tries.push_back(file);
  std::string why;
  for (const std::string& path : tries) {
    std::error_code ec;
    if (path != file && !std::filesystem::exists(path, ec)) continue;
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return opened[name] = h;
    const char* e = dlerror();
    why += "; " + path + ": " + (e ? e : "cannot open");
  }
  throw std::runtime_error("plugin '" + name +
                           "' not found (looked beside the executable, in its ../lib/sparsemap, "
                           "in the build " +
                           "tree and on the loader's path" + why + ")");
}

void* plugin_symbol(void* handle, const std::string& plugin, const char* symbol) {
  void* s = dlsym(handle, symbol);
  if (!s) throw std::runtime_error("plugin '" + plugin + "' lacks " + std::string(symbol));
  return s;
}

}  // namespace sparsemap::sys
