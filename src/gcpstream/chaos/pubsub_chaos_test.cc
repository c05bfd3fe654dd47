// The Pub/Sub sink and source through a FaultProxy in front of the
// emulator: resets, a blackhole and latency while checkpointing every second.
// Everything published lands (at least once), nothing is routed, and the
// source commits every message once.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/chaos/chaos_pipeline.h"
#include "gcpstream/chaos/fault_schedule.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_source.h"
#include "gcpstream/runtime/testing/test_connectors.h"
#include "gcpstream/testing/fault_proxy.h"
#include "gcpstream/testing/half_closing_proxy.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::chaos {
namespace {

constexpr char kProject[] = "chaos-project";

class PubSubChaosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host =
        gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub);
    ASSERT_TRUE(host.ok()) << host.status();
    auto channel = gcpstream::testing::TestEmulatorChannel(
        emulators::EmulatorKind::kPubSub);
    ASSERT_TRUE(channel.ok()) << channel.status();
    channel_ = *channel;
    // The emulator keeps the streams of a vanished connection and hands them
    // messages until their deadline (docs/notes/pubsub-emulator-facts.md);
    // the half-closing proxy ends them as the service would, so a reset
    // costs a redelivery after the ack deadline, as on the service.
    auto half_closing = gcpstream::testing::HalfClosingProxy::Start(*host);
    ASSERT_TRUE(half_closing.ok()) << half_closing.status();
    half_closing_ = *std::move(half_closing);
    auto proxy =
        gcpstream::testing::FaultProxy::Start(half_closing_->address());
    ASSERT_TRUE(proxy.ok()) << proxy.status();
    proxy_ = *std::move(proxy);
  }

  // Pulls `subscription` (directly, not through the proxy) until it is
  // empty; acknowledges what it pulls. Message data by count.
  std::map<std::string, int> Drain(const std::string& subscription) {
    auto subscriber = google::pubsub::v1::Subscriber::NewStub(channel_);
    std::map<std::string, int> seen;
    for (int empty = 0; empty < 3;) {
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
      google::pubsub::v1::PullRequest pull;
      pull.set_subscription(
          absl::StrCat("projects/", kProject, "/subscriptions/", subscription));
      pull.set_max_messages(1000);
      google::pubsub::v1::PullResponse response;
      if (!subscriber->Pull(&context, pull, &response).ok() ||
          response.received_messages().empty()) {
        ++empty;
        continue;
      }
      google::pubsub::v1::AcknowledgeRequest ack;
      ack.set_subscription(pull.subscription());
      for (const auto& received : response.received_messages()) {
        ++seen[received.message().data()];
        ack.add_ack_ids(received.ack_id());
      }
      grpc::ClientContext ack_context;
      google::protobuf::Empty done;
      (void)subscriber->Acknowledge(&ack_context, ack, &done);
    }
    return seen;
  }

  struct SinkOutcome {
    absl::StatusOr<runtime::JobSummary> summary;
    std::map<std::string, int> landed;  // Message data -> copies.
    int64_t copies = 0;
  };

  // Publishes the numbers to `topic` through the proxy (faults started by
  // `start_faults` once the pipeline exists), with restarts from a
  // checkpoint directory; checks every message landed and none was routed.
  template <typename StartFaults>
  SinkOutcome Publish(const std::string& name, const std::string& topic,
                      const RetryOptions& retry, StartFaults start_faults) {
    SinkOutcome outcome;
    EXPECT_TRUE(emulators::EnsurePubSubTopic(channel_, kProject, topic).ok());
    EXPECT_TRUE(emulators::EnsurePubSubSubscription(channel_, kProject,
                                                    topic + "-all", topic)
                    .ok());
    MetricsRegistry metrics;
    runtime::PipelineOptions pipeline_options = ChaosOptions(name);
    pipeline_options.restart =
        runtime::RestartStrategy::FixedDelay(30, absl::Milliseconds(500));
    pipeline_options.checkpoint_directory =
        absl::StrCat(::testing::TempDir(), "/", name, "-checkpoints");
    std::filesystem::remove_all(pipeline_options.checkpoint_directory);
    runtime::Pipeline pipeline(pipeline_options, &metrics);
    pubsub::PubSubSinkOptions options;
    options.name = "chaos-sink";
    options.channel.endpoint = proxy_->address();
    options.channel.plaintext = true;
    options.retry = retry;
    auto failures =
        std::make_shared<std::vector<pubsub::PubSubFailedElement>>();
    pipeline.AddSource(Numbers(), 1)
        .SinkTo(std::make_shared<pubsub::PubSubSink<int64_t>>(
            options, pubsub::TopicDestination(kProject, topic),
            pubsub::MakeMessageSerializer<int64_t>(
                [](const int64_t& i)
                    -> absl::StatusOr<std::optional<std::string>> {
                  return absl::StrCat(i);
                }),
            gcpstream::testing::RecordingFactory(failures)));
    start_faults(metrics);
    outcome.summary = pipeline.Run();
    EXPECT_TRUE(failures->empty()) << failures->front().status;
    if (!outcome.summary.ok()) return outcome;
    outcome.landed = Drain(topic + "-all");
    for (const auto& [data, count] : outcome.landed) outcome.copies += count;
    for (int64_t i = 0; i < kRecords; ++i) {
      EXPECT_TRUE(outcome.landed.contains(absl::StrCat(i))) << "message " << i;
    }
    EXPECT_EQ(outcome.landed.size(), static_cast<size_t>(kRecords));
    return outcome;
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<gcpstream::testing::HalfClosingProxy> half_closing_;
  std::unique_ptr<gcpstream::testing::FaultProxy> proxy_;
};

