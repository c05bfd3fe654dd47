#include "gcpstream/pubsub/pull_reader.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/connector/grpc_status.h"
#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::connector::FromGrpc;

using ::google::pubsub::v1::StreamingPullRequest;
using ::google::pubsub::v1::StreamingPullResponse;

// The service's limits on one Acknowledge/ModifyAckDeadline request, with a
// margin on bytes for the subscription name and framing.
constexpr size_t kMaxAckIdsPerRequest = 1000;
constexpr size_t kMaxAckBytesPerRequest = 500'000;
constexpr absl::Duration kAckTimeout = absl::Seconds(60);
constexpr absl::Duration kCloseGrace = absl::Seconds(5);
// Acknowledged message ids remembered to recognise their redeliveries.
constexpr size_t kAckedWindow = 100'000;

}  // namespace

// One streaming pull. gRPC calls the On* methods on its threads; they only
// post mails. A hold keeps OnDone from running while the task thread may
// still start a read; it is released when a read finds the stream over, or
// on shutdown when no read is outstanding.
class PullReader::Stream final
    : public grpc::ClientBidiReactor<StreamingPullRequest,
                                     StreamingPullResponse> {
 public:
  Stream(std::weak_ptr<PullReader*> reader, runtime::MailboxExecutor executor,
         std::shared_ptr<connector::CallbackTracker> tracker, size_t slot,
         uint64_t generation)
      : reader_(std::move(reader)),
        executor_(executor),
        tracker_(std::move(tracker)),
        slot_(slot),
        generation_(generation) {}

  void Start(google::pubsub::v1::Subscriber::Stub& stub,
             StreamingPullRequest first) {
    first_ = std::move(first);
    tracker_->Begin();
    stub.async()->StreamingPull(&context_, this);
    AddHold();
    StartWrite(&first_);
    StartCall();
  }
  // Task thread; at most one read at a time, never after Shutdown().
  void Read() {
    read_outstanding_.store(true);
    StartRead(&response_);
  }
  // Ends the stream politely (half-close), as the emulator needs: a
  // cancelled stream lingers there and keeps messages for a deadline. The
  // hold goes now if no read is outstanding, else when that read completes
  // (whichever of the two sees the other's flag releases it). The task's
  // own view of "reading" cannot decide this: a completed read's mail may
  // still be queued.
  void Shutdown() {
    shutting_down_.store(true);
    if (first_written_.load()) StartWritesDone();
    if (!read_outstanding_.load()) ReleaseHold();
  }
  void Cancel() { context_.TryCancel(); }

  void OnWriteDone(bool ok) override { first_written_.store(ok); }
  void OnWritesDoneDone(bool /*ok*/) override {}
  void OnReadDone(bool ok) override {
    read_outstanding_.store(false);
    if (!ok) {
      ReleaseHold();
      return;
    }
    StreamingPullResponse response = std::move(response_);
    response_.Clear();
    executor_.Post([reader = reader_, slot = slot_, generation = generation_,
                    response = std::move(response)]() mutable {
      if (auto alive = reader.lock()) {
        (*alive)->OnResponse(slot, generation, std::move(response));
      }
    });
    if (shutting_down_.load()) ReleaseHold();
  }
  void OnDone(const grpc::Status& status) override {
    // The mail may destroy this stream before OnDone returns: touch no
    // member after posting it.
    std::shared_ptr<connector::CallbackTracker> tracker = tracker_;
    executor_.Post([reader = reader_, slot = slot_, generation = generation_,
                    result = FromGrpc(status)] {
      if (auto alive = reader.lock()) {
        (*alive)->OnStreamDone(slot, generation, result);
      }
    });
    tracker->End();
  }

  size_t slot() const { return slot_; }
  uint64_t generation() const { return generation_; }

 private:
  void ReleaseHold() {
    if (!hold_released_.exchange(true)) RemoveHold();
  }

  std::weak_ptr<PullReader*> reader_;
  runtime::MailboxExecutor executor_;
  std::shared_ptr<connector::CallbackTracker> tracker_;
  const size_t slot_;
  const uint64_t generation_;
  grpc::ClientContext context_;
  StreamingPullRequest first_;
  StreamingPullResponse response_;
  std::atomic<bool> first_written_{false};
  std::atomic<bool> hold_released_{false};
  std::atomic<bool> read_outstanding_{false};
  std::atomic<bool> shutting_down_{false};
};

