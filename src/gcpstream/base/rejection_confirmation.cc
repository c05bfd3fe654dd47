#include "gcpstream/base/rejection_confirmation.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace gcpstream {

absl::Status RejectionConfirmation::CheckMaxConsecutiveRejections(int64_t max) {
  if (max == kUnbounded || max >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "option '", kMaxConsecutiveRejectionsKey, "': ", max,
      " is out of range; use a count >= 1, or -1 for unbounded (default ",
      kDefaultMaxConsecutiveRejections, ")"));
}

absl::StatusOr<RejectionConfirmation> RejectionConfirmation::Create(
    const ClassificationTable& table, int64_t max_consecutive_rejections,
    std::string sink_name) {
  if (absl::Status status =
          CheckMaxConsecutiveRejections(max_consecutive_rejections);
      !status.ok()) {
    return status;
  }
  return RejectionConfirmation(table, max_consecutive_rejections,
                               std::move(sink_name));
}

RejectionConfirmation::Verdict RejectionConfirmation::OnSingleResult(
    const absl::Status& result) {
  if (result.ok()) {
    consecutive_ = 0;
    return {ConfirmationVerdict::kWritten, result};
  }
  switch (table_->ClassifyRequest(result)) {
    case StatusClass::kTransient:
      return {ConfirmationVerdict::kRetry, result};
    case StatusClass::kFatal:
      return {ConfirmationVerdict::kFatal, result};
    case StatusClass::kPerRecord:
      break;
  }
  ++consecutive_;
  if (max_ != kUnbounded && consecutive_ >= max_) {
    return {ConfirmationVerdict::kFatal,
            absl::FailedPreconditionError(absl::StrCat(
                sink_name_, ": ", consecutive_,
                " records in a row were refused on their own with no success "
                "in between (max-consecutive-rejections=",
                max_,
                "); this looks systematic (a mapping or schema error), so "
                "the job fails instead of routing every record. Last "
                "refusal: ",
                result.ToString()))};
  }
  return {ConfirmationVerdict::kRouted, result};
}

}  // namespace gcpstream
