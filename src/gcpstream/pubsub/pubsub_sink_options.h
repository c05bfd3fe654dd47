#ifndef GCPSTREAM_PUBSUB_PUBSUB_SINK_OPTIONS_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SINK_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/options.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/connector/client_options.h"
#include "gcpstream/connector/create_disposition.h"
#include "gcpstream/connector/option_table.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/pubsub/publish_batcher.h"
#include "gcpstream/pubsub/publisher_stub.h"

namespace gcpstream::pubsub {

// Option keys, as written in a SQL WITH clause or a YAML file.
inline constexpr char kMaxInFlightMessagesKey[] = "max-in-flight-messages";
inline constexpr char kMaxInFlightBytesKey[] = "max-in-flight-bytes";
inline constexpr char kPublishProgressTimeoutKey[] = "publish-progress-timeout";
inline constexpr char kEnableMessageOrderingKey[] = "enable-message-ordering";
inline constexpr char kDestinationIdleTimeoutKey[] = "destination-idle-timeout";
inline constexpr char kMaxActivePublishersKey[] = "max-active-publishers";
inline constexpr char kShutdownTimeoutKey[] = "shutdown-timeout";
inline constexpr char kMessageRetentionDurationKey[] =
    "message-retention-duration";
inline constexpr char kKmsKeyNameKey[] = "kms-key-name";
inline constexpr char kAllowedPersistenceRegionsKey[] =
    "allowed-persistence-regions";
inline constexpr char kEnforceInTransitKey[] = "enforce-in-transit";

// create-disposition: see connector/create_disposition.h.
using connector::CreateDisposition;
using connector::kCreateDispositionOption;

// How the sink creates a missing topic (create-disposition
// create-if-needed). One set for every topic of the sink; a topic that
// exists is never modified.
struct TopicCreateOptions {
  // message-retention-duration: 10 minutes to 31 days; unset keeps the
  // service's default (no topic-level retention).
  std::optional<absl::Duration> message_retention;
  // kms-key-name: "projects/../locations/../keyRings/../cryptoKeys/..";
  // empty uses Google-managed encryption.
  std::string kms_key_name;
  // allowed-persistence-regions: empty keeps the organisation's policy.
  std::vector<std::string> allowed_persistence_regions;
  // enforce-in-transit: also keep messages in transit within those regions.
  bool enforce_in_transit = false;
};

// channel, clock, make_timer, make_stub: see ClientOptions.
struct PubSubSinkOptions : connector::ClientOptions<PublisherStubFactory> {
  // Names the sink in errors, logs and metrics.
  std::string name = "pubsub-sink";
  // max-batch-messages, max-batch-bytes, max-batch-delay (per topic, and
  // per ordering key when ordering is on).
  PublishBatcherOptions batching;
  // max-in-flight-messages / max-in-flight-bytes: messages written and not
  // yet acknowledged or routed, per writer (subtask). At a cap Write()
  // yields to the mailbox until completions free room. A message larger
  // than the byte cap is still admitted into an otherwise empty writer.
  int64_t max_in_flight_messages = 1000;
  int64_t max_in_flight_bytes = int64_t{64} << 20;
  // publish-progress-timeout: the longest any wait (for room, or in Flush)
  // goes without a single publish completing; expiry fails the writer.
  absl::Duration publish_progress_timeout = absl::Seconds(600);
  // enable-message-ordering: publish messages that share an ordering key in
  // order, one batch per key at a time. When off, a message with an ordering
  // key fails the job.
  bool enable_message_ordering = false;
  // destination-idle-timeout: a topic's publisher unused for longer is
  // released at the end of a successful non-final flush.
  absl::Duration destination_idle_timeout = absl::Minutes(10);
  // max-active-publishers: 0 for no bound; otherwise opening a publisher for
  // one more topic first releases the least-recently-used clean one.
  int64_t max_active_publishers = 0;
  // shutdown-timeout: how long releasing a publisher may wait for gRPC to
  // return its callbacks; expiry fails the writer before a replacement opens.
  absl::Duration shutdown_timeout = absl::Seconds(30);
  // create-disposition and the options topics are created with. Never by
  // default: a topic the sink creates has no subscription, so what it
  // publishes there is gone (a misspelt topic would lose data silently).
  CreateDisposition create_disposition = CreateDisposition::kCreateNever;
  TopicCreateOptions topic_create_options;
  // max-consecutive-rejections (rejection confirmation's guard).
  int64_t max_consecutive_rejections =
      RejectionConfirmation::kDefaultMaxConsecutiveRejections;
  // Retries of transient publish and create errors: Google's Pub/Sub
  // publisher settings (100 ms growing 4x to 60 s, 600 s in total).
  RetryOptions retry = {
      .max_attempts = 1000,
      .total_timeout = absl::Seconds(600),
      .backoff = {.initial_delay = absl::Milliseconds(100),
                  .max_delay = absl::Seconds(60),
                  .multiplier = 4.0},
  };
};

// InvalidArgument naming the option key when an option is unusable.
absl::Status CheckPubSubSinkOptions(const PubSubSinkOptions& options);

// Every option above that a pipeline file or WITH clause sets (all but
// the name, channel, clock and timer), with docs defaults and old
// spellings.
connector::OptionTable<PubSubSinkOptions> PubSubSinkOptionTable();

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SINK_OPTIONS_H_
