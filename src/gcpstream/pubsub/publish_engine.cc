#include "gcpstream/pubsub/publish_engine.h"

#include <algorithm>
#include <utility>

#include <grpcpp/client_context.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/backoff_policy.h"
#include "gcpstream/pubsub/pubsub_message.h"
#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace gcpstream::pubsub {
namespace {

using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::PubsubMessage;
using ::google::pubsub::v1::Topic;

// The deadline of one attempt, as in Google's clients. A hung attempt (the
// emulator hangs on oversized requests) ends as a retryable
// DEADLINE_EXCEEDED instead of waiting forever.
constexpr absl::Duration kAttemptTimeout = absl::Seconds(60);

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return {static_cast<absl::StatusCode>(status.error_code()),
          status.error_message()};
}

absl::Time AttemptDeadline(const RetryState& retry, const Clock& clock) {
  const absl::Duration budget = retry.deadline() - clock.Now();
  return absl::Now() +
         std::clamp(budget, absl::Milliseconds(1), kAttemptTimeout);
}

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
  std::optional<RetryState> retry;
  std::unique_ptr<grpc::Alarm> alarm;
  // Refused with NOT_FOUND; waits for the topic to be created.
  bool parked = false;
};

absl::StatusOr<std::unique_ptr<PublishEngine>> PublishEngine::Create(
    PubSubSinkOptions options, const runtime::SinkWriterContext& context,
    std::unique_ptr<Handler> handler) {
  if (absl::Status status = CheckPubSubSinkOptions(options); !status.ok()) {
    return status;
  }
  if (handler == nullptr) handler = FailJob<PubSubFailedElement>();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      auth::MakeChannel(auth::Service::kPubSub, options.channel);
  if (!channel.ok()) return channel.status();
  auto engine = std::make_unique<PublishEngine>(
      ConstructorKey(), std::move(options), context, std::move(handler),
      *std::move(channel));
  if (absl::Status status = engine->Init(context); !status.ok()) return status;
  return engine;
}

PublishEngine::PublishEngine(ConstructorKey, PubSubSinkOptions options,
                             const runtime::SinkWriterContext& context,
                             std::unique_ptr<Handler> handler,
                             std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock
                                       : RealClock::Instance()),
      executor_(context.mailbox),
      subtask_index_(context.subtask_index),
      channel_(std::move(channel)),
      stub_(google::pubsub::v1::Publisher::NewStub(channel_)),
      handler_(std::move(handler)),
      registry_(context.metrics),
      publishers_(
          DestinationStatesOptions{
              .idle_timeout = options_.destination_idle_timeout,
              .capacity = static_cast<size_t>(options_.max_active_publishers)},
          [this](const TopicDestination& topic) {
            return std::make_unique<TopicPublisher>(
                topic, options_.batching, clock_, options_.shutdown_timeout);
          }),
      tracker_(std::make_shared<CallbackTracker>()),
      self_(std::make_shared<PublishEngine*>(this)) {
  labels_.pipeline = context.pipeline;
  labels_.operator_name = context.sink_name;
  labels_.subtask = context.subtask_index;
}

PublishEngine::~PublishEngine() { Close(); }

absl::Status PublishEngine::Init(const runtime::SinkWriterContext& context) {
  absl::StatusOr<RejectionConfirmation> rejection =
      RejectionConfirmation::Create(kPublishClassification,
                                    options_.max_consecutive_rejections,
                                    options_.name);
  if (!rejection.ok()) return rejection.status();
  rejection_.emplace(*std::move(rejection));
  if (absl::Status status = RegisterMetrics(context); !status.ok()) {
    return status;
  }
  return handler_->Open(FailureHandlerContext{.subtask_index = subtask_index_,
                                              .connector = "pubsub",
                                              .metrics = registry_,
                                              .labels = labels_});
}

