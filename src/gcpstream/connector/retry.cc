#include "gcpstream/connector/retry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::connector {

bool MayHaveBeenApplied(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kCancelled:
      return true;
    default:
      return false;
  }
}

absl::Status Reworded(const absl::Status& status, absl::string_view message) {
  absl::Status out(status.code(), message);
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

absl::StatusOr<Retry> Retry::Create(const RetryOptions& options,
                                    const Clock& clock, Idempotency idempotency,
                                    UniformRandom random) {
  absl::StatusOr<RetryState> state = RetryState::Create(
      options, clock,
      random != nullptr ? std::move(random) : DefaultUniformRandom());
  if (!state.ok()) return state.status();
  return Retry(*std::move(state), clock, idempotency);
}

RetryDecision Retry::OnFailure(const absl::Status& status,
                               StatusClass status_class) {
  if (status_class == StatusClass::kTransient &&
      idempotency_ == Idempotency::kNonIdempotent &&
      MayHaveBeenApplied(status)) {
    return {RetryDecision::Action::kFail, absl::ZeroDuration(),
            MarkRetryExhausted(absl::Status(
                status.code(),
                absl::StrCat("not resent: the request is not idempotent and "
                             "may have been applied (",
                             absl::StatusCodeToString(status.code()), ": ",
                             status.message(), ")")))};
  }
  return state_.OnFailure(status, status_class);
}

absl::Time Retry::AttemptDeadline(absl::Duration attempt_timeout) const {
  const absl::Duration budget = state_.deadline() - clock_->Now();
  return absl::Now() +
         std::clamp(budget, absl::Milliseconds(1), attempt_timeout);
}

}  // namespace gcpstream::connector
