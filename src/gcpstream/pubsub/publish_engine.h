#ifndef GCPSTREAM_PUBSUB_PUBLISH_ENGINE_H_
#define GCPSTREAM_PUBSUB_PUBLISH_ENGINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/base/destination_states.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/in_flight.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/connector/task_wait.h"
#include "gcpstream/connector/writer_core.h"
#include "gcpstream/pubsub/publish_classification.h"
#include "gcpstream/pubsub/publisher_stub.h"
#include "gcpstream/pubsub/pubsub_failed_element.h"
#include "gcpstream/pubsub/pubsub_sink_options.h"
#include "gcpstream/pubsub/topic_creator.h"
#include "gcpstream/pubsub/topic_destination.h"
#include "gcpstream/pubsub/topic_publisher.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::pubsub {

// The type-independent part of PubSubSink's writer: one TopicPublisher per
// active topic, the gRPC calls with their retries, and NOT_FOUND handling.
// The connector kit holds the rest: the writer core (failure handler,
// metrics, rejection confirmation, first failure), the in-flight caps and
// the timer; TopicCreator creates missing topics.
//
// Threading: every public method runs on the writer's task thread. gRPC
// callbacks only post a mail to the task's mailbox; the engine's state
// changes when the task runs it (inside Publish or Flush while they wait,
// or between records).
class PublishEngine {
 public:
  using Handler = FailureHandler<PubSubFailedElement>;

  // Checks `options`, opens the failure handler and creates the channel.
  static absl::StatusOr<std::unique_ptr<PublishEngine>> Create(
      PubSubSinkOptions options, const runtime::SinkWriterContext& context,
      std::unique_ptr<Handler> handler);

  // Public for std::make_unique only: use Create().
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  PublishEngine(ConstructorKey, PubSubSinkOptions options,
                const runtime::SinkWriterContext& context,
                std::shared_ptr<grpc::Channel> channel);
  ~PublishEngine();
  PublishEngine(const PublishEngine&) = delete;
  PublishEngine& operator=(const PublishEngine&) = delete;

  // The message the next record is serialized into: empty, owned by the
  // engine until PublishStaged() links it into a request (so a record costs
  // no message of its own beyond the one the request holds).
  google::pubsub::v1::PubsubMessage& StagedMessage() {
    if (staged_ == nullptr) {
      staged_ = std::make_unique<google::pubsub::v1::PubsubMessage>();
    }
    return *staged_;
  }
  // Declares `topic` the writer's fixed topic: it outlives the engine and
  // never changes, so a PublishStaged() given this very object needs no
  // comparison with the previous record's topic.
  void SetFixedTopic(const TopicDestination& topic) { fixed_topic_ = &topic; }
  // Empties the staged message (its record was skipped or failed).
  void DiscardStaged() {
    if (staged_ != nullptr) staged_->Clear();
  }
  // Publishes the staged message to `topic`, once there is room under the
  // in-flight caps. A message the service would refuse on its own (too
  // large, empty, bad attributes) goes to the failure handler instead.
  // Returns the first failure of the writer, if any.
  absl::Status PublishStaged(const TopicDestination& topic,
                             const WriterContext& context);
  // A record the serializer failed on: routed to the failure handler.
  absl::Status RouteSerializationFailure(const TopicDestination& topic,
                                         const absl::Status& status,
                                         const WriterContext& context) {
    return core_.RouteSerializationFailure(topic.ResourceName(), status,
                                           context);
  }
  // A record the serializer skipped.
  void CountSkipped() { core_.CountSkipped(); }
  // A record entered the writer.
  void CountIn() { core_.CountIn(); }

  // Sends every batch and returns once every message is acknowledged or
  // routed and the failure handler is flushed. A non-final flush then
  // releases publishers idle for longer than destination-idle-timeout.
  absl::Status Flush(bool end_of_input);

  // The input is dry: open batches go out now instead of at their
  // max-batch-delay.
  absl::Status OnInputIdle();