absl::Status PublishEngine::RegisterMetrics(
    const runtime::SinkWriterContext& context) {
  // Without a registry the metrics are private: still counted, for tests.
  MetricsRegistry private_registry;
  MetricsRegistry& registry =
      context.metrics != nullptr ? *context.metrics : private_registry;
  absl::StatusOr<SinkMetrics> sink = SinkMetrics::Create(registry, labels_);
  if (!sink.ok()) return sink.status();
  metrics_ = *std::move(sink);
  auto gauge = [&](const char* name, const char* help) {
    return registry.GetGauge(name, help, labels_);
  };
  auto counter = [&](const char* name, const char* help) {
    return registry.GetCounter(name, help, labels_);
  };
  auto in_flight =
      gauge("in_flight_messages",
            "Messages written and not yet acknowledged or routed.");
  auto parked = gauge("parked_messages",
                      "Messages waiting for their topic to be created.");
  auto created = counter("topics_created", "Topics this sink created.");
  auto evicted = counter("publishers_evicted",
                         "Topic publishers released, idle or for capacity.");
  auto active = gauge("publishers_active", "Topics with an open publisher.");
  auto opened = counter("publishers_created", "Topic publishers opened.");
  auto evicted_idle =
      counter("publishers_evicted_idle",
              "Publishers released after destination-idle-timeout unused.");
  auto evicted_capacity = counter(
      "publishers_evicted_capacity",
      "Least-recently-used publishers released for max-active-publishers.");
  // Finer than the default duration buckets: a healthy publish takes
  // milliseconds.
  auto latency = registry.GetHistogram(
      "publish_latency_seconds",
      "Seconds from sending a Publish request to its answer, per attempt.",
      labels_,
      {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5,
       10, 30, 60});
  for (const absl::Status& status :
       {in_flight.status(), parked.status(), created.status(), evicted.status(),
        active.status(), opened.status(), evicted_idle.status(),
        evicted_capacity.status(), latency.status()}) {
    if (!status.ok()) return status;
  }
  pubsub_metrics_ = Metrics{.in_flight_messages = *in_flight,
                            .parked_messages = *parked,
                            .topics_created = *created,
                            .publishers_evicted = *evicted,
                            .publish_latency = *latency};
  publishers_.SetMetrics(std::make_shared<DestinationMetrics>(
      DestinationMetrics{.active = *active,
                         .created = *opened,
                         .evicted_idle = *evicted_idle,
                         .evicted_capacity = *evicted_capacity}));
  return absl::OkStatus();
}

absl::Status PublishEngine::PublishStaged(const TopicDestination& topic,
                                          const WriterContext& context) {
  PubsubMessage& message = StagedMessage();
  // Whatever return is taken before the request takes the message over,
  // the next record gets it empty.
  absl::Cleanup discard = [this] { DiscardStaged(); };
  if (!failure_.ok()) return failure_;
  if (!message.ordering_key().empty() && !options_.enable_message_ordering) {
    Fail(absl::FailedPreconditionError(absl::StrCat(
        options_.name, ": record #", context.record_position, " (subtask ",
        context.subtask_index,
        ") has an ordering key but message ordering is off; set option '",
        kEnableMessageOrderingKey, "' to true, or do not set ordering keys")));
    return failure_;
  }
  // Computed once: the batcher and the caps all count this size.
  absl::StatusOr<int64_t> checked = CheckedMessageSize(message);
  if (!checked.ok()) {
    Route(topic.ResourceName(), message, checked.status(), /*attempts=*/1);
    return failure_;
  }
  const int64_t bytes = *checked;
  if (absl::Status room = WaitForRoom(bytes); !room.ok()) {
    return room;
  }
  // Most records go where the previous one went: its publisher is reused
  // without a lookup or a clock read. Its last use is then recorded when a
  // batch opens, at most one open batch (batch-max-delay) early for the
  // idle sweep.
  TopicPublisher* publisher = last_publisher_;
  const bool fixed = &topic == fixed_topic_;
  const bool same_topic =
      publisher != nullptr &&
      ((fixed && last_publisher_is_fixed_) || publisher->topic() == topic);
  if (!same_topic) {
    last_publisher_ = nullptr;  // Acquiring may release it.
    absl::StatusOr<TopicPublisher*> acquired = AcquirePublisher(topic);
    if (!acquired.ok()) {
      Fail(acquired.status());
      return failure_;
    }
    publisher = last_publisher_ = *acquired;
    last_publisher_is_fixed_ = fixed;
  }
  if (absl::Status refused = publisher->CheckMessage(bytes); !refused.ok()) {
    Route(publisher->topic_name(), message, refused, /*attempts=*/1);
    return failure_;
  }
  in_flight_messages_ += 1;
  in_flight_bytes_ += bytes;
  pubsub_metrics_.in_flight_messages->Set(in_flight_messages_);
  metrics_.in_flight_records->Set(in_flight_messages_);
  metrics_.in_flight_bytes->Set(in_flight_bytes_);
  const bool opened_batch = publisher->Add(std::move(staged_), bytes, to_send_);
  Send(*publisher, to_send_);
  if (opened_batch) {
    publishers_.MarkUsed(topic, clock_.Now());
    if (!timer_armed_) ArmTimer();
  }
  return failure_;
}

