// `gcpstream iceberg add-files` killed with SIGKILL at moments spread over
// its run (reading footers, creating the table, writing manifests,
// committing the data), then run again: after every crash the table is
// readable and holds no file twice, and the run that finally completes
// leaves every file registered exactly once.

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gcpstream/emulators/child_process.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

using Json = nlohmann::json;

const std::string kDir = GCPSTREAM_TEST_OUTPUT_DIR;
constexpr int kFiles = 60;
constexpr int kCrashes = 16;
constexpr int kTargetedCrashes = 4;

class IcebergAddFilesCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(kDir + "/warehouse");
    for (int i = 0; i < 3; ++i) {
      std::filesystem::remove_all(absl::StrCat(kDir, "/timing-warehouse-", i));
    }
    ASSERT_EQ(std::system(absl::StrCat(GCPSTREAM_PYTHON, " ",
                                       GCPSTREAM_ICEBERG_TESTDATA,
                                       "/write_many_parquet_files.py ", kDir,
                                       "/files ", kFiles)
                              .c_str()),
              0);
  }

  static std::vector<std::string> Arguments() {
    return {GCPSTREAM_CLI,
            "iceberg",
            "add-files",
            "--catalog",
            kDir + "/warehouse",
            "--table",
            "db.events",
            "--schema-evolution-options",
            "allow-field-addition",
            "--already-added",
            "skip",
            "--files-per-manifest",
            "7",
            "--paths-from",
            kDir + "/files/listing.txt"};
  }

  // Runs the command; kills it after `kill_after`, or as soon as
  // `kill_now` holds, unless it ended first. Whether it was killed.
  static bool RunAndMaybeKill(
      absl::Duration kill_after,
      const std::function<bool()>& kill_now = [] { return false; }) {
    emulators::ChildProcessOptions options;
    options.argv = Arguments();
    options.log_path = kDir + "/run.log";
    absl::StatusOr<std::unique_ptr<emulators::ChildProcess>> run =
        emulators::ChildProcess::Start(options);
    EXPECT_TRUE(run.ok()) << run.status();
    if (!run.ok()) return false;
    const absl::Time deadline = absl::Now() + kill_after;
    std::optional<std::string> ended;
    while (!(ended = (*run)->Poll()).has_value() && absl::Now() < deadline &&
           !kill_now()) {
      absl::SleepFor(absl::Microseconds(50));
    }
    if (ended.has_value()) return false;
    kill((*run)->pid(), SIGKILL);
    while (!(*run)->Poll().has_value()) absl::SleepFor(absl::Milliseconds(1));
    return true;
  }

  static Json Table() {
    const std::string out = iceberg::testing::CommandOutput(
        absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_ICEBERG_TESTDATA,
                     "/check_crashed_table.py ", kDir, "/warehouse/db/events"));
    Json parsed = Json::parse(out, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << out;
    return parsed;
  }

  // Checks the table a crash left behind; whether it holds some files but
  // not all, i.e. the kill landed after the table's creation (or schema
  // commit) and before the data commit.
  static bool CheckAfterCrash(const std::string& crash) {
    const Json table = Table();
    EXPECT_FALSE(table.contains("error")) << crash << ": " << table.dump();
    EXPECT_EQ(table["duplicates"], 0) << crash;
    EXPECT_EQ(table["rows"].get<size_t>(), 10 * table["files"].size()) << crash;
    return table["exists"] == true &&
           table["files"].size() < static_cast<size_t>(kFiles);
  }

  // Running again completes what the crashes left undone.
  static void FinishAndCheck(const std::string& crash) {
    testing::Outcome finished = testing::Gcpstream(
        absl::StrCat("iceberg add-files --catalog ", kDir,
                     "/warehouse --table db.events --schema-evolution-options "
                     "allow-field-addition --already-added skip --paths-from ",
                     kDir, "/files/listing.txt"));
    ASSERT_EQ(finished.exit_code, 0) << finished.output;
    const Json table = Table();
    EXPECT_EQ(table["duplicates"], 0) << crash;
    EXPECT_EQ(table["files"].size(), static_cast<size_t>(kFiles)) << crash;
    EXPECT_EQ(table["rows"], 10 * kFiles) << crash;
  }
};

TEST_F(IcebergAddFilesCrashTest, KilledRunsLoseNothingAndRegisterNothingTwice) {
  // How long a whole run takes here (the fastest of three, each in a
  // warehouse of its own), so kill times spread over a run.
  absl::Duration whole_run = absl::InfiniteDuration();
  for (int i = 0; i < 3; ++i) {
    const absl::Time start = absl::Now();
    testing::Outcome timed = testing::Gcpstream(absl::StrCat(
        "iceberg add-files --catalog ", kDir, "/timing-warehouse-", i,
        " --table db.events --schema-evolution-options "
        "allow-field-addition --paths-from ",
        kDir, "/files/listing.txt"));
    ASSERT_EQ(timed.exit_code, 0) << timed.output;
    whole_run = std::min(whole_run, absl::Now() - start);
  }

  // Kill times sweep the whole run, so some land in each phase; each
  // crash is followed by another killed run (at a random time) and then a
  // run to the end, all on the same table.
  std::mt19937 random(20261203);
  std::uniform_real_distribution<double> fraction(0.05, 1.0);
  int killed = 0;
  int killed_between_commits = 0;
  for (int i = 0; i < kCrashes; ++i) {
    std::filesystem::remove_all(kDir + "/warehouse");
    const double at = (i + 0.5) / kCrashes;
    for (const double when : {at, fraction(random)}) {
      if (RunAndMaybeKill(whole_run * when)) ++killed;
      if (CheckAfterCrash(absl::StrCat("sweep crash ", i))) {
        ++killed_between_commits;
      }
    }
    FinishAndCheck(absl::StrCat("sweep run ", i));
  }
  // On a loaded machine the time between the two commits can be too short
  // for the sweep to hit, so some kills aim at it: as soon as the table's
  // first metadata file appears.
  const std::string first_metadata =
      kDir + "/warehouse/db/events/metadata/v1.metadata.json";
  for (int i = 0; i < kTargetedCrashes; ++i) {
    std::filesystem::remove_all(kDir + "/warehouse");
    if (RunAndMaybeKill(whole_run * 10, [&] {
          return std::filesystem::exists(first_metadata);
        })) {
      ++killed;
    }
    if (CheckAfterCrash(absl::StrCat("targeted crash ", i))) {
      ++killed_between_commits;
    }
    FinishAndCheck(absl::StrCat("targeted run ", i));
  }
  // Half the runs are killed at a random moment; most of the others within
  // the run's duration.
  EXPECT_GT(killed, kCrashes / 2) << "too few runs were killed";
  EXPECT_GT(killed_between_commits, 0)
      << "no crash landed after the table's creation and before the data "
         "commit; the kill times do not cover the commits";
}

}  // namespace
}  // namespace gcpstream::cli