  // For a caller that bounds its own waits without failing the writer (the
  // dead-letter queue's flush-timeout): sends open batches, then waits
  // until at most `limit` messages are in flight, the writer failed, the
  // job was cancelled, or `timeout` passed on the timer's clock.
  connector::WaitResult SendAndWaitForInFlightAtMost(int64_t limit,
                                                     absl::Duration timeout);
  // Also counts acknowledged messages in `written`, and mirrors the
  // in-flight count to `in_flight` (a user's own names for them).
  void MirrorMetricsTo(std::shared_ptr<Counter> written,
                       std::shared_ptr<Gauge> in_flight);
  // The writer's first failure (OK while it has none).
  const absl::Status& failure() const { return core_.failure(); }

  // Cancels what is in flight and waits until gRPC let go of it.
  void Close();

  int64_t in_flight_messages() const { return in_flight_->records(); }
  int64_t in_flight_bytes() const { return in_flight_->bytes(); }
  size_t active_publishers() const { return publishers_.size(); }
  const DestinationStatesStats& publisher_stats() const {
    return publishers_.stats();
  }

 private:
  struct Call;
  struct Metrics {
    std::shared_ptr<Gauge> parked_messages;
    std::shared_ptr<Counter> publishers_evicted;
    // Seconds from sending a Publish request to its answer, per attempt.
    std::shared_ptr<Histogram> publish_latency;
    // See MirrorMetricsTo(); null when unset.
    std::shared_ptr<Counter> written_mirror;
  };
  using Calls = std::map<uint64_t, std::unique_ptr<Call>>;

  absl::Status Init(const runtime::SinkWriterContext& context,
                    std::unique_ptr<Handler> handler);
  absl::Status RegisterMetrics();
  absl::StatusOr<TopicPublisher*> AcquirePublisher(
      const TopicDestination& topic);

  // Sends and empties `batches`.
  void Send(TopicPublisher& publisher, std::vector<PublishBatch>& batches);
  void StartAttempt(Call& call, TopicPublisher& publisher);
  void OnPublishDone(uint64_t id, const absl::Status& status);
  void OnRefusedAlone(Call& call, TopicPublisher& publisher,
                      const absl::Status& status);
  void OnNotFound(Call& call, TopicPublisher& publisher,
                  const absl::Status& status);
  void RetryOrFail(Call& call, TopicPublisher& publisher,
                   const absl::Status& status, StatusClass status_class);
  void OnRetryDue(uint64_t id);
  // The call's messages are resolved (written or routed): frees their room
  // and lets their lane go on.
  void Resolve(Calls::iterator it, TopicPublisher& publisher);
  void RepublishParked(TopicPublisher& publisher);

  void ArmTimer();
  void OnTimer();
  void SendDue(bool all);
  void SyncEvictionMetric();

  const PubSubSinkOptions options_;
  runtime::MailboxExecutor executor_;
  std::unique_ptr<connector::TaskTimer> timer_;
  // Batch ages and idle times: the options' clock, else the timer's.
  const Clock& clock_;
  connector::WriterCore<PubSubFailedElement> core_;
  std::optional<connector::InFlight> in_flight_;
  std::shared_ptr<grpc::Channel> channel_;
  // Made once the metrics exist (the latency observer needs one).
  std::shared_ptr<PublisherStub> stub_;
  Metrics pubsub_metrics_;
  DestinationStates<TopicDestination, TopicPublisher> publishers_;
  // Every RPC callback of the engine (publishes and topic creations).
  connector::Completions completions_;
  std::optional<TopicCreator> creator_;

  Calls calls_;  // In id (send) order.
  // The publisher the previous message went to; null when unknown or
  // possibly released. Whether it was acquired for `fixed_topic_`.
  TopicPublisher* last_publisher_ = nullptr;
  bool last_publisher_is_fixed_ = false;
  const TopicDestination* fixed_topic_ = nullptr;
  // Batches PublishStaged() sends; kept to reuse its capacity.
  std::vector<PublishBatch> to_send_;
  // See StagedMessage(); null once handed to a request.
  std::unique_ptr<google::pubsub::v1::PubsubMessage> staged_;
  uint64_t next_call_id_ = 0;
  int64_t parked_messages_ = 0;
  int64_t evictions_seen_ = 0;
  connector::TaskTimer::Id batch_timer_ = 0;
  bool closed_ = false;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBLISH_ENGINE_H_
