#ifndef GCPSTREAM_CONNECTOR_RETRY_H_
#define GCPSTREAM_CONNECTOR_RETRY_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/base/backoff_policy.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/base/status_class.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/connector/task_wait.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::connector {

// Whether sending a request twice has the effect of sending it once. A
// Pub/Sub publish, a Spanner insert-or-update, a Bigtable SetCell with an
// explicit timestamp or a named Cloud Task are; a SetCell with the
// server's timestamp or an unnamed Cloud Task are not.
enum class Idempotency { kIdempotent, kNonIdempotent };

// Whether a failed call may still have been applied by the service: the
// client cannot tell whether the request arrived (DEADLINE_EXCEEDED,
// UNAVAILABLE, UNKNOWN, INTERNAL, CANCELLED). Other codes are refusals
// before any effect (RESOURCE_EXHAUSTED, ABORTED, INVALID_ARGUMENT, ...).
bool MayHaveBeenApplied(const absl::Status& status);

// `status`'s code and payloads (the retries-exhausted mark among them)
// with `message` instead of its own.
absl::Status Reworded(const absl::Status& status, absl::string_view message);

// The retry state of one request through its attempts: the policy of
// RetryState (attempts, total timeout, backoff) plus idempotency. A
// transient failure of a non-idempotent request that may have been applied
// is not retried: the decision is kFail with a status marked
// IsRetryExhausted (never routed), whose message says why.
class Retry {
 public:
  // Starts now on `clock`, which must outlive the Retry. `random` pins
  // the backoff's jitter (tests); null draws it.
  static absl::StatusOr<Retry> Create(const RetryOptions& options,
                                      const Clock& clock,
                                      Idempotency idempotency,
                                      UniformRandom random = nullptr);

  RetryDecision OnFailure(const absl::Status& status, StatusClass status_class);

  int attempts() const { return state_.attempts(); }
  // The wall-clock deadline for the next attempt's RPC: what is left of the
  // total timeout, at most `attempt_timeout`, at least a millisecond. gRPC
  // deadlines are wall time; the budget is measured on the clock.
  absl::Time AttemptDeadline(absl::Duration attempt_timeout) const;

 private:
  Retry(RetryState state, const Clock& clock, Idempotency idempotency)
      : state_(std::move(state)), clock_(&clock), idempotency_(idempotency) {}

  RetryState state_;
  const Clock* clock_;
  Idempotency idempotency_;
};

// What one attempt of RunWithRetries tells the loop.
struct AttemptResult {
  // The attempt finished the work (it may have routed some records).
  static AttemptResult Done() {
    return {absl::OkStatus(), StatusClass::kFatal};
  }
  // Try again after a backoff, if the policy allows.
  static AttemptResult RetryAfter(absl::Status transient) {
    return {std::move(transient), StatusClass::kTransient};
  }
  // Give up with `status`.
  static AttemptResult Stop(absl::Status status) {
    return {std::move(status), StatusClass::kFatal};
  }

  absl::Status status;
  StatusClass status_class;
};

// Where a synchronous retry loop waits out its backoff.
struct RetryContext {
  const RetryOptions* options = nullptr;
  TaskTimer* timer = nullptr;
  runtime::MailboxExecutor executor{nullptr};
  // The sink's name, for the error of a cancelled wait.
  absl::string_view who;
  // Pins the backoff's jitter (tests); null draws it.
  UniformRandom random{};
};

// The synchronous retry loop: runs `attempt(retry)` until it is Done or
// Stops, waiting out each backoff on the context's timer while serving the
// task's mailbox. Calls `on_retry(status)` before each new attempt (for
// retry metrics). Returns OK, the Stop status unchanged, Cancelled when the
// job is cancelled during a backoff, or, when the policy gives up,
// `on_exhausted(status)` of the marked status (to say what is left
// undecided; Reworded keeps the mark). Task thread only.
template <typename Attempt, typename OnRetry, typename OnExhausted>
absl::Status RunWithRetries(const RetryContext& context,
                            Idempotency idempotency, Attempt attempt,
                            OnRetry on_retry, OnExhausted on_exhausted) {
  absl::StatusOr<Retry> retry = Retry::Create(
      *context.options, context.timer->clock(), idempotency, context.random);
  if (!retry.ok()) return retry.status();
  while (true) {
    AttemptResult result = attempt(static_cast<const Retry&>(*retry));
    if (result.status.ok()) return absl::OkStatus();
    if (result.status_class != StatusClass::kTransient) return result.status;
    RetryDecision decision =
        retry->OnFailure(result.status, result.status_class);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return on_exhausted(decision.status);
    }
    on_retry(result.status);
    if (absl::Status slept = SleepOnTask(*context.timer, context.executor,
                                         decision.delay, context.who);
        !slept.ok()) {
      return slept;
    }
  }
}

template <typename Attempt, typename OnRetry>
absl::Status RunWithRetries(const RetryContext& context,
                            Idempotency idempotency, Attempt attempt,
                            OnRetry on_retry) {
  return RunWithRetries(context, idempotency, std::move(attempt),
                        std::move(on_retry),
                        [](absl::Status exhausted) { return exhausted; });
}

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_RETRY_H_
