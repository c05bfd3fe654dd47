// The Pub/Sub source against a scripted Subscriber, for what the emulator
// cannot do on demand: honour (or ignore) flow control exactly, reset a
// stream, refuse a subscription, and show the acknowledgement requests the
// reader sends.

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/pubsub/pubsub_source.h"
#include "gcpstream/pubsub/pubsub_source_test_util.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/testing/scripted_server.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::pubsub::testing::NumberDeserializer;
using ::gcpstream::pubsub::testing::VectorOutput;
using ::gcpstream::testing::Always;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::RespondStream;
using ::gcpstream::testing::ScriptedServer;
using ::google::pubsub::v1::AcknowledgeRequest;
using ::google::pubsub::v1::ModifyAckDeadlineRequest;
using ::google::pubsub::v1::StreamingPullRequest;
using ::google::pubsub::v1::StreamingPullResponse;
using ::google::pubsub::v1::Subscription;
using ::testing::HasSubstr;

constexpr char kStreamingPull[] = "google.pubsub.v1.Subscriber.StreamingPull";
constexpr char kAcknowledge[] = "google.pubsub.v1.Subscriber.Acknowledge";
constexpr char kModifyAckDeadline[] =
    "google.pubsub.v1.Subscriber.ModifyAckDeadline";
constexpr char kGetSubscription[] =
    "google.pubsub.v1.Subscriber.GetSubscription";
constexpr char kSubscription[] = "projects/p/subscriptions/orders";

// `count` messages numbered from `first`, with ack ids "ack-<n>" padded to
// `ack_id_bytes`.
StreamingPullResponse Messages(int first, int count, size_t ack_id_bytes = 0) {
  StreamingPullResponse response;
  for (int i = first; i < first + count; ++i) {
    auto* received = response.add_received_messages();
    std::string ack_id = absl::StrCat("ack-", i);
    if (ack_id.size() < ack_id_bytes) ack_id.resize(ack_id_bytes, '.');
    received->set_ack_id(ack_id);
    received->mutable_message()->set_data(absl::StrCat(i));
    received->mutable_message()->set_message_id(absl::StrCat(i));
  }
  return response;
}

// `count` responses of `per_response` messages, numbered from 0.
std::vector<StreamingPullResponse> Responses(int count, int per_response,
                                             size_t ack_id_bytes = 0) {
  std::vector<StreamingPullResponse> responses;
  responses.reserve(count);
  for (int i = 0; i < count; ++i) {
    responses.push_back(Messages(i * per_response, per_response, ack_id_bytes));
  }
  return responses;
}

// A stream that sends `responses` and then stays open, or ends with
// `finish`.
Reply Stream(const std::vector<StreamingPullResponse>& responses,
             std::optional<grpc::Status> finish = std::nullopt) {
  std::vector<const google::protobuf::Message*> pointers;
  pointers.reserve(responses.size());
  for (const auto& response : responses) pointers.push_back(&response);
  return RespondStream(pointers, std::move(finish));
}

// Every ack id of the recorded Acknowledge (or deadline-0 modify) requests.
template <typename Request>
std::vector<std::string> AckIds(const ScriptedServer& server,
                                const std::string& method) {
  std::vector<std::string> ids;
  for (const auto& recorded : server.Requests(method)) {
    const auto& request = static_cast<const Request&>(*recorded.message);
    ids.insert(ids.end(), request.ack_ids().begin(), request.ack_ids().end());
  }
  return ids;
}

class PubSubSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ScriptedServer::Start({"google.pubsub.v1.Subscriber"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    Subscription subscription;
    subscription.set_name(kSubscription);
    server_->SetDefault(kGetSubscription, Always(Respond(subscription)));
    server_->SetDefault(kAcknowledge,
                        Always(Respond(google::protobuf::Empty())));
    server_->SetDefault(kModifyAckDeadline,
                        Always(Respond(google::protobuf::Empty())));
  }

  PubSubSourceOptions Options() const {
    PubSubSourceOptions options;
    options.name = "orders-source";
    options.subscriptions.push_back(
        SubscriptionSpec{.project = "p", .subscription = "orders"});
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.stream_ack_deadline = absl::Seconds(10);
    options.reconnect.backoff.initial_delay = absl::Milliseconds(1);
    options.reconnect.backoff.max_delay = absl::Milliseconds(5);
    return options;
  }

  absl::StatusOr<std::unique_ptr<runtime::SourceReader<int64_t>>> Reader(
      const PubSubSourceOptions& options) {
    PubSubSource<int64_t> source(options, NumberDeserializer());
    absl::StatusOr<std::vector<runtime::Split>> splits = source.PlanSplits(1);
    if (!splits.ok()) return splits.status();
    runtime::SourceReaderContext context;
    context.mailbox = runtime::MailboxExecutor(&mailbox_);
    context.metrics = &registry_;
    context.checkpoint_interval = absl::Seconds(1);
    return source.CreateReader(context, *splits);
  }

  // Polls like a task (serving the mailbox between polls) for `duration`, or
  // until `count` values arrived; returns the first error.
  absl::Status Poll(runtime::SourceReader<int64_t>& reader,
                    VectorOutput& output, size_t count,
                    absl::Duration duration = absl::Seconds(10)) {
    const absl::Time deadline = absl::Now() + duration;
    while (output.values.size() < count && absl::Now() < deadline) {
      absl::StatusOr<runtime::PollResult> result = reader.PollNext(output);
      if (!result.ok()) return result.status();
      max_outstanding_seen_ =
          std::max(max_outstanding_seen_, Metric("outstanding_messages"));
      if (result->status == runtime::InputStatus::kNothingAvailable) {
        runtime::MailboxExecutor(&mailbox_).YieldUntil(
            [] { return false; }, absl::Now() + absl::Milliseconds(5));
      }
    }
    return absl::OkStatus();
  }

  // The value of a metric of subtask 0 in the Prometheus text.
  double Metric(const std::string& name) const {
    const std::string text = registry_.ExportPrometheusText();
    const std::string prefix = name + "{";
    size_t at = text.find("\n" + prefix);
    if (at == std::string::npos) return -1;
    const size_t end = text.find('\n', at + 1);
    const std::string line = text.substr(at + 1, end - at - 1);
    double value = 0;
    if (!absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) return -1;
    return value;
  }

  std::unique_ptr<ScriptedServer> server_;
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  MetricsRegistry registry_;
  double max_outstanding_seen_ = 0;
};

// The service may ignore the stream's flow control (the emulator does): it
// sends ten responses of 20 at once. A message left unread in the stream is
// not leased and would come back as a duplicate, so all of it is read.
TEST_F(PubSubSourceTest, ReadsWhatTheServiceSendsBeyondFlowControl) {
  server_->Enqueue(kStreamingPull, Always(Stream(Responses(10, 20))));
  PubSubSourceOptions options = Options();
  options.max_outstanding_messages = 50;
  auto reader = Reader(options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 200, absl::Seconds(5)).ok());
  EXPECT_EQ(output.values.size(), 200U);
  // The flow control was asked of the service.
  const auto& first = static_cast<const StreamingPullRequest&>(
      *server_->Requests(kStreamingPull).front().message);
  EXPECT_EQ(first.max_outstanding_messages(), 50);
  EXPECT_EQ(Metric("outstanding_messages"), 200);
  ASSERT_TRUE((*reader)->SnapshotState(1).ok());
  ASSERT_TRUE((*reader)->NotifyCheckpointComplete(1).ok());
  (*reader)->Close();
  EXPECT_EQ(AckIds<AcknowledgeRequest>(*server_, kAcknowledge).size(), 200U);
  EXPECT_EQ(Metric("messages_acked"), 200);
  EXPECT_EQ(Metric("outstanding_messages"), 0);
}

