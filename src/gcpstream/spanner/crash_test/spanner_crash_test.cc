// Kills a pipeline that upserts into Spanner with SIGKILL at random moments,
// restarts it on the same checkpoint directory, lets the last run finish,
// and compares the table with the rows the input defines: replaying
// insert-or-update mutations after a crash must leave the table identical.

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include <grpcpp/client_context.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"
#include "gcpstream/testing/crash_runs.h"
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

  absl::StatusOr<std::string> final_output =
      gcpstream::testing::RunWithRandomKills(
          {.program = GCPSTREAM_SPANNER_CRASH_PIPELINE,
           .args = {"--checkpoint-dir", root + "/checkpoints", "--database",
                    kDatabase, "--records", std::to_string(kRecords), "--keys",
                    std::to_string(kKeys), "--rate", "10000"},
           .checkpoint_dir = root + "/checkpoints",
           .log_dir = root,
           .kills = kKills,
           .seed = seed});
  ASSERT_TRUE(final_output.ok()) << final_output.status();
  std::cout << *final_output;
  // The final run must have resumed from a checkpoint, or nothing was
  // replayed and the test proves little.
  EXPECT_THAT(*final_output, ::testing::ContainsRegex("resumed from [1-9]"));

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
