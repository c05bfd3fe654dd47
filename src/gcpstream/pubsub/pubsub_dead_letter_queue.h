#ifndef GCPSTREAM_PUBSUB_PUBSUB_DEAD_LETTER_QUEUE_H_
#define GCPSTREAM_PUBSUB_PUBSUB_DEAD_LETTER_QUEUE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/dead_letter_queue.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/option_table.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/pubsub/publish_batcher.h"
#include "gcpstream/pubsub/publisher_stub.h"
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

struct PubSubDeadLetterQueueOptions {
  // project, topic: the dead-letter topic, which must already exist.
  std::string project;
  std::string topic;
  // max-in-flight-messages: failures offered but not yet acknowledged by
  // the service. Offer() waits (yielding to the mailbox, never blocking
  // completions) while more are outstanding, so memory stays bounded during
  // a flood of refusals. 0 writes through (each Offer waits for its own
  // acknowledgement); -1 never waits in Offer (full batches are still sent
  // as they fill; the rest at Flush).
  int64_t max_outstanding_messages = 1000;
  // flush-timeout: how long Flush() (and a waiting Offer()) waits for
  // acknowledgements. Expiry fails the checkpoint and drops nothing: the
  // failures stay pending and the next Flush() waits for them again.
  absl::Duration flush_timeout = absl::Seconds(60);
  // max-batch-messages, max-batch-bytes, max-batch-delay. A partial batch
  // older than max-batch-delay is sent at the next Offer(); Flush() sends
  // whatever is left.
  PublishBatcherOptions batching;
  // Retries of transient publish errors; exhausting them fails the job.
  RetryOptions retry;
  // Where to connect; by default PUBSUB_EMULATOR_HOST, else production.
  auth::ChannelOptions channel;
  // Time for batch ages and retry deadlines; null means the timer's clock.
  // Must outlive the queue.
  const Clock* clock = nullptr;
  // The queue's timer (retry backoff, flush-timeout); null means real time
  // (tests pass a ManualTimer).
  connector::TimerFactory make_timer;
  // The bottom of the queue's Publisher stub; null means gRPC (tests pass
  // a mock, under the same decorators).
  PublisherStubFactory make_stub;
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
// Threading: every method runs on the writer's task thread. Publishes use
// gRPC's callback API; a completion only posts a mail to `executor`, and the
// queue's state changes when the task thread runs that mail (at its next
// yield, e.g. inside Flush()). Retry backoff and the flush-timeout are mails
// of the queue's task timer. So the task thread never blocks on the
// network except where it must wait: Flush(), and Offer() above
// max-in-flight-messages.
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

  // Cancels outstanding publishes and waits until gRPC let go of them.
  // Public for std::make_unique only: use Create().
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  PubSubDeadLetterQueue(ConstructorKey, PubSubDeadLetterQueueOptions options,
                        runtime::MailboxExecutor executor,
                        std::shared_ptr<grpc::Channel> channel);

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
  int64_t outstanding() const { return outstanding_; }

  // The message a failure is published as.
  static google::pubsub::v1::PubsubMessage ToMessage(
      const FailedElement& failure);

 private:
  struct Call;
  struct TopicCheck;

  absl::Status CheckOpen(const char* method) const;
  // NotFound when the service says the topic does not exist, else OK.
  absl::Status CheckTopicExists();
  // Sends the open batch, if any.
  void SendBuffered();
  void StartAttempt(Call& call);
  void OnPublishDone(uint64_t id, const absl::Status& status);
  void OnRetryDue(uint64_t id);
  // Waits until at most `limit` failures are outstanding or a publish
  // failed; `why` names what waited, for the timeout error.
  absl::Status WaitForOutstanding(int64_t limit, const char* why);
  absl::Status PublishError(const absl::Status& status) const;
  // Cancels every call and timer mail and waits for their callbacks.
  void CancelAll();

  const PubSubDeadLetterQueueOptions options_;
  runtime::MailboxExecutor executor_;
  std::unique_ptr<connector::TaskTimer> timer_;
  const Clock& clock_;
  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<PublisherStub> stub_;
  const std::string topic_name_;
  // The RPC callbacks of the current Open(); a new one after each Close().
  std::unique_ptr<connector::Completions> completions_;

  bool open_ = false;
  std::optional<PublishBatcher> batcher_;
  // Calls in flight or waiting for a retry, by id.
  std::map<uint64_t, std::unique_ptr<Call>> calls_;
  uint64_t next_call_id_ = 0;
  int64_t outstanding_ = 0;
  // The first publish error; sticks until the next Open().
  absl::Status failure_;
  std::shared_ptr<Counter> published_;
  std::shared_ptr<Gauge> outstanding_gauge_;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_DEAD_LETTER_QUEUE_H_
