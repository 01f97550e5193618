// What a long-running system (map, codesign, hwalloc, ...) tells its caller while it runs, and
// how the caller stops it: progress, warnings and cancellation, one small interface for the CLI
// (progress bar on stderr), the Python module (progress= callbacks, Ctrl-C) and tests.
#pragma once

#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>

namespace sparsemap::search {

// One step of a run. `item` of `items` is the unit being searched (a distinct layer, a design,
// a case); `done` of `total` its samples so far; `best` the best fitness so far (lower is
// better; kInfeasible when none is feasible yet); `label` names the search when a run holds
// several ("resnet18 digamma"), else "".
struct Progress {
  size_t item = 0, items = 1;
  int64_t done = 0, total = 0;
  double best = 0;
  std::string label;
};

// Thrown by a system's run() when its Observer asks it to stop; nothing it would have written
// is written.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

// The caller's side of a run. Every call comes from the thread that called run(), between
// batches of evaluations (never from a worker thread), so an implementation needs no locks of
// its own. The defaults print warnings on stderr and never cancel.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_progress(const Progress& /*p*/) {}
  // After the last progress report of one search (a progress line may be cleared).
  virtual void on_search_done() {}
  // A line saying how a finished part of the run came out (a case of codesign --table).
  virtual void on_note(const std::string& /*text*/) {}
  // A note the user should see (a partial exhaustive scan, a reader's warning): one line,
  // without the "sparsemap: " prefix.
  virtual void on_warning(const std::string& text) { std::cerr << "sparsemap: " << text << "\n"; }
  // Polled after each progress report: true stops the run (run() throws Cancelled).
  virtual bool cancelled() { return false; }
  // Polled inside long evaluations, from any thread, so that a run whose batches take long
  // stops soon after being asked: true makes the evaluations in flight end early (their results
  // are discarded: the run throws Cancelled at its next progress report, where cancelled() must
  // then be true). Thread-safe and cheap; the default never stops.
  virtual bool stop_requested() { return false; }
};

// What a system calls after each batch: reports `p`, then throws Cancelled when the observer
// asks to stop.
inline void report_progress(Observer& o, const Progress& p) {
  o.on_progress(p);
  if (o.cancelled()) throw Cancelled();
}

}  // namespace sparsemap::search
