#include "gcpstream/pubsub/pubsub_sink_options.h"

#include <utility>

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
  return connector::CheckSinkWriterOptions(options, std::move(status));
}

connector::OptionTable<PubSubSinkOptions> PubSubSinkOptionTable() {
  using O = PubSubSinkOptions;
  using connector::DurationOption;
  using connector::IntOption;
  const O defaults;
  connector::OptionTable<O> table({
      IntOption<O>(kMaxBatchMessagesKey,
                   [](O& o) -> int64_t& { return o.batching.max_messages; },
                   "100", "500", 1, kMaxMessagesPerPublish,
                   {"batch-max-messages"}),
      IntOption<O>(kMaxBatchBytesKey,
                   [](O& o) -> int64_t& { return o.batching.max_bytes; },
                   "1,000,000", "2000000", 1, kMaxPublishRequestBytes,
                   {"batch-max-bytes"}),
      DurationOption<O>(
          kMaxBatchDelayKey,
          [](O& o) -> absl::Duration& { return o.batching.max_delay; }, "10 ms",
          "50ms", {"batch-max-delay"}),
      IntOption<O>(
          kMaxInFlightMessagesKey,
          [](O& o) -> int64_t& { return o.max_in_flight_messages; }, "1000",
          "2000", 1),
      IntOption<O>(
          kMaxInFlightBytesKey,
          [](O& o) -> int64_t& { return o.max_in_flight_bytes; }, "64 MiB",
          "1048576", 1),
      DurationOption<O>(
          kPublishProgressTimeoutKey,
          [](O& o) -> absl::Duration& { return o.publish_progress_timeout; },
          "600 s", "5m"),
      connector::BoolOption<O>(
          kEnableMessageOrderingKey,
          [](O& o) -> bool& { return o.enable_message_ordering; }, "false",
          "true"),
      DurationOption<O>(
          kDestinationIdleTimeoutKey,
          [](O& o) -> absl::Duration& { return o.destination_idle_timeout; },
          "10 min", "30m"),
      IntOption<O>(
          kMaxActivePublishersKey,
          [](O& o) -> int64_t& { return o.max_active_publishers; },
          "0 (no bound)", "50", 0),
      DurationOption<O>(
          kShutdownTimeoutKey,
          [](O& o) -> absl::Duration& { return o.shutdown_timeout; }, "30 s",
          "10s"),
      connector::EnumField<O>(
          kCreateDispositionOption,
          [](O& o) -> CreateDisposition& { return o.create_disposition; },
          "`create-never`", "create-if-needed"),
      DurationOption<O, std::optional<absl::Duration>>(
          kMessageRetentionDurationKey,
          [](O& o) -> std::optional<absl::Duration>& {
            return o.topic_create_options.message_retention;
          },
          "unset", "24h"),
      connector::StringOption<O>(
          kKmsKeyNameKey,
          [](O& o) -> std::string& {
            return o.topic_create_options.kms_key_name;
          },
          "unset", "projects/p/locations/l/keyRings/r/cryptoKeys/k"),
      connector::StringListOption<O>(
          kAllowedPersistenceRegionsKey,
          [](O& o) -> std::vector<std::string>& {
            return o.topic_create_options.allowed_persistence_regions;
          },
          "unset", "[europe-west1]"),
      connector::BoolOption<O>(
          kEnforceInTransitKey,
          [](O& o) -> bool& {
            return o.topic_create_options.enforce_in_transit;
          },
          "false", "true"),
  });
  connector::AddSinkWriterOptions(table, defaults);
  return table;
}

}  // namespace gcpstream::pubsub
