#include "gcpstream/connector/in_flight.h"

namespace gcpstream::connector {

void InFlight::Add(int64_t records, int64_t bytes) {
  records_ += records;
  bytes_ += bytes;
  Publish();
}

void InFlight::Release(int64_t records, int64_t bytes) {
  records_ -= records;
  bytes_ -= bytes;
  OnProgress();
  Publish();
}

void InFlight::Publish() {
  SinkMetrics& metrics = core_.metrics();
  metrics.in_flight_records->Set(records_);
  metrics.in_flight_bytes->Set(bytes_);
  for (const auto& mirror : mirrors_) mirror->Set(records_);
}

absl::Status InFlight::TimedOut(const std::string& what) const {
  return absl::DeadlineExceededError(absl::StrCat(
      core_.sink_name(), ": no ", options_.completion, " completed for ",
      absl::FormatDuration(options_.progress_timeout), " while waiting for ",
      what, " (option '", options_.progress_timeout_key, "'); ", records_, " ",
      options_.records, " are still in flight"));
}

}  // namespace gcpstream::connector
