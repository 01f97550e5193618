// Runs an optimiser against a fitness function to a sample budget: batching, parallel
// evaluation (threads; MPI ranks), best-so-far history and checkpoints.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sparsemap/search/optimizer.h"
#include "sparsemap/search/worker_pool.h"

namespace sparsemap::search {

// Evaluates a batch of genomes. Thread-safe `fitness` is required: it is called concurrently.
// With threads > 1 the batch is split over std::threads; under MPI (see mpi.h) it is split over
// ranks and the results are all-gathered, so every rank sees every fitness. The result never
// depends on the split.
// A fitness that throws: the exception of the lowest index is rethrown after all threads have
// joined (under MPI, a throwing rank leaves the others waiting: fitness should not throw there).
class Evaluator {
 public:
  using Fitness = std::function<double(const Genome&)>;
  // threads > 1 starts threads - 1 workers that live as long as the evaluator and its copies.
  explicit Evaluator(int threads = 1) : Evaluator(threads, true) {}
  // use_mpi = false: this process evaluates the whole batch even when MPI runs (MPI tests, or
  // work that only one rank does).
  Evaluator(int threads, bool use_mpi);
  // Under MPI with more than one rank (and use_mpi), rank r evaluates the contiguous slice
  // [n r / size, n (r + 1) / size) of the batch on its threads, then MPI_Allgatherv; every rank
  // must call evaluate with the same batch (they do: each runs the identical optimiser).
  std::vector<double> evaluate(const std::vector<Genome>& xs, const Fitness& fitness) const;
  // The same split for any batch of n items: out[i] = fitness(i) for i in [0, n), each index
  // evaluated once over all threads and ranks (an exhaustive scan's batch of points).
  std::vector<double> evaluate_indexed(size_t n, const std::function<double(size_t)>& f) const;
  // evaluate_indexed(n, f) of items that `produce(made)` makes one by one, calling made(i) once
  // item i is ready (in order): on threads, the first items are evaluated while the rest are
  // made. produce runs on one thread, once; its exception is rethrown. The same results as
  // producing everything first (the order of evaluation never shows in the output).
  std::vector<double> evaluate_streamed(
      size_t n, const std::function<void(const std::function<void(size_t)>&)>& produce,
      const std::function<double(size_t)>& f) const;
  int threads() const { return threads_; }
  bool use_mpi() const { return use_mpi_; }

 private:
  int threads_;
  bool use_mpi_ = true;
  std::shared_ptr<WorkerPool> pool_;  // null with one thread
};

// The most evaluation threads a command accepts (a documented bound, far above any core count
// the searches scale to; more would only start idle threads).
inline constexpr int kMaxThreads = 256;

// The most samples one search may take: the history keeps a double per sample (800 MB at the
// cap), and a cost-model search of 10^8 samples already runs for hours.
inline constexpr int64_t kMaxBudget = 100'000'000;

struct SearchOptions {
  int64_t budget = 1000;  // samples (fitness evaluations), including infeasible ones; <= kMaxBudget
  size_t batch = 64;      // ask(batch) per step (GA: population - elites is the textbook step)
  // Checkpoint: the driver state is written (atomically: temp file + rename) to
  // `checkpoint_file` every `checkpoint_every` samples and at the end; empty: never.
  std::string checkpoint_file;
  int64_t checkpoint_every = 10000;
  // Copied into the checkpoint as "context" when not null (a caller's own resume data, e.g.
  // which layer of a model this search maps).
  nlohmann::json checkpoint_context;
  // The file a resumed state was read from, to name it in errors ("<checkpoint>" when empty).
  std::string resume_file;
  // Called after each batch with (samples so far, best fitness so far), on every MPI rank;
  // may be empty.
  std::function<void(int64_t, double)> progress;
};

struct SearchResult {
  Genome best;
  double best_fitness = kInfeasible;
  int64_t samples = 0;
  // history[i]: best fitness after i + 1 samples (kInfeasible before the first feasible one).
  std::vector<double> history;
  // Samples until the best so far first came within `tolerance` (0.05 = 5%) of `target`;
  // -1 if never.
  int64_t samples_to_within(double target, double tolerance) const;
  nlohmann::json to_json() const;
  static SearchResult from_json(const nlohmann::json& j);
};

// Runs `opt` until `options.budget` samples, asking min(batch, samples left) at a time, so
// exactly `budget` candidates are evaluated. Fitness values that are NaN, infinite or above
// kInfeasible count as kInfeasible. Under MPI only rank 0 writes the checkpoint; every rank
// returns the same result. A checkpoint is written after the batch that crosses each multiple
// of checkpoint_every (when samples remain) and once at the end.
// With `resume` (a state written by a checkpoint of the same search: same optimiser kind,
// dims and options, same fitness, same batch; the budget may be larger), continues from it
// and ends exactly where an uninterrupted run would. Throws InputError (at
// options.resume_file) for a state that does not fit (another optimiser, another batch, more
// samples than budget, a best genome of another length or with genes outside [0, 1]), and at
// "<flag --budget>" for a budget above kMaxBudget.
SearchResult run_search(Optimizer& opt, const Evaluator& eval, const Evaluator::Fitness& fitness,
                        const SearchOptions& options, const nlohmann::json* resume = nullptr);

// The checkpoint's JSON: {"optimizer": opt.save(), "result": partial SearchResult, ...}.
// Readers throw InputError naming the file when it is not a checkpoint.
nlohmann::json read_checkpoint(const std::string& path);
void write_json_atomic(const nlohmann::json& j, const std::string& path);

}  // namespace sparsemap::search
