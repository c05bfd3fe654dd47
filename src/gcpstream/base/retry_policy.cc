#include "gcpstream/base/retry_policy.h"

#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace gcpstream {
namespace {

// Marks a status as the end of a retry loop. Survives copies of the status,
// so the mark travels with it to wherever failures are routed.
constexpr absl::string_view kRetryExhaustedUrl =
    "type.gcpstream.dev/gcpstream.RetryExhausted";

}  // namespace

absl::Status ValidateRetryOptions(const RetryOptions& options) {
  if (options.max_attempts < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "retry max attempts must be at least 1, got ", options.max_attempts));
  }
  if (options.total_timeout <= absl::ZeroDuration() ||
      options.total_timeout == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("retry total timeout must be positive and finite, got ",
                     absl::FormatDuration(options.total_timeout)));
  }
  return ValidateBackoffOptions(options.backoff);
}

bool IsRetryExhausted(const absl::Status& status) {
  return status.GetPayload(kRetryExhaustedUrl).has_value();
}

absl::Status MarkRetryExhausted(absl::Status status) {
  status.SetPayload(kRetryExhaustedUrl, absl::Cord());
  return status;
}

absl::StatusOr<RetryState> RetryState::Create(const RetryOptions& options,
                                              const Clock& clock,
                                              UniformRandom random) {
  if (absl::Status status = ValidateRetryOptions(options); !status.ok()) {
    return status;
  }
  absl::StatusOr<ExponentialBackoff> backoff =
      ExponentialBackoff::Create(options.backoff, std::move(random));
  if (!backoff.ok()) return backoff.status();
  return RetryState(options, clock, *std::move(backoff));
}

RetryDecision RetryState::OnFailure(const absl::Status& status,
                                    StatusClass status_class) {
  if (status.ok()) {
    // A caller bug; failing is the one answer that cannot lose records.
    return {RetryDecision::Action::kFail, absl::ZeroDuration(),
            absl::InternalError("RetryState::OnFailure got an OK status")};
  }
  switch (status_class) {
    case StatusClass::kPerRecord:
      return {RetryDecision::Action::kRouteToHandler, absl::ZeroDuration(),
              status};
    case StatusClass::kFatal:
      return {RetryDecision::Action::kFail, absl::ZeroDuration(), status};
    case StatusClass::kTransient:
      break;
  }
  if (attempts_ >= options_.max_attempts) {
    return Exhausted(status, absl::StrCat("max attempts (",
                                          options_.max_attempts, ") reached"));
  }
  const absl::Duration delay = backoff_.NextDelay();
  if (clock_->Now() + delay >= deadline()) {
    return Exhausted(status,
                     absl::StrCat("total timeout (",
                                  absl::FormatDuration(options_.total_timeout),
                                  ") would pass before the next attempt"));
  }
  ++attempts_;
  return {RetryDecision::Action::kRetryAfter, delay, absl::OkStatus()};
}

RetryDecision RetryState::Exhausted(const absl::Status& last,
                                    absl::string_view why) {
  // The last error's code is kept because it says most about the outage;
  // the payload, not the code, is what stops it from being routed.
  absl::Status exhausted(
      last.code(),
      absl::StrCat("gave up after ", attempts_,
                   attempts_ == 1 ? " attempt" : " attempts", " in ",
                   absl::FormatDuration(clock_->Now() - start_), ", ", why,
                   "; last error: ", absl::StatusCodeToString(last.code()),
                   ": ", last.message()));
  return {RetryDecision::Action::kFail, absl::ZeroDuration(),
          MarkRetryExhausted(std::move(exhausted))};
}

}  // namespace gcpstream
