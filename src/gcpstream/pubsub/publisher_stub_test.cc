// The Publisher stub stack, and the sink driven through it by a fake
// bottom stub and a test clock instead of a gRPC server.

#include "gcpstream/pubsub/publisher_stub.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <grpcpp/test/client_context_test_peer.h>

#include "absl/synchronization/notification.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_sink_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::google::pubsub::v1::GetTopicRequest;
using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::Topic;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::multimap<std::string, std::string> SentMetadata(
    grpc::ClientContext& context) {
  return grpc::testing::ClientContextTestPeer(&context)
      .GetSendInitialMetadata();
}

// The bottom of the stack: answers each call at once with the next scripted
// status (OK when the script is empty) and records what reached it.
class FakePublisher final : public PublisherStub {
 public:
  struct Call {
    std::string method;
    std::multimap<std::string, std::string> metadata;
    int messages = 0;
    absl::Time at;
  };

  explicit FakePublisher(const Clock& clock) : clock_(clock) {}

  void AsyncPublish(grpc::ClientContext& context, const PublishRequest& request,
                    PublishResponse& response,
                    connector::RpcDone done) override {
    Record("Publish", context, request.messages_size());
    grpc::Status status = Next();
    if (status.ok()) {
      for (int i = 0; i < request.messages_size(); ++i) {
        response.add_message_ids(absl::StrCat(i));
      }
    }
    done(status);
  }
  void AsyncCreateTopic(grpc::ClientContext& context, const Topic&, Topic&,
                        connector::RpcDone done) override {
    Record("CreateTopic", context, 0);
    done(Next());
  }
  void AsyncGetTopic(grpc::ClientContext& context, const GetTopicRequest&,
                     Topic&, connector::RpcDone done) override {
    Record("GetTopic", context, 0);
    done(Next());
  }

  std::deque<grpc::Status> script;
  std::vector<Call> calls;

 private:
  void Record(std::string method, grpc::ClientContext& context, int messages) {
    calls.push_back(Call{.method = std::move(method),
                         .metadata = SentMetadata(context),
                         .messages = messages,
                         .at = clock_.Now()});
  }
  grpc::Status Next() {
    if (script.empty()) return grpc::Status::OK;
    grpc::Status status = script.front();
    script.pop_front();
    return status;
  }

  const Clock& clock_;
};

TEST(PublisherMetadataTest, NamesTheTopicOfEveryCall) {
  FakeClock clock;
  auto fake = std::make_shared<FakePublisher>(clock);
  PublisherMetadata stub(fake);
  grpc::ClientContext publish_context;
  PublishRequest publish;
  publish.set_topic("projects/p/topics/orders eu");
  PublishResponse published;
  stub.AsyncPublish(publish_context, publish, published,
                    [](const grpc::Status&) {});
  grpc::ClientContext create_context;
  Topic topic;
  topic.set_name("projects/p/topics/t");
  Topic created;
  stub.AsyncCreateTopic(create_context, topic, created,
                        [](const grpc::Status&) {});
  grpc::ClientContext get_context;
  GetTopicRequest get;
  get.set_topic("projects/p/topics/t");
  stub.AsyncGetTopic(get_context, get, created, [](const grpc::Status&) {});
  ASSERT_EQ(fake->calls.size(), 3u);
  EXPECT_THAT(fake->calls[0].metadata,
              ElementsAre(Pair("x-goog-request-params",
                               "topic=projects%2Fp%2Ftopics%2Forders%20eu")));
  EXPECT_THAT(fake->calls[1].metadata,
              ElementsAre(Pair("x-goog-request-params",
                               "name=projects%2Fp%2Ftopics%2Ft")));
  EXPECT_THAT(fake->calls[2].metadata,
              ElementsAre(Pair("x-goog-request-params",
                               "topic=projects%2Fp%2Ftopics%2Ft")));
}

// The sink over the fake, on a test clock that a second thread moves by a
// millisecond at a time while the writer waits.
class PublishThroughStubTest : public ::testing::Test {
 protected:
  PublishThroughStubTest() : fake_(std::make_shared<FakePublisher>(clock_)) {}
  ~PublishThroughStubTest() override {
    stop_.Notify();
    if (ticker_.joinable()) ticker_.join();
  }

