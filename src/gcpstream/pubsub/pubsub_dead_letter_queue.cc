#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"

#include <limits>
#include <utility>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/base/dead_letter.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/options.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/task_wait.h"
#include "gcpstream/pubsub/pubsub_message.h"

namespace gcpstream::pubsub {
namespace {

using ::google::pubsub::v1::PubsubMessage;

}  // namespace

// The GetTopic call of Open(); its callback shares it.
struct PubSubDeadLetterQueue::TopicCheck {
  grpc::ClientContext context;
  google::pubsub::v1::GetTopicRequest request;
  google::pubsub::v1::Topic response;
  std::optional<absl::Status> result;
};

absl::Status CheckPubSubDeadLetterQueueOptions(
    const PubSubDeadLetterQueueOptions& options) {
  if (absl::Status status =
          CheckResourceNameComponent(options.project, kDlqProjectKey);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckResourceNameComponent(options.topic, kDlqTopicKey);
      !status.ok()) {
    return status;
  }
  if (options.max_outstanding_messages < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("option '", kDlqMaxInFlightMessagesKey,
                     "' must be >= 0, or -1 for no bound, got ",
                     options.max_outstanding_messages));
  }
  if (absl::Status status =
          CheckDurationOption(options.flush_timeout, kFlushTimeoutKey);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckPublishBatcherOptions(options.batching);
      !status.ok()) {
    return status;
  }
  return connector::CheckRetryOptions(options.retry);
}

connector::OptionTable<PubSubDeadLetterQueueOptions>
PubSubDeadLetterQueueOptionTable() {
  using O = PubSubDeadLetterQueueOptions;
  const O defaults;
  connector::OptionTable<O> table({
      connector::IntOption<O>(
          kDlqMaxInFlightMessagesKey,
          [](O& o) -> int64_t& { return o.max_outstanding_messages; }, "1000",
          "0", -1, std::numeric_limits<int64_t>::max(), {"max-outstanding"}),
      connector::DurationOption<O>(
          kFlushTimeoutKey,
          [](O& o) -> absl::Duration& { return o.flush_timeout; }, "60 s",
          "2m"),
      connector::IntOption<O>(
          kMaxBatchMessagesKey,
          [](O& o) -> int64_t& { return o.batching.max_messages; }, "100", "10",
          1, kMaxMessagesPerPublish, {"batch-max-messages"}),
      connector::IntOption<O>(
          kMaxBatchBytesKey,
          [](O& o) -> int64_t& { return o.batching.max_bytes; }, "1,000,000",
          "500000", 1, kMaxPublishRequestBytes, {"batch-max-bytes"}),
      connector::DurationOption<O>(
          kMaxBatchDelayKey,
          [](O& o) -> absl::Duration& { return o.batching.max_delay; }, "10 ms",
          "20ms", {"batch-max-delay"}),
  });
  table.Include<RetryOptions>(connector::RetryOptionTable(defaults.retry),
                              [](O& o) -> RetryOptions& { return o.retry; });
  table.Include<auth::ChannelOptions>(
      connector::ChannelOptionTable(),
      [](O& o) -> auth::ChannelOptions& { return o.channel; });
  return table;
}

