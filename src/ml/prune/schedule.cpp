// Sparsity schedules: update steps and the polynomial (cubic) sparsity ramp.
#include "sparsemap/ml/prune/schedule.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sparsemap/error.h"
#include "text_util.h"

namespace sparsemap::ml::prune {

Schedule Schedule::one_shot(int64_t target_step) {
  Schedule s;
  s.kind = ScheduleKind::OneShot;
  s.target_step = target_step;
  return s;
}

Schedule Schedule::periodic(int64_t freq, int64_t start, int64_t end) {
  Schedule s;
  s.kind = ScheduleKind::Periodic;
  s.update_freq = freq;
  s.start_step = start;
  s.end_step = end;
  return s;
}

Schedule Schedule::polynomial(int64_t freq, int64_t start, int64_t end, int power) {
  Schedule s = periodic(freq, start, end);
  s.kind = ScheduleKind::Polynomial;
  s.power = power;
  return s;
}

bool Schedule::is_update_step(int64_t step) const {
  switch (kind) {
    case ScheduleKind::NoUpdate:
      return false;
    case ScheduleKind::OneShot:
      return step == target_step;
    case ScheduleKind::Periodic:
    case ScheduleKind::Polynomial:
      return step % update_freq == 0 && step >= start_step && (end_step < 0 || step <= end_step);
  }
  return false;
}

double Schedule::sparsity_at(double target, int64_t step) const {
  if (kind != ScheduleKind::Polynomial) return target;
  double progress = 1.0;
  if (end_step > start_step) {
    const double length = static_cast<double>(end_step - start_step);
    progress = std::clamp(static_cast<double>(step + 1 - start_step), 0.0, length) / length;
  }
  return target * (1.0 - std::pow(1.0 - progress, power));
}

void Schedule::validate() const {
  const SourceLocation where{"<schedule>", 0, 0};
  if (target_step < 0) throw InputError(where, "the one-shot step must be >= 0");
  if (kind == ScheduleKind::Periodic || kind == ScheduleKind::Polynomial) {
    if (update_freq < 1) throw InputError(where, "the update frequency must be >= 1 step");
    if (start_step < 0) throw InputError(where, "the start step must be >= 0");
    if (kind == ScheduleKind::Polynomial && end_step < start_step)
      throw InputError(where, "a polynomial schedule needs end step >= start step, got start " +
                                  std::to_string(start_step) + ", end " + std::to_string(end_step));
    if (kind == ScheduleKind::Periodic && end_step >= 0 && end_step < start_step)
      throw InputError(where, "the end step must be >= the start step (or -1 for none)");
    if (power < 1 || power > 16) throw InputError(where, "the power must be in [1, 16]");
  }
}

std::string Schedule::str() const {
  switch (kind) {
    case ScheduleKind::NoUpdate:
      return "none";
    case ScheduleKind::OneShot:
      return "one-shot:" + std::to_string(target_step);
    case ScheduleKind::Periodic:
      return "periodic:" + std::to_string(update_freq) + ":" + std::to_string(start_step) + ":" +
             std::to_string(end_step);
    case ScheduleKind::Polynomial:
      return "poly:" + std::to_string(update_freq) + ":" + std::to_string(start_step) + ":" +
             std::to_string(end_step) + ":" + std::to_string(power);
  }
  return "none";
}

bool Schedule::operator==(const Schedule& o) const {
  return kind == o.kind && target_step == o.target_step && update_freq == o.update_freq &&
         start_step == o.start_step && end_step == o.end_step && power == o.power;
}

Schedule parse_schedule(const std::string& text) {
  const SourceLocation where{"<flag --schedule>", 0, 0};
  const std::string forms =
      "expected none, one-shot[:STEP], periodic:FREQ:START[:END] or poly:FREQ:START:END[:POWER]";
  const std::vector<std::string> f = split(text, ':');
  auto num = [&](size_t i) {
    int64_t v = 0;
    if (!parse_int(f[i], v)) throw InputError(where, "'" + text + "': " + forms);
    return v;
  };
  Schedule s;
  if (f[0] == "none" && f.size() == 1) {
    s = Schedule::no_update();
  } else if ((f[0] == "one-shot" || f[0] == "oneshot") && f.size() <= 2) {
    s = Schedule::one_shot(f.size() == 2 ? num(1) : 0);
  } else if (f[0] == "periodic" && (f.size() == 3 || f.size() == 4)) {
    s = Schedule::periodic(num(1), num(2), f.size() == 4 ? num(3) : -1);
  } else if ((f[0] == "poly" || f[0] == "polynomial") && (f.size() == 4 || f.size() == 5)) {
    s = Schedule::polynomial(num(1), num(2), num(3), f.size() == 5 ? static_cast<int>(num(4)) : 3);
  } else {
    throw InputError(where, "'" + text + "': " + forms);
  }
  try {
    s.validate();
  } catch (const InputError& e) {
    throw InputError(where, "'" + text + "': " + e.message());
  }
  return s;
}

}  // namespace sparsemap::ml::prune
