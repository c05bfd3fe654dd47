// Kills a pipeline that creates named Cloud Tasks tasks with SIGKILL at
// random moments, restarts it from its checkpoints, and lets a last run
// finish:
// - against a scripted server that keeps task names like the service, each
//   record's task is created exactly once and the replayed creates were
//   answered ALREADY_EXISTS (deduplicated);
// - against the emulator (which does not deduplicate), every record's task
//   is dispatched to the test's HTTP server at least once.

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gcpstream/cloudtasks/task_check.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/crash_runs.h"
#include "gcpstream/testing/http_receiver.h"
#include "gcpstream/testing/scripted_server.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/cloud/tasks/v2/cloudtasks.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::cloudtasks {
namespace {

namespace fs = std::filesystem;
namespace v2 = ::google::cloud::tasks::v2;

constexpr char kQueue[] =
    "projects/crash-project/locations/crash-location/queues/crash-queue";

std::string Root(const std::string& what) {
  const std::string root = ::testing::TempDir() + "/cloudtasks-crash-" + what +
                           "-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  return root;
}

absl::StatusOr<std::string> KillAndReplay(const std::string& root,
                                          const std::string& url,
                                          const std::string& endpoint,
                                          int64_t records, int rate) {
  const auto seed = static_cast<uint32_t>(absl::ToUnixMicros(absl::Now()));
  std::cout << "random seed " << seed << "\n";
  std::vector<std::string> args = {"--checkpoint-dir",
                                   root + "/checkpoints",
                                   "--queue",
                                   kQueue,
                                   "--url",
                                   url,
                                   "--records",
                                   absl::StrCat(records),
                                   "--rate",
                                   absl::StrCat(rate)};
  if (!endpoint.empty()) {
    args.emplace_back("--endpoint");
    args.push_back(endpoint);
  }
  return ::gcpstream::testing::RunWithRandomKills(
      {.program = GCPSTREAM_CLOUDTASKS_CRASH_PIPELINE,
       .args = args,
       .checkpoint_dir = root + "/checkpoints",
       .log_dir = root,
       .kills = 6,
       .seed = seed});
}

TEST(CloudTasksCrashTest, ReplaysAreDeduplicatedByName) {
  constexpr int64_t kRecords = 8000;
  absl::Mutex mu;
  std::map<std::string, int> created;  // Name -> OK answers.
  int already_exists = 0;
  auto server = ::gcpstream::testing::ScriptedServer::Start(
      {"google.cloud.tasks.v2.CloudTasks"});
  ASSERT_TRUE(server.ok()) << server.status();
  (*server)->SetDefault(
      "google.cloud.tasks.v2.CloudTasks.CreateTask",
      ::gcpstream::testing::Typed<v2::CreateTaskRequest>(
          [&](const v2::CreateTaskRequest& request) {
            absl::MutexLock lock(&mu);
            if (++created[request.task().name()] > 1) {
              --created[request.task().name()];
              ++already_exists;
              return ::gcpstream::testing::Fail(
                  grpc::StatusCode::ALREADY_EXISTS, "task exists");
            }
            return ::gcpstream::testing::Respond(request.task());
          }));
  const std::string root = Root("scripted");
  absl::StatusOr<std::string> output =
      KillAndReplay(root, "https://hooks.example.com/orders",
                    (*server)->address(), kRecords, 1000);
  ASSERT_TRUE(output.ok()) << output.status();
  std::cout << *output;
  EXPECT_THAT(*output, ::testing::ContainsRegex("resumed from [1-9]"));

  absl::MutexLock lock(&mu);
  ASSERT_EQ(created.size(), static_cast<size_t>(kRecords));
  for (int64_t i = 0; i < kRecords; ++i) {
    const std::string name =
        absl::StrCat(kQueue, "/tasks/", TaskIdOf(absl::StrCat("order-", i)));
    auto it = created.find(name);
    ASSERT_NE(it, created.end()) << "record " << i << " has no task";
    ASSERT_EQ(it->second, 1) << "record " << i;
  }
  std::cout << already_exists << " replayed creates answered ALREADY_EXISTS\n";
  EXPECT_GT(already_exists, 0) << "nothing was replayed";
  fs::remove_all(root);
}

TEST(CloudTasksCrashTest, EveryRecordIsDispatchedOnTheEmulator) {
  constexpr int64_t kRecords = 3000;
  auto channel = ::gcpstream::testing::TestEmulatorChannel(
      emulators::EmulatorKind::kCloudTasks);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(emulators::EnsureCloudTasksQueue(*channel, "crash-project",
                                               "crash-location", "crash-queue")
                  .ok());
  auto receiver = ::gcpstream::testing::HttpReceiver::Start();
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  const std::string root = Root("emulator");
  absl::StatusOr<std::string> output = KillAndReplay(
      root, absl::StrCat("http://127.0.0.1:", (*receiver)->port(), "/orders"),
      "", kRecords, 500);
  ASSERT_TRUE(output.ok()) << output.status();
  std::cout << *output;
  EXPECT_THAT(*output, ::testing::ContainsRegex("resumed from [1-9]"));

  // At least every record once; the emulator keeps no names, so a replay
  // may dispatch a record twice.
  std::set<std::string> dispatched;
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (dispatched.size() < kRecords && absl::Now() < give_up) {
    for (const auto& request :
         (*receiver)->WaitFor(kRecords, absl::Seconds(1))) {
      dispatched.insert(request.target);
    }
  }
  for (int64_t i = 0; i < kRecords; ++i) {
    ASSERT_TRUE(dispatched.contains(absl::StrCat("/orders/", i)))
        << "record " << i << " was never dispatched";
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::cloudtasks
