// The dead-letter queue against a scripted Publisher, for what the emulator
// cannot do on demand: transient error storms, permission errors and
// acknowledgements slower than the flush timeout.

#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/base/dead_letter.h"
#include "gcpstream/pubsub/pubsub_message.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/testing/scripted_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::testing::Always;
using ::gcpstream::testing::Delayed;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::ScriptedServer;
using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::PubsubMessage;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kPublishMethod[] = "google.pubsub.v1.Publisher.Publish";
constexpr char kGetTopic[] = "google.pubsub.v1.Publisher.GetTopic";
constexpr char kTopicName[] = "projects/p/topics/dead";

FailedElement Failure(const std::string& payload) {
  FailedElement failure;
  failure.connector = "spanner";
  failure.destination = "projects/p/instances/i/databases/d";
  failure.status = absl::AlreadyExistsError("row exists");
  failure.failure_time = absl::FromUnixMillis(1'764'000'000'123);
  failure.payload = payload;
  return failure;
}

PublishRequest PublishRequestOf(
    const ::gcpstream::testing::RecordedRequest& r) {
  return static_cast<const PublishRequest&>(*r.message);
}

class PubSubDeadLetterQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ScriptedServer::Start({"google.pubsub.v1.Publisher"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    PublishResponse ok;
    ok.add_message_ids("id");
    server_->SetDefault(kPublishMethod, Always(Respond(ok)));
  }

  PubSubDeadLetterQueueOptions Options() const {
    PubSubDeadLetterQueueOptions options;
    options.project = "p";
    options.topic = "dead";
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    options.flush_timeout = absl::Seconds(20);
    return options;
  }

  std::unique_ptr<PubSubDeadLetterQueue> OpenQueue(
      const PubSubDeadLetterQueueOptions& options) {
    auto queue = PubSubDeadLetterQueue::Create(options, executor_);
    EXPECT_TRUE(queue.ok()) << queue.status();
    if (!queue.ok()) return nullptr;
    FailureHandlerContext context;
    context.connector = "spanner";
    context.metrics = &registry_;
    context.labels.pipeline = "test";
    absl::Status opened = (*queue)->Open(context);
    EXPECT_TRUE(opened.ok()) << opened;
    return *std::move(queue);
  }

  // The value of the one series of `metric`, read from the export as a
  // scraper would, or "" when absent.
  std::string Metric(absl::string_view metric) const {
    for (absl::string_view line :
         absl::StrSplit(registry_.ExportPrometheusText(), '\n')) {
      if (absl::StartsWith(line, absl::StrCat(metric, "{"))) {
        return std::string(line.substr(line.rfind(' ') + 1));
      }
    }
    return "";
  }
  std::string Published() const { return Metric("dead_letters_published"); }

  std::unique_ptr<ScriptedServer> server_;
  // The test thread stands in for the task thread.
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  runtime::MailboxExecutor executor_{&mailbox_};
  MetricsRegistry registry_;
};

TEST(PubSubDeadLetterQueueMessageTest, OriginalAttributesStayWithinLimits) {
  FailedElement failure = Failure("row");
  for (int i = 0; i < 150; ++i) failure.attributes[absl::StrCat("k", i)] = "v";
  failure.attributes[std::string(300, 'k')] = "long key";
  failure.attributes["long-value"] = std::string(2000, 'v');
  PubsubMessage message = PubSubDeadLetterQueue::ToMessage(failure);
  EXPECT_EQ(message.attributes_size(), 100);
  EXPECT_TRUE(CheckedMessageSize(message).ok());
  const int kept = 99 - static_cast<int>(DeadLetterAttributes(failure).size());
  EXPECT_EQ(message.attributes().at("dlq-attributes-dropped"),
            absl::StrCat(152 - kept));
}

