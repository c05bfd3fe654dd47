// Pipeline files with `type: pubsub` against the emulator: records routed
// to per-region topics with attributes and ordering keys from their fields,
// records that do not fit dead-lettered; and a Pub/Sub source feeding a file
// sink.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/config/pipeline_file.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kProject[] = "yaml-project";

class PubSubConnectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub)
            .ok());
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    ASSERT_TRUE(channel.ok());
    channel_ = *channel;
    root_ = ::testing::TempDir() + "/yaml-pubsub-" + std::to_string(getpid()) +
            "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_ + "/in");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(root_);
  }

  void Subscribe(const std::string& topic, const std::string& subscription) {
    ASSERT_TRUE(emulators::EnsurePubSubTopic(channel_, kProject, topic).ok());
    ASSERT_TRUE(emulators::EnsurePubSubSubscription(channel_, kProject,
                                                    subscription, topic, true)
                    .ok());
  }

  static absl::StatusOr<std::unique_ptr<runtime::Pipeline>> Build(
      const std::string& yaml) {
    absl::StatusOr<PipelineFile> file = ParsePipelineFile(yaml, "test.yaml");
    if (!file.ok()) return file.status();
    return BuildPipeline(*file, ConnectorRegistry::Global());
  }

  static std::vector<std::string> Lines(const std::string& directory) {
    std::vector<std::string> lines;
    if (!fs::exists(directory)) return lines;
    for (const auto& entry : fs::directory_iterator(directory)) {
      if (!entry.is_regular_file() ||
          entry.path().filename().string().front() == '.') {
        continue;
      }
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) lines.push_back(line);
    }
    return lines;
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::string root_;
};

TEST_F(PubSubConnectorsTest,
       RoutesByTemplateAndDeadLettersRecordsThatDoNotFit) {
  Subscribe("orders-eu", "orders-eu-sub");
  Subscribe("orders-us", "orders-us-sub");
  {
    std::ofstream in(root_ + "/in/orders.jsonl");
    for (int i = 0; i < 30; ++i) {
      const char* region = i % 3 == 0 ? "eu" : "us";
      nlohmann::json record = {{"id", i},
                               {"customer", absl::StrCat("c", i % 4)}};
      // Without a region, a record's topic cannot be named.
      if (i % 10 != 9) record["region"] = region;
      in << record.dump() << "\n";
    }
  }
  const std::string yaml = absl::StrCat(
      "name: route\n"
      "checkpoint-interval: 100ms\n"
      "source: {type: json-lines, directory: ",
      root_, "/in}\n",
      "sinks:\n"
      "  - name: orders\n"
      "    type: pubsub\n"
      "    project: ",
      kProject, "\n",
      "    topic: \"orders-{region}\"\n"
      "    attributes: {region: region}\n"
      "    ordering-key: customer\n"
      "    enable-message-ordering: true\n"
      "    create-disposition: create-never\n"
      "    failure-handler:\n"
      "      type: dead-letter-queue\n"
      "      queue: {type: file, directory: ",
      root_, "/dlq}\n");
  auto pipeline = Build(yaml);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto summary = (*pipeline)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status();

  std::map<std::string, int> by_topic;
  for (const auto& [topic, subscription] :
       std::vector<std::pair<std::string, std::string>>{
           {"eu", "orders-eu-sub"}, {"us", "orders-us-sub"}}) {
    for (const auto& message : pubsub::testing::PullMessages(
             channel_, kProject, subscription, 30, 5)) {
      ++by_topic[topic];
      EXPECT_EQ(message.attributes().at("region"), topic);
      EXPECT_THAT(message.ordering_key(), ::testing::StartsWith("c"));
      EXPECT_THAT(message.data(),
                  HasSubstr(absl::StrCat("\"region\":\"", topic, "\"")));
    }
  }
  EXPECT_EQ(by_topic["eu"], 9);   // i % 3 == 0, minus 9 and 29... none.
  EXPECT_EQ(by_topic["us"], 18);  // The rest, minus 9, 19 and 29.
  const std::vector<std::string> dead = Lines(root_ + "/dlq");
  ASSERT_EQ(dead.size(), 3U);
  for (const std::string& line : dead) {
    EXPECT_THAT(line, HasSubstr("field 'region' is missing"));
    EXPECT_THAT(line, HasSubstr("orders-{region}"));
  }
}

TEST_F(PubSubConnectorsTest, EventTimeFromAFieldNamesTheTopic) {
  Subscribe("events-20261201", "events-1201");
  Subscribe("events-20261202", "events-1202");
  {
    std::ofstream in(root_ + "/in/events.jsonl");
    for (int i = 0; i < 10; ++i) {
      nlohmann::json event = {
          {"n", i}, {"at", absl::StrCat("2026-12-0", 1 + i % 2, "T10:00:00Z")}};
      in << event.dump() << "\n";
    }
    in << R"({"n":10,"at":"someday"})"
       << "\n";
    in << R"({"n":11,"at":1796169600000})"
       << "\n";  // 2026-12-02, in ms.
  }
  const std::string yaml = absl::StrCat(
      "source: {type: json-lines, directory: ", root_,
      "/in, event-time-field: at}\n"
      "sinks:\n"
      "  - type: pubsub\n"
      "    project: ",
      kProject, "\n",
      "    topic: \"events-{event_time:%Y%m%d}\"\n"
      "    create-disposition: create-never\n"
      "    failure-handler: {type: dead-letter-queue, queue: {type: file, "
      "directory: ",
      root_, "/dlq}}\n");
  auto pipeline = Build(yaml);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE((*pipeline)->Run().ok());
  EXPECT_EQ(
      pubsub::testing::PullMessages(channel_, kProject, "events-1201", 20, 3)
          .size(),
      5U);
  EXPECT_EQ(
      pubsub::testing::PullMessages(channel_, kProject, "events-1202", 20, 3)
          .size(),
      6U);
  const std::vector<std::string> dead = Lines(root_ + "/dlq");
  ASSERT_EQ(dead.size(), 1U);
  EXPECT_THAT(dead[0], HasSubstr("uses event_time, but the record has none"));
}

