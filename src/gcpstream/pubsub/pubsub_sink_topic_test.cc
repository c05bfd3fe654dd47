// The Pub/Sub sink's topics against a scripted Publisher: creation of a
// missing topic, publishers released when idle or for capacity, and
// ordering keys across retries and rejection confirmation.

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_sink_fixture.h"
#include "gcpstream/pubsub/pubsub_sink_test_util.h"
#include "gcpstream/testing/scripted_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::pubsub::testing::Acknowledge;
using ::gcpstream::pubsub::testing::kCreateTopic;
using ::gcpstream::pubsub::testing::kPublish;
using ::gcpstream::pubsub::testing::Order;
using ::gcpstream::pubsub::testing::OrderSerializer;
using ::gcpstream::pubsub::testing::PubSubSinkTest;
using ::gcpstream::pubsub::testing::RequestOf;
using ::gcpstream::testing::Always;
using ::gcpstream::testing::Delayed;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::Typed;
using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::Topic;
using ::testing::HasSubstr;

// A suite of its own: the Pub/Sub sink tests share one test executable.
// Its tests create topics unless they say otherwise.
class PubSubSinkTopicTest : public PubSubSinkTest {
 protected:
  PubSubSinkOptions CreatingOptions() const {
    PubSubSinkOptions options = PubSubSinkTest::Options();
    options.create_disposition = CreateDisposition::kCreateIfNeeded;
    return options;
  }
};

TEST_F(PubSubSinkTopicTest,
       MissingTopicIsCreatedWithCreateOptionsAndRepublished) {
  server_->Enqueue(
      kPublish, Always(Fail(grpc::StatusCode::NOT_FOUND, "Topic not found")));
  server_->Enqueue(kCreateTopic,
                   Typed<Topic>([](const Topic& t) { return Respond(t); }));
  PubSubSinkOptions options = CreatingOptions();
  options.topic_create_options.message_retention = absl::Hours(2);
  options.topic_create_options.kms_key_name =
      "projects/p/locations/l/keyRings/r/cryptoKeys/k";
  options.topic_create_options.allowed_persistence_regions = {"europe-west1"};
  options.topic_create_options.enforce_in_transit = true;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"new-topic", "", "a"}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  auto creates = server_->Requests(kCreateTopic);
  ASSERT_EQ(creates.size(), 1U);
  const auto& topic = static_cast<const Topic&>(*creates[0].message);
  EXPECT_EQ(topic.name(), "projects/p/topics/new-topic");
  EXPECT_EQ(topic.message_retention_duration().seconds(), 7200);
  EXPECT_EQ(topic.kms_key_name(),
            "projects/p/locations/l/keyRings/r/cryptoKeys/k");
  ASSERT_EQ(topic.message_storage_policy().allowed_persistence_regions_size(),
            1);
  EXPECT_TRUE(topic.message_storage_policy().enforce_in_transit());
  EXPECT_EQ(server_->CallCount(kPublish), 2);
  EXPECT_EQ(task_.Metric("topics_created"), "1");
  EXPECT_EQ(task_.Metric("parked_messages"), "0");
  EXPECT_EQ(task_.Metric("records_written"), "1");
  writer->Close();
}

TEST_F(PubSubSinkTopicTest, AlreadyExistsOnCreateCountsAsSuccess) {
  server_->Enqueue(
      kPublish, Always(Fail(grpc::StatusCode::NOT_FOUND, "Topic not found")));
  server_->Enqueue(kCreateTopic,
                   Always(Fail(grpc::StatusCode::ALREADY_EXISTS, "exists")));
  auto writer = Writer(CreatingOptions());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"raced", "", "a"}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(task_.Metric("topics_created"), "0");
  EXPECT_EQ(task_.Metric("records_written"), "1");
  writer->Close();
}

// A topic the sink creates has no subscription, so what it publishes there
// is gone: by default a missing (e.g. misspelt) topic fails the job.
TEST_F(PubSubSinkTopicTest, CreateNeverIsTheDefaultAndFailsNamingTheOption) {
  server_->SetDefault(
      kPublish, Always(Fail(grpc::StatusCode::NOT_FOUND, "Topic not found")));
  const PubSubSinkOptions options = PubSubSinkTest::Options();
  EXPECT_EQ(options.create_disposition, CreateDisposition::kCreateNever);
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"missing", "", "a"}).ok());
  absl::Status flushed = writer->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(flushed.message(), HasSubstr("create-disposition"));
  EXPECT_THAT(flushed.message(), HasSubstr("check the topic's spelling"));
  EXPECT_THAT(flushed.message(), HasSubstr("projects/p/topics/missing"));
  EXPECT_EQ(server_->CallCount(kCreateTopic), 0);
  writer->Close();
}

