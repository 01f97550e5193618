// MPI for the search layer: a session that initialises MPI only under mpirun/mpiexec, and the
// all-gather that lets every rank see every fitness (Evaluator, driver.h).
#pragma once

#include <vector>

namespace sparsemap::search {

// True when this process was started by mpirun/mpiexec (OpenMPI's OMPI_COMM_WORLD_SIZE or a
// PMI launcher's PMI_SIZE is set). Plain runs never load MPI (its plugin,
// src/search/mpi_plugin.cpp) nor pay for MPI_Init (about 0.5 s).
bool launched_by_mpirun();

// RAII: initialises MPI (MPI_Init_thread, MPI_THREAD_FUNNELED: only the main thread calls MPI)
// when launched_by_mpirun() and MPI is not initialised yet, and finalises what it initialised.
// Without SPARSEMAP_HAVE_MPI, or outside mpirun, it is rank 0 of 1 and does nothing.
// Create one at the start of main(), before any thread; only the root should write files or
// print. Not copyable.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  bool initialised_here() const { return initialised_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialised_ = false;
};

// Rank and size in MPI_COMM_WORLD when MPI is initialised (and not finalised), else 0 and 1.
int mpi_rank();
int mpi_size();

// Every rank passes its own slice `mine` (mine.size() == counts[rank]); returns the
// concatenation of all slices in rank order (MPI_Allgatherv of doubles) on every rank.
// Without MPI (size 1) returns `mine`.
std::vector<double> mpi_allgather(const std::vector<double>& mine, const std::vector<int>& counts);

}  // namespace sparsemap::search
