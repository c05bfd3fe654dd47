// The Pub/Sub source against the emulator: everything published arrives and
// is acknowledged only after a checkpoint covers it; what a closing reader
// has not acknowledged comes back; split planning, subscription checks and
// creation, start positions, deserialization policies; and per-key order end
// to end through an ordering-enabled sink and a per-key source.

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_source.h"
#include "gcpstream/pubsub/pubsub_source_test_util.h"
#include "gcpstream/pubsub/subscription_admin.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/runtime/testing/test_connectors.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::pubsub::testing::NumberDeserializer;
using ::gcpstream::pubsub::testing::PullMessages;
using ::gcpstream::pubsub::testing::VectorOutput;
using ::testing::HasSubstr;

constexpr char kSourceProject[] = "source-project";

class PubSubSourceIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub)
            .ok());
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    ASSERT_TRUE(channel.ok());
    channel_ = *channel;
  }

  void CreateTopicAndSubscription(const std::string& topic,
                                  const std::string& subscription,
                                  bool ordered = false) {
    ASSERT_TRUE(
        emulators::EnsurePubSubTopic(channel_, kSourceProject, topic).ok());
    ASSERT_TRUE(emulators::EnsurePubSubSubscription(
                    channel_, kSourceProject, subscription, topic, ordered)
                    .ok());
  }

  void Publish(const std::string& topic, int from, int to,
               const std::string& prefix = "") {
    std::vector<google::pubsub::v1::PubsubMessage> messages(to - from);
    for (int i = from; i < to; ++i) {
      messages[i - from].set_data(absl::StrCat(prefix, i));
    }
    const absl::Status published =
        ::gcpstream::pubsub::testing::PublishMessages(channel_, kSourceProject,
                                                      topic, messages);
    ASSERT_TRUE(published.ok()) << published;
  }

  static PubSubSourceOptions Options(
      const std::vector<std::string>& subscriptions) {
    PubSubSourceOptions options;
    for (const std::string& name : subscriptions) {
      options.subscriptions.push_back(
          SubscriptionSpec{.project = kSourceProject, .subscription = name});
    }
    options.stream_ack_deadline = absl::Seconds(10);
    return options;
  }

  runtime::SourceReaderContext Context() {
    runtime::SourceReaderContext context;
    context.mailbox = runtime::MailboxExecutor(&mailbox_);
    context.metrics = &registry_;
    return context;
  }

  // Polls (serving the mailbox like a task) until `count` values arrived.
  void PollUntil(runtime::SourceReader<int64_t>& reader, VectorOutput& output,
                 size_t count) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (output.values.size() < count && absl::Now() < deadline) {
      auto result = reader.PollNext(output);
      ASSERT_TRUE(result.ok()) << result.status();
      if (result->status == runtime::InputStatus::kNothingAvailable) {
        runtime::MailboxExecutor(&mailbox_).YieldUntil(
            [] { return false; }, absl::Now() + absl::Milliseconds(20));
      }
    }
    ASSERT_EQ(output.values.size(), count);
  }

  std::shared_ptr<grpc::Channel> channel_;
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  MetricsRegistry registry_;
};

TEST_F(PubSubSourceIntegrationTest,
       AcknowledgesOnlyWhatACompletedCheckpointCovers) {
  CreateTopicAndSubscription("acks", "acks-sub");
  Publish("acks", 0, 20);
  PubSubSource<int64_t> source(Options({"acks-sub"}), NumberDeserializer());
  auto splits = source.PlanSplits(1);
  ASSERT_TRUE(splits.ok()) << splits.status();
  {
    auto reader = source.CreateReader(Context(), *splits);
    ASSERT_TRUE(reader.ok()) << reader.status();
    VectorOutput output;
    PollUntil(**reader, output, 20);
    // Emitted and snapshotted, but the checkpoint never completes: closing
    // nacks everything, so all 20 come back at once.
    ASSERT_TRUE((*reader)->SnapshotState(1).ok());
    (*reader)->Close();
  }
  {
    auto reader = source.CreateReader(Context(), *splits);
    ASSERT_TRUE(reader.ok());
    VectorOutput output;
    PollUntil(**reader, output, 20);
    std::sort(output.values.begin(), output.values.end());
    EXPECT_EQ(output.values.front(), 0);
    EXPECT_EQ(output.values.back(), 19);
    ASSERT_TRUE((*reader)->SnapshotState(7).ok());
    ASSERT_TRUE((*reader)->NotifyCheckpointComplete(7).ok());
    (*reader)->Close();  // Waits for the acknowledgements.
  }
  // Nothing is left to deliver.
  EXPECT_TRUE(PullMessages(channel_, kSourceProject, "acks-sub", 1, 3).empty());
}