// Memory stays bounded: reading stops past twice max-outstanding-bytes and
// resumes as completed checkpoints free room.
TEST_F(PubSubSourceTest, ReadingStopsPastTwiceTheByteCapUntilAcknowledged) {
  server_->Enqueue(kStreamingPull, Always(Stream(Responses(10, 20))));
  PubSubSourceOptions options = Options();
  options.max_outstanding_bytes = 1;  // Past it after any response.
  auto reader = Reader(options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 200, absl::Milliseconds(500)).ok());
  EXPECT_EQ(output.values.size(), 20U);
  for (int64_t checkpoint = 1; output.values.size() < 200; ++checkpoint) {
    ASSERT_LE(checkpoint, 10);
    ASSERT_TRUE((*reader)->SnapshotState(checkpoint).ok());
    ASSERT_TRUE((*reader)->NotifyCheckpointComplete(checkpoint).ok());
    ASSERT_TRUE(Poll(**reader, output, output.values.size() + 20,
                     absl::Milliseconds(300))
                    .ok());
  }
  EXPECT_LE(max_outstanding_seen_, 20);
  (*reader)->Close();
}

// Redeliveries (same message id, new ack id) are never emitted twice: a copy
// of an outstanding message is acknowledged with it, a copy of an
// acknowledged one at once; both are counted.
TEST_F(PubSubSourceTest, RedeliveriesAreAcknowledgedNotEmittedAgain) {
  auto again = [](int first, int count, const std::string& tag) {
    StreamingPullResponse response = Messages(first, count);
    for (auto& received : *response.mutable_received_messages()) {
      received.set_ack_id(absl::StrCat(received.ack_id(), "-", tag));
    }
    return response;
  };
  // The first stream delivers ten messages twice and is reset; the next
  // delivers them a third time, half a second later.
  server_->Enqueue(
      kStreamingPull,
      Always(Stream({Messages(0, 10), again(0, 10, "second")},
                    grpc::Status(grpc::StatusCode::UNAVAILABLE, "reset"))));
  server_->Enqueue(kStreamingPull, Always(::gcpstream::testing::Delayed(
                                       absl::Milliseconds(500),
                                       Stream({again(0, 10, "third")}))));
  auto reader = Reader(Options());
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 20, absl::Milliseconds(200)).ok());
  EXPECT_EQ(output.values.size(), 10U);
  EXPECT_EQ(Metric("messages_redelivered"), 10);
  ASSERT_TRUE((*reader)->SnapshotState(1).ok());
  ASSERT_TRUE((*reader)->NotifyCheckpointComplete(1).ok());
  ASSERT_TRUE(Poll(**reader, output, 20, absl::Seconds(1)).ok());
  EXPECT_EQ(output.values.size(), 10U);
  EXPECT_EQ(Metric("messages_redelivered"), 20);
  // Every copy acknowledged: the first and second with the checkpoint, the
  // third on arrival.
  std::vector<std::string> acked =
      AckIds<AcknowledgeRequest>(*server_, kAcknowledge);
  EXPECT_EQ(acked.size(), 30U);
  EXPECT_THAT(acked, ::testing::Contains("ack-3-second"));
  EXPECT_THAT(acked, ::testing::Contains("ack-3-third"));
  (*reader)->Close();
  EXPECT_EQ(Metric("messages_nacked"), 0);
}

