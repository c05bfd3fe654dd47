#ifndef GCPSTREAM_PUBSUB_PUBSUB_DEAD_LETTER_QUEUE_H_
#define GCPSTREAM_PUBSUB_PUBSUB_DEAD_LETTER_QUEUE_H_

#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/dead_letter_queue.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/connector/client_options.h"
#include "gcpstream/connector/option_table.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/pubsub/publish_batcher.h"
#include "gcpstream/pubsub/publish_engine.h"
#include "gcpstream/pubsub/publisher_stub.h"
#include "gcpstream/pubsub/topic_destination.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::pubsub {

// Option keys.
inline constexpr char kDlqProjectKey[] = "project";
inline constexpr char kDlqTopicKey[] = "topic";
// The in-flight cap, spelled as the sinks spell theirs ("max-outstanding"
// is its old spelling).
inline constexpr char kDlqMaxInFlightMessagesKey[] = "max-in-flight-messages";
// Added when original attributes had to be left out to stay within
// Pub/Sub's attribute limits: how many were.
inline constexpr char kDlqAttributesDropped[] = "dlq-attributes-dropped";
inline constexpr char kFlushTimeoutKey[] = "flush-timeout";

// channel, clock, make_timer, make_stub: see ClientOptions.
struct PubSubDeadLetterQueueOptions
    : connector::ClientOptions<PublisherStubFactory> {
  // project, topic: the dead-letter topic, which must already exist.
  std::string project;
  std::string topic;
  // max-in-flight-messages: failures offered but not yet acknowledged by
  // the service. Offer() waits (yielding to the mailbox, never blocking
  // completions) while more are outstanding, so memory stays bounded during
  // a flood of refusals. 0 writes through (each Offer waits for its own
  // acknowledgement); -1 never waits in Offer (full batches are still sent
  // as they fill, partial ones at max-batch-delay; the rest at Flush).
  int64_t max_outstanding_messages = 1000;
  // flush-timeout: how long Flush() (and a waiting Offer()) waits for
  // acknowledgements. Expiry fails the checkpoint and drops nothing: the
  // failures stay pending and the next Flush() waits for them again.
  absl::Duration flush_timeout = absl::Seconds(60);
  // max-batch-messages, max-batch-bytes, max-batch-delay.
  PublishBatcherOptions batching;
  // Retries of transient publish errors; exhausting them fails the job.
  RetryOptions retry;
};

// InvalidArgument naming the option key when an option is unusable.
absl::Status CheckPubSubDeadLetterQueueOptions(
    const PubSubDeadLetterQueueOptions& options);

// Every option above that a pipeline file sets besides project and topic.
connector::OptionTable<PubSubDeadLetterQueueOptions>
PubSubDeadLetterQueueOptionTable();

// A dead-letter queue that publishes each failure to one existing Pub/Sub
// topic: the message data is the failure's payload (empty when it has none)
// and its attributes are the dlq-* attributes (DeadLetterAttributes) plus
// the failure's original attributes whose keys do not collide with them and
// that fit Pub/Sub's limits (100 attributes, 256-byte keys, 1024-byte
// values); the others are left out and counted in dlq-attributes-dropped.
//
// It is the Pub/Sub sink's engine with a fixed topic, create-never and a
// fail-job handler (a dead-letter queue has nothing behind it: a failure
// the service refuses fails the job), plus what only a queue does: the
// topic check at Open(), a size check that refuses one failure without
// failing the queue, and waits bounded by flush-timeout that leave the
// failures pending.
//
// Threading: every method runs on the writer's task thread; gRPC
// completions and the engine's timer only post mails to `executor`, run
// when the task yields (inside Flush(), or Offer() above
// max-in-flight-messages).
//
// Delivery: at-least-once. Flush() returns OK once every offered failure is
// acknowledged; a replay after a restart may publish a failure again.
//
// Metrics (registered on Open() when the context has a registry):
// `dead_letters_published` (counter, acknowledged messages) and
// `dead_letters_outstanding` (gauge, offered and not yet acknowledged).
class PubSubDeadLetterQueue final : public DeadLetterQueue {
 public:
  // Checks `options` and creates the channel (no connection is made yet).
  // `executor` posts to the mailbox of the task that owns the queue; the
  // mailbox must outlive the queue.
  static absl::StatusOr<std::unique_ptr<PubSubDeadLetterQueue>> Create(
      PubSubDeadLetterQueueOptions options, runtime::MailboxExecutor executor);

  // Public for std::make_unique only: use Create().
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  PubSubDeadLetterQueue(ConstructorKey, PubSubDeadLetterQueueOptions options,
                        runtime::MailboxExecutor executor,
                        std::shared_ptr<grpc::Channel> channel);

  // Cancels outstanding publishes and waits until gRPC let go of them.
  ~PubSubDeadLetterQueue() override;
  PubSubDeadLetterQueue(const PubSubDeadLetterQueue&) = delete;
  PubSubDeadLetterQueue& operator=(const PubSubDeadLetterQueue&) = delete;

  // Starts afresh: anything pending from before (a restore replays it) is
  // abandoned, and an earlier failure is forgotten. Asks the service for the
  // topic (GetTopic, waiting up to flush-timeout while yielding to the
  // mailbox) so that a missing dead-letter topic fails the job when it
  // starts rather than at the first refused record. Only NOT_FOUND fails:
  // any other answer leaves the decision to the first publish, because an
  // account allowed to publish (roles/pubsub.publisher) may not be allowed
  // to get the topic.
  absl::Status Open(const FailureHandlerContext& context) override;
  // Buffers the failure and sends full batches. Fails with the first
  // publish error seen so far, or with InvalidArgument if the failure's
  // message cannot fit a publish request (over 10 MB).
  absl::Status Offer(const FailedElement& failure) override;
  // Sends what is buffered and waits, up to flush-timeout, until every
  // offered failure is acknowledged.
  absl::Status Flush() override;
  // Cancels outstanding publishes; persists nothing.
  void Close() override;

  // "projects/<project>/topics/<topic>".
  const std::string& topic_name() const { return topic_name_; }
  // Offered and not yet acknowledged (buffered included).
  int64_t outstanding() const {
    return engine_ == nullptr ? 0 : engine_->in_flight_messages();
  }

  // The message a failure is published as.
  static google::pubsub::v1::PubsubMessage ToMessage(
      const FailedElement& failure);

 private:
  struct TopicCheck;

  absl::Status CheckOpen(const char* method) const;
  // NotFound when the service says the topic does not exist, else OK.
  absl::Status CheckTopicExists();
  // Waits until at most `limit` failures are outstanding or a publish
  // failed; `why` names what waited, for the timeout error.
  absl::Status WaitForOutstanding(int64_t limit, const char* why);
  // The engine's failure, said as the queue's.
  absl::Status PublishError(const absl::Status& status) const;

  const PubSubDeadLetterQueueOptions options_;
  runtime::MailboxExecutor executor_;
  std::unique_ptr<connector::TaskTimer> timer_;
  std::shared_ptr<grpc::Channel> channel_;
  // For the topic check; the engine has its own.
  std::shared_ptr<PublisherStub> stub_;
  const TopicDestination topic_;
  const std::string topic_name_;
  // Checks a failure's message against the request limits.
  const PublishBatcher size_check_;
  // The publishing of the current Open(); null when closed.
  std::unique_ptr<PublishEngine> engine_;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_DEAD_LETTER_QUEUE_H_
