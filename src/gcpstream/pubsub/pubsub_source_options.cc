#include "gcpstream/pubsub/pubsub_source_options.h"

#include "absl/strings/ascii.h"

namespace gcpstream::pubsub {

absl::StatusOr<StartPosition> StartPosition::Parse(absl::string_view text) {
  StartPosition position;
  if (absl::EqualsIgnoreCase(text, "continue")) return position;
  if (absl::EqualsIgnoreCase(text, "earliest-retained")) {
    position.kind = Kind::kEarliestRetained;
    return position;
  }
  if (absl::EqualsIgnoreCase(text, "latest")) {
    position.kind = Kind::kLatest;
    return position;
  }
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &position.time, &error)) {
    position.kind = Kind::kTimestamp;
    return position;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "option '", kStartPositionKey, "': '", text,
      "' is not one of continue, earliest-retained, latest, or an RFC 3339 "
      "timestamp such as 2026-12-01T00:00:00Z"));
}

std::string StartPosition::ToString() const {
  switch (kind) {
    case Kind::kContinue:
      return "continue";
    case Kind::kEarliestRetained:
      return "earliest-retained";
    case Kind::kLatest:
      return "latest";
    case Kind::kTimestamp:
      return absl::FormatTime(absl::RFC3339_full, time, absl::UTCTimeZone());
  }
  return "continue";
}

absl::Status CheckPubSubSourceOptions(const PubSubSourceOptions& options) {
  absl::Status status;
  if (options.subscriptions.empty()) {
    status.Update(absl::InvalidArgumentError(
        "option 'subscriptions' must name at least one subscription"));
  }
  for (const SubscriptionSpec& spec : options.subscriptions) {
    status.Update(CheckResourceNameComponent(spec.project, "project"));
    status.Update(
        CheckResourceNameComponent(spec.subscription, "subscription"));
    if (spec.create.has_value() && spec.create->topic.empty()) {
      status.Update(absl::InvalidArgumentError(
          absl::StrCat("subscription ", spec.subscription,
                       ": creating it needs a 'topic'")));
    }
  }
  if (options.max_outstanding_messages < 1) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kMaxOutstandingMessagesKey, "' must be at least 1")));
  }
  if (options.max_outstanding_bytes < 1) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kMaxOutstandingBytesKey, "' must be at least 1")));
  }
  if (options.stream_ack_deadline < absl::Seconds(10) ||
      options.stream_ack_deadline > absl::Seconds(600)) {
    status.Update(absl::InvalidArgumentError(
        absl::StrCat("option '", kStreamAckDeadlineKey,
                     "' must be between 10s and 600s (the service's range)")));
  }
  status.Update(
      CheckDurationOption(options.max_lease_extension, kMaxLeaseExtensionKey));
  status.Update(CheckDurationOption(options.first_checkpoint_timeout,
                                    kFirstCheckpointTimeoutKey));
  if (options.max_records_per_poll < 1) {
    status.Update(absl::InvalidArgumentError(
        "option 'max-records-per-poll' must be at least 1"));
  }
  if (absl::Status retry = ValidateRetryOptions(options.reconnect);
      !retry.ok()) {
    status.Update(absl::InvalidArgumentError(
        absl::StrCat("pubsub source reconnect options: ", retry.message())));
  }
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::pubsub
