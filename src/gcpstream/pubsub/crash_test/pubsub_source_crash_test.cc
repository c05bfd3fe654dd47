// Kills a pipeline that reads a Pub/Sub subscription into an exactly-once
// file sink with SIGKILL at random moments, restarts it on the same
// checkpoint directory, lets the last run drain the subscription, and checks
// that every published message reached the committed output at least once
// and that nothing is left unacknowledged in the subscription.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/testing/half_closing_proxy.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

namespace fs = std::filesystem;

constexpr int kMessages = 20'000;
constexpr int kKills = 4;
constexpr char kProject[] = "crash-project";
constexpr char kTopic[] = "crash-topic";
constexpr char kSubscription[] = "crash-subscription";

void Publish(const std::shared_ptr<grpc::Channel>& channel) {
  std::vector<google::pubsub::v1::PubsubMessage> messages(kMessages);
  for (int i = 0; i < kMessages; ++i) messages[i].set_data(absl::StrCat(i));
  const absl::Status published = ::gcpstream::pubsub::testing::PublishMessages(
      channel, kProject, kTopic, messages);
  ASSERT_TRUE(published.ok()) << published;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// How often each number appears in the committed part files.
std::map<int64_t, int> ReadOutput(const std::string& directory) {
  std::map<int64_t, int> count;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !name.starts_with("part-")) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      int64_t value = 0;
      EXPECT_TRUE(absl::SimpleAtoi(line, &value))
          << "bad line '" << line << "'";
      ++count[value];
    }
  }
  return count;
}

TEST(PubSubSourceCrashTest, EveryMessageLandsAndNothingStaysUnacknowledged) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub)
          .ok());
  auto channel = auth::MakeChannel(auth::Service::kPubSub);
  ASSERT_TRUE(channel.ok());
  ASSERT_TRUE(emulators::EnsurePubSubTopic(*channel, kProject, kTopic).ok());
  ASSERT_TRUE(emulators::EnsurePubSubSubscription(*channel, kProject,
                                                  kSubscription, kTopic)
                  .ok());
  ASSERT_NO_FATAL_FAILURE(Publish(*channel));
  // The pipelines reach the emulator through a proxy that half-closes a
  // killed run's streams, as the service would notice the dead client; the
  // emulator on its own keeps dispatching messages to them for minutes.
  auto proxy = gcpstream::testing::HalfClosingProxy::Start(
      std::getenv("PUBSUB_EMULATOR_HOST"));
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!std::string(*entry).starts_with("PUBSUB_EMULATOR_HOST=")) {
      environment.emplace_back(*entry);
    }
  }
  environment.push_back("PUBSUB_EMULATOR_HOST=" + (*proxy)->address());
  std::vector<char*> child_environment;
  child_environment.reserve(environment.size() + 1);
  for (std::string& entry : environment) {
    child_environment.push_back(entry.data());
  }
  child_environment.push_back(nullptr);

  const std::string root =
      ::testing::TempDir() + "/pubsub-source-crash-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const auto seed = static_cast<uint32_t>(absl::ToUnixMicros(absl::Now()));
  std::cout << "random seed " << seed << "\n";
  std::mt19937 random(seed);
  const std::string subscription =
      absl::StrCat("projects/", kProject, "/subscriptions/", kSubscription);
  auto log_of = [&](int run) {
    return root + "/run-" + std::to_string(run) + ".log";
  };
  const std::string checkpoint_dir = root + "/checkpoints";
  const std::string output_dir = root + "/output";
  auto launch = [&](int run, const char* stop_when_idle) {
    const std::string log = log_of(run);
    std::cout.flush();  // Or the child would print our buffer again.
    const pid_t pid = fork();
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      execle(GCPSTREAM_PUBSUB_SOURCE_CRASH_PIPELINE,
             GCPSTREAM_PUBSUB_SOURCE_CRASH_PIPELINE, "--checkpoint-dir",
             checkpoint_dir.c_str(), "--output-dir", output_dir.c_str(),
             "--subscription", subscription.c_str(), "--stop-when-idle",
             stop_when_idle, static_cast<char*>(nullptr),
             child_environment.data());
      _exit(127);
    }
    return pid;
  };
  for (int run = 0; run < kKills; ++run) {
    const pid_t pid = launch(run, "0");
    absl::SleepFor(absl::Milliseconds(
        std::uniform_int_distribution<int>(1500, 3500)(random)));
    int status = 0;
    ASSERT_NE(waitpid(pid, &status, WNOHANG), pid)
        << "run " << run << " ended before it was killed; see " << log_of(run);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  EXPECT_GT((*proxy)->streams_half_closed(), 0);
  // The killed runs' leases run out after their ack deadline (10 s); the
  // final run waits long enough to receive those messages again.
  const pid_t pid = launch(kKills, "15");
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string final_output = ReadFile(log_of(kKills));
  std::cout << final_output;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "final run failed; see " << log_of(kKills);
  EXPECT_THAT(final_output, ::testing::ContainsRegex("resumed from [1-9]"));
  // Messages the killed runs held must have come back to the final run.
  EXPECT_THAT(final_output, ::testing::ContainsRegex("idle: received [1-9]"));

  const std::map<int64_t, int> count = ReadOutput(root + "/output");
  int64_t duplicates = 0;
  for (int64_t i = 0; i < kMessages; ++i) {
    auto it = count.find(i);
    ASSERT_NE(it, count.end()) << "message " << i << " was lost; seed " << seed;
    duplicates += it->second - 1;
  }
  EXPECT_EQ(count.size(), static_cast<size_t>(kMessages));
  std::cout << "duplicates (redeliveries after kills): " << duplicates << "\n";

  const auto left = testing::PullMessages(*channel, kProject, kSubscription,
                                          /*count=*/1, /*attempts=*/2);
  EXPECT_TRUE(left.empty()) << left.size() << " message(s) left unacknowledged"
                            << ", e.g. '" << left.front().data() << "'";
  if (!HasFailure()) fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::pubsub