TEST_F(PubSubSourceIntegrationTest,
       PipelineDeliversEverythingAndLeavesNothingUnacked) {
  CreateTopicAndSubscription("piped", "piped-sub");
  Publish("piped", 0, 3000);
  runtime::PipelineOptions options;
  options.name = "pubsub-source";
  options.checkpoint_interval = absl::Milliseconds(100);
  runtime::Pipeline pipeline(options);
  auto collected = std::make_shared<runtime::testing::Collected>();
  pipeline
      .AddSource(std::make_shared<PubSubSource<int64_t>>(Options({"piped-sub"}),
                                                         NumberDeserializer()),
                 2)
      .SinkTo(std::make_shared<runtime::testing::CollectingSink>(collected), 2);
  std::thread run([&] { (void)pipeline.Run(); });
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    absl::MutexLock lock(&collected->mu);
    if (collected->written.size() >= 3000) break;
    collected->mu.AwaitWithTimeout(absl::Condition::kTrue,
                                   absl::Milliseconds(50));
  }
  // A few checkpoints after the last record, so every message is covered.
  absl::SleepFor(absl::Milliseconds(600));
  pipeline.Stop();
  run.join();
  absl::MutexLock lock(&collected->mu);
  std::set<int64_t> distinct(collected->written.begin(),
                             collected->written.end());
  EXPECT_EQ(distinct.size(), 3000U);
  EXPECT_TRUE(
      PullMessages(channel_, kSourceProject, "piped-sub", 1, 3).empty());
}

TEST_F(PubSubSourceIntegrationTest, SplitsFollowTheOrderingMode) {
  CreateTopicAndSubscription("split-topic", "split-a");
  CreateTopicAndSubscription("split-topic", "split-b");
  PubSubSourceOptions options = Options({"split-a", "split-b"});
  auto none =
      PubSubSource<int64_t>(options, NumberDeserializer()).PlanSplits(3);
  ASSERT_TRUE(none.ok());
  ASSERT_EQ(none->size(), 3U);
  EXPECT_THAT((*none)[0].state, HasSubstr("/subscriptions/split-a"));
  EXPECT_THAT((*none)[1].state, HasSubstr("/subscriptions/split-b"));
  EXPECT_THAT((*none)[2].state, HasSubstr("/subscriptions/split-a"));
  options.ordering_mode = OrderingMode::kPerKey;
  auto per_key =
      PubSubSource<int64_t>(options, NumberDeserializer()).PlanSplits(3);
  ASSERT_TRUE(per_key.ok());
  EXPECT_EQ(per_key->size(), 2U);
  // Neither subscription is ordered: per-key fails before reading.
  auto reader = PubSubSource<int64_t>(options, NumberDeserializer())
                    .CreateReader(Context(), {(*per_key)[0]});
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(reader.status().message(), HasSubstr("ordering-mode"));
  EXPECT_THAT(reader.status().message(), HasSubstr("split-a"));
}

