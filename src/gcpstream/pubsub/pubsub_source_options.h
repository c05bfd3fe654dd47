#ifndef GCPSTREAM_PUBSUB_PUBSUB_SOURCE_OPTIONS_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SOURCE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/options.h"
#include "gcpstream/base/retry_policy.h"

namespace gcpstream::pubsub {

enum class OrderingMode {
  // Split count = max(subscriptions, parallelism); split i reads
  // subscription i % n, so subtasks may share a subscription and Pub/Sub
  // balances messages between their streams.
  kNone,
  // One split (one subtask, one stream) per subscription; messages of a key
  // are emitted in delivery order. Needs ordered subscriptions.
  kPerKey,
};
inline constexpr EnumSpelling<OrderingMode> kOrderingModeSpellings[] = {
    {"none", OrderingMode::kNone}, {"per-key", OrderingMode::kPerKey}};
inline constexpr EnumOption<OrderingMode> kOrderingModeOption(
    "ordering-mode", kOrderingModeSpellings);

enum class DeserializationFailurePolicy {
  kFail,  // Fail the job (the message is not acknowledged).
  kDrop,  // Acknowledge it, count it, go on.
  kNack,  // Nack it: the subscription's dead-letter policy takes it.
};
inline constexpr EnumSpelling<DeserializationFailurePolicy>
    kDeserializationFailurePolicySpellings[] = {
        {"fail", DeserializationFailurePolicy::kFail},
        {"drop", DeserializationFailurePolicy::kDrop},
        {"nack", DeserializationFailurePolicy::kNack}};
inline constexpr EnumOption<DeserializationFailurePolicy>
    kDeserializationFailurePolicyOption("deserialization-failure-policy",
                                        kDeserializationFailurePolicySpellings);

// Where reading starts on a first start (never on a restore).
struct StartPosition {
  enum class Kind { kContinue, kEarliestRetained, kLatest, kTimestamp };
  Kind kind = Kind::kContinue;
  absl::Time time = absl::InfinitePast();  // For kTimestamp.

  // "continue", "earliest-retained", "latest" or an RFC 3339 timestamp.
  static absl::StatusOr<StartPosition> Parse(absl::string_view text);
  std::string ToString() const;
};

// How to create a subscription that does not exist (never updates one).
struct SubscriptionCreateOptions {
  std::string topic;  // "projects/<p>/topics/<t>" or a topic id.
  absl::Duration ack_deadline = absl::Seconds(60);
  bool enable_message_ordering = false;
  std::optional<absl::Duration> message_retention = std::nullopt;
  std::string filter{};
  // dead-letter-topic (full name) and max-delivery-attempts (5..100).
  std::string dead_letter_topic{};
  int max_delivery_attempts = 5;
};

struct SubscriptionSpec {
  std::string project;
  std::string subscription;
  std::optional<SubscriptionCreateOptions> create = std::nullopt;

  // "projects/<project>/subscriptions/<subscription>".
  std::string ResourceName() const {
    return absl::StrCat("projects/", project, "/subscriptions/", subscription);
  }
};

inline constexpr char kMaxOutstandingMessagesKey[] = "max-outstanding-messages";
inline constexpr char kMaxOutstandingBytesKey[] = "max-outstanding-bytes";
inline constexpr char kStreamAckDeadlineKey[] = "stream-ack-deadline";
inline constexpr char kMaxLeaseExtensionKey[] = "max-lease-extension";
inline constexpr char kFirstCheckpointTimeoutKey[] = "first-checkpoint-timeout";
inline constexpr char kStartPositionKey[] = "start-position";

struct PubSubSourceOptions {
  std::string name = "pubsub-source";
  std::vector<SubscriptionSpec> subscriptions;
  OrderingMode ordering_mode = OrderingMode::kNone;
  DeserializationFailurePolicy deserialization_failure_policy =
      DeserializationFailurePolicy::kFail;
  StartPosition start_position;
  // Flow control per subtask: messages received and not yet acknowledged
  // (waiting to be emitted, or emitted and waiting for their checkpoint).
  // Above either, the reader stops reading its streams. Also sent to the
  // service as the stream's own flow control.
  int64_t max_outstanding_messages = 10'000;
  int64_t max_outstanding_bytes = int64_t{100} << 20;
  // The ack deadline of the stream (10..600 s); leases are extended before
  // it runs out.
  absl::Duration stream_ack_deadline = absl::Seconds(60);
  // How long one message's lease is extended while it waits for its
  // checkpoint; past that, Pub/Sub redelivers it (a duplicate, not a loss).
  absl::Duration max_lease_extension = absl::Minutes(60);
  // No checkpoint completed this long after messages started waiting: fail
  // with an error naming the checkpoint interval.
  absl::Duration first_checkpoint_timeout = absl::Minutes(10);
  // Records emitted per PollNext at most.
  int max_records_per_poll = 1000;
  // Reconnecting a broken stream: backoff and budget.
  RetryOptions reconnect = {
      .max_attempts = 100,
      .total_timeout = absl::Minutes(10),
      .backoff = {.initial_delay = absl::Milliseconds(100),
                  .max_delay = absl::Seconds(10),
                  .multiplier = 2.0},
  };
  auth::ChannelOptions channel;
  // Reconnect times, lease ages and the first-checkpoint timeout; null
  // means RealClock. Must outlive the source.
  const Clock* clock = nullptr;
};

absl::Status CheckPubSubSourceOptions(const PubSubSourceOptions& options);

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SOURCE_OPTIONS_H_
