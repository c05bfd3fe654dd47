#ifndef GCPSTREAM_PUBSUB_PULL_READER_H_
#define GCPSTREAM_PUBSUB_PULL_READER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/base/status_class.h"
#include "gcpstream/connector/callback_tracker.h"
#include "gcpstream/connector/retry.h"
#include "gcpstream/pubsub/pubsub_source_options.h"
#include "gcpstream/runtime/source.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::pubsub {

// How the source classifies the end of a streaming pull: transient ends
// reconnect with backoff (a server-side CANCELLED too: the service closes
// streams now and then); anything else fails the job naming the
// subscription.
inline constexpr ClassificationTable kStreamingPullClassification(
    ClassificationTable::Level(
        {{absl::StatusCode::kCancelled, StatusClass::kTransient},
         {absl::StatusCode::kUnknown, StatusClass::kTransient},
         {absl::StatusCode::kDeadlineExceeded, StatusClass::kTransient},
         {absl::StatusCode::kResourceExhausted, StatusClass::kTransient},
         {absl::StatusCode::kAborted, StatusClass::kTransient},
         {absl::StatusCode::kInternal, StatusClass::kTransient},
         {absl::StatusCode::kUnavailable, StatusClass::kTransient}},
        StatusClass::kFatal),
    ClassificationTable::Level({}, StatusClass::kFatal));

// One message received and not yet acknowledged.
struct ReceivedMessage {
  std::string ack_id;
  google::pubsub::v1::PubsubMessage message;
  int64_t bytes = 0;
  absl::Time received;
  size_t slot = 0;  // The split (stream) it came from.
};

// The type-independent part of a Pub/Sub source reader: one streaming pull
// per split, flow control, lease extension, and acknowledgement of what a
// completed checkpoint covers. Task thread only; gRPC callbacks post mails.
class PullReader {
 public:
  // `subscriptions`: one entry per split this reader owns.
  static absl::StatusOr<std::unique_ptr<PullReader>> Create(
      const PubSubSourceOptions& options,
      const runtime::SourceReaderContext& context,
      std::vector<SubscriptionSpec> subscriptions);

  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  PullReader(ConstructorKey, PubSubSourceOptions options,
             const runtime::SourceReaderContext& context,
             std::vector<SubscriptionSpec> subscriptions,
             std::shared_ptr<grpc::Channel> channel);
  ~PullReader();
  PullReader(const PullReader&) = delete;
  PullReader& operator=(const PullReader&) = delete;

  // Reconnects due streams, extends leases, checks the first-checkpoint
  // timeout; returns the reader's failure, if any.
  absl::Status Tick();

  // The oldest message waiting to be emitted, or null.
  const ReceivedMessage* Front() const {
    return pending_.empty() ? nullptr : &pending_.front();
  }
  // The front message was emitted: it waits for the next checkpoint.
  void PopEmitted();
  // The front message could not be deserialized: acknowledged (drop),
  // nacked (nack) or the job fails (fail), per the policy.
  absl::Status PopFailed(const absl::Status& status);

  // Messages emitted since the last snapshot belong to `checkpoint_id`.
  void Snapshot(int64_t checkpoint_id);
  // Acknowledges what checkpoints up to `checkpoint_id` cover.
  void CheckpointComplete(int64_t checkpoint_id);

  // Nacks what is not acknowledged (so it comes back quickly after a
  // restart), closes the streams and waits until gRPC let go of them.
  void Close();

  bool has_streams() const { return !streams_.empty(); }
  int64_t outstanding_messages() const { return outstanding_messages_; }