TEST_F(PubSubSourceIntegrationTest,
       CreatesDeclaredSubscriptionsWithoutUpdating) {
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kSourceProject, "made").ok());
  PubSubSourceOptions options = Options({});
  SubscriptionSpec spec{.project = kSourceProject, .subscription = "made-sub"};
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kSourceProject, "made-dlq").ok());
  spec.create = SubscriptionCreateOptions{
      .topic = "made",
      .ack_deadline = absl::Seconds(42),
      .enable_message_ordering = true,
      .message_retention = absl::Hours(2),
      .filter = "attributes.kind = \"order\"",
      .dead_letter_topic =
          absl::StrCat("projects/", kSourceProject, "/topics/made-dlq"),
      .max_delivery_attempts = 7};
  options.subscriptions.push_back(spec);
  options.ordering_mode = OrderingMode::kPerKey;
  PubSubSource<int64_t> source(options, NumberDeserializer());
  ASSERT_TRUE(source.PlanSplits(1).ok());
  // Again: ALREADY_EXISTS is success, and nothing is updated.
  spec.create->ack_deadline = absl::Seconds(99);
  ASSERT_TRUE(EnsureSubscription(channel_, spec).ok());
  auto got = GetSubscription(channel_, spec);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->ack_deadline_seconds(), 42);
  EXPECT_TRUE(got->enable_message_ordering());
  EXPECT_EQ(got->message_retention_duration().seconds(), 7200);
  EXPECT_EQ(got->filter(), "attributes.kind = \"order\"");
  EXPECT_EQ(got->dead_letter_policy().dead_letter_topic(),
            absl::StrCat("projects/", kSourceProject, "/topics/made-dlq"));
  EXPECT_EQ(got->dead_letter_policy().max_delivery_attempts(), 7);
}