absl::Status PublishEngine::RouteSerializationFailure(
    const TopicDestination& topic, const absl::Status& status,
    const WriterContext& context) {
  if (!failure_.ok()) return failure_;
  PubSubFailedElement failed;
  failed.connector = "pubsub";
  failed.destination = topic.ResourceName();
  failed.status =
      absl::Status(status.code(), absl::StrCat("serializer failed on record #",
                                               context.record_position, ": ",
                                               status.message()));
  failed.payload = RecordPayloadOf(status);
  failed.failure_time = clock_.Now();
  failed.subtask_index = subtask_index_;
  metrics_.records_routed->Increment();
  if (absl::Status handled = handler_->Handle(failed); !handled.ok()) {
    Fail(handled);
  }
  return failure_;
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
    bool any_clean = false;
    absl::Status waited = WaitWithProgress(
        [&] {
          publishers_.ForEach([&](const TopicDestination&, TopicPublisher& p) {
            any_clean |= p.IsClean();
          });
          return any_clean;
        },
        "a publisher slot (option 'max-active-publishers')");
    if (!waited.ok()) return waited;
  }
}

absl::Status PublishEngine::WaitForRoom(int64_t bytes) {
  auto has_room = [&] {
    // A message larger than the byte cap still goes into an empty writer.
    return in_flight_messages_ == 0 ||
           (in_flight_messages_ + 1 <= options_.max_in_flight_messages &&
            in_flight_bytes_ + bytes <= options_.max_in_flight_bytes);
  };
  if (has_room()) return absl::OkStatus();
  // Batches still open would never complete: send them before waiting.
  SendDue(/*all=*/true);
  return WaitWithProgress(has_room, "room under max-in-flight-messages/-bytes");
}

template <typename Predicate>
absl::Status PublishEngine::WaitWithProgress(Predicate done, const char* what) {
  last_progress_ = absl::Now();
  while (failure_.ok()) {
    const absl::Time deadline =
        last_progress_ + options_.publish_progress_timeout;
    if (executor_.YieldUntil([&] { return done() || !failure_.ok(); },
                             deadline)) {
      break;
    }
    if (absl::Now() < deadline) {
      return absl::CancelledError(
          absl::StrCat(options_.name, ": stopped waiting for ", what,
                       " because the job was cancelled"));
    }
    // A completion since the wait began moves the deadline.
    if (absl::Now() < last_progress_ + options_.publish_progress_timeout) {
      continue;
    }
    Fail(absl::DeadlineExceededError(absl::StrCat(
        options_.name, ": no publish completed for ",
        absl::FormatDuration(options_.publish_progress_timeout),
        " while waiting for ", what, " (option '", kPublishProgressTimeoutKey,
        "'); ", in_flight_messages_, " messages are still in flight")));
  }
  return failure_;
}

void PublishEngine::Send(TopicPublisher& publisher,
                         std::vector<PublishBatch>& batches) {
  for (PublishBatch& batch : batches) {
    auto call = std::make_unique<Call>();
    call->id = next_call_id_++;
    call->topic = publisher.topic();
    call->batch = std::move(batch);
    // Cannot fail: the retry options were checked in Create().
    call->retry.emplace(
        *RetryState::Create(options_.retry, clock_, DefaultUniformRandom()));
    Call& started = *call;
    calls_.emplace(started.id, std::move(call));
    StartAttempt(started, publisher);
  }
  batches.clear();
}

void PublishEngine::StartAttempt(Call& call, TopicPublisher& publisher) {
  call.context = std::make_unique<grpc::ClientContext>();
  call.context->set_deadline(
      absl::ToChronoTime(AttemptDeadline(*call.retry, clock_)));
  call.context->AddMetadata("x-goog-request-params",
                            absl::StrCat("topic=", publisher.topic_name()));
  call.response.Clear();
  metrics_.requests->Increment();
  tracker_->Begin();
  publisher.tracker()->Begin();
  // Runs on a gRPC thread: only posts the result to the task thread.
  stub_->async()->Publish(
      call.context.get(), &call.batch.request, &call.response,
      [self = std::weak_ptr<PublishEngine*>(self_), executor = executor_,
       tracker = tracker_, topic_tracker = publisher.tracker(),
       latency = pubsub_metrics_.publish_latency, sent = absl::Now(),
       id = call.id](const grpc::Status& status) mutable {
        latency->Observe(absl::ToDoubleSeconds(absl::Now() - sent));
        executor.Post([self, id, result = FromGrpc(status)] {
          if (auto engine = self.lock()) (*engine)->OnPublishDone(id, result);
        });
        topic_tracker->End();
        tracker->End();
      });
}