absl::StatusOr<std::unique_ptr<PullReader>> PullReader::Create(
    const PubSubSourceOptions& options,
    const runtime::SourceReaderContext& context,
    std::vector<SubscriptionSpec> subscriptions) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      auth::MakeChannel(auth::Service::kPubSub, options.channel);
  if (!channel.ok()) return channel.status();
  auto reader = std::make_unique<PullReader>(ConstructorKey(), options, context,
                                             std::move(subscriptions),
                                             *std::move(channel));
  if (absl::Status status = reader->RegisterMetrics(context); !status.ok()) {
    return status;
  }
  if (2 * reader->checkpoint_interval_ > options.max_lease_extension &&
      reader->checkpoint_interval_ != absl::InfiniteDuration()) {
    spdlog::warn(
        "{}: twice the checkpoint interval ({}) exceeds option '{}' ({}); "
        "messages may outlive their lease before their checkpoint "
        "acknowledges them and be delivered again",
        options.name, absl::FormatDuration(2 * reader->checkpoint_interval_),
        kMaxLeaseExtensionKey,
        absl::FormatDuration(options.max_lease_extension));
  }
  for (size_t slot = 0; slot < reader->slots_.size(); ++slot) {
    reader->Open(slot);
  }
  return reader;
}

PullReader::PullReader(ConstructorKey, PubSubSourceOptions options,
                       const runtime::SourceReaderContext& context,
                       std::vector<SubscriptionSpec> subscriptions,
                       std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock
                                       : RealClock::Instance()),
      executor_(context.mailbox),
      checkpoint_interval_(context.checkpoint_interval),
      channel_(std::move(channel)),
      stub_(google::pubsub::v1::Subscriber::NewStub(channel_)),
      tracker_(std::make_shared<connector::CallbackTracker>()),
      self_(std::make_shared<PullReader*>(this)),
      opened_at_(clock_.Now()) {
  for (SubscriptionSpec& spec : subscriptions) {
    slots_.push_back(StreamSlot{.spec = std::move(spec)});
  }
}

PullReader::~PullReader() { Close(); }

absl::Status PullReader::RegisterMetrics(
    const runtime::SourceReaderContext& context) {
  MetricsRegistry private_registry;
  MetricsRegistry& registry =
      context.metrics != nullptr ? *context.metrics : private_registry;
  MetricLabels labels;
  labels.pipeline = context.pipeline;
  labels.operator_name = options_.name;
  labels.subtask = context.subtask_index;
  auto counter = [&](const char* name, const char* help) {
    return registry.GetCounter(name, help, labels);
  };
  auto gauge = [&](const char* name, const char* help) {
    return registry.GetGauge(name, help, labels);
  };
  auto received = counter("messages_received", "Messages pulled.");
  auto acked = counter("messages_acked",
                       "Messages acknowledged after their checkpoint.");
  auto nacked = counter("messages_nacked", "Messages nacked.");
  auto failures =
      counter("deserialization_failures", "Messages the deserializer refused.");
  auto reconnects = counter("stream_reconnects", "Streaming pulls reopened.");
  auto ack_failures = counter(
      "ack_failures", "Acknowledge calls that failed (messages come again).");
  auto expirations = counter(
      "lease_expirations",
      "Messages whose lease stopped being extended (max-lease-extension).");
  auto redelivered = counter(
      "messages_redelivered",
      "Messages received again while outstanding or lately acknowledged "
      "(by message id); never emitted twice.");
  auto messages = gauge("outstanding_messages",
                        "Messages received and not yet acknowledged.");
  auto bytes =
      gauge("outstanding_bytes", "Bytes received and not yet acknowledged.");
  auto awaiting = gauge("awaiting_checkpoint",
                        "Messages emitted and waiting for their checkpoint.");
  for (const absl::Status& status :
       {received.status(), acked.status(), nacked.status(), failures.status(),
        reconnects.status(), ack_failures.status(), expirations.status(),
        redelivered.status(), messages.status(), bytes.status(),
        awaiting.status()}) {
    if (!status.ok()) return status;
  }
  metrics_ = Metrics{.received = *received,
                     .acked = *acked,
                     .nacked = *nacked,
                     .deserialization_failures = *failures,
                     .reconnects = *reconnects,
                     .ack_failures = *ack_failures,
                     .lease_expirations = *expirations,
                     .redelivered = *redelivered,
                     .outstanding_messages = *messages,
                     .outstanding_bytes = *bytes,
                     .awaiting_checkpoint = *awaiting};
  return absl::OkStatus();
}

