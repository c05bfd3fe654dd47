// The Pub/Sub sink against a scripted Publisher, for what the emulator cannot
// do on demand: refused batches, transient storms, slow acknowledgements,
// and the order in which requests reach the service.

#include "gcpstream/pubsub/pubsub_sink.h"

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
#include "gcpstream/pubsub/pubsub_sink_test_util.h"
#include "gcpstream/testing/scripted_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::pubsub::testing::FakeTask;
using ::gcpstream::pubsub::testing::Order;
using ::gcpstream::pubsub::testing::OrderSerializer;
using ::gcpstream::pubsub::testing::OrderTopicResolver;
using ::gcpstream::pubsub::testing::Recording;
using ::gcpstream::testing::Always;
using ::gcpstream::testing::Delayed;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::ScriptedServer;
using ::gcpstream::testing::Typed;
using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::Topic;
using ::testing::HasSubstr;

constexpr char kPublish[] = "google.pubsub.v1.Publisher.Publish";
constexpr char kCreateTopic[] = "google.pubsub.v1.Publisher.CreateTopic";

Reply Acknowledge(const PublishRequest& request) {
  PublishResponse response;
  for (int i = 0; i < request.messages_size(); ++i) {
    response.add_message_ids(absl::StrCat(i));
  }
  return Respond(response);
}

PublishRequest RequestOf(const ::gcpstream::testing::RecordedRequest& r) {
  return static_cast<const PublishRequest&>(*r.message);
}

class PubSubSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ScriptedServer::Start({"google.pubsub.v1.Publisher"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    server_->SetDefault(kPublish, Typed<PublishRequest>(Acknowledge));
    failures_ = std::make_shared<std::vector<PubSubFailedElement>>();
  }

  PubSubSinkOptions Options() const {
    PubSubSinkOptions options;
    options.name = "orders-sink";
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    options.publish_progress_timeout = absl::Seconds(20);
    return options;
  }

  std::unique_ptr<runtime::SinkWriter<Order>> Writer(
      const PubSubSinkOptions& options) {
    PubSubSink<Order> sink(options, OrderTopicResolver("p"), OrderSerializer(),
                           Recording(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    return writer.ok() ? *std::move(writer) : nullptr;
  }

  // Every message the server received, in arrival order.
  std::vector<std::string> Received() const {
    std::vector<std::string> out;
    for (const auto& recorded : server_->Requests(kPublish)) {
      const PublishRequest request = RequestOf(recorded);
      for (const auto& message : request.messages()) {
        out.push_back(message.data());
      }
    }
    return out;
  }

  std::unique_ptr<ScriptedServer> server_;
  std::shared_ptr<std::vector<PubSubFailedElement>> failures_;
  FakeTask task_;
};

TEST_F(PubSubSinkTest, FlushReturnsOnlyWhenEveryMessageIsAcknowledged) {
  // Thresholds too high to fire: only Flush sends.
  PubSubSinkOptions options = Options();
  options.batching.max_messages = 1000;
  options.batching.max_delay = absl::Hours(1);
  server_->SetDefault(kPublish, [](const google::protobuf::Message& m) {
    return Delayed(absl::Milliseconds(50),
                   Acknowledge(static_cast<const PublishRequest&>(m)));
  });
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 250; ++i) {
    ASSERT_TRUE(task_.Write(*writer, {"orders", "", absl::StrCat(i)}).ok());
  }
  EXPECT_EQ(server_->CallCount(kPublish), 0);
  EXPECT_EQ(task_.Metric("in_flight_messages"), "250");
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(Received().size(), 250U);
  EXPECT_EQ(task_.Metric("in_flight_messages"), "0");
  EXPECT_EQ(task_.Metric("in_flight_bytes"), "0");
  EXPECT_EQ(task_.Metric("records_written"), "250");
  ASSERT_EQ(server_->Requests(kPublish).size(), 1U);
  EXPECT_EQ(RequestOf(server_->Requests(kPublish)[0]).topic(),
            "projects/p/topics/orders");
  writer->Close();
}

TEST_F(PubSubSinkTest, PartialBatchGoesOutAfterBatchDelayWithoutFlush) {
  PubSubSinkOptions options = Options();
  options.batching.max_delay = absl::Milliseconds(20);
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "a"}).ok());
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "b"}).ok());
  // The task loop serving its mailbox between records is all it takes.
  EXPECT_TRUE(task_.executor().YieldUntil(
      [&] { return task_.Metric("records_written") == "2"; },
      absl::Now() + absl::Seconds(10)));
  EXPECT_EQ(server_->CallCount(kPublish), 1);
  writer->Close();
}

