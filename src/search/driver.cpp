// The search driver: parallel evaluation (threads, MPI ranks), the budgeted ask/tell loop,
// best-so-far history and checkpoints.
#include "sparsemap/search/driver.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <thread>

#include "optimizer_internal.h"
#include "sparsemap/error.h"
#include "sparsemap/io/util.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::search {

using nlohmann::json;

namespace {

constexpr const char* kCheckpointFormat = "sparsemap-search-checkpoint";
constexpr int kCheckpointVersion = 1;

// f(i) for i in [lo, hi) on the pool's threads (the caller's alone when pool is null); out[i -
// lo]. Indices are taken dynamically, but each result lands in its own slot, so the output never
// depends on the split. The exception of the lowest failing index is rethrown after the join.
std::vector<double> evaluate_range(size_t lo, size_t hi, const std::function<double(size_t)>& f,
                                   WorkerPool* pool) {
  const size_t n = hi - lo;
  std::vector<double> out(n, kInfeasible);
  if (!pool || n <= 1) {
    for (size_t i = 0; i < n; ++i) out[i] = f(lo + i);
    return out;
  }
  std::vector<std::exception_ptr> errors(n);
  pool->run(n, [&](size_t i) {
    try {
      out[i] = f(lo + i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

[[noreturn]] void bad_result(const std::string& what) {
  throw InputError({"<checkpoint>", 0, 0}, "bad search result: " + what);
}

json checkpoint_json(const Optimizer& opt, const SearchResult& result,
                     const SearchOptions& options) {
  json j{{"format", kCheckpointFormat},  {"version", kCheckpointVersion},
         {"optimizer_name", opt.name()}, {"budget", options.budget},
         {"batch", options.batch},       {"optimizer", opt.save()},
         {"result", result.to_json()}};
  if (!options.checkpoint_context.is_null()) j["context"] = options.checkpoint_context;
  return j;
}

// Checks the shape that read_checkpoint and run_search rely on; messages without a location.
std::string checkpoint_problem(const json& j) {
  if (!j.is_object()) return "not a JSON object";
  if (!j.contains("format") || !j["format"].is_string() ||
      j["format"].get<std::string>() != kCheckpointFormat)
    return std::string("not a search checkpoint (expected \"format\": \"") + kCheckpointFormat +
           "\")";
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kCheckpointVersion)
    return "unsupported checkpoint version (expected " + std::to_string(kCheckpointVersion) + ")";
  if (!j.contains("optimizer") || !j["optimizer"].is_object()) return "no \"optimizer\" state";
  if (!j.contains("result") || !j["result"].is_object()) return "no \"result\"";
  if (!j.contains("batch") || !j["batch"].is_number_integer() || j["batch"].get<int64_t>() < 1)
    return "no \"batch\" (a positive count)";
  try {
    SearchResult::from_json(j["result"]);
  } catch (const InputError& e) {
    return e.message();
  }
  return "";
}

// Why `g` cannot be the best genome of a search over `dims` genes (empty when it can): a best
// exists once a sample was told, has `dims` genes, each in [0, 1].
std::string genome_problem(const Genome& g, size_t dims, bool expected) {
  if (!expected) return g.empty() ? "" : "is given before any sample";
  if (g.size() != dims)
    return "has " + std::to_string(g.size()) + " genes, expected " + std::to_string(dims) +
           " (a checkpoint of another search)";
  for (double x : g)
    if (!(x >= 0.0 && x <= 1.0)) return "holds a gene outside [0, 1]";
  return "";
}

}  // namespace

Evaluator::Evaluator(int threads, bool use_mpi)
    : threads_(threads < 1 ? 1 : threads), use_mpi_(use_mpi) {
  if (threads_ > 1) pool_ = std::make_shared<WorkerPool>(threads_);
}

std::vector<double> Evaluator::evaluate(const std::vector<Genome>& xs,
                                        const Fitness& fitness) const {
  return evaluate_indexed(xs.size(), [&](size_t i) { return fitness(xs[i]); });
}

std::vector<double> Evaluator::evaluate_indexed(size_t n,
                                                const std::function<double(size_t)>& f) const {
  const int size = use_mpi_ ? mpi_size() : 1;
  if (size <= 1) return evaluate_range(0, n, f, pool_.get());
  const int rank = mpi_rank();
  auto bound = [&](int r) { return n * static_cast<size_t>(r) / static_cast<size_t>(size); };
  std::vector<int> counts(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) counts[r] = static_cast<int>(bound(r + 1) - bound(r));
  const std::vector<double> mine = evaluate_range(bound(rank), bound(rank + 1), f, pool_.get());
  return mpi_allgather(mine, counts);
}

std::vector<double> Evaluator::evaluate_streamed(
    size_t n, const std::function<void(const std::function<void(size_t)>&)>& produce,
    const std::function<double(size_t)>& f) const {
  if (!pool_ || n <= 1 || (use_mpi_ && mpi_size() > 1)) {
    produce([](size_t) {});
    return evaluate_indexed(n, f);
  }
  // Job 0 makes the items; job i >= 1 waits until item i - 1 is made, then evaluates it.
  std::vector<double> out(n, kInfeasible);
  std::vector<std::exception_ptr> errors(n + 1);
  std::atomic<size_t> made{0};
  std::atomic<bool> failed{false};
  pool_->run(n + 1, [&](size_t job) {
    try {
      if (job == 0) {
        produce([&](size_t i) { made.store(i + 1, std::memory_order_release); });
        return;
      }
      while (made.load(std::memory_order_acquire) < job) {
        if (failed.load(std::memory_order_acquire)) return;
        std::this_thread::yield();
      }
      out[job - 1] = f(job - 1);
    } catch (...) {
      errors[job] = std::current_exception();
      if (job == 0) failed.store(true, std::memory_order_release);
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

// The first i + 1 with history[i] <= target + tolerance |target|.
int64_t SearchResult::samples_to_within(double target, double tolerance) const {
  const double threshold = target + tolerance * std::fabs(target);
  for (size_t i = 0; i < history.size(); ++i)
    if (history[i] <= threshold) return static_cast<int64_t>(i) + 1;
  return -1;
}

json SearchResult::to_json() const {
  return json{
      {"best", best}, {"best_fitness", best_fitness}, {"samples", samples}, {"history", history}};
}

SearchResult SearchResult::from_json(const json& j) {
  if (!j.is_object()) bad_result("not an object");
  SearchResult r;
  if (!j.contains("samples") || !j["samples"].is_number_integer() ||
      j["samples"].get<int64_t>() < 0)
    bad_result("'samples' is not a count");
  r.samples = j["samples"].get<int64_t>();
  if (!j.contains("best_fitness") || !j["best_fitness"].is_number())
    bad_result("'best_fitness' is not a number");
  r.best_fitness = j["best_fitness"].get<double>();
  for (const char* key : {"best", "history"})
    if (!j.contains(key) || !j[key].is_array())
      bad_result(std::string("'") + key + "' is not an array");
  try {
    r.best = detail::json_vector(j, "best");
    r.history = detail::json_vector(j, "history");
  } catch (const InputError& e) {
    bad_result(e.message());
  }
  if (static_cast<int64_t>(r.history.size()) != r.samples)
    bad_result("'history' has " + std::to_string(r.history.size()) + " entries, expected " +
               std::to_string(r.samples));
  if (r.samples > 0 && r.history.back() != r.best_fitness)
    bad_result("'best_fitness' differs from the last entry of 'history'");
  return r;
}

SearchResult run_search(Optimizer& opt, const Evaluator& eval, const Evaluator::Fitness& fitness,
                        const SearchOptions& options, const json* resume) {
  SPARSEMAP_ASSERT(options.batch >= 1);
  if (options.budget > kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0}, "expected at most " + std::to_string(kMaxBudget) +
                                                    " samples, found " +
                                                    std::to_string(options.budget));
  SearchResult result;
  if (resume) {
    const std::string where = options.resume_file.empty() ? "<checkpoint>" : options.resume_file;
    const std::string problem = checkpoint_problem(*resume);
    if (!problem.empty()) throw InputError({where, 0, 0}, problem);
    if ((*resume)["batch"].get<int64_t>() != static_cast<int64_t>(options.batch))
      throw InputError({where, 0, 0}, "the checkpoint was written with batch " +
                                          std::to_string((*resume)["batch"].get<int64_t>()) +
                                          ", not " + std::to_string(options.batch) +
                                          " (a resumed search must ask the same batches)");
    result = SearchResult::from_json((*resume)["result"]);
    if (result.samples > options.budget)
      throw InputError({where, 0, 0}, "the checkpoint has " + std::to_string(result.samples) +
                                          " samples, more than the budget of " +
                                          std::to_string(options.budget));
    if (const std::string bad = genome_problem(result.best, opt.dims(), result.samples > 0);
        !bad.empty())
      throw InputError({where, 0, 0}, "bad search result: 'best' " + bad);
    try {
      opt.load((*resume)["optimizer"]);
    } catch (const InputError& e) {
      throw InputError({where, 0, 0}, e.message());
    }
  }
  // Grown as samples come, never reserved for the whole budget up front.
  result.history.reserve(static_cast<size_t>(std::clamp<int64_t>(options.budget, 0, 1 << 16)));
  const bool writer = !options.checkpoint_file.empty() && mpi_rank() == 0;
  const int64_t every = std::max<int64_t>(1, options.checkpoint_every);
  while (result.samples < options.budget) {
    const size_t n = static_cast<size_t>(
        std::min<int64_t>(static_cast<int64_t>(options.batch), options.budget - result.samples));
    std::vector<Genome> xs;
    std::vector<double> f = eval.evaluate_streamed(
        n, [&](const std::function<void(size_t)>& made) { opt.ask_each(n, xs, made); },
        [&](size_t i) { return fitness(xs[i]); });
    SPARSEMAP_ASSERT(xs.size() == n);
    for (double& v : f) v = detail::sanitize_fitness(v);
    opt.tell(xs, f);
    const int64_t before = result.samples;
    for (size_t i = 0; i < n; ++i) {
      if (result.samples == 0 || f[i] < result.best_fitness) {  // the first best wins ties
        result.best = xs[i];
        result.best_fitness = f[i];
      }
      result.history.push_back(result.best_fitness);
      ++result.samples;
    }
    if (options.progress) options.progress(result.samples, result.best_fitness);
    if (writer && result.samples < options.budget && result.samples / every > before / every)
      write_json_atomic(checkpoint_json(opt, result, options), options.checkpoint_file);
  }
  if (writer) write_json_atomic(checkpoint_json(opt, result, options), options.checkpoint_file);
  return result;
}

json read_checkpoint(const std::string& path) {
  const json j = io::read_json(path, "a search checkpoint");
  const std::string problem = checkpoint_problem(j);
  if (!problem.empty()) throw InputError({path, 0, 0}, problem);
  return j;
}

// Writes PATH.tmp.PID, fsyncs it, then renames it over PATH: a reader (or a search killed with
// -9 mid-write) sees the old file or the new one, never half of one.
void write_json_atomic(const json& j, const std::string& path) {
  const std::string text = j.dump() + "\n";
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* what) {
    const int err = errno;
    throw InputError({path, 0, 0},
                     std::string("cannot write: ") + what + ": " + std::strerror(err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create the temporary file");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("write failed");
    }
    done += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    fail("cannot flush the temporary file");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    fail("cannot rename the temporary file");
  }
}

}  // namespace sparsemap::search