void PublishEngine::OnPublishDone(uint64_t id, const absl::Status& status) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;  // Abandoned by Close().
  Call& call = *it->second;
  last_progress_ = absl::Now();
  TopicPublisher* publisher = publishers_.Find(call.topic);
  if (publisher == nullptr) {
    // Unreachable: a publisher with calls is never clean, so never released.
    Fail(absl::InternalError(absl::StrCat(
        options_.name, ": lost the publisher of ", call.topic.ResourceName())));
    return;
  }
  if (status.ok()) {
    const int64_t n = call.batch.request.messages_size();
    metrics_.records_written->Increment(n);
    metrics_.bytes_written->Increment(call.batch.bytes);
    if (call.batch.confirming) {
      rejection_->OnSingleResult(status);
    } else {
      rejection_->OnSuccess();
    }
    Resolve(it, *publisher);
    return;
  }
  CountError(status);
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
  RejectionConfirmation::Verdict verdict = rejection_->OnSingleResult(status);
  switch (verdict.kind) {
    case ConfirmationVerdict::kRouted:
      Route(publisher.topic_name(), call.batch.request.messages(0), status,
            call.retry->attempts());
      Resolve(calls_.find(call.id), publisher);
      return;
    case ConfirmationVerdict::kRetry:
      RetryOrFail(call, publisher, status, StatusClass::kTransient);
      return;
    case ConfirmationVerdict::kWritten:  // Not reached: status is an error.
    case ConfirmationVerdict::kFatal:
      Fail(verdict.status);
      return;
  }
}

void PublishEngine::OnNotFound(Call& call, TopicPublisher& publisher,
                               const absl::Status& status) {
  if (options_.create_disposition == CreateDisposition::kCreateNever) {
    Fail(absl::NotFoundError(absl::StrCat(
        options_.name, ": topic ", publisher.topic_name(),
        " does not exist and option '", kCreateDispositionOption.key(),
        "' is '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateNever),
        "'; create the topic, or set it to '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateIfNeeded),
        "'. The service said: ", status.message())));
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
  if (publisher.state() != TopicState::kCreating) StartCreate(publisher);
}

void PublishEngine::RetryOrFail(Call& call, TopicPublisher& publisher,
                                const absl::Status& status,
                                StatusClass status_class) {
  RetryDecision decision = call.retry->OnFailure(status, status_class);
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    Fail(absl::Status(decision.status.code(),
                      absl::StrCat(options_.name, ": publishing ",
                                   call.batch.request.messages_size(),
                                   " messages to ", publisher.topic_name(),
                                   " failed: ", decision.status.message())));
    return;
  }
  metrics_.request_retries->Increment();
  call.alarm = std::make_unique<grpc::Alarm>();
  tracker_->Begin();
  publisher.tracker()->Begin();
  call.alarm->Set(
      absl::ToChronoTime(absl::Now() + decision.delay),
      [self = std::weak_ptr<PublishEngine*>(self_), executor = executor_,
       tracker = tracker_, topic_tracker = publisher.tracker(),
       id = call.id](bool fired) mutable {
        executor.Post([self, id, fired] {
          if (auto engine = self.lock()) (*engine)->OnRetryDue(id, fired);
        });
        topic_tracker->End();
        tracker->End();
      });
}

void PublishEngine::OnRetryDue(uint64_t id, bool fired) {
  auto it = calls_.find(id);
  if (it == calls_.end() || !fired || !failure_.ok()) return;
  TopicPublisher* publisher = publishers_.Find(it->second->topic);
  if (publisher != nullptr) StartAttempt(*it->second, *publisher);
}

