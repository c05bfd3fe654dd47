#include "gcpstream/spanner/spanner_sink_options.h"

namespace gcpstream::spanner {
namespace {

absl::Status InRange(absl::string_view key, int64_t value, int64_t ceiling) {
  if (value >= 1 && value <= ceiling) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("option '", key, "' must be between 1 and ", ceiling,
                   " (the service's limit), got ", value));
}

}  // namespace

absl::Status CheckSpannerSinkOptions(const SpannerSinkOptions& options) {
  absl::Status status =
      CheckResourceNameComponent(options.database.project, "project");
  status.Update(
      CheckResourceNameComponent(options.database.instance, "instance"));
  status.Update(
      CheckResourceNameComponent(options.database.database, "database"));
  status.Update(InRange(kMaxBatchCellsKey, options.max_batch_cells,
                        kMaxBatchCellsCeiling));
  status.Update(InRange(kMaxBatchMutationsKey, options.max_batch_mutations,
                        kMaxBatchMutationsCeiling));
  status.Update(InRange(kMaxBatchBytesKey, options.max_batch_bytes,
                        kMaxBatchBytesCeiling));
  if (options.max_commit_delay.has_value() &&
      (*options.max_commit_delay < absl::ZeroDuration() ||
       *options.max_commit_delay > absl::Milliseconds(500))) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kMaxCommitDelayKey, "' must be between 0 and 500ms, got ",
        absl::FormatDuration(*options.max_commit_delay))));
  }
  if (options.max_consecutive_rejections != RejectionConfirmation::kUnbounded &&
      options.max_consecutive_rejections < 1) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option 'max-consecutive-rejections' must be >= 1, or -1 for no "
        "bound, got ",
        options.max_consecutive_rejections)));
  }
  status.Update(CheckDurationOption(options.rpc_timeout, "rpc-timeout"));
  if (absl::Status retry = ValidateRetryOptions(options.retry); !retry.ok()) {
    status.Update(absl::InvalidArgumentError(
        absl::StrCat("spanner sink retry options: ", retry.message())));
  }
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::spanner
