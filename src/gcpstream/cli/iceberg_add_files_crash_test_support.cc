#include "gcpstream/cli/iceberg_add_files_crash_test_support.h"

#include <signal.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gcpstream/emulators/child_process.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gtest/gtest.h"

namespace gcpstream::cli::testing {
namespace {

using Json = nlohmann::json;

std::vector<std::string> Arguments(const std::string& warehouse,
                                   const CrashRunOptions& options) {
  return {"iceberg",
          "add-files",
          "--catalog",
          warehouse,
          "--table",
          "db.events",
          "--schema-evolution-options",
          "allow-field-addition",
          "--already-added",
          "skip",
          "--files-per-manifest",
          "7",
          "--paths-from",
          options.listing};
}

// Runs the command; kills it after `kill_after`, or as soon as `kill_now`
// holds, unless it ended first. Whether it was killed.
bool RunAndMaybeKill(
    const std::string& warehouse, const CrashRunOptions& options,
    absl::Duration kill_after,
    const std::function<bool()>& kill_now = [] { return false; }) {
  emulators::ChildProcessOptions child;
  child.argv = Arguments(warehouse, options);
  child.argv.insert(child.argv.begin(), GCPSTREAM_CLI);
  child.log_path = options.log_dir + "/run.log";
  absl::StatusOr<std::unique_ptr<emulators::ChildProcess>> run =
      emulators::ChildProcess::Start(child);
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

Json Table(const std::string& warehouse) {
  const std::string out = iceberg::testing::CommandOutput(
      absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_ICEBERG_TESTDATA,
                   "/check_crashed_table.py ", warehouse, "/db/events"));
  Json parsed = Json::parse(out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << out;
  return parsed;
}

// Checks the table a crash left behind; whether it holds some files but
// not all, i.e. the kill landed after the table's creation (or schema
// commit) and before the data commit.
bool CheckAfterCrash(const std::string& warehouse,
                     const CrashRunOptions& options, const std::string& crash) {
  const Json table = Table(warehouse);
  EXPECT_FALSE(table.contains("error")) << crash << ": " << table.dump();
  EXPECT_EQ(table["duplicates"], 0) << crash;
  EXPECT_EQ(table["rows"].get<size_t>(), 10 * table["files"].size()) << crash;
  return table["exists"] == true &&
         table["files"].size() < static_cast<size_t>(options.files);
}

// Running again completes what the crashes left undone.
void FinishAndCheck(const std::string& warehouse,
                    const CrashRunOptions& options, const std::string& crash) {
  const Outcome finished =
      Gcpstream(absl::StrJoin(Arguments(warehouse, options), " "));
  ASSERT_EQ(finished.exit_code, 0) << finished.output;
  const Json table = Table(warehouse);
  EXPECT_EQ(table["duplicates"], 0) << crash;
  EXPECT_EQ(table["files"].size(), static_cast<size_t>(options.files)) << crash;
  EXPECT_EQ(table["rows"], 10 * options.files) << crash;
}

}  // namespace

void RunAddFilesCrashes(CrashLocation& location,
                        const CrashRunOptions& options) {
  // How long a whole run takes here (the fastest of three, each in a
  // warehouse of its own), so kill times spread over a run.
  absl::Duration whole_run = absl::InfiniteDuration();
  for (int i = 0; i < 3; ++i) {
    const std::string warehouse =
        location.FreshWarehouse(absl::StrCat("timing-warehouse-", i));
    const absl::Time start = absl::Now();
    const Outcome timed =
        Gcpstream(absl::StrJoin(Arguments(warehouse, options), " "));
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
  for (int i = 0; i < options.crashes; ++i) {
    const std::string warehouse =
        location.FreshWarehouse(absl::StrCat("warehouse-", i));
    const double at = (i + 0.5) / options.crashes;
    for (const double when : {at, fraction(random)}) {
      if (RunAndMaybeKill(warehouse, options, whole_run * when)) ++killed;
      if (CheckAfterCrash(warehouse, options,
                          absl::StrCat("sweep crash ", i))) {
        ++killed_between_commits;
      }
    }
    FinishAndCheck(warehouse, options, absl::StrCat("sweep run ", i));
  }
  // On a loaded machine the time between the two commits can be too short
  // for the sweep to hit, so some kills aim at it: as soon as the table's
  // first metadata file appears.
  for (int i = 0; i < options.targeted_crashes; ++i) {
    const std::string warehouse =
        location.FreshWarehouse(absl::StrCat("targeted-warehouse-", i));
    const std::string first_metadata =
        warehouse + "/db/events/metadata/v1.metadata.json";
    if (RunAndMaybeKill(warehouse, options, whole_run * 10,
                        [&] { return location.Exists(first_metadata); })) {
      ++killed;
    }
    if (CheckAfterCrash(warehouse, options,
                        absl::StrCat("targeted crash ", i))) {
      ++killed_between_commits;
    }
    FinishAndCheck(warehouse, options, absl::StrCat("targeted run ", i));
  }
  // Half the runs are killed at a random moment; most of the others within
  // the run's duration.
  EXPECT_GT(killed, options.crashes / 2) << "too few runs were killed";
  EXPECT_GT(killed_between_commits, 0)
      << "no crash landed after the table's creation and before the data "
         "commit; the kill times do not cover the commits";
}

}  // namespace gcpstream::cli::testing