void PullReader::Open(size_t slot) {
  StreamSlot& s = slots_[slot];
  ++s.generation;
  auto stream =
      std::make_shared<Stream>(std::weak_ptr<PullReader*>(self_), executor_,
                               tracker_, slot, s.generation);
  StreamingPullRequest first;
  first.set_subscription(s.spec.ResourceName());
  first.set_stream_ack_deadline_seconds(
      static_cast<int32_t>(absl::ToInt64Seconds(options_.stream_ack_deadline)));
  first.set_max_outstanding_messages(options_.max_outstanding_messages);
  first.set_max_outstanding_bytes(options_.max_outstanding_bytes);
  stream->Start(*stub_, std::move(first));
  s.stream = stream;
  s.reading = false;
  streams_.push_back(stream);
  if (BelowBufferLimit()) {
    s.reading = true;
    stream->Read();
  }
}

// The stream's flow control (max-outstanding-*) is the service's to keep;
// what it delivers beyond it (the emulator ignores it, the service may
// overshoot) is read and leased too, since a message left unread in the
// stream is not leased and comes back as a duplicate. Reading stops only at
// twice max-outstanding-bytes, to bound memory.
bool PullReader::BelowBufferLimit() const {
  return outstanding_bytes_ < 2 * options_.max_outstanding_bytes;
}

void PullReader::ResumeReads() {
  if (closed_ || !BelowBufferLimit()) return;
  for (StreamSlot& s : slots_) {
    if (s.stream != nullptr && !s.reading) {
      s.reading = true;
      s.stream->Read();
    }
  }
}

void PullReader::OnResponse(size_t slot, uint64_t generation,
                            StreamingPullResponse response) {
  StreamSlot& s = slots_[slot];
  if (generation != s.generation || closed_) return;
  s.reading = false;
  s.reconnect.reset();  // The stream works: a later break starts afresh.
  const absl::Time now = clock_.Now();
  for (auto& received : *response.mutable_received_messages()) {
    ReceivedMessage message;
    message.ack_id = std::move(*received.mutable_ack_id());
    message.bytes = static_cast<int64_t>(received.message().ByteSizeLong());
    message.message = std::move(*received.mutable_message());
    message.received = now;
    message.slot = slot;
    metrics_.received->Increment();
    if (TakeRedelivery(message)) continue;
    outstanding_messages_ += 1;
    outstanding_bytes_ += message.bytes;
    pending_.push_back(std::move(message));
  }
  UpdateGauges();
  if (BelowBufferLimit()) {
    s.reading = true;
    s.stream->Read();
  }
}

void PullReader::OnStreamDone(size_t slot, uint64_t generation,
                              const absl::Status& status) {
  // gRPC is done with it; a long-running reader reconnects now and then and
  // must not keep every stream it ever opened.
  std::erase_if(streams_, [&](const std::shared_ptr<Stream>& stream) {
    return stream->slot() == slot && stream->generation() == generation;
  });
  StreamSlot& s = slots_[slot];
  if (generation != s.generation || closed_) return;
  s.stream = nullptr;
  s.reading = false;
  // The service ends streams now and then (OK or CANCELLED): reconnect.
  const StatusClass status_class =
      status.ok() ? StatusClass::kTransient
                  : kStreamingPullClassification.ClassifyRequest(status);
  if (status_class != StatusClass::kTransient) {
    failure_.Update(absl::Status(
        status.code(),
        absl::StrCat(options_.name, ": streaming pull from ",
                     s.spec.ResourceName(), " failed: ", status.message())));
    return;
  }
  if (!s.reconnect.has_value()) {
    // Cannot fail: the options were checked. Reopening a stream is
    // idempotent.
    s.reconnect.emplace(*connector::Retry::Create(
        options_.reconnect, clock_, connector::Idempotency::kIdempotent));
  }
  const absl::Status cause =
      status.ok() ? absl::UnavailableError("the service closed the stream")
                  : status;
  RetryDecision decision =
      s.reconnect->OnFailure(cause, StatusClass::kTransient);
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    failure_.Update(absl::Status(
        decision.status.code(),
        absl::StrCat(options_.name, ": cannot keep a streaming pull open on ",
                     s.spec.ResourceName(), ": ", decision.status.message())));
    return;
  }
  s.reconnect_at = clock_.Now() + decision.delay;
  spdlog::info("{}: streaming pull from {} ended ({}); reconnecting in {}",
               options_.name, s.spec.ResourceName(), cause.ToString(),
               absl::FormatDuration(decision.delay));
}

