// Kills a pipeline that writes BigQuery rows with SIGKILL at random moments,
// restarts it on the same checkpoint directory, lets the last run finish,
// and reads every row back: under storage-api-exactly-once and file-loads
// each record's row is there exactly once; under storage-api-at-least-once
// each is there, once or more.

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "gcpstream/bigquery/bigquery_test_util.h"
#include "gcpstream/testing/crash_runs.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRecords = 9'000;
constexpr char kProject[] = "crash-project";

class BigQueryCrashTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BigQueryCrashTest, EveryRowLandsAndExactlyOnceLandsOnce) {
  const std::string& method = GetParam();
  const bool exactly_once = method != "storage-api-at-least-once";
  ASSERT_TRUE(
      ::gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kBigQuery)
          .ok());
  std::string dataset = absl::StrCat(method, "_", getpid());
  absl::StrReplaceAll({{"-", "_"}}, &dataset);
  std::vector<std::string> staging;
  if (method == "file-loads") {
    ASSERT_TRUE(testing::EnsureStagingBucket("crash-staging").ok());
    staging = {"--staging-path", absl::StrCat("gs://crash-staging/", dataset)};
  }
  const std::string root = ::testing::TempDir() + "/bigquery-crash-" + method +
                           "-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const auto seed = static_cast<uint32_t>(absl::ToUnixMicros(absl::Now()));
  std::cout << "random seed " << seed << "\n";

  std::vector<std::string> args = {"--checkpoint-dir", root + "/checkpoints",
                                   "--project",        kProject,
                                   "--dataset",        dataset,
                                   "--records",        absl::StrCat(kRecords),
                                   "--rate",           "1500",
                                   "--write-method",   method};
  args.insert(args.end(), staging.begin(), staging.end());
  absl::StatusOr<std::string> final_output =
      ::gcpstream::testing::RunWithRandomKills(
          {.program = GCPSTREAM_BIGQUERY_CRASH_PIPELINE,
           .args = args,
           .checkpoint_dir = root + "/checkpoints",
           .log_dir = root,
           .kills = 5,
           .seed = seed});
  ASSERT_TRUE(final_output.ok()) << final_output.status();
  std::cout << *final_output;
  EXPECT_THAT(*final_output, ::testing::ContainsRegex("resumed from [1-9]"));

  std::map<int64_t, int> copies;
  for (int part = 0; part < 3; ++part) {
    absl::StatusOr<std::vector<nlohmann::json>> rows = testing::ReadRows(
        TableDestination(kProject, dataset, absl::StrCat("part_", part)));
    ASSERT_TRUE(rows.ok()) << rows.status();
    for (const nlohmann::json& row : *rows) {
      int64_t id = -1;
      ASSERT_TRUE(absl::SimpleAtoi(row["id"].get<std::string>(), &id)) << row;
      ASSERT_EQ(id % 3, part) << "row " << id << " in the wrong table";
      ++copies[id];
    }
  }
  int64_t repeated = 0;
  for (int64_t i = 0; i < kRecords; ++i) {
    ASSERT_TRUE(copies.contains(i)) << "record " << i << " lost; seed " << seed;
    if (exactly_once) {
      ASSERT_EQ(copies[i], 1) << "record " << i << "; seed " << seed;
    }
    repeated += copies[i] - 1;
  }
  ASSERT_EQ(copies.size(), static_cast<size_t>(kRecords));
  std::cout << method << ": " << repeated << " rows written more than once\n";
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(WriteMethods, BigQueryCrashTest,
                         ::testing::Values("storage-api-at-least-once",
                                           "storage-api-exactly-once",
                                           "file-loads"));

}  // namespace
}  // namespace gcpstream::bigquery