TEST_F(PubSubConnectorsTest, DeadLettersCanGoToAPubSubTopic) {
  Subscribe("dead", "dead-sub");
  {
    std::ofstream in(root_ + "/in/orders.jsonl");
    in << R"({"id":1})"
       << "\n";  // No region: refused.
  }
  const std::string yaml =
      absl::StrCat("source: {type: json-lines, directory: ", root_, "/in}\n",
                   "sinks:\n"
                   "  - type: pubsub\n"
                   "    project: ",
                   kProject, "\n",
                   "    topic: \"orders-{region}\"\n"
                   "    failure-handler:\n"
                   "      type: dead-letter-queue\n"
                   "      queue: {type: pubsub, project: ",
                   kProject, ", topic: dead}\n");
  auto pipeline = Build(yaml);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE((*pipeline)->Run().ok());
  const auto dead =
      pubsub::testing::PullMessages(channel_, kProject, "dead-sub", 1, 10);
  ASSERT_EQ(dead.size(), 1U);
  EXPECT_EQ(dead[0].data(), R"({"id":1})");
  EXPECT_THAT(dead[0].attributes().at("dlq-error"),
              HasSubstr("field 'region' is missing"));
}

TEST_F(PubSubConnectorsTest, ASourceFeedsAFileSink) {
  Subscribe("events", "events-sub");
  std::vector<google::pubsub::v1::PubsubMessage> messages(51);
  for (int i = 0; i < 50; ++i) {
    messages[i].set_data(absl::StrCat("{\"n\":", i, "}"));
  }
  messages[50].set_data("not json");
  ASSERT_TRUE(
      pubsub::testing::PublishMessages(channel_, kProject, "events", messages)
          .ok());
  const std::string yaml = absl::StrCat(
      "name: read\n"
      "checkpoint-interval: 100ms\n"
      "source:\n"
      "  type: pubsub\n"
      "  project: ",
      kProject, "\n",
      "  subscriptions: [events-sub]\n"
      "  deserialization-failure-policy: drop\n"
      "  stream-ack-deadline: 10s\n"
      "sinks: [{type: file, directory: ",
      root_, "/out}]\n");
  auto pipeline = Build(yaml);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  runtime::Pipeline& running = **pipeline;
  std::thread stopper([&] {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (Lines(root_ + "/out").size() < 50 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(50));
    }
    running.Stop();
  });
  auto summary = running.Run();
  stopper.join();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(Lines(root_ + "/out").size(), 50U);
}

TEST_F(PubSubConnectorsTest, BadOptionsAreConfigurationErrors) {
  for (const auto& [yaml, expected] :
       std::vector<std::pair<std::string, std::string>>{
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: pubsub, project: p, topic: \"o-{region\"}]\n",
            "test.yaml:2:43: pipeline 'sinks' item 1: option 'topic': "
            "template 'o-{region': '{' at offset 2 is not closed"},
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: pubsub, project: p, topic: t, "
            "create-disposition: sometimes}]\n",
            "create-disposition: unknown value 'sometimes'; accepted values: "
            "create-if-needed, create-never"},
           {"source: {type: pubsub, project: p, subscriptions: [s], "
            "ordering-mode: by-key}\n"
            "sinks: [{type: file, directory: /tmp/x}]\n",
            "ordering-mode: unknown value 'by-key'; accepted values: none, "
            "per-key"},
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: pubsub, project: p, topic: t, failure-handler: "
            "{type: dead-letter-queue}}]\n",
            "needs a 'queue'"},
           {"sources:\n"
            "  - {name: eu, type: pubsub, project: p, subscription: s}\n"
            "sinks: [{type: file, directory: /tmp/x}]\n",
            "option 'subscriptions' is required ('subscription' at "
            "test.yaml:2:42 looks like a misspelling of it)"},
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: pubsub, project: p, topic: t, ordering-key: id}]\n",
            "option 'ordering-key' needs 'enable-message-ordering: true'"},
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: pubsub, topic: t}]\n",
            "option 'project' is required: the Google Cloud project to use; "
            "to run on local emulators instead, give any name and run with "
            "`gcpstream run --local`"},
       }) {
    auto pipeline = Build(yaml);
    ASSERT_FALSE(pipeline.ok()) << yaml;
    EXPECT_THAT(pipeline.status().message(), HasSubstr(expected)) << yaml;
  }
}

}  // namespace
}  // namespace gcpstream::config