absl::Status PullReader::Tick() {
  if (!failure_.ok()) return failure_;
  const absl::Time now = clock_.Now();
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    StreamSlot& s = slots_[slot];
    if (s.stream == nullptr && now >= s.reconnect_at) {
      metrics_.reconnects->Increment();
      Open(slot);
    }
  }
  if (now >= next_lease_extension_) {
    ExtendLeases();
    next_lease_extension_ = now + options_.stream_ack_deadline / 2;
  }
  if (first_wait_since_.has_value() && !checkpoint_completed_ &&
      now - *first_wait_since_ > options_.first_checkpoint_timeout) {
    failure_ = absl::DeadlineExceededError(absl::StrCat(
        options_.name, ": no checkpoint completed within ",
        absl::FormatDuration(options_.first_checkpoint_timeout), " (option '",
        kFirstCheckpointTimeoutKey, "') while ", awaiting_,
        " messages wait to be acknowledged; the source acknowledges only "
        "after a completed checkpoint, so set the pipeline's "
        "'checkpoint-interval' (PipelineOptions::checkpoint_interval, now ",
        absl::FormatDuration(checkpoint_interval_), ") well below it"));
  }
  return failure_;
}

void PullReader::PopEmitted() {
  ReceivedMessage& message = pending_.front();
  emitted_.push_back(Leased{.ack_id = std::move(message.ack_id),
                            .slot = message.slot,
                            .bytes = message.bytes,
                            .received = message.received,
                            .message_id = message.message.message_id()});
  pending_.pop_front();
  ++awaiting_;
  if (!checkpoint_completed_ && !first_wait_since_.has_value()) {
    first_wait_since_ = clock_.Now();
  }
  UpdateGauges();
}

absl::Status PullReader::PopFailed(const absl::Status& status) {
  metrics_.deserialization_failures->Increment();
  ReceivedMessage& message = pending_.front();
  std::optional<int> deadline;
  switch (options_.deserialization_failure_policy) {
    case DeserializationFailurePolicy::kFail:
      failure_.Update(absl::Status(
          status.code(),
          absl::StrCat(options_.name, ": cannot deserialize message ",
                       message.message.message_id(), " from ",
                       slots_[message.slot].spec.ResourceName(), ": ",
                       status.message(), " (option '",
                       kDeserializationFailurePolicyOption.key(),
                       "' is 'fail'; 'drop' or 'nack' would go on)")));
      return failure_;
    case DeserializationFailurePolicy::kDrop:
      break;  // Acknowledged now: nothing downstream depends on it.
    case DeserializationFailurePolicy::kNack:
      // Redelivered until the subscription's dead-letter policy takes it.
      deadline = 0;
      metrics_.nacked->Increment();
      break;
  }
  std::vector<Leased> one;
  one.push_back(Leased{.ack_id = std::move(message.ack_id),
                       .slot = message.slot,
                       .bytes = message.bytes,
                       .received = message.received,
                       .message_id = message.message.message_id()});
  const int64_t bytes = message.bytes;
  pending_.pop_front();
  SendAcks(WithRedeliveries(std::move(one),
                            /*acknowledged=*/!deadline.has_value()),
           deadline);
  Release(1, bytes);
  return absl::OkStatus();
}

void PullReader::Snapshot(int64_t checkpoint_id) {
  if (emitted_.empty()) return;
  std::vector<Leased>& covered = by_checkpoint_[checkpoint_id];
  covered.insert(covered.end(), std::make_move_iterator(emitted_.begin()),
                 std::make_move_iterator(emitted_.end()));
  emitted_.clear();
}

