#include "gcpstream/cloudtasks/cloudtasks_sink_options.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace gcpstream::cloudtasks {
namespace {

absl::Status InRange(absl::string_view key, int64_t value, int64_t ceiling) {
  if (value >= 1 && value <= ceiling) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "option '", key, "' must be between 1 and ", ceiling, ", got ", value));
}

}  // namespace

absl::Status CheckCloudTasksSinkOptions(const CloudTasksSinkOptions& options) {
  absl::Status status =
      InRange(kChannelPoolSizeKey, options.channel_pool_size, 64);
  status.Update(InRange(kMaxInFlightTasksKey, options.max_in_flight_tasks,
                        int64_t{1} << 20));
  status.Update(CheckDurationOption(options.write_progress_timeout,
                                    kWriteProgressTimeoutKey));
  if (absl::Status missing = ValidateRetryOptions(options.missing_queue);
      !missing.ok()) {
    status.Update(absl::InvalidArgumentError(
        absl::StrCat("options '", kMissingQueueInitialBackoffKey, "', '",
                     kMissingQueueMaxBackoffKey, "', '",
                     kMissingQueueMaxAttemptsKey, "': ", missing.message())));
  }
  return connector::CheckSinkWriterOptions(options, std::move(status));
}

connector::OptionTable<CloudTasksSinkOptions> CloudTasksSinkOptionTable() {
  using O = CloudTasksSinkOptions;
  using connector::DurationOption;
  using connector::IntOption;
  const O defaults;
  connector::OptionTable<O> table({
      IntOption<O>(
          kChannelPoolSizeKey,
          [](O& o) -> int64_t& { return o.channel_pool_size; }, "1", "4", 1,
          64),
      IntOption<O>(
          kMaxInFlightTasksKey,
          [](O& o) -> int64_t& { return o.max_in_flight_tasks; }, "1000", "128",
          1, int64_t{1} << 20),
      DurationOption<O>(
          kWriteProgressTimeoutKey,
          [](O& o) -> absl::Duration& { return o.write_progress_timeout; },
          "10 min", "5m"),
      DurationOption<O>(
          kMissingQueueInitialBackoffKey,
          [](O& o) -> absl::Duration& {
            return o.missing_queue.backoff.initial_delay;
          },
          "500 ms", "1s"),
      DurationOption<O>(
          kMissingQueueMaxBackoffKey,
          [](O& o) -> absl::Duration& {
            return o.missing_queue.backoff.max_delay;
          },
          "2 s", "5s"),
      IntOption<O, int>(
          kMissingQueueMaxAttemptsKey,
          [](O& o) -> int& { return o.missing_queue.max_attempts; }, "3", "5",
          1),
  });
  connector::AddSinkWriterOptions(table, defaults);
  return table;
}

}  // namespace gcpstream::cloudtasks
