// WorkerPool (include/sparsemap/search/worker_pool.h).
#include "sparsemap/search/worker_pool.h"

namespace sparsemap::search {

namespace {

// Waits awake while `waiting()` holds, at most kSpinTries checks, before a thread goes to sleep
// on a condition variable.
template <class Waiting>
void spin_while(const Waiting& waiting) {
  for (int t = 0; t < WorkerPool::kSpinTries && waiting(); ++t) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }
}

}  // namespace

WorkerPool::WorkerPool(int threads) {
  for (int t = 1; t < threads; ++t) workers_.emplace_back([this] { work_loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void WorkerPool::drain(const std::function<void(size_t)>* f, size_t n) {
  for (size_t i = next_.fetch_add(1); i < n; i = next_.fetch_add(1)) (*f)(i);
}

void WorkerPool::work_loop() {
  unsigned long seen = 0;
  for (;;) {
    const std::function<void(size_t)>* f = nullptr;
    size_t n = 0;
    spin_while([&] { return published_.load(std::memory_order_acquire) == seen; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      f = job_;  // null, n 0: the job ended before this worker woke
      n = n_;
      ++busy_;
    }
    if (n > 0) drain(f, n);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --busy_;
    }
    done_.notify_one();
  }
}

void WorkerPool::run(size_t n, const std::function<void(size_t)>& f) {
  if (n == 0) return;
  std::lock_guard<std::mutex> one_job(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &f;
    n_ = n;
    next_ = 0;
    ++generation_;
    published_.store(generation_, std::memory_order_release);
  }
  if (!workers_.empty()) wake_.notify_all();
  drain(&f, n);
  spin_while([&] { return busy_.load(std::memory_order_acquire) != 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  // Every index is taken; wait for the workers still inside f. A worker that wakes after this
  // finds no index left and leaves at once.
  done_.wait(lock, [&] { return busy_ == 0; });
  job_ = nullptr;
  n_ = 0;
}

}  // namespace sparsemap::search
