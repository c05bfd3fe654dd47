// The file-loads BigQuery sink against the emulators (Cloud Storage for the
// staged files, BigQuery for the load jobs, sharing one directory): rows
// invisible until their checkpoint's load, 10,000 records into per-day
// tables with routed records, a commit run again that loads nothing twice,
// an uncommitted checkpoint that leaves nothing behind, and a failed load
// that keeps its files.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_sink.h"
#include "gcpstream/bigquery/bigquery_test_util.h"
#include "gcpstream/bigquery/load_committable.h"
#include "gcpstream/storage/gcs_uri.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::gcpstream::testing::RecordingFactory;
using ::testing::Gt;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using Json = nlohmann::json;

constexpr char kFileLoadsProject[] = "it-project";
constexpr char kBucket[] = "staging";

class BigQueryFileLoadsIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> host = gcpstream::testing::TestEmulatorHost(
        emulators::EmulatorKind::kBigQuery);
    ASSERT_TRUE(host.ok()) << host.status();
    ASSERT_TRUE(testing::EnsureStagingBucket(kBucket).ok());
    failures_ = std::make_shared<std::vector<BigQueryFailedElement>>();
  }

  // Files of about 20 KiB: several per table.
  static BigQuerySinkOptions Options(const std::string& prefix) {
    BigQuerySinkOptions options = testing::PerDayOptions();
    options.write_method = WriteMethod::kFileLoads;
    options.staging_path = absl::StrCat("gs://", kBucket, "/", prefix);
    options.max_staging_file_bytes = 20'000;
    return options;
  }

  std::vector<std::string> WriteCheckpoint(BigQuerySink<Json>& sink,
                                           const std::vector<Json>& records,
                                           int64_t checkpoint_id) {
    return testing::WriteCheckpoint(task_, sink, records, checkpoint_id);
  }
  static std::map<std::string, int> Counts(
      const std::string& dataset, const std::map<std::string, int>& tables) {
    return testing::RowCounts(kFileLoadsProject, dataset, tables);
  }

  static std::vector<std::string> Staged(const std::string& prefix) {
    absl::StatusOr<std::vector<std::string>> names =
        testing::StagedObjects(kBucket, prefix);
    EXPECT_TRUE(names.ok()) << names.status();
    return names.ok() ? *names : std::vector<std::string>();
  }

  std::shared_ptr<std::vector<BigQueryFailedElement>> failures_;
  gcpstream::testing::SinkTestTask task_;
};

