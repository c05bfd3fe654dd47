#include "gcpstream/runtime/connectors/rate_limiter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace gcpstream::runtime {

absl::StatusOr<RateLimiter> RateLimiter::Create(double records_per_second,
                                                const Clock& clock) {
  if (!std::isfinite(records_per_second) || records_per_second <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rate limit must be a finite number of records per second > 0, got ",
        records_per_second));
  }
  const absl::Duration interval = absl::Seconds(1.0 / records_per_second);
  // Above ~4e9 records/s the interval rounds to zero: no pacing is possible
  // (nor needed) at that rate.
  if (interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rate limit of ", records_per_second,
                     " records per second is too high"));
  }
  return RateLimiter(interval, clock);
}

absl::Duration RateLimiter::Elapsed() {
  const absl::Time now = clock_->Now();
  if (!started_) {
    started_ = true;
    start_ = now;
  }
  const absl::Duration max_credit = std::max(absl::Seconds(1), interval_);
  const absl::Duration credit = (now - start_) - emitted_ * interval_;
  if (credit > max_credit) start_ += credit - max_credit;
  return now - start_;
}

int64_t RateLimiter::Allowed(int64_t wanted) {
  // Record n is due when elapsed >= n * interval, so records
  // [0, elapsed / interval] are due.
  absl::Duration remainder;  // IDivDuration requires somewhere to put it.
  const int64_t due = absl::IDivDuration(Elapsed(), interval_, &remainder) + 1;
  return std::clamp<int64_t>(due - emitted_, 0, wanted);
}

absl::Duration RateLimiter::NextDueIn() {
  const absl::Duration wait = emitted_ * interval_ - Elapsed();
  return std::max(wait, absl::ZeroDuration());
}

}  // namespace gcpstream::runtime
