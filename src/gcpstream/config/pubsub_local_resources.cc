// `local:` topics and subscriptions for `gcpstream run --local`: created on
// the Pub/Sub emulator before the run; after it, each subscription's
// messages are pulled, acknowledged and counted.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/emulators/provisioning.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::config {
namespace {

absl::StatusOr<int64_t> CountMessages(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& name) {
  auto subscriber = google::pubsub::v1::Subscriber::NewStub(channel);
  int64_t count = 0;
  // The emulator answers an empty Pull after its deadline: stop at the
  // first pull that brings nothing.
  while (true) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
    google::pubsub::v1::PullRequest pull;
    pull.set_subscription(name);
    pull.set_max_messages(1000);
    google::pubsub::v1::PullResponse pulled;
    const grpc::Status status = subscriber->Pull(&context, pull, &pulled);
    if (!status.ok() || pulled.received_messages().empty()) break;
    google::pubsub::v1::AcknowledgeRequest ack;
    ack.set_subscription(name);
    for (const auto& message : pulled.received_messages()) {
      ack.add_ack_ids(message.ack_id());
    }
    count += pulled.received_messages_size();
    grpc::ClientContext ack_context;
    google::protobuf::Empty empty;
    if (!subscriber->Acknowledge(&ack_context, ack, &empty).ok()) break;
  }
  return count;
}

class PubSubLocalResources final : public LocalResource {
 public:
  struct Subscription {
    std::string name;
    std::string topic;
    bool ordered = false;
  };

  std::vector<emulators::EmulatorKind> Emulators() const override {
    return {emulators::EmulatorKind::kPubSub};
  }
  std::vector<std::string> Declared() const override {
    std::vector<std::string> lines;
    lines.reserve(topics.size() + subscriptions.size());
    for (const std::string& topic : topics) {
      lines.push_back(absl::StrCat("topic ", topic));
    }
    for (const Subscription& subscription : subscriptions) {
      lines.push_back(absl::StrCat("subscription ", subscription.name, " of ",
                                   subscription.topic,
                                   subscription.ordered ? " (ordered)" : ""));
    }
    return lines;
  }
  absl::Status Provision(const std::string& project) const override {
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    if (!channel.ok()) return channel.status();
    for (const std::string& topic : topics) {
      if (absl::Status status =
              emulators::EnsurePubSubTopic(*channel, project, topic);
          !status.ok()) {
        return status;
      }
    }
    for (const Subscription& subscription : subscriptions) {
      if (absl::Status status = emulators::EnsurePubSubSubscription(
              *channel, project, subscription.name, subscription.topic,
              subscription.ordered);
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
      const std::string& project) const override {
    std::vector<std::string> lines;
    if (subscriptions.empty()) return lines;
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    if (!channel.ok()) return channel.status();
    for (const Subscription& subscription : subscriptions) {
      absl::StatusOr<int64_t> count = CountMessages(
          *channel, absl::StrCat("projects/", project, "/subscriptions/",
                                 subscription.name));
      if (!count.ok()) return count.status();
      lines.push_back(absl::StrCat("topic ", subscription.topic, ": ", *count,
                                   " messages (subscription ",
                                   subscription.name, ")"));
    }
    return lines;
  }

  std::vector<std::string> topics;
  std::vector<Subscription> subscriptions;
};

absl::StatusOr<std::shared_ptr<const LocalResource>> ReadPubSubLocal(
    OptionMap& local) {
  auto resources = std::make_shared<PubSubLocalResources>();
  if (absl::Status status =
          AssignIfSet(local.StringList("topics"), resources->topics);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::optional<std::vector<OptionMap>>> subscriptions =
      local.MapList("subscriptions");
  if (!subscriptions.ok()) return subscriptions.status();
  for (OptionMap& entry : subscriptions->value_or(std::vector<OptionMap>{})) {
    PubSubLocalResources::Subscription subscription;
    absl::StatusOr<std::string> name = entry.RequiredString("name");
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> topic = entry.RequiredString("topic");
    if (!topic.ok()) return topic.status();
    subscription.name = *name;
    subscription.topic = *topic;
    for (absl::Status status :
         {AssignIfSet(entry.Bool("ordered"), subscription.ordered),
          entry.CheckNoUnknownKeys()}) {
      if (!status.ok()) return status;
    }
    resources->subscriptions.push_back(std::move(subscription));
  }
  if (resources->topics.empty() && resources->subscriptions.empty()) {
    return std::shared_ptr<const LocalResource>();
  }
  return std::shared_ptr<const LocalResource>(std::move(resources));
}

const RegisterLocalResource kPubSubLocal("pubsub", ReadPubSubLocal);

}  // namespace
}  // namespace gcpstream::config
