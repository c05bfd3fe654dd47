#include "gcpstream/pubsub/publish_engine.h"

#include <algorithm>
#include <utility>

#include <grpcpp/client_context.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/pubsub/pubsub_message.h"
#include "spdlog/spdlog.h"

namespace gcpstream::pubsub {
namespace {

using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::PubsubMessage;

// The deadline of one attempt, as in Google's clients. A hung attempt (the
// emulator hangs on oversized requests) ends as a retryable
// DEADLINE_EXCEEDED instead of waiting forever.
constexpr absl::Duration kAttemptTimeout = absl::Seconds(60);

constexpr connector::ConnectorName kPubSubWriter{
    .name = "pubsub",
    .error_metric_prefix = "publish_errors_",
    .error_metric_help = "Publish calls that failed with this status code."};

}  // namespace

// One PublishRequest through all its attempts. Owned by the engine, touched
// only on the task thread; gRPC uses `context`, `batch.request` and
// `response` between an attempt's start and its callback, and the engine
// frees a Call only after that callback ran.
struct PublishEngine::Call {
  uint64_t id = 0;
  TopicDestination topic;
  PublishBatch batch;
  PublishResponse response;
  std::unique_ptr<grpc::ClientContext> context;
  std::optional<connector::Retry> retry;
  // Waiting out a backoff.
  connector::TaskTimer::Id retry_timer = 0;
  // Refused with NOT_FOUND; waits for the topic to be created.
  bool parked = false;
};

absl::StatusOr<std::unique_ptr<PublishEngine>> PublishEngine::Create(
    PubSubSinkOptions options, const runtime::SinkWriterContext& context,
    std::unique_ptr<Handler> handler) {
  if (absl::Status status = CheckPubSubSinkOptions(options); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      auth::MakeChannel(auth::Service::kPubSub, options.channel);
  if (!channel.ok()) return channel.status();
  auto engine = std::make_unique<PublishEngine>(
      ConstructorKey(), std::move(options), context, *std::move(channel));
  if (absl::Status status = engine->Init(context, std::move(handler));
      !status.ok()) {
    return status;
  }
  return engine;
}

PublishEngine::PublishEngine(ConstructorKey, PubSubSinkOptions options,
                             const runtime::SinkWriterContext& context,
                             std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      executor_(context.mailbox),
      timer_(connector::MakeTimer(options_.make_timer, executor_)),
      clock_(options_.clock != nullptr ? *options_.clock : timer_->clock()),
      channel_(std::move(channel)),
      publishers_(
          DestinationStatesOptions{
              .idle_timeout = options_.destination_idle_timeout,
              .capacity = static_cast<size_t>(options_.max_active_publishers)},
          [this](const TopicDestination& topic) {
            return std::make_unique<TopicPublisher>(
                topic, options_.batching, clock_, options_.shutdown_timeout);
          }),
      completions_(executor_) {}

PublishEngine::~PublishEngine() { Close(); }

absl::Status PublishEngine::Init(const runtime::SinkWriterContext& context,
                                 std::unique_ptr<Handler> handler) {
  if (absl::Status status = core_.Open(
          connector::WriterCoreOptions::For(kPubSubWriter, options_,
                                            kPublishClassification, clock_),
          context, std::move(handler));
      !status.ok()) {
    return status;
  }
  in_flight_.emplace(
      connector::InFlightOptions{
          .max_records = options_.max_in_flight_messages,
          .max_bytes = options_.max_in_flight_bytes,
          .progress_timeout = options_.publish_progress_timeout,
          .max_records_key = "max-in-flight-messages",
          .max_bytes_key = "max-in-flight-bytes",
          .progress_timeout_key = kPublishProgressTimeoutKey,
          .completion = "publish",
          .records = "messages"},
      core_, *timer_, executor_);
  return RegisterMetrics();
}

absl::Status PublishEngine::RegisterMetrics() {
  connector::MetricSet set = core_.ConnectorMetrics();
  in_flight_->MirrorRecordsTo(
      set.AddGauge("in_flight_messages",
                   "Messages written and not yet acknowledged or routed."));
  pubsub_metrics_ = Metrics{
      .parked_messages = set.AddGauge(
          "parked_messages", "Messages waiting for their topic to be created."),
      .publishers_evicted =
          set.AddCounter("publishers_evicted",
                         "Topic publishers released, idle or for capacity."),
      // Finer than the default duration buckets: a healthy publish takes
      // milliseconds.
      .publish_latency = set.AddHistogram(
          "publish_latency_seconds",
          "Seconds from sending a Publish request to its answer, per attempt.",
          {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2,
           5, 10, 30, 60}),
      .written_mirror = nullptr,
  };
  publishers_.SetMetrics(std::make_shared<
                         DestinationMetrics>(DestinationMetrics{
      .active =
          set.AddGauge("publishers_active", "Topics with an open publisher."),
      .created =
          set.AddCounter("publishers_created", "Topic publishers opened."),
      .evicted_idle = set.AddCounter(
          "publishers_evicted_idle",
          "Publishers released after destination-idle-timeout unused."),
      .evicted_capacity = set.AddCounter(
          "publishers_evicted_capacity",
          "Least-recently-used publishers released for max-active-publishers."),
  }));
  stub_ = MakePublisherStub(
      channel_, options_.make_stub,
      connector::LoggedAndTimed(
          options_.name, {{"Publish", pubsub_metrics_.publish_latency}}));
  creator_.emplace(
      options_, clock_, *stub_, *timer_, completions_,
      set.AddCounter("topics_created", "Topics this sink created."),
      TopicCreator::Callbacks{
          // A failed writer acts on no answer.
          .find = [this](const TopicDestination& topic) -> TopicPublisher* {
            return core_.failed() ? nullptr : publishers_.Find(topic);
          },
          .on_exists =
              [this](TopicPublisher& publisher) { RepublishParked(publisher); },
          .on_failed =
              [this](const absl::Status& status) { core_.Fail(status); },
          .on_answer = [this] { in_flight_->OnProgress(); }});
  return set.status();
}

absl::Status PublishEngine::PublishStaged(const TopicDestination& topic,
                                          const WriterContext& context) {
  PubsubMessage& message = StagedMessage();
  // Whatever return is taken before the request takes the message over,
  // the next record gets it empty.
  absl::Cleanup discard = [this] { DiscardStaged(); };
  if (core_.failed()) return core_.failure();
  if (!message.ordering_key().empty() && !options_.enable_message_ordering) {
    return core_.Fail(absl::FailedPreconditionError(absl::StrCat(
        options_.name, ": record #", context.record_position, " (subtask ",
        context.subtask_index,
        ") has an ordering key but message ordering is off; set option '",
        kEnableMessageOrderingKey, "' to true, or do not set ordering keys")));
  }
  // Computed once: the batcher and the caps all count this size.
  absl::StatusOr<int64_t> checked = CheckedMessageSize(message);
  if (!checked.ok()) {
    core_.Route(PubSubFailedElement::Of(topic.ResourceName(), message,
                                        checked.status(), /*attempts=*/1));
    return core_.failure();
  }
  const int64_t bytes = *checked;
  if (absl::Status room =
          in_flight_->WaitForRoom(bytes, [this] { SendDue(/*all=*/true); });
      !room.ok()) {
    return room;
  }
  // Most records go where the previous one went: its publisher is reused
  // without a lookup or a clock read. Its last use is then recorded when a
  // batch opens, at most one open batch (max-batch-delay) early for the
  // idle sweep.
  TopicPublisher* publisher = last_publisher_;
  const bool fixed = &topic == fixed_topic_;
  const bool same_topic =
      publisher != nullptr &&
      ((fixed && last_publisher_is_fixed_) || publisher->topic() == topic);
  if (!same_topic) {
    last_publisher_ = nullptr;  // Acquiring may release it.
    absl::StatusOr<TopicPublisher*> acquired = AcquirePublisher(topic);
    if (!acquired.ok()) return core_.Fail(acquired.status());
    publisher = last_publisher_ = *acquired;
    last_publisher_is_fixed_ = fixed;
  }
  if (absl::Status refused = publisher->CheckMessage(bytes); !refused.ok()) {
    core_.Route(PubSubFailedElement::Of(publisher->topic_name(), message,
                                        refused, /*attempts=*/1));
    return core_.failure();
  }
  in_flight_->Add(1, bytes);
  const bool opened_batch = publisher->Add(std::move(staged_), bytes, to_send_);
  Send(*publisher, to_send_);
  if (opened_batch) {
    publishers_.MarkUsed(topic, clock_.Now());
    if (batch_timer_ == 0) ArmTimer();
  }
  return core_.failure();
}

absl::StatusOr<TopicPublisher*> PublishEngine::AcquirePublisher(
    const TopicDestination& topic) {
  while (true) {
    absl::StatusOr<
        DestinationStates<TopicDestination, TopicPublisher>::Acquired>
        acquired = publishers_.Acquire(topic, clock_.Now());
    SyncEvictionMetric();
    if (!acquired.ok()) return acquired.status();
    if (!acquired->must_wait) return acquired->state;
    // Every publisher has work in flight: send it all and wait until one
    // of them is clean.
    SendDue(/*all=*/true);
    absl::Status waited = in_flight_->WaitUntil(
        [&] {
          bool any_clean = false;
          publishers_.ForEach([&](const TopicDestination&, TopicPublisher& p) {
            any_clean |= p.IsClean();
          });
          return any_clean;
        },
        "a publisher slot (option 'max-active-publishers')");
    if (!waited.ok()) return waited;
  }
}

void PublishEngine::Send(TopicPublisher& publisher,
                         std::vector<PublishBatch>& batches) {
  for (PublishBatch& batch : batches) {
    auto call = std::make_unique<Call>();
    call->id = next_call_id_++;
    call->topic = publisher.topic();
    call->batch = std::move(batch);
    // Cannot fail: the retry options were checked in Create(). A publish
    // may be resent: a duplicate is what at-least-once allows.
    call->retry.emplace(*connector::Retry::Create(
        options_.retry, clock_, connector::Idempotency::kIdempotent));
    Call& started = *call;
    calls_.emplace(started.id, std::move(call));
    StartAttempt(started, publisher);
  }
  batches.clear();
}

void PublishEngine::StartAttempt(Call& call, TopicPublisher& publisher) {
  call.context = std::make_unique<grpc::ClientContext>();
  call.context->set_deadline(
      absl::ToChronoTime(call.retry->AttemptDeadline(kAttemptTimeout)));
  call.response.Clear();
  core_.metrics().requests->Increment();
  stub_->AsyncPublish(*call.context, call.batch.request, call.response,
                      completions_.Wrap(
                          [this, id = call.id](const absl::Status& status) {
                            OnPublishDone(id, status);
                          },
                          publisher.tracker()));
}

void PublishEngine::OnPublishDone(uint64_t id, const absl::Status& status) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;  // Abandoned by Close().
  Call& call = *it->second;
  in_flight_->OnProgress();
  TopicPublisher* publisher = publishers_.Find(call.topic);
  if (publisher == nullptr) {
    // Unreachable: a publisher with calls is never clean, so never released.
    core_.Fail(absl::InternalError(absl::StrCat(
        options_.name, ": lost the publisher of ", call.topic.ResourceName())));
    return;
  }
  if (status.ok()) {
    SinkMetrics& metrics = core_.metrics();
    metrics.records_written->Increment(call.batch.request.messages_size());
    metrics.bytes_written->Increment(call.batch.bytes);
    if (pubsub_metrics_.written_mirror != nullptr) {
      pubsub_metrics_.written_mirror->Increment(
          call.batch.request.messages_size());
    }
    if (call.batch.confirming) {
      core_.rejection().OnSingleResult(status);
    } else {
      core_.rejection().OnSuccess();
    }
    Resolve(it, *publisher);
    return;
  }
  core_.CountError(status);
  if (status.code() == absl::StatusCode::kNotFound) {
    OnNotFound(call, *publisher, status);
    return;
  }
  const StatusClass status_class =
      kPublishClassification.ClassifyRequest(status);
  if (status_class == StatusClass::kPerRecord) {
    if (call.batch.confirming || call.batch.request.messages_size() == 1) {
      OnRefusedAlone(call, *publisher, status);
      return;
    }
    // One message may have spoilt the batch: re-send each alone.
    PublishBatch refused = std::move(call.batch);
    calls_.erase(it);
    std::vector<PublishBatch> to_send;
    publisher->Resend(std::move(refused), to_send);
    Send(*publisher, to_send);
    return;
  }
  RetryOrFail(call, *publisher, status, status_class);
}

void PublishEngine::OnRefusedAlone(Call& call, TopicPublisher& publisher,
                                   const absl::Status& status) {
  RejectionConfirmation::Verdict verdict =
      core_.rejection().OnSingleResult(status);
  switch (verdict.kind) {
    case ConfirmationVerdict::kRouted:
      core_.Route(PubSubFailedElement::Of(publisher.topic_name(),
                                          call.batch.request.messages(0),
                                          status, call.retry->attempts()));
      Resolve(calls_.find(call.id), publisher);
      return;
    case ConfirmationVerdict::kRetry:
      RetryOrFail(call, publisher, status, StatusClass::kTransient);
      return;
    case ConfirmationVerdict::kWritten:  // Not reached: status is an error.
    case ConfirmationVerdict::kFatal:
      core_.Fail(verdict.status);
      return;
  }
}

void PublishEngine::OnNotFound(Call& call, TopicPublisher& publisher,
                               const absl::Status& status) {
  if (options_.create_disposition == CreateDisposition::kCreateNever) {
    core_.Fail(absl::NotFoundError(absl::StrCat(
        options_.name, ": topic ", publisher.topic_name(),
        " does not exist and option '", kCreateDispositionOption.key(),
        "' is '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateNever),
        "' (the default); check the topic's spelling and create it with its "
        "subscriptions, or set the option to '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateIfNeeded),
        "' (a created topic has no subscription: what is published before "
        "one exists is not kept). The service said: ",
        status.message())));
    return;
  }
  if (publisher.state() == TopicState::kExists) {
    // Created moments ago: the service may not serve it everywhere yet.
    RetryOrFail(call, publisher, status, StatusClass::kTransient);
    return;
  }
  call.parked = true;
  parked_messages_ += call.batch.request.messages_size();
  pubsub_metrics_.parked_messages->Set(parked_messages_);
  if (publisher.state() != TopicState::kCreating) creator_->Start(publisher);
}

void PublishEngine::RetryOrFail(Call& call, TopicPublisher& publisher,
                                const absl::Status& status,
                                StatusClass status_class) {
  RetryDecision decision = call.retry->OnFailure(status, status_class);
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    core_.Fail(connector::Reworded(
        decision.status, absl::StrCat(options_.name, ": publishing ",
                                      call.batch.request.messages_size(),
                                      " messages to ", publisher.topic_name(),
                                      " failed: ", decision.status.message())));
    return;
  }
  core_.metrics().request_retries->Increment();
  call.retry_timer = timer_->Schedule(decision.delay,
                                      [this, id = call.id] { OnRetryDue(id); });
}

void PublishEngine::OnRetryDue(uint64_t id) {
  auto it = calls_.find(id);
  if (it == calls_.end() || core_.failed()) return;
  it->second->retry_timer = 0;
  TopicPublisher* publisher = publishers_.Find(it->second->topic);
  if (publisher != nullptr) StartAttempt(*it->second, *publisher);
}

void PublishEngine::Resolve(Calls::iterator it, TopicPublisher& publisher) {
  in_flight_->Release(it->second->batch.request.messages_size(),
                      it->second->batch.bytes);
  const std::string key = it->second->batch.ordering_key;
  calls_.erase(it);
  if (core_.failed()) return;  // A failed writer sends nothing more.
  std::vector<PublishBatch> to_send;
  publisher.OnBatchDone(key, to_send);
  Send(publisher, to_send);
}

void PublishEngine::RepublishParked(TopicPublisher& publisher) {
  // In id order, which is send order: a key's parked batch is its only
  // outstanding one, and unordered batches keep their original order.
  for (auto& [id, call] : calls_) {
    if (!call->parked || !(call->topic == publisher.topic())) continue;
    call->parked = false;
    parked_messages_ -= call->batch.request.messages_size();
    StartAttempt(*call, publisher);
  }
  pubsub_metrics_.parked_messages->Set(parked_messages_);
}

absl::Status PublishEngine::Flush(bool end_of_input) {
  const absl::Time started = clock_.Now();
  if (core_.failed()) return core_.failure();
  SendDue(/*all=*/true);
  if (absl::Status drained =
          in_flight_->WaitUntil([this] { return in_flight_->empty(); },
                                "every publish to be acknowledged (Flush)");
      !drained.ok()) {
    return drained;
  }
  if (!end_of_input) {
    last_publisher_ = nullptr;  // The sweep may release it.
    absl::Status swept = publishers_.SweepIdle(clock_.Now());
    SyncEvictionMetric();
    if (!swept.ok()) return core_.Fail(swept);
  }
  return core_.FinishFlush(started);
}

connector::WaitResult PublishEngine::SendAndWaitForInFlightAtMost(
    int64_t limit, absl::Duration timeout) {
  SendDue(/*all=*/true);
  return connector::WaitOnTask(
      *timer_, executor_,
      [this, limit] {
        return in_flight_->records() <= limit || core_.failed();
      },
      timer_->clock().Now() + timeout);
}

void PublishEngine::MirrorMetricsTo(std::shared_ptr<Counter> written,
                                    std::shared_ptr<Gauge> in_flight) {
  pubsub_metrics_.written_mirror = std::move(written);
  in_flight->Set(in_flight_->records());
  in_flight_->MirrorRecordsTo(std::move(in_flight));
}

absl::Status PublishEngine::OnInputIdle() {
  if (core_.failed()) return core_.failure();
  SendDue(/*all=*/true);
  return core_.failure();
}

void PublishEngine::SendDue(bool all) {
  publishers_.ForEach([&](const TopicDestination&, TopicPublisher& publisher) {
    std::vector<PublishBatch> to_send;
    publisher.CloseBatches(all, to_send);
    Send(publisher, to_send);
  });
}

void PublishEngine::ArmTimer() {
  absl::Time earliest = absl::InfiniteFuture();
  publishers_.ForEach([&](const TopicDestination&, TopicPublisher& publisher) {
    earliest = std::min(earliest, publisher.NextDeadline());
  });
  if (earliest == absl::InfiniteFuture()) return;
  const absl::Duration wait =
      std::max(earliest - clock_.Now(), absl::Milliseconds(1));
  batch_timer_ = timer_->Schedule(wait, [this] { OnTimer(); });
}

void PublishEngine::OnTimer() {
  batch_timer_ = 0;
  if (core_.failed() || closed_) return;
  SendDue(/*all=*/false);
  ArmTimer();
}

void PublishEngine::SyncEvictionMetric() {
  const DestinationStatesStats& stats = publishers_.stats();
  const int64_t evictions = stats.evicted_idle + stats.evicted_capacity;
  if (evictions > evictions_seen_) {
    pubsub_metrics_.publishers_evicted->Increment(evictions - evictions_seen_);
    evictions_seen_ = evictions;
  }
}

void PublishEngine::Close() {
  if (closed_) return;
  closed_ = true;
  timer_->CancelAll();
  for (auto& [id, call] : calls_) {
    if (call->context != nullptr) call->context->TryCancel();
  }
  if (creator_.has_value()) creator_->CancelAll();
  completions_.Close();
  calls_.clear();
  last_publisher_ = nullptr;
  (void)publishers_.ReleaseAll();
  core_.Close();
}

}  // namespace gcpstream::pubsub