  // Owned by the fixture, so the ticker stops before the writer's timer
  // goes away.
  runtime::SinkWriter<testing::Order>* Writer() {
    PubSubSinkOptions options;
    options.name = "orders-sink";
    options.channel.endpoint = "127.0.0.1:1";  // Never dialled.
    options.channel.plaintext = true;
    options.create_disposition = CreateDisposition::kCreateIfNeeded;
    options.clock = &clock_;
    options.make_timer = [this](runtime::MailboxExecutor executor) {
      auto timer = std::make_unique<connector::ManualTimer>(clock_, executor);
      ticker_ = std::thread([this, timer = timer.get()] {
        while (!stop_.WaitForNotificationWithTimeout(absl::Microseconds(50))) {
          timer->Advance(absl::Milliseconds(1));
        }
      });
      return timer;
    };
    options.make_stub = [fake = fake_](const std::shared_ptr<grpc::Channel>&) {
      return fake;
    };
    PubSubSink<testing::Order> sink(options, testing::OrderTopicResolver("p"),
                                    testing::OrderSerializer(),
                                    testing::Recording(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    if (writer.ok()) writer_ = *std::move(writer);
    return writer_.get();
  }

  FakeClock clock_{absl::FromUnixSeconds(1'000'000)};
  absl::Notification stop_;
  std::thread ticker_;
  std::shared_ptr<FakePublisher> fake_;
  std::shared_ptr<std::vector<PubSubFailedElement>> failures_ =
      std::make_shared<std::vector<PubSubFailedElement>>();
  testing::FakeTask task_;
  std::unique_ptr<runtime::SinkWriter<testing::Order>> writer_;
};

TEST_F(PublishThroughStubTest, TransientRefusalsAreResentAfterTheBackoff) {
  fake_->script = {grpc::Status(grpc::StatusCode::UNAVAILABLE, "down"),
                   grpc::Status(grpc::StatusCode::UNAVAILABLE, "down")};
  auto* writer = Writer();
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"orders", "", "a"}).ok());
  absl::Status flushed = writer->Flush(/*end_of_input=*/true);
  ASSERT_TRUE(flushed.ok()) << flushed;
  ASSERT_EQ(fake_->calls.size(), 3u);
  // Google's publisher settings: the first backoff is drawn from
  // [50 ms, 100 ms], the next from [200 ms, 400 ms] (x4). A loaded machine
  // adds its scheduling delay to the measured gap (102 ms was seen with
  // four tests at a time), so the upper bounds are where the next step's
  // range starts: they still tell the steps apart.
  const absl::Duration first = fake_->calls[1].at - fake_->calls[0].at;
  const absl::Duration second = fake_->calls[2].at - fake_->calls[1].at;
  EXPECT_GE(first, absl::Milliseconds(50));
  EXPECT_LT(first, absl::Milliseconds(200));
  EXPECT_GE(second, absl::Milliseconds(200));
  EXPECT_LT(second, absl::Milliseconds(800));
  EXPECT_TRUE(failures_->empty());
  EXPECT_EQ(task_.Metric("records_written"), "1");
  EXPECT_EQ(task_.Metric("request_retries"), "2");
  // Every attempt was observed by the latency decorator.
  EXPECT_EQ(task_.Metric("publish_latency_seconds_count"), "3");
  writer->Close();
}

TEST_F(PublishThroughStubTest, AMissingTopicIsCreatedThenPublishedTo) {
  fake_->script = {grpc::Status(grpc::StatusCode::NOT_FOUND, "no topic")};
  auto* writer = Writer();
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.Write(*writer, {"new-topic", "", "a"}).ok());
  absl::Status flushed = writer->Flush(/*end_of_input=*/true);
  ASSERT_TRUE(flushed.ok()) << flushed;
  std::vector<std::string> methods;
  for (const auto& call : fake_->calls) methods.push_back(call.method);
  EXPECT_THAT(methods, ElementsAre("Publish", "CreateTopic", "Publish"));
  EXPECT_THAT(
      fake_->calls[1].metadata,
      UnorderedElementsAre(Pair("x-goog-request-params",
                                "name=projects%2Fp%2Ftopics%2Fnew-topic")));
  EXPECT_EQ(task_.Metric("records_written"), "1");
  EXPECT_EQ(task_.Metric("topics_created"), "1");
  writer->Close();
}

}  // namespace
}  // namespace gcpstream::pubsub
