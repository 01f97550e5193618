// MpiSession and the all-gather of fitness values; a no-op (rank 0 of 1) without MPI.
#include "sparsemap/search/mpi.h"

#include <cstdlib>
#include <numeric>

#include "sparsemap/error.h"

#ifdef SPARSEMAP_HAVE_MPI
#include <mpi.h>
#endif

namespace sparsemap::search {

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}

#ifdef SPARSEMAP_HAVE_MPI

namespace {
bool mpi_running() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}
}  // namespace

MpiSession::MpiSession() {
  if (!mpi_running() && launched_by_mpirun()) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      initialised_ = true;
    }
  }
  rank_ = mpi_rank();
  size_ = mpi_size();
}

MpiSession::~MpiSession() {
  if (initialised_ && mpi_running()) MPI_Finalize();
}

int mpi_rank() {
  if (!mpi_running()) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int mpi_size() {
  if (!mpi_running()) return 1;
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::vector<double> mpi_allgather(const std::vector<double>& mine, const std::vector<int>& counts) {
  const int size = mpi_size();
  if (size == 1) return mine;
  SPARSEMAP_ASSERT(static_cast<int>(counts.size()) == size);
  SPARSEMAP_ASSERT(static_cast<int>(mine.size()) == counts[mpi_rank()]);
  std::vector<int> displs(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(static_cast<size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                 displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}

#else  // no MPI: one process

MpiSession::MpiSession() = default;
MpiSession::~MpiSession() = default;
int mpi_rank() { return 0; }
int mpi_size() { return 1; }
std::vector<double> mpi_allgather(const std::vector<double>& mine, const std::vector<int>&) {
  return mine;
}

#endif

}  // namespace sparsemap::search
