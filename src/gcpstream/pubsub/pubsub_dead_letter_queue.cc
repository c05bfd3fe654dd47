#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <grpcpp/client_context.h>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/dead_letter.h"
#include "gcpstream/base/options.h"
#include "gcpstream/connector/retry.h"
#include "gcpstream/connector/task_wait.h"
#include "gcpstream/pubsub/publish_classification.h"
#include "gcpstream/pubsub/pubsub_message.h"

namespace gcpstream::pubsub {
namespace {

using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::PubsubMessage;

// The deadline of one publish attempt, Google's clients' total publish
// timeout. A hung attempt (the emulator hangs on oversized requests) then
// ends as a retryable DEADLINE_EXCEEDED instead of waiting forever.
constexpr absl::Duration kAttemptTimeout = absl::Seconds(60);

}  // namespace

// One PublishRequest through all its attempts. Owned by the queue and only
// touched on the task thread; gRPC uses `context`, `request` and `response`
// between the start of an attempt and its callback, and the queue destroys
// a Call only after that callback ran (see connector::Completions).
struct PubSubDeadLetterQueue::Call {
  uint64_t id = 0;
  int64_t messages = 0;
  PublishRequest request;
  PublishResponse response;
  std::unique_ptr<grpc::ClientContext> context;
  std::optional<connector::Retry> retry;
  // Waiting out a backoff.
  connector::TaskTimer::Id retry_timer = 0;
};

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
      clock_(options_.clock != nullptr ? *options_.clock : timer_->clock()),
      channel_(std::move(channel)),
      stub_(MakePublisherStub(
          channel_, options_.make_stub,
          connector::LoggedAndTimed("pubsub dead-letter queue"))),
      topic_name_(absl::StrCat("projects/", options_.project, "/topics/",
                               options_.topic)),
      completions_(std::make_unique<connector::Completions>(executor_)),
      published_(std::make_shared<Counter>()),
      outstanding_gauge_(std::make_shared<Gauge>()) {}

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
  completions_ = std::make_unique<connector::Completions>(executor_);
  failure_ = absl::OkStatus();
  // Without a registry the metrics are private (still counted, for tests
  // and logs), never those of an earlier Open().
  published_ = std::make_shared<Counter>();
  outstanding_gauge_ = std::make_shared<Gauge>();
  if (context.metrics != nullptr) {
    absl::StatusOr<std::shared_ptr<Counter>> published =
        context.metrics->GetCounter(
            "dead_letters_published",
            "Failed records published to a Pub/Sub dead-letter topic and "
            "acknowledged",
            context.labels);
    if (!published.ok()) return published.status();
    absl::StatusOr<std::shared_ptr<Gauge>> outstanding =
        context.metrics->GetGauge(
            "dead_letters_outstanding",
            "Failed records offered to a Pub/Sub dead-letter queue and not "
            "yet acknowledged",
            context.labels);
    if (!outstanding.ok()) return outstanding.status();
    published_ = *std::move(published);
    outstanding_gauge_ = *std::move(outstanding);
  }
  outstanding_gauge_->Set(0);
  absl::StatusOr<PublishBatcher> batcher =
      PublishBatcher::Create(topic_name_, options_.batching, clock_);
  if (!batcher.ok()) return batcher.status();
  batcher_.emplace(*std::move(batcher));
  if (absl::Status exists = CheckTopicExists(); !exists.ok()) return exists;
  open_ = true;
  return absl::OkStatus();
}

absl::Status PubSubDeadLetterQueue::CheckTopicExists() {
  auto check = std::make_shared<TopicCheck>();
  check->request.set_topic(topic_name_);
  check->context.set_deadline(
      absl::ToChronoTime(absl::Now() + options_.flush_timeout));
  // Counts this call alone, so Open() waits for it and nothing else.
  auto answered = std::make_shared<connector::CallbackTracker>();
  stub_->AsyncGetTopic(
      check->context, check->request, check->response,
      completions_->Wrap(
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
  if (open_) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("pubsub dead-letter queue: ", method, "() before Open()"));
}

absl::Status PubSubDeadLetterQueue::Offer(const FailedElement& failure) {
  if (absl::Status status = CheckOpen("Offer"); !status.ok()) return status;
  if (!failure_.ok()) return failure_;
  PubsubMessage message = ToMessage(failure);
  if (absl::Status status = batcher_->CheckMessage(message); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pubsub dead-letter queue: cannot dead-letter a failed ",
                     failure.connector, " record for ", failure.destination,
                     ": ", status.message()));
  }
  if (!batcher_->HasRoomFor(message)) SendBuffered();
  if (absl::Status status = batcher_->Add(std::move(message)); !status.ok()) {
    return status;
  }
  ++outstanding_;
  outstanding_gauge_->Set(outstanding_);
  // Without a timer of its own, a partial batch goes out when a later
  // Offer() finds it due, or at Flush().
  if (batcher_->Full() || batcher_->Due()) SendBuffered();
  const int64_t limit = options_.max_outstanding_messages;
  if (limit >= 0 && outstanding_ > limit) {
    SendBuffered();
    return WaitForOutstanding(limit, "Offer()");
  }
  return failure_;
}

