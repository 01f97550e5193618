// The CLI in two executables (CMakeLists.txt, "The CLI"): `sparsemap` without libtorch, which
// starts in milliseconds, and `sparsemap-ml` with it (libtorch's ~290 shared libraries and their
// static initialisers take about a second to load). A command that needs libtorch in
// `sparsemap` replaces the process by `sparsemap-ml` with the same arguments (execv: no shell).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::cli {
namespace {
std::vector<char*> g_args;  // argv of this process, null-terminated
}  // namespace

void remember_args(int argc, char** argv) { g_args.assign(argv, argv + argc + 1); }

void hand_over_to_torch_build() {
#ifdef SPARSEMAP_TORCH_HELPER
  // Under mpirun the ranks share an MPI job that a replaced process would leave behind.
  if (g_args.empty() || search::mpi_size() > 1) return;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return;
  const std::string helper = (self.parent_path() / SPARSEMAP_TORCH_HELPER).string();
  if (::access(helper.c_str(), X_OK) != 0) return;
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(helper.c_str(), g_args.data());  // returns only on failure
#endif
}

}  // namespace sparsemap::cli