TEST_F(BigQueryFileLoadsIntegrationTest,
       RowsAppearOnlyWithTheirLoadAndOnceWhenCommittedTwice) {
  const std::string dataset = testing::FreshDataset("file_loads");
  BigQuerySink<Json> sink(Options(dataset),
                          testing::PerDayResolver(kFileLoadsProject, dataset),
                          JsonRows(), RecordingFactory(failures_));
  const testing::PerDayInput input = testing::MakePerDayInput(10'000);
  const std::vector<std::string> committables =
      WriteCheckpoint(sink, input.records, 1);
  // One committable per table, each with several files.
  ASSERT_THAT(committables, SizeIs(input.expected_per_table.size()));
  for (const std::string& text : committables) {
    absl::StatusOr<LoadCommittable> committable = LoadCommittable::Decode(text);
    ASSERT_TRUE(committable.ok());
    EXPECT_THAT(committable->uris, SizeIs(Gt(1))) << text;
    EXPECT_EQ(committable->rows,
              input.expected_per_table.at(committable->table.substr(
                  committable->table.rfind('.') + 1)));
  }
  EXPECT_EQ(static_cast<int>(failures_->size()),
            input.unfit + input.unroutable);
  for (const BigQueryFailedElement& failed : *failures_) {
    EXPECT_THAT(std::string(failed.status.message()),
                failed.destination == kUnresolvedDestination
                    ? HasSubstr("no table for day 9")
                    : HasSubstr("column 'amount' (NUMERIC): 'not a number'"));
  }
  EXPECT_THAT(Staged(dataset), SizeIs(Gt(input.expected_per_table.size())));
  EXPECT_EQ(
      task_.Metric("rows_staged"),
      absl::StrCat(input.records.size() - input.unfit - input.unroutable));

  std::map<std::string, int> none;
  for (const auto& [table, count] : input.expected_per_table) none[table] = 0;
  EXPECT_EQ(Counts(dataset, input.expected_per_table), none);

  std::unique_ptr<runtime::Committer> committer = sink.CreateCommitter();
  ASSERT_NE(committer, nullptr);
  committer->Bind(
      {.pipeline = "p", .sink_name = "bq", .metrics = &task_.registry()});
  absl::Status committed = committer->Commit(1, committables);
  ASSERT_TRUE(committed.ok()) << committed;
  testing::ExpectTablesHoldTheInput(kFileLoadsProject, dataset, input);
  EXPECT_THAT(Staged(dataset), IsEmpty()) << "loaded files are deleted";
  const std::string tables = absl::StrCat(input.expected_per_table.size());
  EXPECT_EQ(task_.Metric("load_jobs_started"), tables);
  EXPECT_EQ(
      task_.Metric("rows_loaded"),
      absl::StrCat(input.records.size() - input.unfit - input.unroutable));
  // A restart re-runs the commit of the checkpoint it restores: the jobs
  // are found done (the emulator would run a repeated job id again).
  absl::Status again = committer->Commit(1, committables);
  ASSERT_TRUE(again.ok()) << again;
  testing::ExpectTablesHoldTheInput(kFileLoadsProject, dataset, input);
  EXPECT_EQ(task_.Metric("load_jobs_started"), tables);
  EXPECT_EQ(task_.Metric("load_jobs_found"), tables);
}

TEST_F(BigQueryFileLoadsIntegrationTest,
       AnUncommittedCheckpointLeavesNothingAndItsReplayLandsOnce) {
  const std::string dataset = testing::FreshDataset("file_loads_replayed");
  BigQuerySink<Json> sink(Options(dataset),
                          testing::PerDayResolver(kFileLoadsProject, dataset),
                          JsonRows(), RecordingFactory(failures_));
  const testing::PerDayInput first = testing::MakePerDayInput(300);
  const std::vector<std::string> lost = WriteCheckpoint(sink, first.records, 1);
  ASSERT_THAT(lost, SizeIs(9));
  // The process died before checkpoint 1 was durable: its files are never
  // loaded, and the restarted job stages the input again under new names.
  const std::vector<std::string> replayed =
      WriteCheckpoint(sink, first.records, 1);
  ASSERT_NE(lost, replayed);
  ASSERT_TRUE(sink.CreateCommitter()->Commit(1, replayed).ok());
  EXPECT_EQ(Counts(dataset, first.expected_per_table),
            first.expected_per_table);
  const testing::PerDayInput second = testing::MakePerDayInput(200, 300);
  ASSERT_TRUE(sink.CreateCommitter()
                  ->Commit(2, WriteCheckpoint(sink, second.records, 2))
                  .ok());
  std::map<std::string, int> total = first.expected_per_table;
  for (const auto& [table, count] : second.expected_per_table) {
    total[table] += count;
  }
  EXPECT_EQ(Counts(dataset, total), total);
}

TEST_F(BigQueryFileLoadsIntegrationTest, AFailedLoadFailsTheCommitAndKeeps) {
  const std::string dataset = testing::FreshDataset("file_loads_failed");
  BigQuerySink<Json> sink(Options(dataset),
                          testing::PerDayResolver(kFileLoadsProject, dataset),
                          JsonRows(), RecordingFactory(failures_));
  const std::vector<std::string> committables =
      WriteCheckpoint(sink, testing::MakePerDayInput(1).records, 1);
  ASSERT_THAT(committables, SizeIs(1));
  const LoadCommittable committable = *LoadCommittable::Decode(committables[0]);
  ASSERT_THAT(committable.uris, SizeIs(1));
  // A second file that is not there: the job fails as a whole.
  LoadCommittable broken = committable;
  broken.uris.push_back(committable.uris[0] + ".missing");
  const absl::Status status =
      sink.CreateCommitter()->Commit(1, {broken.Encode()});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("staged files are kept"));
  EXPECT_THAT(status.message(), HasSubstr(".missing"));
  EXPECT_THAT(Staged(dataset), SizeIs(1));
  // The emulator loaded the file that is there before it failed on the
  // missing one (the service's job loads all or nothing: 0 rows).
  EXPECT_EQ(Counts(dataset, {{"events_01", 1}}),
            (std::map<std::string, int>{{"events_01", 1}}));
}

// Files are finished before the checkpoint to make room (every table
// holding an open file at max-active-destinations) and when their table
// idles; the checkpoint still hands over one committable per table.
TEST_F(BigQueryFileLoadsIntegrationTest, FilesAreFinishedForRoomAndWhenIdle) {
  const std::string dataset = testing::FreshDataset("file_loads_room");
  BigQuerySinkOptions options = Options(dataset);
  options.max_staging_file_bytes = int64_t{16} << 20;  // Never full here.
  options.max_active_destinations = 3;
  options.destination_idle_timeout = absl::Milliseconds(1);
  BigQuerySink<Json> sink(options,
                          testing::PerDayResolver(kFileLoadsProject, dataset),
                          JsonRows(), RecordingFactory(failures_));
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok()) << writer.status();
  // Records cycle through nine tables: every table change past the third
  // finishes the least recently used table's file.
  const testing::PerDayInput input = testing::MakePerDayInput(90);
  for (const Json& record : input.records) {
    ASSERT_TRUE(task_.Write(**writer, record).ok());
  }
  const int64_t for_room = std::stoll(task_.Metric("files_staged"));
  EXPECT_GT(for_room, 60);
  absl::SleepFor(absl::Milliseconds(5));
  // The three open files are idle now: a flush finishes them and releases
  // their tables.
  ASSERT_TRUE((*writer)->Flush(/*end_of_input=*/false).ok());
  EXPECT_EQ(std::stoll(task_.Metric("files_staged")), for_room + 3);
  EXPECT_EQ(task_.Metric("tables_active"), "0");
  absl::StatusOr<std::vector<std::string>> committables =
      (*writer)->PrepareCommit(1);
  ASSERT_TRUE(committables.ok()) << committables.status();
  (*writer)->Close();
  EXPECT_THAT(*committables, SizeIs(input.expected_per_table.size()));
  ASSERT_TRUE(sink.CreateCommitter()->Commit(1, *committables).ok());
  testing::ExpectTablesHoldTheInput(kFileLoadsProject, dataset, input);
}

}  // namespace
}  // namespace gcpstream::bigquery