TEST_F(PubSubDeadLetterQueueTest, PublishesPayloadAndDeadLetterAttributes) {
  auto queue = OpenQueue(Options());
  ASSERT_NE(queue, nullptr);
  FailedElement with_payload = Failure("row-1");
  with_payload.attributes = {{"origin", "orders"}, {"dlq-error", "spoofed"}};
  FailedElement without_payload = Failure("");
  without_payload.payload.reset();
  ASSERT_TRUE(queue->Offer(with_payload).ok());
  ASSERT_TRUE(queue->Offer(without_payload).ok());
  EXPECT_EQ(queue->outstanding(), 2);
  ASSERT_TRUE(queue->Flush().ok());
  EXPECT_EQ(queue->outstanding(), 0);

  auto requests = server_->Requests(kPublishMethod);
  ASSERT_EQ(requests.size(), 1U);
  PublishRequest request = PublishRequestOf(requests[0]);
  EXPECT_EQ(request.topic(), kTopicName);
  ASSERT_EQ(request.messages_size(), 2);
  EXPECT_EQ(request.messages(0).data(), "row-1");
  EXPECT_EQ(request.messages(1).data(), "");
  auto attributes = request.messages(0).attributes();
  for (const auto& [key, value] : DeadLetterAttributes(with_payload)) {
    EXPECT_EQ(attributes[key], value) << key;
  }
  // dlq-* wins a collision; other original attributes are kept.
  EXPECT_EQ(attributes["dlq-error"], "row exists");
  EXPECT_EQ(attributes["origin"], "orders");
  EXPECT_EQ(attributes.size(), DeadLetterAttributes(with_payload).size() + 1);

  EXPECT_EQ(Published(), "2");
  EXPECT_EQ(Metric("dead_letters_outstanding"), "0");
}

TEST_F(PubSubDeadLetterQueueTest, RetriesUnavailableThenSucceeds) {
  server_->Enqueue(kPublishMethod,
                   Always(Fail(grpc::StatusCode::UNAVAILABLE, "storm 1")));
  server_->Enqueue(kPublishMethod,
                   Always(Fail(grpc::StatusCode::UNAVAILABLE, "storm 2")));
  auto queue = OpenQueue(Options());
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("a")).ok());
  absl::Status flushed = queue->Flush();
  ASSERT_TRUE(flushed.ok()) << flushed;
  EXPECT_EQ(server_->CallCount(kPublishMethod), 3);
  for (const auto& request : server_->Requests(kPublishMethod)) {
    EXPECT_EQ(PublishRequestOf(request).messages(0).data(), "a");
  }
  EXPECT_EQ(Published(), "1");
}

TEST_F(PubSubDeadLetterQueueTest, RetriesExhaustedFailFlushNamingTheTopic) {
  server_->SetDefault(kPublishMethod,
                      Always(Fail(grpc::StatusCode::UNAVAILABLE, "down")));
  PubSubDeadLetterQueueOptions options = Options();
  options.retry.max_attempts = 3;
  auto queue = OpenQueue(options);
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("a")).ok());
  absl::Status flushed = queue->Flush();
  EXPECT_EQ(flushed.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(IsRetryExhausted(flushed)) << flushed;
  EXPECT_THAT(flushed.message(),
              AllOf(HasSubstr(kTopicName), HasSubstr("down")));
  EXPECT_EQ(server_->CallCount(kPublishMethod), 3);
  EXPECT_EQ(queue->outstanding(), 1);
}

TEST_F(PubSubDeadLetterQueueTest, PermissionDeniedFailsFlushAndSticks) {
  server_->Enqueue(
      kPublishMethod,
      Always(Fail(grpc::StatusCode::PERMISSION_DENIED, "no publish right")));
  auto queue = OpenQueue(Options());
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("a")).ok());
  absl::Status flushed = queue->Flush();
  EXPECT_EQ(flushed.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(flushed.message(),
              AllOf(HasSubstr(kTopicName), HasSubstr("no publish right")));
  // Not retried, and every later call reports the same cause.
  EXPECT_EQ(server_->CallCount(kPublishMethod), 1);
  EXPECT_EQ(queue->Offer(Failure("b")), flushed);
  EXPECT_EQ(queue->Flush(), flushed);
  EXPECT_EQ(Published(), "0");
}

