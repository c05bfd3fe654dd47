#include "gcpstream/runtime/restart_strategy.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace gcpstream::runtime {

absl::Status RestartStrategy::Validate() const {
  if (kind == Kind::kNone) return absl::OkStatus();
  if (max_attempts < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "restart-strategy.max-attempts: ", max_attempts, " must be >= 1"));
  }
  if (delay < absl::ZeroDuration() || delay == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        "restart-strategy.delay: must be finite and not negative");
  }
  if (kind == Kind::kExponentialBackoff) {
    if (max_delay < delay || max_delay == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(
          "restart-strategy.max-delay: must be finite and >= delay");
    }
    if (!(multiplier > 1.0) || !std::isfinite(multiplier)) {
      return absl::InvalidArgumentError(
          "restart-strategy.multiplier: must be a finite number > 1");
    }
  }
  return absl::OkStatus();
}

std::optional<absl::Duration> RestartStrategy::DelayBeforeRestart(
    int restart) const {
  if (kind == Kind::kNone || restart > max_attempts) return std::nullopt;
  if (kind == Kind::kFixedDelay) return delay;
  absl::Duration next = delay;
  for (int i = 1; i < restart && next < max_delay; ++i) next *= multiplier;
  return std::min(next, max_delay);
}

}  // namespace gcpstream::runtime
