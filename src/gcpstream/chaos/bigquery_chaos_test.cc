// The BigQuery sink's Storage Write path (gRPC) through a FaultProxy in
// front of the emulator: resets, a blackhole and latency while checkpointing
// every second; tables are read and created over REST, directly. Both
// Storage Write methods land every row, nothing is routed; the default
// stream may append a row twice, the exactly-once method never does.

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_sink.h"
#include "gcpstream/bigquery/bigquery_test_util.h"
#include "gcpstream/chaos/chaos_pipeline.h"
#include "gcpstream/chaos/fault_schedule.h"
#include "gcpstream/testing/fault_proxy.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::chaos {
namespace {

using Json = nlohmann::json;

constexpr char kBigQueryProject[] = "chaos-project";

class BigQueryChaosTest
    : public ::testing::TestWithParam<bigquery::WriteMethod> {};

TEST_P(BigQueryChaosTest, EveryRowLandsThroughTheFaults) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kBigQuery)
          .ok());
  // The Storage Write API's gRPC port; the REST one stays direct.
  const char* storage = std::getenv("BIGQUERY_STORAGE_EMULATOR_HOST");
  ASSERT_NE(storage, nullptr);
  auto proxy = gcpstream::testing::FaultProxy::Start(storage);
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  const bool exactly_once =
      GetParam() == bigquery::WriteMethod::kStorageApiExactlyOnce;
  const std::string name =
      exactly_once ? "bigquery-exactly-once" : "bigquery-at-least-once";
  const bigquery::TableDestination table(
      kBigQueryProject,
      bigquery::testing::FreshDataset(exactly_once ? "chaos_once" : "chaos"),
      "numbers");
  MetricsRegistry metrics;
  runtime::Pipeline pipeline(ChaosOptions(name), &metrics);
  bigquery::BigQuerySinkOptions options;
  options.name = "chaos-sink";
  options.write_method = GetParam();
  options.channel.endpoint = (*proxy)->address();
  options.channel.plaintext = true;
  options.table.schema =
      bigquery::TableSchema{{{.name = "id",
                              .type = bigquery::FieldType::kInt64,
                              .mode = bigquery::FieldMode::kRequired}}};
  auto failures =
      std::make_shared<std::vector<bigquery::BigQueryFailedElement>>();
  pipeline.AddSource(Numbers(), 1)
      .Map([](int64_t i) {
        return Json{{"id", i}};
      })
      .SinkTo(std::make_shared<bigquery::BigQuerySink<Json>>(
          options, table, bigquery::JsonRows(),
          gcpstream::testing::RecordingFactory(failures)));
  FaultSchedule schedule(**proxy, CheckpointsCompleted(metrics, name));
  auto summary = pipeline.Run();
  const std::vector<InjectedFault> faults = schedule.Finish();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(failures->empty()) << failures->front().status;
  absl::StatusOr<std::vector<Json>> rows = bigquery::testing::ReadRows(table);
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::map<int64_t, int> copies;
  for (const Json& row : *rows) {
    int64_t id = -1;
    ASSERT_TRUE(absl::SimpleAtoi(row["id"].get<std::string>(), &id));
    ++copies[id];
  }
  for (int64_t i = 0; i < kRecords; ++i) {
    ASSERT_TRUE(copies.contains(i)) << "row " << i;
  }
  EXPECT_EQ(copies.size(), static_cast<size_t>(kRecords));
  const int64_t duplicates = static_cast<int64_t>(rows->size()) - kRecords;
  if (exactly_once) {
    EXPECT_EQ(duplicates, 0);
  }
  Report(absl::StrCat(name, " sink: ", kRecords, " in, ", copies.size(),
                      " distinct rows out, ", duplicates, " duplicates, ",
                      summary->restarts, " restarts, ",
                      (*proxy)->connections_reset(), " connections reset"),
         faults);
}

INSTANTIATE_TEST_SUITE_P(
    WriteMethods, BigQueryChaosTest,
    ::testing::Values(bigquery::WriteMethod::kStorageApiAtLeastOnce,
                      bigquery::WriteMethod::kStorageApiExactlyOnce));

}  // namespace
}  // namespace gcpstream::chaos
