#ifndef GCPSTREAM_PUBSUB_PUBSUB_EMULATOR_TEST_UTIL_H_
#define GCPSTREAM_PUBSUB_PUBSUB_EMULATOR_TEST_UTIL_H_

// Publishing to the Pub/Sub emulator, and reading back what was published.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::pubsub::testing {

// Publishes `messages` to projects/<project>/topics/<topic> in requests of
// at most 1000 (the service's limit per request).
inline absl::Status PublishMessages(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& topic,
    const std::vector<google::pubsub::v1::PubsubMessage>& messages) {
  auto publisher = google::pubsub::v1::Publisher::NewStub(channel);
  for (size_t from = 0; from < messages.size(); from += 1000) {
    google::pubsub::v1::PublishRequest request;
    request.set_topic(absl::StrCat("projects/", project, "/topics/", topic));
    for (size_t i = from; i < std::min(messages.size(), from + 1000); ++i) {
      *request.add_messages() = messages[i];
    }
    grpc::ClientContext context;
    google::pubsub::v1::PublishResponse response;
    const grpc::Status status =
        publisher->Publish(&context, request, &response);
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("publishing to ", topic, ": ", status.error_message()));
    }
  }
  return absl::OkStatus();
}

// Pulls (and acknowledges) until `count` messages arrived or `attempts`
// pulls came back short; returns what arrived, in delivery order.
inline std::vector<google::pubsub::v1::PubsubMessage> PullMessages(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& subscription, size_t count, int attempts = 50) {
  auto subscriber = google::pubsub::v1::Subscriber::NewStub(channel);
  const std::string name =
      absl::StrCat("projects/", project, "/subscriptions/", subscription);
  std::vector<google::pubsub::v1::PubsubMessage> received;
  for (int attempt = 0; attempt < attempts && received.size() < count;
       ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
    google::pubsub::v1::PullRequest pull;
    pull.set_subscription(name);
    pull.set_max_messages(1000);
    google::pubsub::v1::PullResponse pulled;
    if (!subscriber->Pull(&context, pull, &pulled).ok()) continue;
    google::pubsub::v1::AcknowledgeRequest ack;
    ack.set_subscription(name);
    for (const auto& message : pulled.received_messages()) {
      received.push_back(message.message());
      ack.add_ack_ids(message.ack_id());
    }
    if (ack.ack_ids_size() > 0) {
      grpc::ClientContext ack_context;
      google::protobuf::Empty empty;
      (void)subscriber->Acknowledge(&ack_context, ack, &empty);
    }
  }
  return received;
}

}  // namespace gcpstream::pubsub::testing

#endif  // GCPSTREAM_PUBSUB_PUBSUB_EMULATOR_TEST_UTIL_H_
