// Sparsity schedules (JaxPruner's): at which optimiser steps masks are updated, and which
// sparsity a layer aims for at a step. Torch-free.
//
// `step` is always the number of optimiser steps taken before the current one (0 for the first).
#pragma once

#include <cstdint>
#include <string>

namespace sparsemap::ml::prune {

enum class ScheduleKind { NoUpdate, OneShot, Periodic, Polynomial };

struct Schedule {
  ScheduleKind kind = ScheduleKind::NoUpdate;
  int64_t target_step = 0;  // one-shot: the one update step
  int64_t update_freq = 1;  // periodic, polynomial: steps between updates (>= 1)
  int64_t start_step = 0;   // periodic, polynomial: first step that may update
  int64_t end_step = -1;    // periodic: last step that may update (-1: none);
                            // polynomial: the step at which the target is reached (>= start)
  int power = 3;            // polynomial: the exponent (cubic by default)

  static Schedule no_update() { return {}; }
  static Schedule one_shot(int64_t target_step = 0);
  static Schedule periodic(int64_t freq, int64_t start, int64_t end = -1);
  static Schedule polynomial(int64_t freq, int64_t start, int64_t end, int power = 3);

  // Whether masks are updated at `step`:
  //   no-update: never
  //   one-shot: step == target_step
  //   periodic, polynomial: step % freq == 0 && step >= start && (end < 0 || step <= end)
  bool is_update_step(int64_t step) const;

  // The sparsity a layer whose final target is `target` aims for at `step`:
  //   polynomial: target * (1 - (1 - p)^power),
  //               p = clamp(step + 1 - start, 0, end - start) / (end - start)  (p = 1 if end ==
  //               start)
  //   the others: target
  double sparsity_at(double target, int64_t step) const;

  // Throws InputError (file "<schedule>") on freq < 1, negative steps, end < start, power < 1.
  void validate() const;

  // The text form parse_schedule reads back.
  std::string str() const;

  bool operator==(const Schedule& o) const;
  bool operator!=(const Schedule& o) const { return !(*this == o); }
};

// Text forms: "none" | "one-shot[:STEP]" | "periodic:FREQ:START[:END]" |
// "poly:FREQ:START:END[:POWER]" (steps are optimiser steps). Throws InputError (file
// "<flag --schedule>") naming the accepted forms.
Schedule parse_schedule(const std::string& text);

}  // namespace sparsemap::ml::prune
