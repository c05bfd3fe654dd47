// The Pub/Sub sink against a scripted Publisher, for what the emulator cannot
// do on demand: refused batches, transient storms, slow acknowledgements,
// and the order in which requests reach the service. Topics (creation,
// idle and capacity eviction) and ordering: pubsub_sink_topic_test.cc.

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_sink_fixture.h"
#include "gcpstream/pubsub/pubsub_sink_test_util.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/runtime/testing/test_connectors.h"
#include "gcpstream/testing/scripted_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::pubsub::testing::Acknowledge;
using ::gcpstream::pubsub::testing::kPublish;
using ::gcpstream::pubsub::testing::Order;
using ::gcpstream::pubsub::testing::OrderSerializer;
using ::gcpstream::pubsub::testing::OrderTopicResolver;
using ::gcpstream::pubsub::testing::PubSubSinkTest;
using ::gcpstream::pubsub::testing::Recording;
using ::gcpstream::pubsub::testing::RequestOf;
using ::gcpstream::testing::Always;
using ::gcpstream::testing::Delayed;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Typed;
using ::google::pubsub::v1::PublishRequest;
using ::testing::HasSubstr;

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

// A service that never answers holds a checkpoint's Flush() for up to
// publish-progress-timeout (here 20 s, 600 s by default); stopping the
// pipeline must not wait for it.
TEST_F(PubSubSinkTest, StopReturnsAtOnceWhenPublishesAreNeverAnswered) {
  server_->SetDefault(kPublish, [](const google::protobuf::Message& m) {
    return Delayed(absl::Hours(1),
                   Acknowledge(static_cast<const PublishRequest&>(m)));
  });
  runtime::PipelineOptions pipeline_options;
  pipeline_options.checkpoint_interval = absl::Milliseconds(50);
  runtime::Pipeline pipeline(pipeline_options);
  pipeline
      .AddSource(std::make_shared<runtime::testing::CountingSource>(
                     1'000'000, 10, absl::Milliseconds(1)),
                 1)
      .Map([](int64_t v) {
        return Order{"orders", "", absl::StrCat(v)};
      })
      .SinkTo(std::make_shared<PubSubSink<Order>>(
          Options(), OrderTopicResolver("p"), OrderSerializer(),
          Recording(failures_)));
  absl::StatusOr<runtime::JobSummary> summary;
  absl::Time returned;
  std::thread run([&] {
    summary = pipeline.Run();
    returned = absl::Now();
  });
  // Publishes are out, and a checkpoint is waiting for them.
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (server_->CallCount(kPublish) == 0) {
    ASSERT_LT(absl::Now(), deadline);
    absl::SleepFor(absl::Milliseconds(5));
  }
  absl::SleepFor(absl::Milliseconds(200));  // Inside the Flush().
  const absl::Time stopped = absl::Now();
  pipeline.Stop();
  run.join();
  EXPECT_LT(returned - stopped, absl::Seconds(1));
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(summary->stopped);
  EXPECT_EQ(summary->checkpoints_completed, 0);
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