TEST_F(PubSubDeadLetterQueueTest, ARefusedMessageFailsTheQueue) {
  // A dead-letter queue has no handler behind it: what the service refuses
  // for good fails the job instead of vanishing.
  server_->SetDefault(kPublishMethod,
                      Always(Fail(grpc::StatusCode::INVALID_ARGUMENT,
                                  "attribute value too long")));
  auto queue = OpenQueue(Options());
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("a")).ok());
  absl::Status flushed = queue->Flush();
  EXPECT_EQ(flushed.code(), absl::StatusCode::kInvalidArgument) << flushed;
  EXPECT_THAT(flushed.message(), AllOf(HasSubstr(kTopicName),
                                       HasSubstr("attribute value too long")));
  EXPECT_EQ(queue->Offer(Failure("b")), flushed);
  EXPECT_EQ(Published(), "0");
}

TEST_F(PubSubDeadLetterQueueTest, MissingTopicFailsOpen) {
  server_->Enqueue(kGetTopic, Always(Fail(grpc::StatusCode::NOT_FOUND,
                                          "Resource not found")));
  auto queue = PubSubDeadLetterQueue::Create(Options(), executor_);
  ASSERT_TRUE(queue.ok()) << queue.status();
  absl::Status opened = (*queue)->Open(FailureHandlerContext());
  EXPECT_EQ(opened.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(opened.message(),
              AllOf(HasSubstr(kTopicName), HasSubstr("must exist")));
  EXPECT_EQ((*queue)->Offer(Failure("a")).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(server_->CallCount(kGetTopic), 1);
  EXPECT_EQ(static_cast<const google::pubsub::v1::GetTopicRequest&>(
                *server_->Requests(kGetTopic)[0].message)
                .topic(),
            kTopicName);
}

TEST_F(PubSubDeadLetterQueueTest, OtherTopicCheckAnswersLeaveItToPublish) {
  // A publisher-only account may not get the topic; an outage at open is
  // not a verdict either.
  server_->Enqueue(kGetTopic, Always(Fail(grpc::StatusCode::PERMISSION_DENIED,
                                          "pubsub.topics.get denied")));
  server_->Enqueue(kGetTopic,
                   Always(Fail(grpc::StatusCode::UNAVAILABLE, "down")));
  for (int i = 0; i < 2; ++i) {
    auto queue = OpenQueue(Options());
    ASSERT_NE(queue, nullptr);
    ASSERT_TRUE(queue->Offer(Failure("a")).ok());
    EXPECT_TRUE(queue->Flush().ok());
  }
  EXPECT_EQ(server_->CallCount(kGetTopic), 2);
}

TEST_F(PubSubDeadLetterQueueTest, SlowTopicCheckIsBoundedByFlushTimeout) {
  google::pubsub::v1::Topic topic;
  server_->Enqueue(kGetTopic,
                   Always(Delayed(absl::Seconds(30), Respond(topic))));
  PubSubDeadLetterQueueOptions options = Options();
  options.flush_timeout = absl::Milliseconds(200);
  const absl::Time start = absl::Now();
  auto queue = OpenQueue(options);
  ASSERT_NE(queue, nullptr);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  mailbox_.RunAll();  // The late answer, if any, finds nothing to update.
}

TEST_F(PubSubDeadLetterQueueTest, NotFoundSaysTheTopicMustExist) {
  // The topic existed at open and was deleted since.
  server_->Enqueue(kPublishMethod, Always(Fail(grpc::StatusCode::NOT_FOUND,
                                               "Topic not found")));
  auto queue = OpenQueue(Options());
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("a")).ok());
  absl::Status flushed = queue->Flush();
  EXPECT_EQ(flushed.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(flushed.message(),
              AllOf(HasSubstr(kTopicName), HasSubstr("must exist"),
                    HasSubstr("never creates")));
  EXPECT_EQ(server_->CallCount(kPublishMethod), 1);
}

TEST_F(PubSubDeadLetterQueueTest, FlushTimeoutFailsAndLosesNothing) {
  PublishResponse ok;
  ok.add_message_ids("id");
  server_->Enqueue(kPublishMethod,
                   Always(Delayed(absl::Seconds(1), Respond(ok))));
  PubSubDeadLetterQueueOptions options = Options();
  options.flush_timeout = absl::Milliseconds(300);
  auto queue = OpenQueue(options);
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("slow")).ok());
  absl::Status flushed = queue->Flush();
  EXPECT_EQ(flushed.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(flushed.message(),
              AllOf(HasSubstr("flush-timeout"), HasSubstr(kTopicName)));
  // Still pending, not dropped: a later flush sees it acknowledged.
  EXPECT_EQ(queue->outstanding(), 1);
  for (int i = 0; i < 20 && !flushed.ok(); ++i) flushed = queue->Flush();
  ASSERT_TRUE(flushed.ok()) << flushed;
  EXPECT_EQ(queue->outstanding(), 0);
  EXPECT_EQ(Published(), "1");
  // Published once: the wait did not resend it.
  EXPECT_EQ(server_->CallCount(kPublishMethod), 1);
}

