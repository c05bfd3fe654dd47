// The Pub/Sub sink against the emulator: what Flush() returns for is
// pullable, missing topics are created (or refused, with create-never), and
// refused records reach a Pub/Sub dead-letter topic.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_sink_test_util.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::pubsub::testing::FakeTask;
using ::gcpstream::pubsub::testing::Order;
using ::gcpstream::pubsub::testing::OrderSerializer;
using ::gcpstream::pubsub::testing::OrderTopicResolver;
using ::gcpstream::pubsub::testing::PullMessages;
using ::testing::HasSubstr;

constexpr char kSinkProject[] = "sink-project";

class PubSubSinkIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host =
        gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub);
    ASSERT_TRUE(host.ok()) << host.status();
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    ASSERT_TRUE(channel.ok()) << channel.status();
    channel_ = *channel;
  }

  void Subscribe(const std::string& topic, const std::string& subscription) {
    ASSERT_TRUE(emulators::EnsurePubSubSubscription(channel_, kSinkProject,
                                                    subscription, topic)
                    .ok());
  }

  std::unique_ptr<runtime::SinkWriter<Order>> Writer(
      const PubSubSinkOptions& options,
      PubSubFailureHandlerFactory handler = nullptr) {
    PubSubSink<Order> sink(options, OrderTopicResolver(kSinkProject),
                           OrderSerializer(), std::move(handler));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    return writer.ok() ? *std::move(writer) : nullptr;
  }

  grpc::Status GetTopic(const std::string& topic,
                        google::pubsub::v1::Topic& found) {
    auto publisher = google::pubsub::v1::Publisher::NewStub(channel_);
    grpc::ClientContext context;
    google::pubsub::v1::GetTopicRequest get;
    get.set_topic(absl::StrCat("projects/", kSinkProject, "/topics/", topic));
    return publisher->GetTopic(&context, get, &found);
  }

  std::shared_ptr<grpc::Channel> channel_;
  FakeTask task_;
};

TEST_F(PubSubSinkIntegrationTest, EverythingFlushedIsPullable) {
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kSinkProject, "durable").ok());
  Subscribe("durable", "durable-sub");
  PubSubSinkOptions options;
  // Thresholds too high to fire: only Flush() sends.
  options.batching.max_messages = 1000;
  options.batching.max_bytes = 10'000'000;
  options.batching.max_delay = absl::Hours(1);
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 700; ++i) {
    ASSERT_TRUE(task_.Write(*writer, {"durable", "", absl::StrCat(i)}).ok());
  }
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(task_.Metric("in_flight_messages"), "0");
  EXPECT_EQ(task_.Metric("in_flight_bytes"), "0");
  writer->Close();
  auto pulled = PullMessages(channel_, kSinkProject, "durable-sub", 700);
  std::set<std::string> distinct;
  for (const auto& message : pulled) distinct.insert(message.data());
  EXPECT_EQ(distinct.size(), 700U);
}

TEST_F(PubSubSinkIntegrationTest, PipelineDeliversEveryRecord) {
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kSinkProject, "piped").ok());
  Subscribe("piped", "piped-sub");
  runtime::PipelineOptions pipeline_options;
  pipeline_options.name = "pubsub-sink-pipeline";
  runtime::Pipeline pipeline(pipeline_options);
  runtime::GeneratorOptions generator;
  generator.count = 2000;
  auto source = runtime::GeneratorSource<int64_t>::Create(
      "orders", [](int64_t i) { return i; }, generator);
  ASSERT_TRUE(source.ok()) << source.status();
  auto sink = std::make_shared<PubSubSink<Order>>(
      PubSubSinkOptions(), OrderTopicResolver(kSinkProject), OrderSerializer());
  pipeline
      .AddSource(std::shared_ptr<runtime::GeneratorSource<int64_t>>(
                     *std::move(source)),
                 2)
      .Map([](const int64_t& i) {
        return Order{"piped", "", absl::StrCat("order-", i)};
      })
      .SinkTo(sink, 2);
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  auto pulled = PullMessages(channel_, kSinkProject, "piped-sub", 2000);
  std::set<std::string> distinct;
  for (const auto& message : pulled) distinct.insert(message.data());
  EXPECT_EQ(distinct.size(), 2000U);
}

