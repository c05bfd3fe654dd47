// The exactly-once BigQuery sink (storage-api-exactly-once) against the
// emulator: rows invisible until their checkpoint's commit, 10,000 records
// into per-day tables
// with routed records, a commit run again after a crash that changes
// nothing, a checkpoint that never became durable leaving nothing behind,
// and the emulator's answers to a repeated commit pinned.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_sink.h"
#include "gcpstream/bigquery/bigquery_test_util.h"
#include "gcpstream/bigquery/write_stream_admin.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::gcpstream::testing::RecordingFactory;
using ::testing::SizeIs;
using Json = nlohmann::json;

constexpr char kExactlyOnceProject[] = "it-project";

class BigQueryExactlyOnceIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> host = gcpstream::testing::TestEmulatorHost(
        emulators::EmulatorKind::kBigQuery);
    ASSERT_TRUE(host.ok()) << host.status();
    failures_ = std::make_shared<std::vector<BigQueryFailedElement>>();
  }

  static BigQuerySinkOptions Options() {
    BigQuerySinkOptions options = testing::PerDayOptions();
    options.write_method = WriteMethod::kStorageApiExactlyOnce;
    options.max_batch_rows = 500;
    return options;
  }

  std::vector<std::string> WriteCheckpoint(BigQuerySink<Json>& sink,
                                           const std::vector<Json>& records,
                                           int64_t checkpoint_id) {
    return testing::WriteCheckpoint(task_, sink, records, checkpoint_id);
  }
  static std::map<std::string, int> Counts(
      const std::string& dataset, const std::map<std::string, int>& tables) {
    return testing::RowCounts(kExactlyOnceProject, dataset, tables);
  }

  std::shared_ptr<std::vector<BigQueryFailedElement>> failures_;
  gcpstream::testing::SinkTestTask task_;
};

TEST_F(BigQueryExactlyOnceIntegrationTest,
       RowsAppearOnlyWithTheirCommitAndOnceWhenCommittedTwice) {
  const std::string dataset = testing::FreshDataset("exactly_once");
  BigQuerySink<Json> sink(Options(),
                          testing::PerDayResolver(kExactlyOnceProject, dataset),
                          JsonRows(), RecordingFactory(failures_));
  const testing::PerDayInput input = testing::MakePerDayInput(10'000);
  const std::vector<std::string> committables =
      WriteCheckpoint(sink, input.records, 1);
  // One stream per table that got rows.
  EXPECT_THAT(committables, SizeIs(input.expected_per_table.size()));
  EXPECT_EQ(static_cast<int>(failures_->size()),
            input.unfit + input.unroutable);
  EXPECT_EQ(task_.Metric("write_streams_finalized"),
            absl::StrCat(input.expected_per_table.size()));

  std::map<std::string, int> none;
  for (const auto& [table, count] : input.expected_per_table) none[table] = 0;
  EXPECT_EQ(Counts(dataset, input.expected_per_table), none);

  std::unique_ptr<runtime::Committer> committer = sink.CreateCommitter();
  ASSERT_NE(committer, nullptr);
  ASSERT_TRUE(committer->Commit(1, committables).ok());
  testing::ExpectTablesHoldTheInput(kExactlyOnceProject, dataset, input);
  // A restart re-runs the commit of the checkpoint it restores.
  absl::Status again = sink.CreateCommitter()->Commit(1, committables);
  ASSERT_TRUE(again.ok()) << again;
  testing::ExpectTablesHoldTheInput(kExactlyOnceProject, dataset, input);
}

TEST_F(BigQueryExactlyOnceIntegrationTest,
       AnUncommittedCheckpointLeavesNothingAndItsReplayLandsOnce) {
  const std::string dataset = testing::FreshDataset("replayed");
  BigQuerySink<Json> sink(Options(),
                          testing::PerDayResolver(kExactlyOnceProject, dataset),
                          JsonRows(), RecordingFactory(failures_));
  const testing::PerDayInput first = testing::MakePerDayInput(300);
  ASSERT_THAT(WriteCheckpoint(sink, first.records, 1), SizeIs(9));
  // The process died before checkpoint 1 was durable: its streams are
  // never committed, and the restarted job writes the input again.
  const std::vector<std::string> replayed =
      WriteCheckpoint(sink, first.records, 1);
  ASSERT_TRUE(sink.CreateCommitter()->Commit(1, replayed).ok());
  EXPECT_EQ(Counts(dataset, first.expected_per_table),
            first.expected_per_table);
  // The next checkpoint goes to new streams and adds to the tables.
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

// Emulator deviations the committer is built around: a second commit of a
// stream is refused for its state (the service: STREAM_ALREADY_COMMITTED),
// a committed stream has no commit_time, and finalizing it is refused.
TEST_F(BigQueryExactlyOnceIntegrationTest, EmulatorAnswersToASecondCommit) {
  const std::string dataset = testing::FreshDataset("deviations");
  BigQuerySink<Json> sink(Options(),
                          testing::PerDayResolver(kExactlyOnceProject, dataset),
                          JsonRows(), RecordingFactory(failures_));
  const std::vector<std::string> committables =
      WriteCheckpoint(sink, testing::MakePerDayInput(1).records, 1);
  ASSERT_THAT(committables, SizeIs(1));
  const StreamCommittable committable =
      *StreamCommittable::Decode(committables[0]);
  ASSERT_TRUE(sink.CreateCommitter()->Commit(1, committables).ok());

  auto channel = auth::MakeChannel(auth::Service::kBigQueryStorage, {});
  ASSERT_TRUE(channel.ok()) << channel.status();
  WriteStreamAdmin admin(*channel, {});
  absl::StatusOr<storage_v1::BatchCommitWriteStreamsResponse> second =
      admin.BatchCommit(committable.table, {committable.stream});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(second->has_commit_time());
  ASSERT_THAT(second->stream_errors(), SizeIs(1));
  EXPECT_EQ(second->stream_errors(0).code(),
            storage_v1::StorageError::INVALID_STREAM_STATE);
  absl::StatusOr<storage_v1::WriteStream> stream =
      admin.Get(committable.stream);
  ASSERT_TRUE(stream.ok()) << stream.status();
  EXPECT_FALSE(stream->has_commit_time());
  EXPECT_EQ(admin.Finalize(committable.stream).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace gcpstream::bigquery