TEST_F(PubSubDeadLetterQueueTest, FullBatchesAreSentByOffer) {
  PubSubDeadLetterQueueOptions options = Options();
  options.batching.max_messages = 2;
  options.max_outstanding_messages = -1;
  auto queue = OpenQueue(options);
  ASSERT_NE(queue, nullptr);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(queue->Offer(Failure(std::to_string(i))).ok());
  }
  ASSERT_TRUE(queue->Flush().ok());
  std::vector<int> sizes;
  for (const auto& request : server_->Requests(kPublishMethod)) {
    sizes.push_back(PublishRequestOf(request).messages_size());
  }
  EXPECT_THAT(sizes, ::testing::UnorderedElementsAre(2, 2, 1));
  EXPECT_EQ(Published(), "5");
}

TEST_F(PubSubDeadLetterQueueTest, DueBatchIsSentByTheNextOffer) {
  FakeClock clock;
  PubSubDeadLetterQueueOptions options = Options();
  options.clock = &clock;
  options.batching.max_delay = absl::Milliseconds(10);
  auto queue = OpenQueue(options);
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("a")).ok());
  clock.Advance(absl::Milliseconds(5));
  ASSERT_TRUE(queue->Offer(Failure("b")).ok());
  EXPECT_EQ(server_->CallCount(kPublishMethod), 0);
  clock.Advance(absl::Milliseconds(5));
  ASSERT_TRUE(queue->Offer(Failure("c")).ok());
  // Sent without a flush; wait for it by yielding, as a task would.
  ASSERT_TRUE(executor_.YieldUntil([&] { return queue->outstanding() == 0; },
                                   absl::Now() + absl::Seconds(20)));
  auto requests = server_->Requests(kPublishMethod);
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_EQ(PublishRequestOf(requests[0]).messages_size(), 3);
}

TEST_F(PubSubDeadLetterQueueTest, OfferWaitsAboveMaxOutstanding) {
  PubSubDeadLetterQueueOptions options = Options();
  options.max_outstanding_messages = 0;  // Write through.
  auto queue = OpenQueue(options);
  ASSERT_NE(queue, nullptr);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(queue->Offer(Failure(std::to_string(i))).ok());
    EXPECT_EQ(queue->outstanding(), 0);
    EXPECT_EQ(server_->CallCount(kPublishMethod), i + 1);
  }
  EXPECT_EQ(Published(), "3");
}

