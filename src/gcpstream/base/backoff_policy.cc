#include "gcpstream/base/backoff_policy.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"

namespace gcpstream {

UniformRandom DefaultUniformRandom() {
  // std::function needs a copyable callable; BitGen is move-only.
  auto gen = std::make_shared<absl::BitGen>();
  return [gen] { return absl::Uniform<double>(*gen, 0.0, 1.0); };
}

absl::Status ValidateBackoffOptions(const BackoffOptions& options) {
  if (options.initial_delay <= absl::ZeroDuration() ||
      options.initial_delay == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("backoff initial delay must be positive and finite, got ",
                     absl::FormatDuration(options.initial_delay)));
  }
  if (options.max_delay < options.initial_delay ||
      options.max_delay == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "backoff max delay must be finite and at least the initial delay (",
        absl::FormatDuration(options.initial_delay), "), got ",
        absl::FormatDuration(options.max_delay)));
  }
  if (!std::isfinite(options.multiplier) || options.multiplier <= 1.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("backoff multiplier must be a finite number > 1, got ",
                     options.multiplier));
  }
  return absl::OkStatus();
}

absl::StatusOr<ExponentialBackoff> ExponentialBackoff::Create(
    const BackoffOptions& options, UniformRandom random) {
  if (absl::Status status = ValidateBackoffOptions(options); !status.ok()) {
    return status;
  }
  if (!random) {
    return absl::InvalidArgumentError("backoff needs a random source");
  }
  return ExponentialBackoff(options, std::move(random));
}

namespace {

// Equal jitter: uniform in [ceiling/2, ceiling].
absl::Duration Jittered(absl::Duration ceiling, const UniformRandom& random) {
  double r = random();
  // NaN fails both comparisons and would poison the delay.
  if (!(r >= 0.0)) r = 0.0;
  if (!(r < 1.0)) r = 1.0;
  const absl::Duration half = ceiling / 2;
  return half + (ceiling - half) * r;
}

}  // namespace

absl::Duration ExponentialBackoff::DelayForAttempt(int attempts) {
  absl::Duration ceiling = options_.initial_delay;
  for (int i = 1; i < attempts && ceiling < options_.max_delay; ++i) {
    ceiling = std::min(ceiling * options_.multiplier, options_.max_delay);
  }
  return Jittered(ceiling, random_);
}

absl::Duration ExponentialBackoff::NextDelay() {
  const absl::Duration delay = Jittered(ceiling_, random_);
  // Duration * double saturates to infinity rather than overflowing, and the
  // min brings it back to max_delay.
  ceiling_ = std::min(ceiling_ * options_.multiplier, options_.max_delay);
  return delay;
}

}  // namespace gcpstream
