// Proves the generated Pub/Sub stubs, the channel factory and the emulator
// harness work together: topic, subscription, publish, pull, ack.

#include <grpcpp/client_context.h>

#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::google::pubsub::v1::Publisher;
using ::google::pubsub::v1::Subscriber;
using ::testing::UnorderedElementsAre;

constexpr char kProject[] = "smoke-project";

TEST(PubSubSmokeIntegrationTest, PublishPullAck) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub)
          .ok());
  // The channel comes from PUBSUB_EMULATOR_HOST, as a user's would.
  auto channel = auth::MakeChannel(auth::Service::kPubSub);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(emulators::EnsurePubSubTopic(*channel, kProject, "orders").ok());
  ASSERT_TRUE(emulators::EnsurePubSubSubscription(*channel, kProject,
                                                  "orders-sub", "orders")
                  .ok());
  // Provisioning twice is harmless.
  ASSERT_TRUE(emulators::EnsurePubSubTopic(*channel, kProject, "orders").ok());

  auto publisher = Publisher::NewStub(*channel);
  google::pubsub::v1::PublishRequest publish;
  publish.set_topic("projects/smoke-project/topics/orders");
  for (const char* data : {"one", "two", "three"}) {
    auto* message = publish.add_messages();
    message->set_data(data);
    (*message->mutable_attributes())["source"] = "smoke";
  }
  google::pubsub::v1::PublishResponse published;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(publisher->Publish(&context, publish, &published).ok());
  }
  EXPECT_EQ(published.message_ids_size(), 3);

  auto subscriber = Subscriber::NewStub(*channel);
  const std::string subscription =
      "projects/smoke-project/subscriptions/orders-sub";
  std::vector<std::string> received;
  std::vector<std::string> ack_ids;
  for (int attempt = 0; attempt < 50 && received.size() < 3; ++attempt) {
    grpc::ClientContext context;
    google::pubsub::v1::PullRequest pull;
    pull.set_subscription(subscription);
    pull.set_max_messages(10);
    google::pubsub::v1::PullResponse pulled;
    ASSERT_TRUE(subscriber->Pull(&context, pull, &pulled).ok());
    for (const auto& message : pulled.received_messages()) {
      received.push_back(message.message().data());
      EXPECT_EQ(message.message().attributes().at("source"), "smoke");
      ack_ids.push_back(message.ack_id());
    }
  }
  EXPECT_THAT(received, UnorderedElementsAre("one", "two", "three"));

  grpc::ClientContext ack_context;
  google::pubsub::v1::AcknowledgeRequest ack;
  ack.set_subscription(subscription);
  for (const std::string& id : ack_ids) ack.add_ack_ids(id);
  google::protobuf::Empty empty;
  ASSERT_TRUE(subscriber->Acknowledge(&ack_context, ack, &empty).ok());

  // Acknowledged messages are not delivered again: a pull waits in vain
  // (empty answer or deadline, both are "nothing").
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
  google::pubsub::v1::PullRequest pull;
  pull.set_subscription(subscription);
  pull.set_max_messages(10);
  google::pubsub::v1::PullResponse again;
  grpc::Status status = subscriber->Pull(&context, pull, &again);
  EXPECT_TRUE(status.ok() ||
              status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
      << status.error_message();
  EXPECT_EQ(again.received_messages_size(), 0);
}

}  // namespace
}  // namespace gcpstream