TEST_F(PubSubSinkTopicTest, OrderingKeyWithoutOrderingFailsNamingTheOption) {
  auto writer = Writer(CreatingOptions());
  ASSERT_NE(writer, nullptr);
  absl::Status written = task_.Write(*writer, {"orders", "customer-1", "a"});
  EXPECT_EQ(written.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(written.message(), HasSubstr("enable-message-ordering"));
  writer->Close();
}

TEST_F(PubSubSinkTopicTest, OrderingKeepsOneBatchPerKeyAndOrderAcrossRetries) {
  // Per key: batches the server holds at once, and what it accepted, in order.
  struct Seen {
    absl::Mutex mu;
    std::map<std::string, int> outstanding;
    int max_outstanding = 0;
    std::map<std::string, std::vector<std::string>> accepted;
    int calls = 0;
  };
  auto seen = std::make_shared<Seen>();
  server_->SetDefault(
      kPublish, Typed<PublishRequest>([seen](const auto& request) {
        absl::MutexLock lock(&seen->mu);
        const std::string& key = request.messages(0).ordering_key();
        for (const auto& message : request.messages()) {
          EXPECT_EQ(message.ordering_key(), key);  // One key per request.
        }
        const int now = ++seen->outstanding[key];
        seen->max_outstanding = std::max(seen->max_outstanding, now);
        // Every fifth call fails transiently: the retry must come before the
        // key's next batch.
        if (++seen->calls % 5 == 0) {
          --seen->outstanding[key];
          return Fail(grpc::StatusCode::UNAVAILABLE, "flaky");
        }
        for (const auto& message : request.messages()) {
          seen->accepted[key].push_back(message.data());
        }
        --seen->outstanding[key];
        return Delayed(absl::Milliseconds(seen->calls % 3),
                       Acknowledge(request));
      }));
  PubSubSinkOptions options = CreatingOptions();
  options.enable_message_ordering = true;
  options.batching.max_messages = 4;
  options.batching.max_delay = absl::Milliseconds(1);
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 300; ++i) {
    const std::string key = absl::StrCat("k", i % 6);
    ASSERT_TRUE(
        task_.Write(*writer, {"orders", key, absl::StrCat(key, ":", i)}).ok());
  }
  ASSERT_TRUE(writer->Flush(false).ok());
  absl::MutexLock lock(&seen->mu);
  EXPECT_EQ(seen->max_outstanding, 1);
  for (int k = 0; k < 6; ++k) {
    const std::string key = absl::StrCat("k", k);
    std::vector<std::string> expected;
    for (int i = k; i < 300; i += 6) {
      expected.push_back(absl::StrCat(key, ":", i));
    }
    EXPECT_EQ(seen->accepted[key], expected) << key;
  }
  writer->Close();
}

TEST_F(PubSubSinkTopicTest, OrderedKeyIsConfirmedInOrderAfterARefusedBatch) {
  server_->SetDefault(kPublish, Typed<PublishRequest>([](const auto& request) {
                        for (const auto& message : request.messages()) {
                          if (message.data() == "k:2") {
                            return Fail(grpc::StatusCode::INVALID_ARGUMENT,
                                        "bad message");
                          }
                        }
                        return Acknowledge(request);
                      }));
  PubSubSinkOptions options = CreatingOptions();
  options.enable_message_ordering = true;
  options.batching.max_messages = 4;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(
        task_.Write(*writer, {"orders", "k", absl::StrCat("k:", i)}).ok());
  }
  ASSERT_TRUE(writer->Flush(false).ok());
  ASSERT_EQ(failures_->size(), 1U);
  EXPECT_EQ(failures_->front().ordering_key, "k");
  // Accepted requests, in arrival order, keep the key's order.
  std::vector<std::string> accepted;
  for (const auto& request : server_->Requests(kPublish)) {
    const PublishRequest r = RequestOf(request);
    bool refused = false;
    for (const auto& m : r.messages()) refused |= m.data() == "k:2";
    if (refused) continue;
    for (const auto& m : r.messages()) accepted.push_back(m.data());
  }
  EXPECT_EQ(accepted, (std::vector<std::string>{"k:0", "k:1", "k:3", "k:4",
                                                "k:5", "k:6", "k:7"}));
  writer->Close();
}

