#include "gcpstream/base/failure_handler.h"

#include "absl/strings/str_cat.h"
#include "gcpstream/base/dead_letter.h"
#include "spdlog/spdlog.h"

namespace gcpstream::failure_handler_internal {

absl::Status FailJobStatus(const FailedElement& failure) {
  // Keep the refusal's code so callers can still tell what happened.
  return {failure.status.code(),
          absl::StrCat(failure.connector, " record refused by ",
                       failure.destination, " after ", failure.attempts,
                       failure.attempts == 1 ? " attempt: " : " attempts: ",
                       TruncateDlqError(failure.status.ToString()),
                       ". The failure handler is fail-job (the default); use "
                       "log-and-drop or dead-letter-queue to route refused "
                       "records instead")};
}

void LogDropped(const FailedElement& failure) {
  // Never the payload: it may hold personal data or secrets.
  spdlog::warn(
      "{} record dropped (log-and-drop): destination={} status={} "
      "attempts={} subtask={}",
      failure.connector, failure.destination,
      TruncateDlqError(failure.status.ToString()), failure.attempts,
      failure.subtask_index);
}

std::shared_ptr<Counter> DroppedCounter(const FailureHandlerContext& context) {
  if (context.metrics != nullptr) {
    auto metrics = SinkMetrics::Create(*context.metrics, context.labels);
    if (metrics.ok()) return metrics->records_dropped;
    spdlog::warn("log-and-drop: cannot register records_dropped: {}",
                 metrics.status().ToString());
  }
  return std::make_shared<Counter>();
}

absl::Status NotOpen(const char* handler) {
  return absl::FailedPreconditionError(
      absl::StrCat("failure handler ", handler,
                   " used before Open() (a connector bug: Open() must run "
                   "when the writer is created and after every restore)"));
}

}  // namespace gcpstream::failure_handler_internal