TEST_F(PubSubSinkIntegrationTest, MissingTopicsAreCreatedWithCreateOptions) {
  PubSubSinkOptions options;
  options.create_disposition = CreateDisposition::kCreateIfNeeded;
  options.topic_create_options.message_retention = absl::Hours(3);
  options.topic_create_options.allowed_persistence_regions = {"europe-west1"};
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  const std::vector<std::string> topics = {
      "region-eu", "region-us", "region-asia", "region-au", "region-sa"};
  // Phase one creates the topics; a topic without a subscription keeps
  // nothing, so phase two proves that records land in each.
  for (const std::string& topic : topics) {
    ASSERT_TRUE(task_.Write(*writer, {topic, "", "first"}).ok());
  }
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(task_.Metric("topics_created"), "5");
  EXPECT_EQ(task_.Metric("parked_messages"), "0");
  for (const std::string& topic : topics) {
    google::pubsub::v1::Topic found;
    ASSERT_TRUE(GetTopic(topic, found).ok()) << topic;
    EXPECT_EQ(found.message_retention_duration().seconds(), 3 * 3600) << topic;
    ASSERT_EQ(found.message_storage_policy().allowed_persistence_regions_size(),
              1);
    Subscribe(topic, topic + "-sub");
  }
  for (int i = 0; i < 100; ++i) {
    for (const std::string& topic : topics) {
      ASSERT_TRUE(task_.Write(*writer, {topic, "", absl::StrCat(i)}).ok());
    }
  }
  ASSERT_TRUE(writer->Flush(true).ok());
  writer->Close();
  for (const std::string& topic : topics) {
    EXPECT_EQ(PullMessages(channel_, kSinkProject, topic + "-sub", 100).size(),
              100U)
        << topic;
  }
  EXPECT_EQ(task_.Metric("records_written"), "505");
}

TEST_F(PubSubSinkIntegrationTest, CreateNeverFailsNamingTheOption) {
  PubSubSinkOptions options;
  options.create_disposition = CreateDisposition::kCreateNever;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"never-created", "", "x"}).ok());
  absl::Status flushed = writer->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(flushed.message(), HasSubstr("create-disposition"));
  writer->Close();
  google::pubsub::v1::Topic found;
  EXPECT_EQ(GetTopic("never-created", found).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(PubSubSinkIntegrationTest, RefusedRecordsReachTheDeadLetterTopic) {
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kSinkProject, "good").ok());
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kSinkProject, "dead").ok());
  Subscribe("good", "good-sub");
  Subscribe("dead", "dead-sub");
  PubSubFailureHandlerFactory to_dlq =
      [](const runtime::SinkWriterContext& context)
      -> absl::StatusOr<std::unique_ptr<PublishEngine::Handler>> {
    PubSubDeadLetterQueueOptions dlq;
    dlq.project = kSinkProject;
    dlq.topic = "dead";
    auto queue = PubSubDeadLetterQueue::Create(dlq, context.mailbox);
    if (!queue.ok()) return queue.status();
    return SendToDeadLetterQueue<PubSubFailedElement>(*std::move(queue));
  };
  auto writer = Writer(PubSubSinkOptions(), to_dlq);
  ASSERT_NE(writer, nullptr);
  Order too_many{"good", "", "too-many-attributes"};
  for (int i = 0; i < 101; ++i) too_many.attributes[absl::StrCat("a", i)] = "v";
  ASSERT_TRUE(task_.Write(*writer, {"good", "", "fine"}).ok());
  ASSERT_TRUE(task_.Write(*writer, too_many).ok());
  ASSERT_TRUE(task_.Write(*writer, {"good", "", "broken"}).ok());
  ASSERT_TRUE(writer->Flush(true).ok());
  writer->Close();
  EXPECT_EQ(PullMessages(channel_, kSinkProject, "good-sub", 1).size(), 1U);
  auto dead = PullMessages(channel_, kSinkProject, "dead-sub", 2);
  ASSERT_EQ(dead.size(), 2U);
  std::map<std::string, google::pubsub::v1::PubsubMessage> by_data;
  for (const auto& message : dead) by_data[message.data()] = message;
  ASSERT_EQ(by_data.count("too-many-attributes"), 1U);
  const auto& refused = by_data["too-many-attributes"].attributes();
  EXPECT_EQ(refused.at("dlq-connector"), "pubsub");
  EXPECT_EQ(refused.at("dlq-destination"), "projects/sink-project/topics/good");
  EXPECT_THAT(refused.at("dlq-error"), HasSubstr("100 attributes"));
  // The serializer's failure has no payload, but the error says why.
  ASSERT_EQ(by_data.count(""), 1U);
  EXPECT_THAT(by_data[""].attributes().at("dlq-error"), HasSubstr("amount"));
}

TEST_F(PubSubSinkIntegrationTest, MissingDeadLetterTopicFailsAtOpen) {
  PubSubFailureHandlerFactory to_dlq =
      [](const runtime::SinkWriterContext& context)
      -> absl::StatusOr<std::unique_ptr<PublishEngine::Handler>> {
    PubSubDeadLetterQueueOptions dlq;
    dlq.project = kSinkProject;
    dlq.topic = "no-such-dead-letter-topic";
    auto queue = PubSubDeadLetterQueue::Create(dlq, context.mailbox);
    if (!queue.ok()) return queue.status();
    return SendToDeadLetterQueue<PubSubFailedElement>(*std::move(queue));
  };
  PubSubSink<Order> sink(PubSubSinkOptions(), OrderTopicResolver(kSinkProject),
                         OrderSerializer(), to_dlq);
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(writer.status().message(),
              HasSubstr("no-such-dead-letter-topic"));
}

}  // namespace
}  // namespace gcpstream::pubsub
