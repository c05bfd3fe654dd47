#ifndef GCPSTREAM_CLOUDTASKS_CLOUDTASKS_SINK_OPTIONS_H_
#define GCPSTREAM_CLOUDTASKS_CLOUDTASKS_SINK_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/cloudtasks/cloudtasks_stub.h"
#include "gcpstream/connector/client_options.h"
#include "gcpstream/connector/option_table.h"

namespace gcpstream::cloudtasks {

// Option keys, as written in a pipeline file.
inline constexpr char kChannelPoolSizeKey[] = "channel-pool-size";
inline constexpr char kMaxInFlightTasksKey[] = "max-in-flight-tasks";
inline constexpr char kWriteProgressTimeoutKey[] = "write-progress-timeout";
inline constexpr char kMissingQueueInitialBackoffKey[] =
    "missing-queue-initial-backoff";
inline constexpr char kMissingQueueMaxBackoffKey[] =
    "missing-queue-max-backoff";
inline constexpr char kMissingQueueMaxAttemptsKey[] =
    "missing-queue-max-attempts";

// channel, clock, make_timer, make_stub: see ClientOptions.
struct CloudTasksSinkOptions : connector::ClientOptions<CloudTasksStubFactory> {
  // Names the sink in errors, logs and metrics.
  std::string name = "cloud-tasks-sink";
  // channel-pool-size: channels (each with its own connection) the creates
  // are spread over, for all queues alike.
  int64_t channel_pool_size = 1;
  // max-in-flight-tasks: creates sent and not yet answered, or waiting out
  // a backoff; at the cap Write() yields to the mailbox.
  int64_t max_in_flight_tasks = 1000;
  // write-progress-timeout: the longest a wait (for room, or in Flush) goes
  // without any answer; expiry fails the writer.
  absl::Duration write_progress_timeout = absl::Minutes(10);
  // missing-queue-*: the short budget of a create answered NOT_FOUND (the
  // queue is missing, or was created moments ago): 500 ms growing to 2 s,
  // 3 attempts, then the job fails naming the queue. Queues are never
  // created by the sink.
  RetryOptions missing_queue = {
      .max_attempts = 3,
      .total_timeout = absl::Minutes(1),
      .backoff = {.initial_delay = absl::Milliseconds(500),
                  .max_delay = absl::Seconds(2),
                  .multiplier = 2.0},
  };
  // max-consecutive-rejections (rejection confirmation's guard).
  int64_t max_consecutive_rejections =
      RejectionConfirmation::kDefaultMaxConsecutiveRejections;
  // Retries of UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED:
  // 100 ms growing to 10 s, 8 attempts.
  RetryOptions retry = {
      .max_attempts = 8,
      .total_timeout = absl::Minutes(10),
      .backoff = {.initial_delay = absl::Milliseconds(100),
                  .max_delay = absl::Seconds(10),
                  .multiplier = 2.0},
  };
};

// InvalidArgument naming the option key when an option is unusable.
absl::Status CheckCloudTasksSinkOptions(const CloudTasksSinkOptions& options);

// Every option above that a pipeline file sets (all but the name, channel,
// clock and timer), with docs defaults.
connector::OptionTable<CloudTasksSinkOptions> CloudTasksSinkOptionTable();

}  // namespace gcpstream::cloudtasks

#endif  // GCPSTREAM_CLOUDTASKS_CLOUDTASKS_SINK_OPTIONS_H_
