// MpiSession and the all-gather of fitness values, through the MPI plugin (mpi_plugin.cpp);
// rank 0 of 1 outside mpirun or without MPI.
#include "sparsemap/search/mpi.h"

#include <cstdlib>
#include <numeric>

#include "sparsemap/error.h"
#include "sparsemap/sys/plugin.h"

namespace sparsemap::search {

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}

namespace {

// The MPI plugin's entry points (src/search/mpi_plugin.cpp).
struct MpiApi {
  int (*running)() = nullptr;
  int (*init)() = nullptr;
  void (*finalize)() = nullptr;
  int (*rank)() = nullptr;
  int (*size)() = nullptr;
  void (*allgatherv)(const double*, int, double*, const int*, const int*) = nullptr;
};

// The plugin when this process runs under mpirun (opened at the first call), else null: MPI
// never runs outside mpirun, so a plain run does not load it. Without SPARSEMAP_HAVE_MPI: null.
const MpiApi* mpi_api() {
#ifdef SPARSEMAP_HAVE_MPI
  if (!launched_by_mpirun()) return nullptr;
  static const MpiApi api = [] {
    void* h = sys::open_plugin("mpi");
    auto sym = [&](const char* name) { return sys::plugin_symbol(h, "mpi", name); };
    MpiApi a;
    a.running = reinterpret_cast<decltype(a.running)>(sym("sparsemap_mpi_running"));
    a.init = reinterpret_cast<decltype(a.init)>(sym("sparsemap_mpi_init"));
    a.finalize = reinterpret_cast<decltype(a.finalize)>(sym("sparsemap_mpi_finalize"));
    a.rank = reinterpret_cast<decltype(a.rank)>(sym("sparsemap_mpi_rank"));
    a.size = reinterpret_cast<decltype(a.size)>(sym("sparsemap_mpi_size"));
    a.allgatherv = reinterpret_cast<decltype(a.allgatherv)>(sym("sparsemap_mpi_allgatherv"));
    return a;
  }();
  return &api;
#else
  return nullptr;
#endif
}

bool mpi_running() {
  const MpiApi* api = mpi_api();
  return api && api->running();
}

}  // namespace

MpiSession::MpiSession() {
  if (const MpiApi* api = mpi_api()) initialised_ = api->init() != 0;
  rank_ = mpi_rank();
  size_ = mpi_size();
}

MpiSession::~MpiSession() {
  if (initialised_) mpi_api()->finalize();
}

int mpi_rank() { return mpi_running() ? mpi_api()->rank() : 0; }

int mpi_size() { return mpi_running() ? mpi_api()->size() : 1; }

std::vector<double> mpi_allgather(const std::vector<double>& mine, const std::vector<int>& counts) {
  const int size = mpi_size();
  if (size == 1) return mine;
  SPARSEMAP_ASSERT(static_cast<int>(counts.size()) == size);
  SPARSEMAP_ASSERT(static_cast<int>(mine.size()) == counts[mpi_rank()]);
  std::vector<int> displs(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(static_cast<size_t>(displs.back() + counts.back()));
  mpi_api()->allgatherv(mine.data(), static_cast<int>(mine.size()), all.data(), counts.data(),
                        displs.data());
  return all;
}

}  // namespace sparsemap::search
