#ifndef GCPSTREAM_BASE_RETRY_POLICY_H_
#define GCPSTREAM_BASE_RETRY_POLICY_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/base/backoff_policy.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/status_class.h"

namespace gcpstream {

struct RetryOptions {
  // Attempts in total, the first one included; 1 means no retries.
  int max_attempts = 10;
  // Measured from the start of the first attempt: no attempt starts later.
  absl::Duration total_timeout = absl::Minutes(10);
  BackoffOptions backoff;
};

// InvalidArgument unless max_attempts >= 1, total_timeout is positive and
// finite, and the backoff options are valid.
absl::Status ValidateRetryOptions(const RetryOptions& options);

// What to do with a failed attempt.
struct RetryDecision {
  enum class Action {
    // Wait `delay`, then make the next attempt.
    kRetryAfter,
    // Hand the record(s) to the failure handler with `status`.
    kRouteToHandler,
    // Fail the job with `status`.
    kFail,
  };

  Action action = Action::kFail;
  absl::Duration delay = absl::ZeroDuration();
  absl::Status status;
};

// True for the status RetryState returns when retries run out. Failure
// routing must refuse such a status: an outage must not let a dropping
// failure handler discard a backlog.
bool IsRetryExhausted(const absl::Status& status);
// `status` with that mark: for a loop that ends without a verdict on its
// records for another reason than its policy (a request that may not be
// resent, say).
absl::Status MarkRetryExhausted(absl::Status status);

// The retry loop of one request (or one entry re-sent on its own), kept as
// state so that asynchronous writers can drive it from completions: after
// each failed attempt, call OnFailure with the attempt's classified status.
// Not thread-safe; one RetryState per in-flight request.
class RetryState {
 public:
  // The first attempt is taken to start now, on `clock`, which must outlive
  // this object.
  static absl::StatusOr<RetryState> Create(const RetryOptions& options,
                                           const Clock& clock,
                                           UniformRandom random);

  // Decides on the attempt that just failed with `status` (not OK):
  // - kTransient: retry after a backoff delay, unless that was the last
  //   allowed attempt or the next one would start at or after the deadline,
  //   in which case kFail with a status that IsRetryExhausted, carries the
  //   last error's code and names the attempts, elapsed time and last error;
  // - kPerRecord: route `status` to the failure handler;
  // - kFatal: fail with `status` unchanged.
  RetryDecision OnFailure(const absl::Status& status, StatusClass status_class);

  // Attempts made so far (failures reported plus the one in progress), as
  // recorded in a failed element's attempt count.
  int attempts() const { return attempts_; }
  // No attempt may start at or after this time; also a bound for the
  // attempt's own RPC deadline.
  absl::Time deadline() const { return start_ + options_.total_timeout; }

 private:
  RetryState(const RetryOptions& options, const Clock& clock,
             ExponentialBackoff backoff)
      : options_(options),
        clock_(&clock),
        backoff_(std::move(backoff)),
        start_(clock.Now()) {}

  RetryDecision Exhausted(const absl::Status& last, absl::string_view why);

  RetryOptions options_;
  const Clock* clock_;
  ExponentialBackoff backoff_;
  absl::Time start_;
  int attempts_ = 1;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_RETRY_POLICY_H_