 private:
  class Stream;
  struct Metrics {
    std::shared_ptr<Counter> received;
    std::shared_ptr<Counter> acked;
    std::shared_ptr<Counter> nacked;
    std::shared_ptr<Counter> deserialization_failures;
    std::shared_ptr<Counter> reconnects;
    std::shared_ptr<Counter> ack_failures;
    std::shared_ptr<Counter> lease_expirations;
    std::shared_ptr<Counter> redelivered;
    std::shared_ptr<Gauge> outstanding_messages;
    std::shared_ptr<Gauge> outstanding_bytes;
    std::shared_ptr<Gauge> awaiting_checkpoint;
  };
  struct StreamSlot {
    SubscriptionSpec spec;
    std::shared_ptr<Stream> stream = nullptr;  // Null between connections.
    std::optional<connector::Retry> reconnect = std::nullopt;
    absl::Time reconnect_at = absl::InfinitePast();
    bool reading = false;  // A read is outstanding.
    uint64_t generation = 0;
  };
  struct Leased {
    std::string ack_id;
    size_t slot = 0;
    int64_t bytes = 0;
    absl::Time received = absl::InfinitePast();
    std::string message_id = {};
  };

  absl::Status RegisterMetrics(const runtime::SourceReaderContext& context);
  void Open(size_t slot);
  void OnResponse(size_t slot, uint64_t generation,
                  google::pubsub::v1::StreamingPullResponse response);
  void OnStreamDone(size_t slot, uint64_t generation,
                    const absl::Status& status);
  bool BelowBufferLimit() const;
  void ResumeReads();
  void Release(int64_t messages, int64_t bytes);
  // A message whose id is outstanding or was acknowledged lately is a
  // redelivery: counted, its ack id kept with the first copy's (or
  // acknowledged at once), never emitted twice. True if `message` was one.
  bool TakeRedelivery(ReceivedMessage& message);
  // The ack ids of `leased` plus those of their redeliveries; forgets the
  // message ids (remembering them as acknowledged when `acknowledged`).
  std::vector<Leased> WithRedeliveries(std::vector<Leased> leased,
                                       bool acknowledged);
  // Acknowledges (no deadline) or modifies the deadline of `leased`, with
  // unary calls per subscription in chunks within the service's limits.
  void SendAcks(std::vector<Leased> leased,
                std::optional<int> deadline_seconds);
  void SendChunk(const std::string& subscription,
                 std::vector<std::string> ack_ids,
                 std::optional<int> deadline_seconds);
  void ExtendLeases();
  void UpdateGauges();

  const PubSubSourceOptions options_;
  const Clock& clock_;
  runtime::MailboxExecutor executor_;
  const absl::Duration checkpoint_interval_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<google::pubsub::v1::Subscriber::Stub> stub_;
  std::shared_ptr<connector::CallbackTracker> tracker_;
  std::shared_ptr<PullReader*> self_;
  Metrics metrics_;

  std::vector<StreamSlot> slots_;
  // Streams gRPC has not finished with.
  std::vector<std::shared_ptr<Stream>> streams_;
  std::deque<ReceivedMessage> pending_;
  // Emitted since the last snapshot, and per snapshotted checkpoint.
  std::vector<Leased> emitted_;
  std::map<int64_t, std::vector<Leased>> by_checkpoint_;
  // Message id of every outstanding message -> ack ids of its redeliveries
  // (leased and acknowledged with it).
  absl::flat_hash_map<std::string, std::vector<Leased>> outstanding_ids_;
  // The latest acknowledged message ids (a bounded window, oldest first).
  std::deque<std::string> acked_order_;
  absl::flat_hash_set<std::string> acked_ids_;
  int64_t outstanding_messages_ = 0;
  int64_t outstanding_bytes_ = 0;
  int64_t awaiting_ = 0;
  absl::Time next_lease_extension_ = absl::InfinitePast();
  absl::Time opened_at_;
  // When the oldest emitted message not yet covered by a completed
  // checkpoint was emitted, while no checkpoint has completed yet.
  std::optional<absl::Time> first_wait_since_;
  bool checkpoint_completed_ = false;
  absl::Status failure_;
  bool closed_ = false;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PULL_READER_H_
