#include "gcpstream/pubsub/pubsub_sink_options.h"

#include "absl/strings/str_cat.h"

namespace gcpstream::pubsub {
namespace {

absl::Status AtLeastOne(absl::string_view key, int64_t value) {
  if (value >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("option '", key, "' must be at least 1, got ", value));
}

absl::Status CheckTopicCreateOptions(const TopicCreateOptions& options) {
  if (options.message_retention.has_value() &&
      (*options.message_retention < absl::Minutes(10) ||
       *options.message_retention > absl::Hours(24 * 31))) {
    return absl::InvalidArgumentError(
        absl::StrCat("option '", kMessageRetentionDurationKey,
                     "' must be between 10m and 31 days (744h), got ",
                     absl::FormatDuration(*options.message_retention)));
  }
  if (!options.kms_key_name.empty() &&
      !absl::StartsWith(options.kms_key_name, "projects/")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option '", kKmsKeyNameKey,
        "' must be a full key name, projects/<p>/locations/<l>/keyRings/<r>/"
        "cryptoKeys/<k>, got '",
        options.kms_key_name, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPubSubSinkOptions(const PubSubSinkOptions& options) {
  absl::Status status = CheckPublishBatcherOptions(options.batching);
  status.Update(
      AtLeastOne(kMaxInFlightMessagesKey, options.max_in_flight_messages));
  status.Update(AtLeastOne(kMaxInFlightBytesKey, options.max_in_flight_bytes));
  status.Update(CheckDurationOption(options.publish_progress_timeout,
                                    kPublishProgressTimeoutKey));
  if (options.destination_idle_timeout != absl::InfiniteDuration()) {
    status.Update(CheckDurationOption(options.destination_idle_timeout,
                                      kDestinationIdleTimeoutKey));
  }
  if (options.max_active_publishers < 0) {
    status.Update(absl::InvalidArgumentError(
        absl::StrCat("option '", kMaxActivePublishersKey,
                     "' must be 0 (no bound) or a positive count, got ",
                     options.max_active_publishers)));
  }
  status.Update(
      CheckDurationOption(options.shutdown_timeout, kShutdownTimeoutKey));
  status.Update(CheckTopicCreateOptions(options.topic_create_options));
  if (options.max_consecutive_rejections != RejectionConfirmation::kUnbounded &&
      options.max_consecutive_rejections < 1) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option 'max-consecutive-rejections' must be >= 1, or -1 for no "
        "bound, got ",
        options.max_consecutive_rejections)));
  }
  if (absl::Status retry = ValidateRetryOptions(options.retry); !retry.ok()) {
    status.Update(absl::InvalidArgumentError(
        absl::StrCat("pubsub sink retry options: ", retry.message())));
  }
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::pubsub
