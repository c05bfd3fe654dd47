#include "gcpstream/pubsub/topic_creator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/pubsub/publish_classification.h"
#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace gcpstream::pubsub {

using ::google::pubsub::v1::Topic;

// The deadline of one CreateTopic attempt, as for a publish.
constexpr absl::Duration kCreateAttemptTimeout = absl::Seconds(60);

TopicCreator::TopicCreator(const PubSubSinkOptions& options, const Clock& clock,
                           PublisherStub& stub, connector::TaskTimer& timer,
                           connector::Completions& completions,
                           std::shared_ptr<Counter> created,
                           Callbacks callbacks)
    : options_(options),
      clock_(clock),
      stub_(stub),
      timer_(timer),
      completions_(completions),
      created_(std::move(created)),
      callbacks_(std::move(callbacks)) {}

Topic TopicCreator::Request(const std::string& topic_name) const {
  Topic request;
  request.set_name(topic_name);
  const TopicCreateOptions& create = options_.topic_create_options;
  if (create.message_retention.has_value()) {
    *request.mutable_message_retention_duration() =
        google::protobuf::util::TimeUtil::NanosecondsToDuration(
            absl::ToInt64Nanoseconds(*create.message_retention));
  }
  if (!create.kms_key_name.empty()) {
    request.set_kms_key_name(create.kms_key_name);
  }
  if (!create.allowed_persistence_regions.empty()) {
    auto& policy = *request.mutable_message_storage_policy();
    for (const std::string& region : create.allowed_persistence_regions) {
      policy.add_allowed_persistence_regions(region);
    }
    policy.set_enforce_in_transit(create.enforce_in_transit);
  }
  return request;
}

void TopicCreator::Start(TopicPublisher& publisher) {
  publisher.set_state(TopicState::kCreating);
  Creation& creation = creations_[publisher.topic_name()];
  if (!creation.retry.has_value()) {
    // Cannot fail: the retry options were checked with the sink's.
    creation.retry.emplace(*connector::Retry::Create(
        options_.retry, clock_, connector::Idempotency::kIdempotent));
  }
  StartAttempt(publisher, creation);
}

void TopicCreator::StartAttempt(TopicPublisher& publisher, Creation& creation) {
  // What gRPC uses until the callback ran; the callback keeps it alive.
  struct Attempt {
    grpc::ClientContext context;
    Topic request;
    Topic response;
  };
  auto attempt = std::make_shared<Attempt>();
  attempt->request = Request(publisher.topic_name());
  attempt->context.set_deadline(absl::ToChronoTime(
      creation.retry->AttemptDeadline(kCreateAttemptTimeout)));
  creation.context =
      std::shared_ptr<grpc::ClientContext>(attempt, &attempt->context);
  stub_.AsyncCreateTopic(
      attempt->context, attempt->request, attempt->response,
      completions_.Wrap(
          [this, attempt, topic = publisher.topic()](
              const absl::Status& status) { OnDone(topic, status); },
          publisher.tracker()));
}

void TopicCreator::OnDone(const TopicDestination& topic,
                          const absl::Status& status) {
  const std::string topic_name = topic.ResourceName();
  auto it = creations_.find(topic_name);
  TopicPublisher* publisher = callbacks_.find(topic);
  if (it == creations_.end() || publisher == nullptr) return;
  it->second.context.reset();
  callbacks_.on_answer();
  if (status.ok() || status.code() == absl::StatusCode::kAlreadyExists) {
    creations_.erase(it);
    if (status.ok()) {
      created_->Increment();
      spdlog::info("{}: created topic {}", options_.name, topic_name);
    }
    publisher->set_state(TopicState::kExists);
    callbacks_.on_exists(*publisher);
    return;
  }
  RetryDecision decision =
      it->second.retry->OnFailure(status, TransientOrFatal(status));
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    callbacks_.on_failed(absl::Status(
        decision.status.code(),
        absl::StrCat(options_.name, ": topic ", topic_name,
                     " does not exist and creating it failed (option '",
                     kCreateDispositionOption.key(), "' is '",
                     kCreateDispositionOption.Name(options_.create_disposition),
                     "'): ", decision.status.message(),
                     ". Create the topic, or grant the sink's account "
                     "pubsub.topics.create")));
    return;
  }
  it->second.retry_timer = timer_.Schedule(decision.delay, [this, topic] {
    auto found = creations_.find(topic.ResourceName());
    TopicPublisher* again = callbacks_.find(topic);
    if (found == creations_.end() || again == nullptr) return;
    found->second.retry_timer = 0;
    StartAttempt(*again, found->second);
  });
}

void TopicCreator::CancelAll() {
  for (auto& [name, creation] : creations_) {
    if (creation.context != nullptr) creation.context->TryCancel();
    if (creation.retry_timer != 0) timer_.Cancel(creation.retry_timer);
  }
  creations_.clear();
}

}  // namespace gcpstream::pubsub