absl::StatusOr<std::unique_ptr<PubSubDeadLetterQueue>>
PubSubDeadLetterQueue::Create(PubSubDeadLetterQueueOptions options,
                              runtime::MailboxExecutor executor) {
  if (absl::Status status = CheckPubSubDeadLetterQueueOptions(options);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      auth::MakeChannel(auth::Service::kPubSub, options.channel);
  if (!channel.ok()) return channel.status();
  return std::make_unique<PubSubDeadLetterQueue>(
      ConstructorKey(), std::move(options), executor, *std::move(channel));
}

PubSubDeadLetterQueue::PubSubDeadLetterQueue(
    ConstructorKey, PubSubDeadLetterQueueOptions options,
    runtime::MailboxExecutor executor, std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      executor_(executor),
      timer_(connector::MakeTimer(options_.make_timer, executor_)),
      channel_(std::move(channel)),
      stub_(MakePublisherStub(
          channel_, options_.make_stub,
          connector::LoggedAndTimed("pubsub dead-letter queue"))),
      topic_{options_.project, options_.topic},
      topic_name_(topic_.ResourceName()),
      // Cannot fail: the batching options were checked in Create().
      size_check_(*PublishBatcher::Create(
          topic_name_, options_.batching,
          options_.clock != nullptr ? *options_.clock : timer_->clock())) {}

PubSubDeadLetterQueue::~PubSubDeadLetterQueue() { Close(); }

PubsubMessage PubSubDeadLetterQueue::ToMessage(const FailedElement& failure) {
  PubsubMessage message;
  if (failure.payload.has_value()) message.set_data(*failure.payload);
  auto& attributes = *message.mutable_attributes();
  for (auto& [key, value] : DeadLetterAttributes(failure)) {
    attributes[key] = std::move(value);
  }
  // The dlq-* attributes win a collision: consumers rely on them describing
  // this failure, not whatever the original record happened to carry. An
  // original attribute the service would refuse is left out rather than
  // fail the whole dead-letter publish; one slot stays free to say so.
  int dropped = 0;
  for (const auto& [key, value] : failure.attributes) {
    if (attributes.count(key) != 0) continue;
    if (key.size() > kMaxAttributeKeyBytes ||
        value.size() > kMaxAttributeValueBytes ||
        attributes.size() + 1 >= kMaxAttributesPerMessage) {
      ++dropped;
      continue;
    }
    attributes[key] = value;
  }
  if (dropped > 0) attributes[kDlqAttributesDropped] = absl::StrCat(dropped);
  return message;
}

absl::Status PubSubDeadLetterQueue::Open(const FailureHandlerContext& context) {
  Close();
  // Without a registry the metrics are private (still counted, for tests
  // and logs), never those of an earlier Open().
  auto published = std::make_shared<Counter>();
  auto outstanding = std::make_shared<Gauge>();
  if (context.metrics != nullptr) {
    absl::StatusOr<std::shared_ptr<Counter>> registered_published =
        context.metrics->GetCounter(
            "dead_letters_published",
            "Failed records published to a Pub/Sub dead-letter topic and "
            "acknowledged",
            context.labels);
    if (!registered_published.ok()) return registered_published.status();
    absl::StatusOr<std::shared_ptr<Gauge>> registered_outstanding =
        context.metrics->GetGauge(
            "dead_letters_outstanding",
            "Failed records offered to a Pub/Sub dead-letter queue and not "
            "yet acknowledged",
            context.labels);
    if (!registered_outstanding.ok()) return registered_outstanding.status();
    published = *std::move(registered_published);
    outstanding = *std::move(registered_outstanding);
  }
  if (absl::Status exists = CheckTopicExists(); !exists.ok()) return exists;

  PubSubSinkOptions sink;
  sink.name = "pubsub dead-letter queue";
  sink.batching = options_.batching;
  // The queue bounds its own waits (max-in-flight-messages, flush-timeout)
  // without failing; the engine's caps never bind.
  sink.max_in_flight_messages = std::numeric_limits<int64_t>::max();
  sink.max_in_flight_bytes = std::numeric_limits<int64_t>::max();
  sink.create_disposition = CreateDisposition::kCreateNever;
  sink.retry = options_.retry;
  static_cast<connector::ClientOptions<PublisherStubFactory>&>(sink) = options_;
  // The engine's own metrics stay private: the sink the queue serves has
  // series of the same names under these labels.
  runtime::SinkWriterContext writer;
  writer.subtask_index = context.subtask_index;
  writer.pipeline = context.labels.pipeline;
  writer.sink_name = sink.name;
  writer.mailbox = executor_;
  absl::StatusOr<std::unique_ptr<PublishEngine>> engine = PublishEngine::Create(
      std::move(sink), writer, FailJob<PubSubFailedElement>());
  if (!engine.ok()) return engine.status();
  engine_ = *std::move(engine);
  engine_->SetFixedTopic(topic_);
  engine_->MirrorMetricsTo(std::move(published), std::move(outstanding));
  return absl::OkStatus();
}

absl::Status PubSubDeadLetterQueue::CheckTopicExists() {
  auto check = std::make_shared<TopicCheck>();
  check->request.set_topic(topic_name_);
  check->context.set_deadline(
      absl::ToChronoTime(absl::Now() + options_.flush_timeout));
  // Counts this call alone, so Open() waits for it and nothing else.
  auto answered = std::make_shared<connector::CallbackTracker>();
  connector::Completions completions(executor_);
  stub_->AsyncGetTopic(
      check->context, check->request, check->response,
      completions.Wrap(
          [check](const absl::Status& status) { check->result = status; },
          answered));
  // A little past the RPC's own deadline, so that its DEADLINE_EXCEEDED
  // normally arrives first.
  connector::WaitOnTask(
      *timer_, executor_, [&check] { return check->result.has_value(); },
      timer_->clock().Now() + options_.flush_timeout + absl::Seconds(1));
  // Returns only once gRPC is done with `check` (immediately if it is).
  check->context.TryCancel();
  answered->WaitForNone();
  if (check->result.has_value() &&
      check->result->code() == absl::StatusCode::kNotFound) {
    return PublishError(*check->result);
  }
  return absl::OkStatus();
}

absl::Status PubSubDeadLetterQueue::CheckOpen(const char* method) const {
  if (engine_ != nullptr) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("pubsub dead-letter queue: ", method, "() before Open()"));
}

absl::Status PubSubDeadLetterQueue::Offer(const FailedElement& failure) {
  if (absl::Status status = CheckOpen("Offer"); !status.ok()) return status;
  if (!engine_->failure().ok()) return PublishError(engine_->failure());
  PubsubMessage& message = engine_->StagedMessage();
  message = ToMessage(failure);
  // Refused here rather than by the engine, whose fail-job handler would
  // fail the queue for one failure that cannot be sent.
  absl::StatusOr<int64_t> bytes = CheckedMessageSize(message);
  absl::Status fits =
      bytes.ok() ? size_check_.CheckMessage(*bytes) : bytes.status();
  if (!fits.ok()) {
    engine_->DiscardStaged();
    return absl::InvalidArgumentError(
        absl::StrCat("pubsub dead-letter queue: cannot dead-letter a failed ",
                     failure.connector, " record for ", failure.destination,
                     ": ", fits.message()));
  }
  if (absl::Status published = engine_->PublishStaged(topic_, WriterContext());
      !published.ok()) {
    return PublishError(published);
  }
  const int64_t limit = options_.max_outstanding_messages;
  if (limit >= 0 && outstanding() > limit) {
    return WaitForOutstanding(limit, "Offer()");
  }
  return absl::OkStatus();
}

absl::Status PubSubDeadLetterQueue::Flush() {
  if (absl::Status status = CheckOpen("Flush"); !status.ok()) return status;
  return WaitForOutstanding(0, "Flush()");
}

void PubSubDeadLetterQueue::Close() {
  if (engine_ != nullptr) engine_->Close();
  engine_.reset();
}

absl::Status PubSubDeadLetterQueue::WaitForOutstanding(int64_t limit,
                                                       const char* why) {
  const connector::WaitResult result =
      engine_->SendAndWaitForInFlightAtMost(limit, options_.flush_timeout);
  if (!engine_->failure().ok()) return PublishError(engine_->failure());
  if (result == connector::WaitResult::kDone) return absl::OkStatus();
  const std::string pending =
      absl::StrCat(outstanding(), " dead letters to ", topic_name_,
                   " are not acknowledged yet; they stay pending and the next "
                   "Flush() waits for them again");
  if (result == connector::WaitResult::kCancelled) {
    return absl::CancelledError(absl::StrCat(
        "pubsub dead-letter queue: ", why,
        " stopped waiting because the job was cancelled; ", pending));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("pubsub dead-letter queue: ", why, " timed out after ",
                   absl::FormatDuration(options_.flush_timeout), " (option '",
                   kFlushTimeoutKey, "'): ", pending));
}

absl::Status PubSubDeadLetterQueue::PublishError(
    const absl::Status& status) const {
  if (status.code() != absl::StatusCode::kNotFound) return status;
  return absl::NotFoundError(absl::StrCat(
      "pubsub dead-letter queue: the dead-letter topic ", topic_name_,
      " does not exist; it must exist: create it before starting the job, "
      "gcpstream never creates it"));
}

}  // namespace gcpstream::pubsub
