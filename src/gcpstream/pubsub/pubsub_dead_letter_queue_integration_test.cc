// The Pub/Sub dead-letter queue against the emulator: offered failures
// arrive on a subscription of the dead-letter topic with their payload and
// dlq-* attributes, and a missing topic fails Open() (or Flush(), when it
// disappears after Open()) without ever being created.

#include <map>
#include <memory>
#include <string>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/dead_letter.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::pubsub::testing::PullMessages;
using ::google::pubsub::v1::Publisher;
using ::google::pubsub::v1::PubsubMessage;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kDlqProject[] = "dlq-project";

class PubSubDeadLetterQueueIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host =
        gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub);
    ASSERT_TRUE(host.ok()) << host.status();
    // From PUBSUB_EMULATOR_HOST, as the queue's own channel is.
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    ASSERT_TRUE(channel.ok()) << channel.status();
    channel_ = *channel;
  }

  static PubSubDeadLetterQueueOptions Options(const std::string& topic) {
    PubSubDeadLetterQueueOptions options;
    options.project = kDlqProject;
    options.topic = topic;
    options.flush_timeout = absl::Seconds(30);
    options.retry.max_attempts = 3;
    return options;
  }

  grpc::Status GetTopic(const std::string& topic) {
    auto publisher = Publisher::NewStub(channel_);
    grpc::ClientContext context;
    google::pubsub::v1::GetTopicRequest get;
    get.set_topic(absl::StrCat("projects/", kDlqProject, "/topics/", topic));
    google::pubsub::v1::Topic found;
    return publisher->GetTopic(&context, get, &found);
  }

  std::unique_ptr<PubSubDeadLetterQueue> OpenQueue(const std::string& topic) {
    auto queue = PubSubDeadLetterQueue::Create(Options(topic), executor_);
    EXPECT_TRUE(queue.ok()) << queue.status();
    if (!queue.ok()) return nullptr;
    FailureHandlerContext context;
    context.connector = "spanner";
    context.subtask_index = 2;
    absl::Status opened = (*queue)->Open(context);
    EXPECT_TRUE(opened.ok()) << opened;
    return *std::move(queue);
  }

  std::shared_ptr<grpc::Channel> channel_;
  // The test thread stands in for the task thread.
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  runtime::MailboxExecutor executor_{&mailbox_};
};

FailedElement Failure(int i, std::optional<std::string> payload) {
  FailedElement failure;
  failure.connector = "spanner";
  failure.destination = "projects/p/instances/i/databases/d";
  failure.status = absl::AlreadyExistsError(absl::StrCat("row ", i, " exists"));
  failure.attempts = 1 + i % 2;
  failure.failure_time = absl::FromUnixMillis(1'764'000'000'000 + i);
  failure.subtask_index = 2;
  failure.payload = std::move(payload);
  failure.attributes = {{"index", std::to_string(i)},
                        {"dlq-error", "original attribute loses"}};
  return failure;
}

TEST_F(PubSubDeadLetterQueueIntegrationTest, FailuresArriveWithAttributes) {
  ASSERT_TRUE(emulators::EnsurePubSubTopic(channel_, kDlqProject, "dead").ok());
  ASSERT_TRUE(emulators::EnsurePubSubSubscription(channel_, kDlqProject,
                                                  "dead-sub", "dead")
                  .ok());
  auto queue = OpenQueue("dead");
  ASSERT_NE(queue, nullptr);

  std::map<std::string, FailedElement> offered;
  for (int i = 0; i < 25; ++i) {
    // Binary payloads, and one failure without any.
    std::optional<std::string> payload;
    if (i != 7) payload = std::string("row\0", 4) + std::to_string(i);
    FailedElement failure = Failure(i, payload);
    ASSERT_TRUE(queue->Offer(failure).ok());
    offered.emplace(std::to_string(i), failure);
  }
  absl::Status flushed = queue->Flush();
  ASSERT_TRUE(flushed.ok()) << flushed;
  EXPECT_EQ(queue->outstanding(), 0);

  std::vector<PubsubMessage> received =
      PullMessages(channel_, kDlqProject, "dead-sub", offered.size());
  ASSERT_EQ(received.size(), offered.size());
  for (const PubsubMessage& message : received) {
    const auto& attributes = message.attributes();
    ASSERT_EQ(attributes.count("index"), 1U);
    const FailedElement& failure = offered.at(attributes.at("index"));
    EXPECT_EQ(message.data(), failure.payload.value_or(""));
    std::map<std::string, std::string> expected = DeadLetterAttributes(failure);
    expected["index"] = attributes.at("index");
    std::map<std::string, std::string> actual(attributes.begin(),
                                              attributes.end());
    EXPECT_EQ(actual, expected);
    EXPECT_EQ(actual[kDlqSubtask], "2");
    EXPECT_EQ(actual[kDlqErrorCode], "ALREADY_EXISTS");
  }
  queue->Close();
}

TEST_F(PubSubDeadLetterQueueIntegrationTest, MissingTopicFailsOpen) {
  auto queue = PubSubDeadLetterQueue::Create(
      Options("no-such-dead-letter-topic"), executor_);
  ASSERT_TRUE(queue.ok()) << queue.status();
  absl::Status opened = (*queue)->Open(FailureHandlerContext());
  EXPECT_EQ(opened.code(), absl::StatusCode::kNotFound) << opened;
  EXPECT_THAT(opened.message(), AllOf(HasSubstr("projects/dlq-project/topics/"
                                                "no-such-dead-letter-topic"),
                                      HasSubstr("must exist")));
  // The queue never creates the topic.
  EXPECT_EQ(GetTopic("no-such-dead-letter-topic").error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(PubSubDeadLetterQueueIntegrationTest, MissingTopicFailsFlush) {
  // The topic exists at open and is deleted before the failures are sent.
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kDlqProject, "short-lived").ok());
  auto queue = OpenQueue("short-lived");
  ASSERT_NE(queue, nullptr);
  {
    auto publisher = Publisher::NewStub(channel_);
    grpc::ClientContext context;
    google::pubsub::v1::DeleteTopicRequest request;
    request.set_topic("projects/dlq-project/topics/short-lived");
    google::protobuf::Empty empty;
    ASSERT_TRUE(publisher->DeleteTopic(&context, request, &empty).ok());
  }
  ASSERT_TRUE(queue->Offer(Failure(1, "payload")).ok());
  absl::Status flushed = queue->Flush();
  EXPECT_EQ(flushed.code(), absl::StatusCode::kNotFound) << flushed;
  EXPECT_THAT(flushed.message(),
              AllOf(HasSubstr("projects/dlq-project/topics/short-lived"),
                    HasSubstr("must exist"), HasSubstr("never creates")));
  EXPECT_EQ(GetTopic("short-lived").error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace gcpstream::pubsub