TEST_F(PubSubSourceIntegrationTest, DeserializationFailurePolicies) {
  CreateTopicAndSubscription("bad", "bad-sub");
  Publish("bad", 0, 3);
  Publish("bad", 0, 1, "not-a-number-");
  {
    PubSubSourceOptions options = Options({"bad-sub"});
    options.deserialization_failure_policy =
        DeserializationFailurePolicy::kNack;
    auto splits =
        PubSubSource<int64_t>(options, NumberDeserializer()).PlanSplits(1);
    ASSERT_TRUE(splits.ok());
    auto reader = PubSubSource<int64_t>(options, NumberDeserializer())
                      .CreateReader(Context(), *splits);
    ASSERT_FALSE(reader.ok());
    EXPECT_THAT(reader.status().message(), HasSubstr("dead-letter policy"));
  }
  PubSubSourceOptions options = Options({"bad-sub"});
  options.deserialization_failure_policy = DeserializationFailurePolicy::kDrop;
  PubSubSource<int64_t> source(options, NumberDeserializer());
  auto splits = source.PlanSplits(1);
  ASSERT_TRUE(splits.ok());
  auto reader = source.CreateReader(Context(), *splits);
  ASSERT_TRUE(reader.ok());
  VectorOutput output;
  PollUntil(**reader, output, 3);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (
      absl::Now() < deadline &&
      registry_.ExportPrometheusText().find(
          "deserialization_failures{pipeline=\"\",operator=\"pubsub-source\","
          "subtask=\"0\"} 1") == std::string::npos) {
    ASSERT_TRUE((*reader)->PollNext(output).ok());
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_THAT(registry_.ExportPrometheusText(),
              HasSubstr("deserialization_failures{pipeline=\"\","
                        "operator=\"pubsub-source\",subtask=\"0\"} 1"));
  ASSERT_TRUE((*reader)->SnapshotState(1).ok());
  ASSERT_TRUE((*reader)->NotifyCheckpointComplete(1).ok());
  (*reader)->Close();
  // The dropped message was acknowledged too.
  EXPECT_TRUE(PullMessages(channel_, kSourceProject, "bad-sub", 1, 3).empty());
}

TEST_F(PubSubSourceIntegrationTest, FailPolicyNamesTheOption) {
  CreateTopicAndSubscription("fail", "fail-sub");
  Publish("fail", 0, 1, "x");
  PubSubSource<int64_t> source(Options({"fail-sub"}), NumberDeserializer());
  auto splits = source.PlanSplits(1);
  ASSERT_TRUE(splits.ok());
  auto reader = source.CreateReader(Context(), *splits);
  ASSERT_TRUE(reader.ok());
  VectorOutput output;
  absl::Status failed;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (failed.ok() && absl::Now() < deadline) {
    auto result = (*reader)->PollNext(output);
    if (!result.ok()) failed = result.status();
    runtime::MailboxExecutor(&mailbox_).YieldUntil(
        [] { return false; }, absl::Now() + absl::Milliseconds(20));
  }
  EXPECT_THAT(failed.message(), HasSubstr("deserialization-failure-policy"));
  (*reader)->Close();
}

TEST_F(PubSubSourceIntegrationTest, StartPositionLatestSkipsWhatWasPublished) {
  CreateTopicAndSubscription("seek", "seek-sub");
  Publish("seek", 0, 5);
  PubSubSourceOptions options = Options({"seek-sub"});
  options.start_position.kind = StartPosition::Kind::kLatest;
  PubSubSource<int64_t> source(options, NumberDeserializer());
  auto splits = source.PlanSplits(1);
  ASSERT_TRUE(splits.ok()) << splits.status();
  Publish("seek", 100, 103);
  auto reader = source.CreateReader(Context(), *splits);
  ASSERT_TRUE(reader.ok());
  VectorOutput output;
  PollUntil(**reader, output, 3);
  std::sort(output.values.begin(), output.values.end());
  EXPECT_EQ(output.values, (std::vector<int64_t>{100, 101, 102}));
  // Event time is the publish time.
  for (absl::Time t : output.times) {
    EXPECT_LT(absl::Now() - t, absl::Minutes(1));
  }
  ASSERT_TRUE((*reader)->SnapshotState(1).ok());
  ASSERT_TRUE((*reader)->NotifyCheckpointComplete(1).ok());
  (*reader)->Close();
}

TEST_F(PubSubSourceIntegrationTest, PerKeyOrderSurvivesSinkAndSource) {
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(channel_, kSourceProject, "ordered").ok());
  ASSERT_TRUE(emulators::EnsurePubSubSubscription(
                  channel_, kSourceProject, "ordered-sub", "ordered", true)
                  .ok());
  constexpr int64_t kKeys = 50;
  constexpr int64_t kPerKey = 200;
  {
    // Record i: key i % 50, sequence i / 50 within its key.
    runtime::PipelineOptions options;
    options.name = "ordered-publish";
    runtime::Pipeline pipeline(options);
    runtime::GeneratorOptions generator;
    generator.count = kKeys * kPerKey;
    auto source = runtime::GeneratorSource<int64_t>::Create(
        "orders", [](int64_t i) { return i; }, generator);
    ASSERT_TRUE(source.ok());
    PubSubSinkOptions sink_options;
    sink_options.enable_message_ordering = true;
    sink_options.batching.max_messages = 20;
    auto sink = std::make_shared<PubSubSink<int64_t>>(
        sink_options, TopicDestination(kSourceProject, "ordered"),
        MakeMessageSerializer<int64_t>(
            [](const int64_t& i) -> absl::StatusOr<std::optional<std::string>> {
              return absl::StrCat(i);
            },
            nullptr,
            [](const int64_t& i) { return absl::StrCat("key-", i % kKeys); }));
    pipeline
        .AddSource(std::shared_ptr<runtime::GeneratorSource<int64_t>>(
                       *std::move(source)),
                   2)
        .KeyBy([](const int64_t& i) { return i % kKeys; }, 2)
        .SinkTo(sink);
    auto summary = pipeline.Run();
    ASSERT_TRUE(summary.ok()) << summary.status();
  }
  runtime::PipelineOptions options;
  options.name = "ordered-read";
  options.checkpoint_interval = absl::Milliseconds(100);
  runtime::Pipeline pipeline(options);
  auto collected = std::make_shared<runtime::testing::Collected>();
  PubSubSourceOptions source_options = Options({"ordered-sub"});
  source_options.ordering_mode = OrderingMode::kPerKey;
  pipeline
      .AddSource(std::make_shared<PubSubSource<int64_t>>(source_options,
                                                         NumberDeserializer()),
                 2)
      .SinkTo(std::make_shared<runtime::testing::CollectingSink>(collected), 1);
  std::thread run([&] { (void)pipeline.Run(); });
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    absl::MutexLock lock(&collected->mu);
    if (collected->written.size() >= kKeys * kPerKey) break;
    collected->mu.AwaitWithTimeout(absl::Condition::kTrue,
                                   absl::Milliseconds(50));
  }
  absl::SleepFor(absl::Milliseconds(400));
  pipeline.Stop();
  run.join();
  absl::MutexLock lock(&collected->mu);
  ASSERT_GE(collected->written.size(), static_cast<size_t>(kKeys * kPerKey));
  std::map<int64_t, int64_t> last_of_key;
  for (int64_t value : collected->written) {
    const int64_t key = value % kKeys;
    auto it = last_of_key.find(key);
    if (it != last_of_key.end()) {
      ASSERT_LT(it->second, value) << "key " << key << " out of order";
    }
    last_of_key[key] = value;
  }
  EXPECT_EQ(last_of_key.size(), static_cast<size_t>(kKeys));
}