void PullReader::CheckpointComplete(int64_t checkpoint_id) {
  checkpoint_completed_ = true;
  first_wait_since_.reset();
  std::vector<Leased> acks;
  int64_t messages = 0;
  int64_t bytes = 0;
  for (auto it = by_checkpoint_.begin();
       it != by_checkpoint_.end() && it->first <= checkpoint_id;
       it = by_checkpoint_.erase(it)) {
    for (Leased& leased : it->second) {
      ++messages;
      bytes += leased.bytes;
      acks.push_back(std::move(leased));
    }
  }
  if (acks.empty()) return;
  awaiting_ -= messages;
  SendAcks(WithRedeliveries(std::move(acks), /*acknowledged=*/true),
           std::nullopt);
  metrics_.acked->Increment(messages);
  Release(messages, bytes);
}

bool PullReader::TakeRedelivery(ReceivedMessage& message) {
  const std::string& id = message.message.message_id();
  if (id.empty()) return false;  // Only scripted servers send none.
  Leased again{.ack_id = std::move(message.ack_id),
               .slot = message.slot,
               .bytes = 0,
               .received = message.received};
  if (auto it = outstanding_ids_.find(id); it != outstanding_ids_.end()) {
    metrics_.redelivered->Increment();
    it->second.push_back(std::move(again));
    return true;
  }
  if (acked_ids_.contains(id)) {
    // A checkpoint covered its first copy: this one is only acknowledged.
    metrics_.redelivered->Increment();
    std::vector<Leased> ack;
    ack.push_back(std::move(again));
    SendAcks(std::move(ack), std::nullopt);
    return true;
  }
  message.ack_id = std::move(again.ack_id);
  outstanding_ids_.try_emplace(id);
  return false;
}

std::vector<PullReader::Leased> PullReader::WithRedeliveries(
    std::vector<Leased> leased, bool acknowledged) {
  const size_t first_copies = leased.size();
  for (size_t i = 0; i < first_copies; ++i) {
    // Acknowledging needs only the ack id: the message id moves on.
    std::string id = std::move(leased[i].message_id);
    if (id.empty()) continue;
    if (auto it = outstanding_ids_.find(id); it != outstanding_ids_.end()) {
      for (Leased& again : it->second) leased.push_back(std::move(again));
      outstanding_ids_.erase(it);
    }
    if (!acknowledged || !acked_ids_.insert(id).second) continue;
    acked_order_.push_back(std::move(id));
    if (acked_order_.size() > kAckedWindow) {
      acked_ids_.erase(acked_order_.front());
      acked_order_.pop_front();
    }
  }
  return leased;
}

void PullReader::Release(int64_t messages, int64_t bytes) {
  outstanding_messages_ -= messages;
  outstanding_bytes_ -= bytes;
  UpdateGauges();
  ResumeReads();
}

void PullReader::SendAcks(std::vector<Leased> leased,
                          std::optional<int> deadline_seconds) {
  std::vector<std::vector<std::string>> by_slot(slots_.size());
  for (Leased& l : leased) by_slot[l.slot].push_back(std::move(l.ack_id));
  for (size_t slot = 0; slot < by_slot.size(); ++slot) {
    std::vector<std::string>& ids = by_slot[slot];
    size_t i = 0;
    while (i < ids.size()) {
      std::vector<std::string> chunk;
      size_t chunk_bytes = 0;
      while (i < ids.size() && chunk.size() < kMaxAckIdsPerRequest &&
             chunk_bytes + ids[i].size() <= kMaxAckBytesPerRequest) {
        chunk_bytes += ids[i].size();
        chunk.push_back(std::move(ids[i++]));
      }
      SendChunk(slots_[slot].spec.ResourceName(), std::move(chunk),
                deadline_seconds);
    }
  }
}