TEST_F(PubSubSinkTest, BatchesRespectCountAndByteThresholds) {
  PubSubSinkOptions options = Options();
  options.batching.max_messages = 10;
  options.batching.max_bytes = 2000;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 95; ++i) {
    ASSERT_TRUE(
        task_.Write(*writer, {"orders", "", std::string(i % 3 * 150 + 1, 'x')})
            .ok());
  }
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(Received().size(), 95U);
  for (const auto& request : server_->Requests(kPublish)) {
    EXPECT_LE(RequestOf(request).messages_size(), 10);
    EXPECT_LE(static_cast<int64_t>(RequestOf(request).ByteSizeLong()), 2000);
  }
  writer->Close();
}

TEST_F(PubSubSinkTest, InFlightCapsAreNeverExceeded) {
  PubSubSinkOptions options = Options();
  options.max_in_flight_messages = 7;
  options.max_in_flight_bytes = 3000;
  options.batching.max_messages = 3;
  options.batching.max_delay = absl::Milliseconds(2);
  // Server side: messages received and not yet answered, at most.
  auto outstanding = std::make_shared<std::atomic<int>>(0);
  auto peak = std::make_shared<std::atomic<int>>(0);
  server_->SetDefault(kPublish, [outstanding, peak,
                                 seed = std::make_shared<std::atomic<int>>(0)](
                                    const google::protobuf::Message& m) {
    const auto& request = static_cast<const PublishRequest&>(m);
    const int now = outstanding->fetch_add(request.messages_size()) +
                    request.messages_size();
    int seen = peak->load();
    while (now > seen && !peak->compare_exchange_weak(seen, now)) {
    }
    // The count drops when the reply is decided; the delay after it only
    // makes the client wait longer, so the server's view never exceeds
    // the client's.
    outstanding->fetch_sub(request.messages_size());
    return Delayed(absl::Milliseconds(seed->fetch_add(1) % 7),
                   Acknowledge(request));
  });
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  std::mt19937 random(42);
  std::uniform_int_distribution<int> size(1, 900);
  for (int i = 0; i < 400; ++i) {
    ASSERT_TRUE(
        task_
            .Write(*writer,
                   {absl::StrCat("t", i % 3), "",
                    std::string(static_cast<size_t>(size(random)), 'x')})
            .ok());
    EXPECT_LE(std::stoll(task_.Metric("in_flight_messages")), 7) << i;
    EXPECT_LE(std::stoll(task_.Metric("in_flight_bytes")), 3000) << i;
  }
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(Received().size(), 400U);
  EXPECT_LE(peak->load(), 7);
  writer->Close();
}

TEST_F(PubSubSinkTest, MessageLargerThanByteCapIsAdmittedIntoEmptyWriter) {
  PubSubSinkOptions options = Options();
  options.max_in_flight_bytes = 100;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", std::string(500, 'x')}).ok());
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", std::string(500, 'y')}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(Received().size(), 2U);
  // The second waited for the first: never two in one request.
  EXPECT_EQ(server_->CallCount(kPublish), 2);
  writer->Close();
}