TEST_F(PubSubSourceTest, AcknowledgesOnlyWhatCompletedCheckpointsCover) {
  server_->Enqueue(kStreamingPull,
                   Always(Stream({Messages(0, 10), Messages(10, 10)})));
  PubSubSourceOptions options = Options();
  options.max_records_per_poll = 10;
  auto reader = Reader(options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 10).ok());
  ASSERT_TRUE((*reader)->SnapshotState(1).ok());
  ASSERT_TRUE(Poll(**reader, output, 20).ok());
  ASSERT_TRUE((*reader)->SnapshotState(2).ok());
  // Only checkpoint 1 completes: the first ten (at most) are acknowledged.
  ASSERT_TRUE((*reader)->NotifyCheckpointComplete(1).ok());
  ASSERT_TRUE(Poll(**reader, output, 21, absl::Milliseconds(200)).ok());
  std::vector<std::string> acked =
      AckIds<AcknowledgeRequest>(*server_, kAcknowledge);
  std::vector<std::string> first_ten;
  first_ten.reserve(acked.size());
  for (int64_t i = 0; i < static_cast<int64_t>(acked.size()); ++i) {
    first_ten.push_back(absl::StrCat("ack-", output.values[i]));
  }
  EXPECT_EQ(acked.size(), 10U);
  EXPECT_THAT(acked, ::testing::UnorderedElementsAreArray(first_ten));
  // Closing nacks the other ten (deadline 0) so they come back at once.
  (*reader)->Close();
  std::vector<std::string> nacked;
  for (const auto& recorded : server_->Requests(kModifyAckDeadline)) {
    const auto& request =
        static_cast<const ModifyAckDeadlineRequest&>(*recorded.message);
    if (request.ack_deadline_seconds() != 0) continue;
    nacked.insert(nacked.end(), request.ack_ids().begin(),
                  request.ack_ids().end());
  }
  EXPECT_EQ(nacked.size(), 10U);
  EXPECT_EQ(Metric("messages_nacked"), 10);
}

TEST_F(PubSubSourceTest, AcknowledgementsStayWithinTheServiceLimits) {
  // 2500 messages with 400-byte ack ids: chunks must hold at most 1000 ids
  // and about 500 KB of them.
  server_->Enqueue(kStreamingPull, Always(Stream(Responses(25, 100, 400))));
  auto reader = Reader(Options());
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 2500).ok());
  ASSERT_TRUE((*reader)->SnapshotState(1).ok());
  ASSERT_TRUE((*reader)->NotifyCheckpointComplete(1).ok());
  (*reader)->Close();
  std::set<std::string> acked;
  for (const auto& recorded : server_->Requests(kAcknowledge)) {
    const auto& request =
        static_cast<const AcknowledgeRequest&>(*recorded.message);
    EXPECT_EQ(request.subscription(), kSubscription);
    EXPECT_LE(request.ack_ids_size(), 1000);
    EXPECT_LE(request.ByteSizeLong(), 524'288U);
    acked.insert(request.ack_ids().begin(), request.ack_ids().end());
  }
  EXPECT_EQ(acked.size(), 2500U);
  EXPECT_GE(server_->CallCount(kAcknowledge), 3);
}

TEST_F(PubSubSourceTest, ReconnectsAStreamTheServiceResets) {
  server_->Enqueue(kStreamingPull,
                   Always(Stream({Messages(0, 5)},
                                 grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                              "connection reset"))));
  server_->Enqueue(kStreamingPull, Always(Stream({Messages(5, 5)})));
  auto reader = Reader(Options());
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 10).ok());
  EXPECT_EQ(output.values.size(), 10U);
  EXPECT_EQ(server_->CallCount(kStreamingPull), 2);
  EXPECT_EQ(Metric("stream_reconnects"), 1);
  (*reader)->Close();
}

TEST_F(PubSubSourceTest, AMissingSubscriptionFailsNamingIt) {
  server_->SetDefault(kStreamingPull, Always(Fail(grpc::StatusCode::NOT_FOUND,
                                                  "Resource not found")));
  auto reader = Reader(Options());
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  const absl::Status status = Poll(**reader, output, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(kSubscription));
  EXPECT_THAT(status.message(), HasSubstr("orders-source"));
  EXPECT_EQ(server_->CallCount(kStreamingPull), 1);
  (*reader)->Close();
}

