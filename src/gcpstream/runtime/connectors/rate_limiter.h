#ifndef GCPSTREAM_RUNTIME_CONNECTORS_RATE_LIMITER_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_RATE_LIMITER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/base/clock.h"

namespace gcpstream::runtime {

// Paces one reader at a fixed number of records per second without sleeping:
// the reader asks how many records it may emit now and, when the answer is
// zero, how long until the next one, which it returns as PollNext's
// `retry_after` so that the task thread serves its mailbox meanwhile.
//
// Schedule: record n (0-based) is due at start + n * interval, with start the
// first call. A reader held back longer (backpressure, a slow checkpoint)
// catches up by at most one second of records, so it never floods its
// downstream after a pause. Integer duration arithmetic keeps "due" and
// "retry after" consistent: after waiting `NextDueIn()` a record is allowed.
class RateLimiter {
 public:
  // `records_per_second` must be finite and > 0.
  static absl::StatusOr<RateLimiter> Create(double records_per_second,
                                            const Clock& clock);

  // How many records may be emitted now, at most `wanted`.
  int64_t Allowed(int64_t wanted);

  // Records `n` of those allowed were emitted.
  void Consumed(int64_t n) { emitted_ += n; }

  // Time until the next record is due; zero if one is due now.
  absl::Duration NextDueIn();

  absl::Duration interval() const { return interval_; }

 private:
  RateLimiter(absl::Duration interval, const Clock& clock)
      : interval_(interval), clock_(&clock) {}

  // Starts the schedule on first use and drops credit beyond one second.
  absl::Duration Elapsed();

  absl::Duration interval_;
  const Clock* clock_;
  bool started_ = false;
  absl::Time start_;
  int64_t emitted_ = 0;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_RATE_LIMITER_H_