TEST_F(PubSubSinkTest, RefusedBatchRoutesOnlyMessagesRefusedAlone) {
  server_->SetDefault(kPublish, Typed<PublishRequest>([](const auto& request) {
                        for (const auto& message : request.messages()) {
                          if (absl::StartsWith(message.data(), "bad")) {
                            return Fail(grpc::StatusCode::INVALID_ARGUMENT,
                                        "message rejected");
                          }
                        }
                        return Acknowledge(request);
                      }));
  PubSubSinkOptions options = Options();
  options.batching.max_messages = 10;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 10; ++i) {
    const std::string data =
        (i == 3 || i == 7) ? absl::StrCat("bad", i) : absl::StrCat("good", i);
    Order order{"orders", "", data};
    order.attributes = {{"source", "test"}};
    ASSERT_TRUE(task_.Write(*writer, order).ok());
  }
  ASSERT_TRUE(writer->Flush(false).ok());
  ASSERT_EQ(failures_->size(), 2U);
  // Unordered singles go out together, so they may complete in any order.
  std::vector<std::string> routed = {*(*failures_)[0].payload,
                                     *(*failures_)[1].payload};
  std::sort(routed.begin(), routed.end());
  EXPECT_EQ(routed, (std::vector<std::string>{"bad3", "bad7"}));
  EXPECT_EQ((*failures_)[0].status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*failures_)[0].destination, "projects/p/topics/orders");
  EXPECT_EQ((*failures_)[0].attributes.at("source"), "test");
  EXPECT_EQ(task_.Metric("records_written"), "8");
  EXPECT_EQ(task_.Metric("records_routed"), "2");
  EXPECT_EQ(task_.Metric("publish_errors_invalid_argument"), "3");
  // One batch, then ten singles.
  EXPECT_EQ(server_->CallCount(kPublish), 11);
  writer->Close();
}

TEST_F(PubSubSinkTest, SystematicRefusalsTripTheGuard) {
  server_->SetDefault(kPublish, Always(Fail(grpc::StatusCode::INVALID_ARGUMENT,
                                            "schema mismatch")));
  PubSubSinkOptions options = Options();
  options.max_consecutive_rejections = 3;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(task_.Write(*writer, {"orders", "", "x"}).ok());
  }
  absl::Status flushed = writer->Flush(false);
  EXPECT_THAT(flushed.message(), HasSubstr("max-consecutive-rejections"));
  writer->Close();
}

TEST_F(PubSubSinkTest, TransientErrorsAreRetriedThenSucceed) {
  server_->Enqueue(kPublish,
                   Always(Fail(grpc::StatusCode::UNAVAILABLE, "try again")));
  server_->Enqueue(kPublish, Always(Fail(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                         "slow down")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "a"}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(server_->CallCount(kPublish), 3);
  EXPECT_EQ(task_.Metric("request_retries"), "2");
  EXPECT_EQ(task_.Metric("publish_errors_unavailable"), "1");
  EXPECT_EQ(task_.Metric("publish_errors_resource_exhausted"), "1");
  EXPECT_TRUE(failures_->empty());
  writer->Close();
}

TEST_F(PubSubSinkTest, RetryExhaustionFailsTheJobAndRoutesNothing) {
  server_->SetDefault(kPublish,
                      Always(Fail(grpc::StatusCode::UNAVAILABLE, "outage")));
  PubSubSinkOptions options = Options();
  options.retry.max_attempts = 3;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "a"}).ok());
  absl::Status flushed = writer->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(flushed.message(), HasSubstr("projects/p/topics/orders"));
  EXPECT_EQ(server_->CallCount(kPublish), 3);
  EXPECT_TRUE(failures_->empty());
  // The failure sticks.
  EXPECT_FALSE(task_.Write(*writer, {"orders", "", "b"}).ok());
  writer->Close();
}

TEST_F(PubSubSinkTest, PermissionDeniedFailsTheJob) {
  server_->SetDefault(kPublish, Always(Fail(grpc::StatusCode::PERMISSION_DENIED,
                                            "caller lacks pubsub.publish")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "a"}).ok());
  absl::Status flushed = writer->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(server_->CallCount(kPublish), 1);
  writer->Close();
}

