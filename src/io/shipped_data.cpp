// shipped_data_file: a file shipped with sparsemap (data/ in the repository), found from the
// working directory or from the folder holding sparsemap's code (io/util.h).
#include <filesystem>

#include "sparsemap/io/util.h"
#include "sparsemap/sys/plugin.h"

namespace sparsemap::io {

std::string shipped_data_file(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(relative, ec)) return relative;
  const fs::path code = sys::code_folder();
  if (code.empty()) return relative;
  // The Python package (data/ beside the module), an installed executable (PREFIX/bin with
  // PREFIX/share/sparsemap), an executable in the build tree (build/share/sparsemap).
  for (const fs::path& root :
       {code, code.parent_path() / "share" / "sparsemap", code / "share" / "sparsemap"}) {
    const fs::path file = root / relative;
    if (fs::exists(file, ec)) return file.string();
  }
  return relative;
}

}  // namespace sparsemap::io
