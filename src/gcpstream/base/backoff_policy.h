#ifndef GCPSTREAM_BASE_BACKOFF_POLICY_H_
#define GCPSTREAM_BASE_BACKOFF_POLICY_H_

#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gcpstream {

// Returns a number uniformly distributed in [0, 1). Injected so tests can pin
// the jitter; values outside [0, 1) are clamped.
using UniformRandom = std::function<double()>;

// A UniformRandom backed by its own absl::BitGen. Not thread-safe: give each
// backoff its own.
UniformRandom DefaultUniformRandom();

struct BackoffOptions {
  absl::Duration initial_delay = absl::Milliseconds(100);
  absl::Duration max_delay = absl::Seconds(60);
  double multiplier = 2.0;
};

// InvalidArgument unless 0 < initial_delay <= max_delay < infinity and
// multiplier is a finite number > 1.
absl::Status ValidateBackoffOptions(const BackoffOptions& options);

// Exponential backoff with "equal jitter": the n-th delay is drawn uniformly
// from [c/2, c], where c = min(initial * multiplier^(n-1), max). Jitter
// spreads out writers that failed together (all subtasks of a job see the
// same outage); the floor of c/2 keeps a retry storm from hitting a
// recovering service with near-zero delays.
class ExponentialBackoff {
 public:
  static absl::StatusOr<ExponentialBackoff> Create(
      const BackoffOptions& options, UniformRandom random);

  // The delay before the next attempt; each call grows the ceiling.
  absl::Duration NextDelay();

  // The delay before retrying something that failed `attempts` times,
  // whatever this backoff's own progress (for callers that track attempts
  // per item, such as Bigtable's per-entry resends): drawn like the
  // `attempts`-th NextDelay().
  absl::Duration DelayForAttempt(int attempts);

  // Starts over from the initial delay, e.g. after a success.
  void Reset() { ceiling_ = options_.initial_delay; }

  const BackoffOptions& options() const { return options_; }

 private:
  ExponentialBackoff(const BackoffOptions& options, UniformRandom random)
      : options_(options),
        random_(std::move(random)),
        ceiling_(options.initial_delay) {}

  BackoffOptions options_;
  UniformRandom random_;
  absl::Duration ceiling_;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_BACKOFF_POLICY_H_