void PullReader::SendChunk(const std::string& subscription,
                           std::vector<std::string> ack_ids,
                           std::optional<int> deadline_seconds) {
  struct Call {
    grpc::ClientContext context;
    google::pubsub::v1::AcknowledgeRequest ack;
    google::pubsub::v1::ModifyAckDeadlineRequest modify;
    google::protobuf::Empty response;
  };
  auto call = std::make_shared<Call>();
  call->context.set_deadline(absl::ToChronoTime(absl::Now() + kAckTimeout));
  const auto ids = static_cast<int64_t>(ack_ids.size());
  auto done = [call, executor = executor_, tracker = tracker_,
               self = std::weak_ptr<PullReader*>(self_), ids,
               what = deadline_seconds.has_value()
                          ? "ModifyAckDeadline"
                          : "Acknowledge"](const grpc::Status& status) mutable {
    if (!status.ok()) {
      executor.Post([self, ids, what, result = FromGrpc(status)] {
        if (auto alive = self.lock()) {
          (*alive)->metrics_.ack_failures->Increment(ids);
          spdlog::warn(
              "{}: {} of {} messages failed: {}; Pub/Sub will deliver them "
              "again",
              (*alive)->options_.name, what, ids, result.ToString());
        }
      });
    }
    call.reset();
    tracker->End();
  };
  tracker_->Begin();
  if (deadline_seconds.has_value()) {
    call->modify.set_subscription(subscription);
    call->modify.set_ack_deadline_seconds(*deadline_seconds);
    for (std::string& id : ack_ids) call->modify.add_ack_ids(std::move(id));
    stub_->async()->ModifyAckDeadline(&call->context, &call->modify,
                                      &call->response, std::move(done));
  } else {
    call->ack.set_subscription(subscription);
    for (std::string& id : ack_ids) call->ack.add_ack_ids(std::move(id));
    stub_->async()->Acknowledge(&call->context, &call->ack, &call->response,
                                std::move(done));
  }
}

void PullReader::ExtendLeases() {
  const absl::Time now = clock_.Now();
  std::vector<Leased> extend;
  int64_t expired = 0;
  auto consider = [&](const std::string& ack_id, size_t slot,
                      absl::Time received) {
    if (now - received < options_.max_lease_extension) {
      extend.push_back(Leased{.ack_id = ack_id, .slot = slot});
    } else {
      ++expired;
    }
  };
  for (const ReceivedMessage& m : pending_) {
    consider(m.ack_id, m.slot, m.received);
  }
  for (const Leased& l : emitted_) consider(l.ack_id, l.slot, l.received);
  for (const auto& [id, leased] : by_checkpoint_) {
    for (const Leased& l : leased) consider(l.ack_id, l.slot, l.received);
  }
  for (const auto& [id, again] : outstanding_ids_) {
    for (const Leased& l : again) consider(l.ack_id, l.slot, l.received);
  }
  if (expired > 0) metrics_.lease_expirations->Increment(expired);
  if (extend.empty()) return;
  SendAcks(
      std::move(extend),
      static_cast<int>(absl::ToInt64Seconds(options_.stream_ack_deadline)));
}

void PullReader::UpdateGauges() {
  metrics_.outstanding_messages->Set(outstanding_messages_);
  metrics_.outstanding_bytes->Set(outstanding_bytes_);
  metrics_.awaiting_checkpoint->Set(awaiting_);
}

void PullReader::Close() {
  if (closed_) return;
  closed_ = true;
  // Nacked messages come back at once to whoever reads next (a restart).
  std::vector<Leased> nack;
  nack.reserve(pending_.size() + emitted_.size());
  for (ReceivedMessage& m : pending_) {
    nack.push_back(Leased{.ack_id = std::move(m.ack_id), .slot = m.slot});
  }
  for (Leased& l : emitted_) nack.push_back(std::move(l));
  for (auto& [id, leased] : by_checkpoint_) {
    for (Leased& l : leased) nack.push_back(std::move(l));
  }
  for (auto& [id, again] : outstanding_ids_) {
    for (Leased& l : again) nack.push_back(std::move(l));
  }
  outstanding_ids_.clear();
  if (!nack.empty()) {
    metrics_.nacked->Increment(nack.size());
    SendAcks(std::move(nack), 0);
  }
  pending_.clear();
  emitted_.clear();
  by_checkpoint_.clear();
  for (StreamSlot& s : slots_) {
    if (s.stream != nullptr) s.stream->Shutdown();
  }
  if (!tracker_->WaitForNone(kCloseGrace)) {
    for (auto& stream : streams_) stream->Cancel();
    tracker_->WaitForNone();
  }
  self_.reset();
  streams_.clear();
}

}  // namespace gcpstream::pubsub