TEST_F(PubSubSourceTest, ReconnectBudgetExhaustionFailsTheReader) {
  server_->SetDefault(kStreamingPull,
                      Always(Fail(grpc::StatusCode::UNAVAILABLE, "down")));
  PubSubSourceOptions options = Options();
  options.reconnect.max_attempts = 3;
  auto reader = Reader(options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  const absl::Status status = Poll(**reader, output, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("cannot keep a streaming pull"));
  (*reader)->Close();
}

TEST_F(PubSubSourceTest, NoCompletedCheckpointFailsNamingTheIntervalOption) {
  server_->Enqueue(kStreamingPull, Always(Stream({Messages(0, 3)})));
  PubSubSourceOptions options = Options();
  options.first_checkpoint_timeout = absl::Milliseconds(200);
  auto reader = Reader(options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 3).ok());
  const absl::Status status = Poll(**reader, output, 4, absl::Seconds(2));
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr("first-checkpoint-timeout"));
  EXPECT_THAT(status.message(), HasSubstr("checkpoint-interval"));
  (*reader)->Close();
}

TEST_F(PubSubSourceTest, DropPolicyAcknowledgesAndCountsBadMessages) {
  StreamingPullResponse response = Messages(0, 2);
  response.mutable_received_messages(0)->mutable_message()->set_data("x");
  server_->Enqueue(kStreamingPull, Always(Stream({response})));
  PubSubSourceOptions options = Options();
  options.deserialization_failure_policy = DeserializationFailurePolicy::kDrop;
  auto reader = Reader(options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  VectorOutput output;
  ASSERT_TRUE(Poll(**reader, output, 1).ok());
  EXPECT_THAT(output.values, ::testing::ElementsAre(1));
  (*reader)->Close();
  EXPECT_THAT(AckIds<AcknowledgeRequest>(*server_, kAcknowledge),
              ::testing::Contains("ack-0"));
  EXPECT_EQ(Metric("deserialization_failures"), 1);
}

TEST(PubSubSourceOptionsTest, ErrorsNameTheOption) {
  PubSubSourceOptions options;
  EXPECT_THAT(CheckPubSubSourceOptions(options).message(),
              HasSubstr("'subscriptions'"));
  options.subscriptions.push_back(
      SubscriptionSpec{.project = "p", .subscription = "s"});
  EXPECT_TRUE(CheckPubSubSourceOptions(options).ok());
  options.stream_ack_deadline = absl::Seconds(5);
  EXPECT_THAT(CheckPubSubSourceOptions(options).message(),
              HasSubstr("'stream-ack-deadline'"));
  options.stream_ack_deadline = absl::Seconds(60);
  options.max_outstanding_messages = 0;
  EXPECT_THAT(CheckPubSubSourceOptions(options).message(),
              HasSubstr("'max-outstanding-messages'"));
  options.max_outstanding_messages = 1;
  options.subscriptions[0].create = SubscriptionCreateOptions{};
  EXPECT_THAT(CheckPubSubSourceOptions(options).message(),
              HasSubstr("'topic'"));
}

TEST(PubSubSourceOptionsTest, EnumsParseCaseInsensitivelyAndListSpellings) {
  auto mode = kOrderingModeOption.Parse("Per-Key");
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(*mode, OrderingMode::kPerKey);
  auto bad = kOrderingModeOption.Parse("per_key");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("ordering-mode"));
  EXPECT_THAT(bad.status().message(), HasSubstr("per-key"));
  auto policy = kDeserializationFailurePolicyOption.Parse("NACK");
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(*policy, DeserializationFailurePolicy::kNack);
}

TEST(PubSubSourceOptionsTest, StartPositionParsesEveryForm) {
  EXPECT_EQ(StartPosition::Parse("continue")->kind,
            StartPosition::Kind::kContinue);
  EXPECT_EQ(StartPosition::Parse("Earliest-Retained")->kind,
            StartPosition::Kind::kEarliestRetained);
  EXPECT_EQ(StartPosition::Parse("latest")->kind, StartPosition::Kind::kLatest);
  auto at = StartPosition::Parse("2026-12-01T00:00:00Z");
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->kind, StartPosition::Kind::kTimestamp);
  EXPECT_EQ(at->time, absl::FromUnixSeconds(1796083200));
  EXPECT_EQ(StartPosition::Parse(at->ToString())->time, at->time);
  auto bad = StartPosition::Parse("yesterday");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("start-position"));
}

}  // namespace
}  // namespace gcpstream::pubsub