TEST_F(PubSubDeadLetterQueueTest, OversizedFailureIsRefused) {
  auto queue = OpenQueue(Options());
  ASSERT_NE(queue, nullptr);
  std::string payload;
  payload.resize(10'000'000, 'x');  // Over 10 MB once framed.
  absl::Status offered = queue->Offer(Failure(payload));
  EXPECT_EQ(offered.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(offered.message(), HasSubstr("10000000"));
  EXPECT_EQ(queue->outstanding(), 0);
  EXPECT_TRUE(queue->Flush().ok());
}

TEST_F(PubSubDeadLetterQueueTest, CallsBeforeOpenFail) {
  auto queue = PubSubDeadLetterQueue::Create(Options(), executor_);
  ASSERT_TRUE(queue.ok()) << queue.status();
  EXPECT_EQ((*queue)->Offer(Failure("a")).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*queue)->Flush().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(PubSubDeadLetterQueueTest, CloseAbandonsOutstandingPublishes) {
  PublishResponse ok;
  ok.add_message_ids("id");
  server_->SetDefault(kPublishMethod,
                      Always(Delayed(absl::Seconds(30), Respond(ok))));
  PubSubDeadLetterQueueOptions options = Options();
  options.flush_timeout = absl::Milliseconds(200);
  auto queue = OpenQueue(options);
  ASSERT_NE(queue, nullptr);
  ASSERT_TRUE(queue->Offer(Failure("a")).ok());
  ASSERT_TRUE(queue->Offer(Failure("b")).ok());
  // Flush times out quickly; the publish stays in flight.
  EXPECT_EQ(queue->Flush().code(), absl::StatusCode::kDeadlineExceeded);
  // Close cancels the in-flight call and returns without waiting 30 s.
  const absl::Time start = absl::Now();
  queue.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  mailbox_.RunAll();  // The cancelled completion finds no queue.
}

TEST(PubSubDeadLetterQueueOptionsTest, ErrorsNameTheKey) {
  PubSubDeadLetterQueueOptions options;
  options.project = "p";
  options.topic = "t";
  EXPECT_TRUE(CheckPubSubDeadLetterQueueOptions(options).ok());
  EXPECT_EQ(options.max_outstanding_messages, 1000);
  EXPECT_EQ(options.flush_timeout, absl::Seconds(60));

  auto with = [&](auto change) {
    PubSubDeadLetterQueueOptions changed = options;
    change(changed);
    return std::string(CheckPubSubDeadLetterQueueOptions(changed).message());
  };
  EXPECT_THAT(with([](auto& o) { o.topic = "a/b"; }), HasSubstr("topic"));
  EXPECT_THAT(with([](auto& o) { o.project = ""; }), HasSubstr("project"));
  EXPECT_THAT(with([](auto& o) { o.max_outstanding_messages = -2; }),
              HasSubstr("max-in-flight-messages"));
  EXPECT_THAT(with([](auto& o) { o.flush_timeout = absl::ZeroDuration(); }),
              HasSubstr("flush-timeout"));
  EXPECT_THAT(with([](auto& o) { o.batching.max_messages = 1001; }),
              HasSubstr("max-batch-messages"));
  EXPECT_THAT(with([](auto& o) { o.retry.max_attempts = 0; }),
              HasSubstr("retry"));
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>());
  options.max_outstanding_messages = -5;
  EXPECT_EQ(
      PubSubDeadLetterQueue::Create(options, runtime::MailboxExecutor(&mailbox))
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(PubSubDeadLetterQueueToMessageTest, NoPayloadMeansEmptyData) {
  FailedElement failure;
  failure.connector = "bigtable";
  failure.status = absl::InvalidArgumentError("bad");
  failure.attributes = {{"k", "v"}, {"dlq-connector", "spoof"}};
  auto message = PubSubDeadLetterQueue::ToMessage(failure);
  EXPECT_EQ(message.data(), "");
  EXPECT_EQ(message.attributes().at("dlq-connector"), "bigtable");
  EXPECT_EQ(message.attributes().at("k"), "v");
  EXPECT_EQ(message.attributes().at("dlq-error-code"), "INVALID_ARGUMENT");
}

}  // namespace
}  // namespace gcpstream::pubsub