TEST_F(PubSubSinkTopicTest, IdlePublishersAreSweptAtNonFinalFlush) {
  FakeClock clock(absl::FromUnixSeconds(1'000'000));
  PubSubSinkOptions options = CreatingOptions();
  options.clock = &clock;
  options.destination_idle_timeout = absl::Minutes(1);
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"a", "", "1"}).ok());
  ASSERT_TRUE(task_.Write(*writer, {"b", "", "1"}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(task_.Metric("publishers_active"), "2");
  clock.Advance(absl::Seconds(45));
  ASSERT_TRUE(task_.Write(*writer, {"b", "", "2"}).ok());
  clock.Advance(absl::Seconds(30));
  ASSERT_TRUE(writer->Flush(false).ok());
  // "a" idle 75 s, "b" 30 s.
  EXPECT_EQ(task_.Metric("publishers_active"), "1");
  EXPECT_EQ(task_.Metric("publishers_evicted_idle"), "1");
  EXPECT_EQ(task_.Metric("publishers_evicted"), "1");
  // A publisher recreated later is transparent.
  ASSERT_TRUE(task_.Write(*writer, {"a", "", "3"}).ok());
  ASSERT_TRUE(writer->Flush(true).ok());
  EXPECT_EQ(task_.Metric("records_written"), "4");
  EXPECT_EQ(task_.Metric("publishers_created"), "3");
  writer->Close();
}

TEST_F(PubSubSinkTopicTest, CapacityReleasesLeastRecentlyUsedCleanPublisher) {
  PubSubSinkOptions options = CreatingOptions();
  options.max_active_publishers = 2;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"a", "", "1"}).ok());
  ASSERT_TRUE(task_.Write(*writer, {"b", "", "1"}).ok());
  // Neither is clean before the flush: opening "c" waits for one to be
  // (whichever of "a" and "b" is answered first) and releases it.
  ASSERT_TRUE(task_.Write(*writer, {"c", "", "1"}).ok());
  EXPECT_EQ(task_.Metric("publishers_active"), "2");
  EXPECT_EQ(task_.Metric("publishers_evicted_capacity"), "1");
  ASSERT_TRUE(writer->Flush(false).ok());
  // All clean now: "d" releases the least recently used, never "c".
  ASSERT_TRUE(task_.Write(*writer, {"d", "", "1"}).ok());
  EXPECT_EQ(task_.Metric("publishers_evicted_capacity"), "2");
  EXPECT_EQ(task_.Metric("publishers_created"), "4");
  ASSERT_TRUE(task_.Write(*writer, {"c", "", "2"}).ok());
  EXPECT_EQ(task_.Metric("publishers_created"), "4");
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(task_.Metric("records_written"), "5");
  writer->Close();
}

TEST_F(PubSubSinkTopicTest, AFixedTopicWithoutAnIdIsRefusedAtOpen) {
  PubSubSink<Order> sink(CreatingOptions(), TopicDestination("p", ""),
                         OrderSerializer());
  auto writer = sink.CreateWriter(task_.Context());
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(writer.status().message(),
              HasSubstr("needs a project and a topic id, got "
                        "'projects/p/topics/'"));
}

TEST(TopicPublisherTest, UnfinishedShutdownFailsNamingTheOption) {
  TopicDestination topic;
  topic.project = "p";
  topic.topic = "t";
  TopicPublisher publisher(topic, PublishBatcherOptions(),
                           RealClock::Instance(), absl::Milliseconds(50));
  publisher.tracker()->Begin();  // A callback gRPC never returned.
  absl::Status released = publisher.Release();
  EXPECT_EQ(released.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(released.message(), HasSubstr("shutdown-timeout"));
  publisher.tracker()->End();
  EXPECT_TRUE(publisher.Release().ok());
}

}  // namespace
}  // namespace gcpstream::pubsub