absl::Status PubSubDeadLetterQueue::Flush() {
  if (absl::Status status = CheckOpen("Flush"); !status.ok()) return status;
  if (!failure_.ok()) return failure_;
  SendBuffered();
  return WaitForOutstanding(0, "Flush()");
}

void PubSubDeadLetterQueue::Close() {
  CancelAll();
  calls_.clear();
  batcher_.reset();
  outstanding_ = 0;
  outstanding_gauge_->Set(0);
  open_ = false;
}

absl::Status PubSubDeadLetterQueue::WaitForOutstanding(int64_t limit,
                                                       const char* why) {
  const connector::WaitResult result = connector::WaitOnTask(
      *timer_, executor_,
      [this, limit] { return outstanding_ <= limit || !failure_.ok(); },
      timer_->clock().Now() + options_.flush_timeout);
  if (!failure_.ok()) return failure_;
  if (result == connector::WaitResult::kDone) return absl::OkStatus();
  const std::string pending =
      absl::StrCat(outstanding_, " dead letters to ", topic_name_,
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

void PubSubDeadLetterQueue::SendBuffered() {
  if (!batcher_.has_value() || batcher_->empty()) return;
  auto call = std::make_unique<Call>();
  call->id = next_call_id_++;
  call->messages = batcher_->messages();
  call->request = batcher_->Take();
  absl::StatusOr<connector::Retry> retry = connector::Retry::Create(
      options_.retry, clock_, connector::Idempotency::kIdempotent);
  if (!retry.ok()) {
    // Unreachable: the options were checked in Create(). The messages stay
    // outstanding, so nothing pretends to be published.
    if (failure_.ok()) failure_ = retry.status();
    return;
  }
  call->retry.emplace(*std::move(retry));
  Call& started = *call;
  calls_.emplace(started.id, std::move(call));
  StartAttempt(started);
}

void PubSubDeadLetterQueue::StartAttempt(Call& call) {
  call.context = std::make_unique<grpc::ClientContext>();
  call.context->set_deadline(
      absl::ToChronoTime(call.retry->AttemptDeadline(kAttemptTimeout)));
  call.response.Clear();
  stub_->AsyncPublish(
      *call.context, call.request, call.response,
      completions_->Wrap([this, id = call.id](const absl::Status& status) {
        OnPublishDone(id, status);
      }));
}

void PubSubDeadLetterQueue::OnPublishDone(uint64_t id,
                                          const absl::Status& status) {
  auto it = calls_.find(id);
  // A call of an earlier Open(), abandoned by Close().
  if (it == calls_.end()) return;
  Call& call = *it->second;
  if (status.ok()) {
    outstanding_ -= call.messages;
    outstanding_gauge_->Set(outstanding_);
    published_->Increment(call.messages);
    calls_.erase(it);
    return;
  }
  RetryDecision decision =
      call.retry->OnFailure(status, TransientOrFatal(status));
  if (decision.action == RetryDecision::Action::kRetryAfter && failure_.ok()) {
    call.retry_timer =
        timer_->Schedule(decision.delay, [this, id] { OnRetryDue(id); });
    return;
  }
  // The messages stay counted as outstanding: they were not published.
  if (failure_.ok()) failure_ = PublishError(decision.status);
  calls_.erase(it);
}

void PubSubDeadLetterQueue::OnRetryDue(uint64_t id) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  it->second->retry_timer = 0;
  StartAttempt(*it->second);
}

absl::Status PubSubDeadLetterQueue::PublishError(
    const absl::Status& status) const {
  if (status.code() == absl::StatusCode::kNotFound) {
    return absl::NotFoundError(absl::StrCat(
        "pubsub dead-letter queue: the dead-letter topic ", topic_name_,
        " does not exist (", status.message(),
        "); the dead-letter topic must exist: create it before starting the "
        "job, gcpstream never creates it"));
  }
  absl::Status error(status.code(),
                     absl::StrCat("pubsub dead-letter queue: publishing to "
                                  "dead-letter topic ",
                                  topic_name_, " failed: ", status.message()));
  // Keeps markers such as IsRetryExhausted().
  status.ForEachPayload(
      [&error](absl::string_view url, const absl::Cord& payload) {
        error.SetPayload(url, payload);
      });
  return error;
}

void PubSubDeadLetterQueue::CancelAll() {
  for (auto& [id, call] : calls_) {
    if (call->context != nullptr) call->context->TryCancel();
  }
  timer_->CancelAll();
  completions_->Close();
}

}  // namespace gcpstream::pubsub
