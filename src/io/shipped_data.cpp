// shipped_data_file: a file shipped in the repository, found from the working directory, the
// executable or the source tree (io/util.h). SPARSEMAP_DATA_ROOT is defined for this file only
// (CMakeLists.txt).
#include <filesystem>

#include "sparsemap/io/util.h"

namespace sparsemap::io {

std::string shipped_data_file(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(relative, ec)) return relative;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path().parent_path() / relative;
    if (fs::exists(beside, ec)) return beside.string();
  }
#ifdef SPARSEMAP_DATA_ROOT  // the source tree this was built from (e.g. for the Python module)
  const fs::path in_source = fs::path(SPARSEMAP_DATA_ROOT) / relative;
  if (fs::exists(in_source, ec)) return in_source.string();
#endif
  return relative;
}

}  // namespace sparsemap::io
