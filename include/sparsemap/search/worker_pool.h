// Threads that live as long as their pool and run one job at a time: run(n, f) calls f(i) for
// every i in [0, n) on the pool's threads and the caller's, and returns when all have returned.
// A search asks for a batch every few hundred microseconds; starting threads per batch (and
// losing their thread_local workspaces each time) cost more than the batch's evaluations.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sparsemap::search {

class WorkerPool {
 public:
  // Checks a thread makes awake (a pause instruction apart: 0.4 ms in all on this project's 2-core
  // machine) for the next job (a worker) or for the workers to finish (the caller) before it
  // sleeps: a search's next batch comes within about 0.1 ms, and on a virtual machine a sleep and
  // wake-up through the kernel costs as much as a batch. Not tuned: any wait longer than a GA step
  // will do.
  static constexpr int kSpinTries = 20000;

  // `threads` in all, the caller's included (threads - 1 are started; none when threads <= 1).
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  // f(i) for i in [0, n), each index once, taken in increasing order by whichever thread is
  // free. f must not throw (wrap it); calls from several threads are taken one after another.
  void run(size_t n, const std::function<void(size_t)>& f);

 private:
  void work_loop();
  // Takes indices of job f over [0, n) until none is left (an atomic counter: no lock per index).
  void drain(const std::function<void(size_t)>* f, size_t n);

  std::mutex run_mutex_;  // one job at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t n_ = 0;                             // the job's size
  std::atomic<size_t> busy_{0};              // workers inside it (changed under mutex_)
  std::atomic<unsigned long> published_{0};  // generation_, readable without the lock
  std::atomic<size_t> next_{0};
  unsigned long generation_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace sparsemap::search