TEST_F(PubSubChaosTest, SinkPublishesEverythingThroughTheFaults) {
  std::unique_ptr<FaultSchedule> schedule;
  const SinkOutcome outcome = Publish(
      "pubsub-sink", "chaos", RetryOptions(), [&](MetricsRegistry& metrics) {
        schedule = std::make_unique<FaultSchedule>(
            *proxy_, CheckpointsCompleted(metrics, "pubsub-sink"));
      });
  const std::vector<InjectedFault> faults = schedule->Finish();
  ASSERT_TRUE(outcome.summary.ok()) << outcome.summary.status();
  Report(absl::StrCat("pubsub sink: ", kRecords, " in, ", outcome.landed.size(),
                      " distinct out, ", outcome.copies - kRecords,
                      " duplicates, ", outcome.summary->restarts, " restarts, ",
                      proxy_->connections_reset(), " connections reset"),
         faults);
}

// The service goes away for 6 s, longer than the sink's retry budget (2 s):
// the job fails and restarts from its last checkpoint until the service is
// back; every message is published (those after the checkpoint maybe twice).
TEST_F(PubSubChaosTest, SinkOutageBeyondTheRetryBudgetRestartsTheJob) {
  RetryOptions retry;
  retry.max_attempts = 100;
  retry.total_timeout = absl::Seconds(2);
  std::thread outage;
  const SinkOutcome outcome =
      Publish("pubsub-outage", "outage", retry, [&](MetricsRegistry&) {
        outage = std::thread([this] {
          absl::SleepFor(absl::Seconds(4));
          proxy_->Down(absl::Seconds(6));
        });
      });
  outage.join();
  ASSERT_TRUE(outcome.summary.ok()) << outcome.summary.status();
  EXPECT_GE(outcome.summary->restarts, 1);
  EXPECT_GT(outcome.summary->restored_checkpoint_id, 0);
  std::cout << "chaos pubsub sink, 6 s outage, 2 s retry budget: " << kRecords
            << " in, " << outcome.landed.size() << " distinct out, "
            << outcome.copies - kRecords << " duplicates, "
            << outcome.summary->restarts
            << " restarts, restored from checkpoint "
            << outcome.summary->restored_checkpoint_id << "\n";
}

TEST_F(PubSubChaosTest, SourceCommitsEveryMessageOnceThroughTheFaults) {
  ASSERT_TRUE(emulators::EnsurePubSubTopic(channel_, kProject, "feed").ok());
  ASSERT_TRUE(emulators::EnsurePubSubSubscription(channel_, kProject,
                                                  "feed-sub", "feed")
                  .ok());
  // Published directly, at the pace the source reads, while it runs.
  std::thread publisher([this] {
    auto stub = google::pubsub::v1::Publisher::NewStub(channel_);
    for (int64_t first = 0; first < kRecords; first += 100) {
      google::pubsub::v1::PublishRequest request;
      request.set_topic(absl::StrCat("projects/", kProject, "/topics/feed"));
      for (int64_t i = first; i < first + 100; ++i) {
        request.add_messages()->set_data(absl::StrCat(i));
      }
      grpc::ClientContext context;
      google::pubsub::v1::PublishResponse response;
      EXPECT_TRUE(stub->Publish(&context, request, &response).ok());
      absl::SleepFor(absl::Milliseconds(250));
    }
  });
  MetricsRegistry metrics;
  runtime::Pipeline pipeline(ChaosOptions("pubsub-source"), &metrics);
  pubsub::PubSubSourceOptions options;
  options.name = "chaos-source";
  options.channel.endpoint = proxy_->address();
  options.channel.plaintext = true;
  options.subscriptions.push_back(pubsub::SubscriptionSpec{
      .project = kProject, .subscription = "feed-sub"});
  // What a reset stream held comes back after this.
  options.stream_ack_deadline = absl::Seconds(10);
  auto collected = std::make_shared<runtime::testing::Collected>();
  pipeline
      .AddSource(std::make_shared<pubsub::PubSubSource<int64_t>>(
                     options,
                     [](const pubsub::PubsubMessage& message,
                        std::vector<int64_t>& out) {
                       int64_t value = 0;
                       if (!absl::SimpleAtoi(message.data(), &value)) {
                         return absl::InvalidArgumentError("not a number");
                       }
                       out.push_back(value);
                       return absl::OkStatus();
                     }),
                 1)
      .SinkTo(std::make_shared<runtime::testing::CollectingSink>(collected));
  absl::StatusOr<runtime::JobSummary> summary;
  std::thread run([&] { summary = pipeline.Run(); });
  FaultSchedule schedule(*proxy_,
                         CheckpointsCompleted(metrics, "pubsub-source"));
  publisher.join();
  const std::vector<InjectedFault> faults = schedule.Finish();
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    absl::MutexLock lock(&collected->mu);
    if (std::set<int64_t>(collected->committed.begin(),
                          collected->committed.end())
            .size() >= kRecords) {
      break;
    }
    collected->mu.AwaitWithTimeout(absl::Condition::kTrue,
                                   absl::Milliseconds(100));
  }
  pipeline.StopWithCheckpoint();
  run.join();
  ASSERT_TRUE(summary.ok()) << summary.status();
  absl::MutexLock lock(&collected->mu);
  const std::set<int64_t> distinct(collected->committed.begin(),
                                   collected->committed.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kRecords));
  const int64_t duplicates =
      static_cast<int64_t>(collected->committed.size()) - kRecords;
  Report(absl::StrCat("pubsub source: ", kRecords, " in, ", distinct.size(),
                      " distinct out, ", duplicates, " duplicates, ",
                      summary->restarts, " restarts, ",
                      proxy_->connections_reset(), " connections reset"),
         faults);
}

}  // namespace
}  // namespace gcpstream::chaos
