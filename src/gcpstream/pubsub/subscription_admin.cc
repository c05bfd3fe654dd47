#include "gcpstream/pubsub/subscription_admin.h"

#include <grpcpp/client_context.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/time_util.h"

namespace gcpstream::pubsub {
namespace {

using ::google::protobuf::util::TimeUtil;

constexpr absl::Duration kAdminTimeout = absl::Seconds(30);

absl::Status Named(const grpc::Status& status, const SubscriptionSpec& spec,
                   absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(
      static_cast<absl::StatusCode>(status.error_code()),
      absl::StrCat("pubsub source: ", what, " ", spec.ResourceName(), ": ",
                   status.error_message()));
}

void SetDeadline(grpc::ClientContext& context) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + kAdminTimeout));
}

}  // namespace

absl::Status EnsureSubscription(const std::shared_ptr<grpc::Channel>& channel,
                                const SubscriptionSpec& spec) {
  if (!spec.create.has_value()) return absl::OkStatus();
  const SubscriptionCreateOptions& create = *spec.create;
  google::pubsub::v1::Subscription request;
  request.set_name(spec.ResourceName());
  request.set_topic(
      absl::StartsWith(create.topic, "projects/")
          ? create.topic
          : absl::StrCat("projects/", spec.project, "/topics/", create.topic));
  request.set_ack_deadline_seconds(
      static_cast<int32_t>(absl::ToInt64Seconds(create.ack_deadline)));
  request.set_enable_message_ordering(create.enable_message_ordering);
  if (create.message_retention.has_value()) {
    *request.mutable_message_retention_duration() =
        TimeUtil::NanosecondsToDuration(
            absl::ToInt64Nanoseconds(*create.message_retention));
  }
  request.set_filter(create.filter);
  if (!create.dead_letter_topic.empty()) {
    auto& policy = *request.mutable_dead_letter_policy();
    policy.set_dead_letter_topic(create.dead_letter_topic);
    policy.set_max_delivery_attempts(create.max_delivery_attempts);
  }
  auto stub = google::pubsub::v1::Subscriber::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context);
  google::pubsub::v1::Subscription created;
  grpc::Status status = stub->CreateSubscription(&context, request, &created);
  if (status.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
    return absl::OkStatus();
  }
  return Named(status, spec, "cannot create");
}

absl::StatusOr<google::pubsub::v1::Subscription> GetSubscription(
    const std::shared_ptr<grpc::Channel>& channel,
    const SubscriptionSpec& spec) {
  auto stub = google::pubsub::v1::Subscriber::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context);
  google::pubsub::v1::GetSubscriptionRequest request;
  request.set_subscription(spec.ResourceName());
  google::pubsub::v1::Subscription subscription;
  grpc::Status status = stub->GetSubscription(&context, request, &subscription);
  if (!status.ok()) return Named(status, spec, "cannot read");
  return subscription;
}

absl::Status SeekSubscription(const std::shared_ptr<grpc::Channel>& channel,
                              const SubscriptionSpec& spec,
                              const StartPosition& position) {
  absl::Time time;
  switch (position.kind) {
    case StartPosition::Kind::kContinue:
      return absl::OkStatus();
    case StartPosition::Kind::kEarliestRetained:
      time = absl::UnixEpoch();
      break;
    case StartPosition::Kind::kLatest:
      time = absl::Now();
      break;
    case StartPosition::Kind::kTimestamp:
      time = position.time;
      break;
  }
  auto stub = google::pubsub::v1::Subscriber::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context);
  google::pubsub::v1::SeekRequest request;
  request.set_subscription(spec.ResourceName());
  *request.mutable_time() =
      TimeUtil::NanosecondsToTimestamp(absl::ToUnixNanos(time));
  google::pubsub::v1::SeekResponse response;
  return Named(stub->Seek(&context, request, &response), spec,
               absl::StrCat("cannot seek (option '", kStartPositionKey,
                            "' = ", position.ToString(), ")"));
}

}  // namespace gcpstream::pubsub