void PublishEngine::Resolve(
    std::map<uint64_t, std::unique_ptr<Call>>::iterator it,
    TopicPublisher& publisher) {
  const int64_t n = it->second->batch.request.messages_size();
  in_flight_messages_ -= n;
  in_flight_bytes_ -= it->second->batch.bytes;
  pubsub_metrics_.in_flight_messages->Set(in_flight_messages_);
  metrics_.in_flight_records->Set(in_flight_messages_);
  metrics_.in_flight_bytes->Set(in_flight_bytes_);
  const std::string key = it->second->batch.ordering_key;
  calls_.erase(it);
  if (!failure_.ok()) return;  // A failed writer sends nothing more.
  std::vector<PublishBatch> to_send;
  publisher.OnBatchDone(key, to_send);
  Send(publisher, to_send);
}

// One CreateTopic through its attempts; shared with the callbacks of its
// RPC and of its retry alarm, so it outlives both.
struct PublishEngine::Creation {
  grpc::ClientContext context;
  Topic request;
  Topic response;
  std::unique_ptr<grpc::Alarm> retry_alarm;
};

void PublishEngine::StartCreate(TopicPublisher& publisher) {
  publisher.set_state(TopicState::kCreating);
  if (!publisher.create_retry().has_value()) {
    publisher.create_retry().emplace(
        *RetryState::Create(options_.retry, clock_, DefaultUniformRandom()));
  }
  auto creation = std::make_shared<Creation>();
  creations_[publisher.topic_name()] = creation;
  const TopicCreateOptions& create = options_.topic_create_options;
  creation->request.set_name(publisher.topic_name());
  if (create.message_retention.has_value()) {
    *creation->request.mutable_message_retention_duration() =
        google::protobuf::util::TimeUtil::NanosecondsToDuration(
            absl::ToInt64Nanoseconds(*create.message_retention));
  }
  if (!create.kms_key_name.empty()) {
    creation->request.set_kms_key_name(create.kms_key_name);
  }
  if (!create.allowed_persistence_regions.empty()) {
    auto& policy = *creation->request.mutable_message_storage_policy();
    for (const std::string& region : create.allowed_persistence_regions) {
      policy.add_allowed_persistence_regions(region);
    }
    policy.set_enforce_in_transit(create.enforce_in_transit);
  }
  creation->context.set_deadline(
      absl::ToChronoTime(AttemptDeadline(*publisher.create_retry(), clock_)));
  tracker_->Begin();
  publisher.tracker()->Begin();
  stub_->async()->CreateTopic(
      &creation->context, &creation->request, &creation->response,
      [creation, self = std::weak_ptr<PublishEngine*>(self_),
       executor = executor_, tracker = tracker_,
       topic_tracker = publisher.tracker(),
       topic = publisher.topic()](const grpc::Status& status) mutable {
        executor.Post([self, topic, result = FromGrpc(status)] {
          if (auto engine = self.lock()) (*engine)->OnCreateDone(topic, result);
        });
        creation.reset();
        topic_tracker->End();
        tracker->End();
      });
}

void PublishEngine::OnCreateDone(const TopicDestination& topic,
                                 const absl::Status& status) {
  TopicPublisher* publisher = publishers_.Find(topic);
  if (publisher == nullptr || !failure_.ok()) return;
  last_progress_ = absl::Now();
  if (status.ok() || status.code() == absl::StatusCode::kAlreadyExists) {
    creations_.erase(publisher->topic_name());
    if (status.ok()) {
      pubsub_metrics_.topics_created->Increment();
      spdlog::info("{}: created topic {}", options_.name,
                   publisher->topic_name());
    }
    publisher->set_state(TopicState::kExists);
    publisher->create_retry().reset();
    RepublishParked(*publisher);
    return;
  }
  const bool transient =
      kPublishClassification.ClassifyRequest(status) == StatusClass::kTransient;
  RetryDecision decision = publisher->create_retry()->OnFailure(
      status, transient ? StatusClass::kTransient : StatusClass::kFatal);
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    Fail(absl::Status(
        decision.status.code(),
        absl::StrCat(options_.name, ": topic ", publisher->topic_name(),
                     " does not exist and creating it failed (option '",
                     kCreateDispositionOption.key(), "' is '",
                     kCreateDispositionOption.Name(options_.create_disposition),
                     "'): ", decision.status.message(),
                     ". Create the topic, or grant the sink's account "
                     "pubsub.topics.create")));
    return;
  }
  std::shared_ptr<Creation>& creation = creations_[publisher->topic_name()];
  if (creation == nullptr) creation = std::make_shared<Creation>();
  creation->retry_alarm = std::make_unique<grpc::Alarm>();
  tracker_->Begin();
  publisher->tracker()->Begin();
  creation->retry_alarm->Set(
      absl::ToChronoTime(absl::Now() + decision.delay),
      [keep = creation, self = std::weak_ptr<PublishEngine*>(self_),
       executor = executor_, tracker = tracker_,
       topic_tracker = publisher->tracker(), topic](bool fired) mutable {
        if (fired) {
          executor.Post([self, topic] {
            if (auto engine = self.lock()) (*engine)->RetryCreate(topic);
          });
        }
        keep.reset();
        topic_tracker->End();
        tracker->End();
      });
}

