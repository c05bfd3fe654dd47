// The Bigtable sink through a FaultProxy in front of the emulator: resets, a
// blackhole and latency while checkpointing every second. Every row lands
// (a resent SetCell with the record's own timestamp rewrites the same cell)
// and nothing is routed.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigtable/bigtable_sink.h"
#include "gcpstream/chaos/chaos_pipeline.h"
#include "gcpstream/chaos/fault_schedule.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/fault_proxy.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::chaos {
namespace {

constexpr char kBigtableProject[] = "chaos-project";
constexpr char kBigtableInstance[] = "chaos-instance";
constexpr char kTable[] = "numbers";

// The keys of every row of the table, and how many cells they hold.
std::pair<std::set<std::string>, int64_t> ReadRows(
    const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = google::bigtable::v2::Bigtable::NewStub(channel);
  grpc::ClientContext context;
  google::bigtable::v2::ReadRowsRequest request;
  request.set_table_name(
      bigtable::TableDestination(kBigtableProject, kBigtableInstance, kTable)
          .ResourceName());
  auto reader = stub->ReadRows(&context, request);
  std::set<std::string> rows;
  int64_t cells = 0;
  google::bigtable::v2::ReadRowsResponse response;
  while (reader->Read(&response)) {
    for (const auto& chunk : response.chunks()) {
      if (!chunk.row_key().empty()) rows.insert(chunk.row_key());
      if (chunk.value_size() == 0) ++cells;
    }
  }
  EXPECT_TRUE(reader->Finish().ok());
  return {rows, cells};
}

TEST(BigtableChaosTest, EveryRowLandsThroughTheFaults) {
  auto host =
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kBigtable);
  ASSERT_TRUE(host.ok()) << host.status();
  auto channel = gcpstream::testing::TestEmulatorChannel(
      emulators::EmulatorKind::kBigtable);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(emulators::EnsureBigtableTable(*channel, kBigtableProject,
                                             kBigtableInstance, kTable, {"cf"})
                  .ok());
  auto proxy = gcpstream::testing::FaultProxy::Start(*host);
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  MetricsRegistry metrics;
  runtime::Pipeline pipeline(ChaosOptions("bigtable-sink"), &metrics);
  bigtable::BigtableSinkOptions options;
  options.name = "chaos-sink";
  options.channel.endpoint = (*proxy)->address();
  options.channel.plaintext = true;
  auto failures =
      std::make_shared<std::vector<bigtable::BigtableFailedElement>>();
  pipeline.AddSource(Numbers(), 1)
      .SinkTo(std::make_shared<bigtable::BigtableSink<int64_t>>(
          options,
          bigtable::TableDestination(kBigtableProject, kBigtableInstance,
                                     kTable),
          [](const int64_t& i, const WriterContext&)
              -> absl::StatusOr<std::optional<bigtable::RowMutationEntry>> {
            bigtable::RowMutationEntry entry(absl::StrCat("row-", i));
            // The record's own timestamp: a resent entry rewrites its cell.
            entry.SetCell("cf", "n", absl::StrCat(i),
                          /*timestamp_micros=*/(i + 1) * 1000);
            return entry;
          },
          gcpstream::testing::RecordingFactory(failures)));
  FaultSchedule schedule(**proxy,
                         CheckpointsCompleted(metrics, "bigtable-sink"));
  auto summary = pipeline.Run();
  const std::vector<InjectedFault> faults = schedule.Finish();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(failures->empty()) << failures->front().status;
  const auto [rows, cells] = ReadRows(*channel);
  for (int64_t i = 0; i < kRecords; ++i) {
    ASSERT_TRUE(rows.contains(absl::StrCat("row-", i))) << "row " << i;
  }
  EXPECT_EQ(cells, kRecords) << "one cell per row";
  Report(absl::StrCat("bigtable sink: ", kRecords, " in, ", rows.size(),
                      " rows out, ", cells, " cells, ", summary->restarts,
                      " restarts, ", (*proxy)->connections_reset(),
                      " connections reset"),
         faults);
}

}  // namespace
}  // namespace gcpstream::chaos
