// `gcpstream run` reading Pub/Sub: what the deserializer refused is in the
// run's summary beside what was read, so a drop policy never hides records.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/testing/cli_process.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

int CountLines(const std::string& directory) {
  int lines = 0;
  if (!fs::exists(directory)) return 0;
  for (const auto& entry : fs::directory_iterator(directory)) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) ++lines;
  }
  return lines;
}

TEST(PubSubSourceSummaryTest, CountsMessagesTheDeserializerRefused) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub)
          .ok());
  auto channel = auth::MakeChannel(auth::Service::kPubSub);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(emulators::EnsurePubSubTopic(*channel, "summary", "orders").ok());
  ASSERT_TRUE(emulators::EnsurePubSubSubscription(*channel, "summary",
                                                  "orders-sub", "orders")
                  .ok());
  // Seven orders and three messages that are not JSON objects.
  std::vector<google::pubsub::v1::PubsubMessage> messages;
  for (int i = 1; i <= 10; ++i) {
    messages.emplace_back().set_data(i % 3 == 0
                                         ? absl::StrCat("not json ", i)
                                         : absl::StrCat("{\"id\": ", i, "}"));
  }
  ASSERT_TRUE(
      pubsub::testing::PublishMessages(*channel, "summary", "orders", messages)
          .ok());

  const std::string root =
      ::testing::TempDir() + "/pubsub-summary-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string pipeline = root + "/pipeline.yaml";
  std::ofstream(pipeline) << "checkpoint-interval: 1s\n"
                          << "source:\n"
                          << "  name: orders\n"
                          << "  type: pubsub\n"
                          << "  project: summary\n"
                          << "  subscriptions: [orders-sub]\n"
                          << "  deserialization-failure-policy: drop\n"
                          << "sinks:\n"
                          << "  - name: lines\n"
                          << "    type: file\n"
                          << "    delivery: at-least-once\n"
                          << "    directory: " << root << "/out\n";
  gcpstream::testing::CliProcess run(
      GCPSTREAM_CLI, absl::StrCat("run ", pipeline),
      absl::StrCat("PUBSUB_EMULATOR_HOST=",
                   std::getenv("PUBSUB_EMULATOR_HOST")),
      root + "/run.log");
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (CountLines(root + "/out") < 7 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_EQ(CountLines(root + "/out"), 7) << run.Log();
  ASSERT_EQ(run.Stop(), 0) << run.Log();
  EXPECT_THAT(run.Log(),
              HasSubstr("source orders: 7 read, 3 messages the deserializer "
                        "refused, not emitted "
                        "(deserialization-failure-policy)"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::cli
