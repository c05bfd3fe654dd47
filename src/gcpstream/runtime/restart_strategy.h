#ifndef GCPSTREAM_RUNTIME_RESTART_STRATEGY_H_
#define GCPSTREAM_RUNTIME_RESTART_STRATEGY_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace gcpstream::runtime {

// What the job does when a task fails: restore every task from the latest
// complete checkpoint, in-process, after a delay; or give up.
struct RestartStrategy {
  enum class Kind { kNone, kFixedDelay, kExponentialBackoff };

  static RestartStrategy None() { return {}; }
  static RestartStrategy FixedDelay(int max_attempts, absl::Duration delay) {
    return {Kind::kFixedDelay, max_attempts, delay, delay, 1.0};
  }
  static RestartStrategy ExponentialBackoff(int max_attempts,
                                            absl::Duration initial,
                                            absl::Duration max,
                                            double multiplier = 2.0) {
    return {Kind::kExponentialBackoff, max_attempts, initial, max, multiplier};
  }

  // InvalidArgument naming the option when a value is out of range.
  absl::Status Validate() const;

  // The delay before restart number `restart` (1-based), or nullopt when the
  // strategy gives up.
  std::optional<absl::Duration> DelayBeforeRestart(int restart) const;

  Kind kind = Kind::kNone;
  int max_attempts = 0;  // Restarts allowed.
  absl::Duration delay = absl::ZeroDuration();
  absl::Duration max_delay = absl::ZeroDuration();
  double multiplier = 2.0;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_RESTART_STRATEGY_H_