TEST_F(PubSubSinkTest, MissingTopicIsCreatedWithCreateOptionsAndRepublished) {
  server_->Enqueue(
      kPublish, Always(Fail(grpc::StatusCode::NOT_FOUND, "Topic not found")));
  server_->Enqueue(kCreateTopic,
                   Typed<Topic>([](const Topic& t) { return Respond(t); }));
  PubSubSinkOptions options = Options();
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

TEST_F(PubSubSinkTest, AlreadyExistsOnCreateCountsAsSuccess) {
  server_->Enqueue(
      kPublish, Always(Fail(grpc::StatusCode::NOT_FOUND, "Topic not found")));
  server_->Enqueue(kCreateTopic,
                   Always(Fail(grpc::StatusCode::ALREADY_EXISTS, "exists")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"raced", "", "a"}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(task_.Metric("topics_created"), "0");
  EXPECT_EQ(task_.Metric("records_written"), "1");
  writer->Close();
}

TEST_F(PubSubSinkTest, CreateNeverFailsNamingTheOption) {
  server_->SetDefault(
      kPublish, Always(Fail(grpc::StatusCode::NOT_FOUND, "Topic not found")));
  PubSubSinkOptions options = Options();
  options.create_disposition = CreateDisposition::kCreateNever;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"missing", "", "a"}).ok());
  absl::Status flushed = writer->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(flushed.message(), HasSubstr("create-disposition"));
  EXPECT_THAT(flushed.message(), HasSubstr("projects/p/topics/missing"));
  EXPECT_EQ(server_->CallCount(kCreateTopic), 0);
  writer->Close();
}

TEST_F(PubSubSinkTest, OrderingKeyWithoutOrderingFailsNamingTheOption) {
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status written = task_.Write(*writer, {"orders", "customer-1", "a"});
  EXPECT_EQ(written.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(written.message(), HasSubstr("enable-message-ordering"));
  writer->Close();
}

TEST_F(PubSubSinkTest, OrderingKeepsOneBatchPerKeyAndOrderAcrossRetries) {
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
  PubSubSinkOptions options = Options();
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

TEST_F(PubSubSinkTest, OrderedKeyIsConfirmedInOrderAfterARefusedBatch) {
  server_->SetDefault(kPublish, Typed<PublishRequest>([](const auto& request) {
                        for (const auto& message : request.messages()) {
                          if (message.data() == "k:2") {
                            return Fail(grpc::StatusCode::INVALID_ARGUMENT,
                                        "bad message");
                          }
                        }
                        return Acknowledge(request);
                      }));
  PubSubSinkOptions options = Options();
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

TEST_F(PubSubSinkTest, OversizedAndEmptyMessagesAreRoutedBeforeSending) {
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(
      task_.Write(*writer, {"orders", "", std::string(size_t{10'000'001}, 'x')})
          .ok());
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", ""}).ok());
  Order too_many{"orders", "", "x"};
  for (int i = 0; i < 101; ++i) too_many.attributes[absl::StrCat("a", i)] = "v";
  ASSERT_TRUE(task_.Write(*writer, too_many).ok());
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "fine"}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  ASSERT_EQ(failures_->size(), 3U);
  EXPECT_THAT((*failures_)[0].status.message(), HasSubstr("10000000"));
  EXPECT_THAT((*failures_)[1].status.message(), HasSubstr("neither"));
  EXPECT_THAT((*failures_)[2].status.message(), HasSubstr("100 attributes"));
  EXPECT_EQ(Received(), std::vector<std::string>{"fine"});
  writer->Close();
}

TEST_F(PubSubSinkTest, SkippedAndUnserializableRecordsAreCounted) {
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "skip"}).ok());
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "broken"}).ok());
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "ok"}).ok());
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(task_.Metric("records_in"), "3");
  EXPECT_EQ(task_.Metric("records_skipped"), "1");
  EXPECT_EQ(task_.Metric("records_routed"), "1");
  EXPECT_EQ(task_.Metric("records_written"), "1");
  ASSERT_EQ(failures_->size(), 1U);
  EXPECT_FALSE(failures_->front().payload.has_value());
  EXPECT_THAT(failures_->front().status.message(), HasSubstr("amount"));
  writer->Close();
}