// At a small max-outstanding-messages an ordered subscription used to give
// duplicates without any failure: messages the emulator (which ignores flow
// control) had sent waited unread, hence unleased, past their ack deadline
// and came again with the rest of their key. (With the reader as it was,
// this test took 35 s and left 100 committed messages on the subscription,
// to be delivered again; at 20,000 messages and a cap of 300 it committed
// 35,700 lines.) Now everything delivered is read and leased, redeliveries
// are recognised by message id, and a graceful stop leaves nothing behind.
TEST_F(PubSubSourceIntegrationTest, SmallOutstandingCapGivesNoDuplicates) {
  CreateTopicAndSubscription("capped", "capped-sub", /*ordered=*/true);
  constexpr int kMessages = 6000;
  constexpr int kKeys = 20;
  {
    auto publisher = google::pubsub::v1::Publisher::NewStub(channel_);
    for (int first = 0; first < kMessages; first += 500) {
      google::pubsub::v1::PublishRequest request;
      request.set_topic(
          absl::StrCat("projects/", kSourceProject, "/topics/capped"));
      for (int i = first; i < first + 500; ++i) {
        auto& message = *request.add_messages();
        message.set_data(absl::StrCat(i));
        message.set_ordering_key(absl::StrCat("key-", i % kKeys));
      }
      grpc::ClientContext context;
      google::pubsub::v1::PublishResponse response;
      ASSERT_TRUE(publisher->Publish(&context, request, &response).ok());
    }
  }
  runtime::PipelineOptions options;
  options.name = "capped";
  options.checkpoint_interval = absl::Milliseconds(500);
  MetricsRegistry metrics;
  runtime::Pipeline pipeline(options, &metrics);
  auto collected = std::make_shared<runtime::testing::Collected>();
  PubSubSourceOptions source_options = Options({"capped-sub"});
  source_options.ordering_mode = OrderingMode::kPerKey;
  source_options.max_outstanding_messages = 100;
  source_options.stream_ack_deadline = absl::Seconds(10);
  pipeline
      .AddSource(std::make_shared<PubSubSource<int64_t>>(source_options,
                                                         NumberDeserializer()),
                 1)
      .SinkTo(std::make_shared<runtime::testing::CollectingSink>(collected));
  absl::StatusOr<runtime::JobSummary> summary;
  std::thread run([&] { summary = pipeline.Run(); });
  const absl::Time deadline = absl::Now() + absl::Seconds(90);
  while (absl::Now() < deadline) {
    absl::MutexLock lock(&collected->mu);
    if (collected->committed.size() >= kMessages) break;
    collected->mu.AwaitWithTimeout(absl::Condition::kTrue,
                                   absl::Milliseconds(100));
  }
  pipeline.StopWithCheckpoint();
  run.join();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(summary->stopped_with_checkpoint);
  {
    absl::MutexLock lock(&collected->mu);
    std::vector<int64_t> committed = collected->committed;
    std::sort(committed.begin(), committed.end());
    const auto repeated =
        std::adjacent_find(committed.begin(), committed.end());
    EXPECT_EQ(repeated, committed.end())
        << "duplicate " << *repeated << "; " << committed.size()
        << " committed for " << kMessages << " messages";
    EXPECT_EQ(committed.size(), static_cast<size_t>(kMessages));
    std::map<int64_t, int64_t> last_of_key;
    for (int64_t value : collected->committed) {
      auto [it, first] = last_of_key.try_emplace(value % kKeys, value);
      if (!first) {
        EXPECT_LT(it->second, value) << "key " << value % kKeys;
        it->second = value;
      }
    }
  }
  const std::string text = metrics.ExportPrometheusText();
  EXPECT_THAT(text, HasSubstr("messages_redelivered{"));
  // Everything committed was acknowledged: nothing comes back.
  EXPECT_EQ(
      PullMessages(channel_, kSourceProject, "capped-sub", 1, /*attempts=*/2)
          .size(),
      0u);
}

}  // namespace
}  // namespace gcpstream::pubsub
