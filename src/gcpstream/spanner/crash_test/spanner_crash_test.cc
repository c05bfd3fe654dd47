// Kills a pipeline that upserts into Spanner with SIGKILL at random moments,
// restarts it on the same checkpoint directory, lets the last run finish,
// and compares the table with the rows the input defines: replaying
// insert-or-update mutations after a crash must leave the table identical.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <system_error>

#include <grpcpp/client_context.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/spanner/v1/spanner.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::spanner {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRecords = 30'000;
constexpr int64_t kKeys = 1'000;
constexpr int kKills = 6;
constexpr char kDatabase[] =
    "projects/crash-project/instances/crash-instance/databases/crash-db";

std::map<int64_t, int64_t> ReadTable(
    const std::shared_ptr<grpc::Channel>& channel) {
  auto result = emulators::QuerySpanner(channel, kDatabase,
                                        "SELECT Id, Seq FROM Counters");
  EXPECT_TRUE(result.ok()) << result.status();
  std::map<int64_t, int64_t> rows;
  for (const std::vector<std::string>& row :
       result.value_or(std::vector<std::vector<std::string>>())) {
    int64_t id = 0;
    int64_t seq = 0;
    EXPECT_TRUE(absl::SimpleAtoi(row[0], &id));
    EXPECT_TRUE(absl::SimpleAtoi(row[1], &seq));
    rows[id] = seq;
  }
  return rows;
}

TEST(SpannerCrashTest, ReplayedUpsertsLeaveTheTableIdentical) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kSpanner)
          .ok());
  auto channel = auth::MakeChannel(auth::Service::kSpanner);
  ASSERT_TRUE(channel.ok());
  ASSERT_TRUE(emulators::EnsureSpannerDatabase(
                  *channel, "crash-project", "crash-instance", "crash-db",
                  {"CREATE TABLE Counters (Id INT64 NOT NULL, Seq INT64 NOT "
                   "NULL) PRIMARY KEY (Id)"})
                  .ok());
  const std::string root =
      ::testing::TempDir() + "/spanner-crash-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const auto seed = static_cast<uint32_t>(absl::ToUnixMicros(absl::Now()));
  std::cout << "random seed " << seed << "\n";
  std::mt19937 random(seed);

  auto launch = [&](int run) {
    const std::string log = root + "/run-" + std::to_string(run) + ".log";
    std::cout.flush();
    const pid_t pid = fork();
    if (pid == 0) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      execl(GCPSTREAM_SPANNER_CRASH_PIPELINE, GCPSTREAM_SPANNER_CRASH_PIPELINE,
            "--checkpoint-dir", (root + "/checkpoints").c_str(), "--database",
            kDatabase, "--records", std::to_string(kRecords).c_str(), "--keys",
            std::to_string(kKeys).c_str(), "--rate", "10000",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  };
  // A completed checkpoint (written to a temporary file, then renamed).
  auto has_checkpoint = [&] {
    std::error_code error;
    return std::ranges::any_of(
        fs::directory_iterator(root + "/checkpoints", error),
        [](const fs::directory_entry& entry) {
          return entry.path().extension() == ".json";
        });
  };
  for (int run = 0; run < kKills; ++run) {
    const pid_t pid = launch(run);
    // On a loaded machine every random kill can land before the first
    // checkpoint: the last one waits for a checkpoint if none was written,
    // so the final run has one to resume from.
    if (run == kKills - 1) {
      const absl::Time give_up = absl::Now() + absl::Seconds(60);
      while (!has_checkpoint() && absl::Now() < give_up) {
        absl::SleepFor(absl::Milliseconds(20));
      }
    }
    absl::SleepFor(absl::Milliseconds(
        std::uniform_int_distribution<int>(300, 900)(random)));
    int status = 0;
    ASSERT_NE(waitpid(pid, &status, WNOHANG), pid)
        << "run " << run << " ended before it was killed; see " << root;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  const pid_t pid = launch(kKills);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "final run failed; see " << root << "/run-" << kKills << ".log";

  // The final run must have resumed from a checkpoint, or nothing was
  // replayed and the test proves little.
  std::ifstream final_log(root + "/run-" + std::to_string(kKills) + ".log");
  const std::string final_output((std::istreambuf_iterator<char>(final_log)),
                                 std::istreambuf_iterator<char>());
  std::cout << final_output;
  EXPECT_THAT(final_output, ::testing::ContainsRegex("resumed from [1-9]"));

  const std::map<int64_t, int64_t> rows = ReadTable(*channel);
  ASSERT_EQ(rows.size(), static_cast<size_t>(kKeys));
  for (int64_t id = 0; id < kKeys; ++id) {
    // The last record for this row.
    const int64_t expected = id + ((kRecords - 1 - id) / kKeys) * kKeys;
    ASSERT_EQ(rows.at(id), expected) << "row " << id << "; seed " << seed;
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::spanner