// An in-place serializer that fills part of the message and then fails or
// skips: nothing it filled reaches the next record's message.
TEST_F(PubSubSinkTest, InPlaceSerializerLeavesNothingBehindOnSkipOrFailure) {
  PubSubSink<Order> sink(
      Options(), OrderTopicResolver("p"),
      [](const Order& order, const WriterContext&,
         PubsubMessage& message) -> absl::StatusOr<Serialized> {
        EXPECT_EQ(message.ByteSizeLong(), 0U) << "handed over non-empty";
        (*message.mutable_attributes())["seen"] = order.data;
        message.set_data(order.data);
        if (order.data == "skip") return Serialized::kSkip;
        if (order.data == "broken") {
          return absl::InvalidArgumentError("field 'amount' is missing");
        }
        return Serialized::kPublish;
      },
      Recording(failures_));
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const char* data : {"skip", "1", "broken", "2", "skip", "3"}) {
    ASSERT_TRUE(task_.Write(**writer, {"orders", "", data}).ok());
  }
  ASSERT_TRUE((*writer)->Flush(false).ok());
  EXPECT_EQ(Received(), (std::vector<std::string>{"1", "2", "3"}));
  for (const auto& recorded : server_->Requests(kPublish)) {
    const PublishRequest request = RequestOf(recorded);
    for (const auto& message : request.messages()) {
      EXPECT_EQ(message.attributes().size(), 1U);
      EXPECT_EQ(message.attributes().at("seen"), message.data());
    }
  }
  EXPECT_EQ(task_.Metric("records_skipped"), "2");
  EXPECT_EQ(task_.Metric("records_routed"), "1");
  EXPECT_EQ(task_.Metric("records_written"), "3");
  (*writer)->Close();
}

TEST_F(PubSubSinkTest, NoProgressFailsAfterPublishProgressTimeout) {
  server_->SetDefault(kPublish, [](const google::protobuf::Message& m) {
    return Delayed(absl::Seconds(30),
                   Acknowledge(static_cast<const PublishRequest&>(m)));
  });
  PubSubSinkOptions options = Options();
  options.publish_progress_timeout = absl::Milliseconds(300);
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "a"}).ok());
  absl::Status flushed = writer->Flush(false);
  EXPECT_EQ(flushed.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(flushed.message(), HasSubstr("publish-progress-timeout"));
  writer->Close();
}

TEST_F(PubSubSinkTest, IdlePublishersAreSweptAtNonFinalFlush) {
  FakeClock clock(absl::FromUnixSeconds(1'000'000));
  PubSubSinkOptions options = Options();
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

TEST_F(PubSubSinkTest, CapacityReleasesLeastRecentlyUsedCleanPublisher) {
  PubSubSinkOptions options = Options();
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

TEST_F(PubSubSinkTest, AFixedTopicWithoutAnIdIsRefusedAtOpen) {
  PubSubSink<Order> sink(Options(), TopicDestination("p", ""),
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

TEST(PubSubSinkOptionsTest, ErrorsNameTheOption) {
  PubSubSinkOptions options;
  options.max_in_flight_messages = 0;
  EXPECT_THAT(CheckPubSubSinkOptions(options).message(),
              HasSubstr("max-in-flight-messages"));
  options = PubSubSinkOptions();
  options.batching.max_messages = 1001;
  EXPECT_THAT(CheckPubSubSinkOptions(options).message(),
              HasSubstr("max-batch-messages"));
  options = PubSubSinkOptions();
  options.topic_create_options.message_retention = absl::Minutes(1);
  EXPECT_THAT(CheckPubSubSinkOptions(options).message(),
              HasSubstr("message-retention-duration"));
  options = PubSubSinkOptions();
  options.max_active_publishers = -1;
  EXPECT_THAT(CheckPubSubSinkOptions(options).message(),
              HasSubstr("max-active-publishers"));
  EXPECT_TRUE(CheckPubSubSinkOptions(PubSubSinkOptions()).ok());
  EXPECT_TRUE(kCreateDispositionOption.CheckSpellings().ok());
  EXPECT_EQ(*kCreateDispositionOption.Parse("CREATE-NEVER"),
            CreateDisposition::kCreateNever);
  EXPECT_THAT(kCreateDispositionOption.Parse("never").status().message(),
              HasSubstr("create-if-needed"));
}

}  // namespace
}  // namespace gcpstream::pubsub
