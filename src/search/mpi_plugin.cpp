// The MPI plugin (libsparsemap_mpi.so, linked against MPI): the few MPI calls the search layer
// makes, behind a C interface that src/search/mpi.cpp opens only under mpirun / mpiexec, so
// that a plain run never loads MPI's libraries (include/sparsemap/sys/plugin.h says why).
#include <mpi.h>

extern "C" {

// 1 when MPI is initialised and not finalised.
int sparsemap_mpi_running() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

// Initialises MPI (MPI_THREAD_FUNNELED: only the main thread calls MPI) unless it runs or ran;
// returns 1 when it initialised it here.
int sparsemap_mpi_init() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (sparsemap_mpi_running() || fin) return 0;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  return 1;
}

void sparsemap_mpi_finalize() {
  if (sparsemap_mpi_running()) MPI_Finalize();
}

int sparsemap_mpi_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int sparsemap_mpi_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// MPI_Allgatherv of doubles over MPI_COMM_WORLD.
void sparsemap_mpi_allgatherv(const double* mine, int n, double* all, const int* counts,
                              const int* displs) {
  MPI_Allgatherv(mine, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
}
}