void PublishEngine::RetryCreate(const TopicDestination& topic) {
  TopicPublisher* publisher = publishers_.Find(topic);
  if (publisher != nullptr && failure_.ok()) StartCreate(*publisher);
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

void PublishEngine::Route(const std::string& topic_name,
                          const PubsubMessage& message,
                          const absl::Status& status, int attempts) {
  PubSubFailedElement failed;
  failed.connector = "pubsub";
  failed.destination = topic_name;
  failed.status = status;
  failed.attempts = attempts;
  failed.failure_time = clock_.Now();
  failed.subtask_index = subtask_index_;
  failed.payload = message.data();
  failed.attributes.insert(message.attributes().begin(),
                           message.attributes().end());
  failed.ordering_key = message.ordering_key();
  metrics_.records_routed->Increment();
  if (absl::Status handled = handler_->Handle(failed); !handled.ok()) {
    Fail(handled);
  }
}

void PublishEngine::Fail(const absl::Status& status) {
  if (failure_.ok() && !status.ok()) failure_ = status;
}

void PublishEngine::CountError(const absl::Status& status) {
  auto it = errors_.find(status.code());
  if (it == errors_.end()) {
    std::shared_ptr<Counter> counter = std::make_shared<Counter>();
    if (registry_ != nullptr) {
      auto registered = registry_->GetCounter(
          absl::StrCat(
              "publish_errors_",
              absl::AsciiStrToLower(absl::StatusCodeToString(status.code()))),
          "Publish calls that failed with this status code.", labels_);
      if (registered.ok()) counter = *std::move(registered);
    }
    it = errors_.emplace(status.code(), std::move(counter)).first;
  }
  it->second->Increment();
}

absl::Status PublishEngine::Flush(bool end_of_input) {
  const absl::Time started = absl::Now();
  if (!failure_.ok()) return failure_;
  SendDue(/*all=*/true);
  if (absl::Status drained =
          WaitWithProgress([this] { return in_flight_messages_ == 0; },
                           "every publish to be acknowledged (Flush)");
      !drained.ok()) {
    return drained;
  }
  if (absl::Status flushed = handler_->Flush(); !flushed.ok()) {
    Fail(flushed);
    return failure_;
  }
  if (!end_of_input) {
    last_publisher_ = nullptr;  // The sweep may release it.
    absl::Status swept = publishers_.SweepIdle(clock_.Now());
    SyncEvictionMetric();
    if (!swept.ok()) {
      Fail(swept);
      return failure_;
    }
  }
  metrics_.flush_duration->Observe(
      absl::ToDoubleSeconds(absl::Now() - started));
  return absl::OkStatus();
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
  timer_ = std::make_unique<grpc::Alarm>();
  timer_armed_ = true;
  tracker_->Begin();
  timer_->Set(absl::ToChronoTime(absl::Now() + wait),
              [self = std::weak_ptr<PublishEngine*>(self_),
               executor = executor_, tracker = tracker_](bool fired) mutable {
                if (fired) {
                  executor.Post([self] {
                    if (auto engine = self.lock()) (*engine)->OnTimer();
                  });
                }
                tracker->End();
              });
}

void PublishEngine::OnTimer() {
  timer_armed_ = false;
  if (!failure_.ok() || closed_) return;
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
  if (timer_ != nullptr) timer_->Cancel();
  for (auto& [id, call] : calls_) {
    if (call->context != nullptr) call->context->TryCancel();
    if (call->alarm != nullptr) call->alarm->Cancel();
  }
  for (auto& [name, creation] : creations_) {
    creation->context.TryCancel();
    if (creation->retry_alarm != nullptr) creation->retry_alarm->Cancel();
  }
  tracker_->WaitForNone();
  self_.reset();
  calls_.clear();
  creations_.clear();
  last_publisher_ = nullptr;
  (void)publishers_.ReleaseAll();
  handler_->Close();
}

}  // namespace gcpstream::pubsub
