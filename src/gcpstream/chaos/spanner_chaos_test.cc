// The Spanner sink through a FaultProxy in front of the emulator: resets, a
// blackhole and latency while checkpointing every second. Every row lands
// (insert-or-update: a resent row is rewritten, never doubled) and nothing
// is routed.

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/chaos/chaos_pipeline.h"
#include "gcpstream/chaos/fault_schedule.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "gcpstream/testing/fault_proxy.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/spanner/v1/spanner.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::chaos {
namespace {

constexpr char kProject[] = "chaos-project";
constexpr char kInstance[] = "chaos-instance";
constexpr char kDatabase[] = "chaos";

// One cell of `sql`'s first row, read directly (not through the proxy).
std::string QueryOne(const std::shared_ptr<grpc::Channel>& channel,
                     const std::string& sql) {
  auto stub = google::spanner::v1::Spanner::NewStub(channel);
  google::spanner::v1::Session session;
  {
    grpc::ClientContext context;
    google::spanner::v1::CreateSessionRequest request;
    request.set_database(
        spanner::DatabaseDestination(kProject, kInstance, kDatabase)
            .ResourceName());
    if (!stub->CreateSession(&context, request, &session).ok()) return "";
  }
  grpc::ClientContext context;
  google::spanner::v1::ExecuteSqlRequest query;
  query.set_session(session.name());
  query.set_sql(sql);
  google::spanner::v1::ResultSet result;
  if (!stub->ExecuteSql(&context, query, &result).ok() ||
      result.rows().empty()) {
    return "";
  }
  return result.rows(0).values(0).string_value();
}

TEST(SpannerChaosTest, EveryRowLandsThroughTheFaults) {
  auto host =
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kSpanner);
  ASSERT_TRUE(host.ok()) << host.status();
  auto channel = gcpstream::testing::TestEmulatorChannel(
      emulators::EmulatorKind::kSpanner);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(emulators::EnsureSpannerDatabase(
                  *channel, kProject, kInstance, kDatabase,
                  {"CREATE TABLE Numbers (Id INT64 NOT NULL, Text STRING(MAX))"
                   " PRIMARY KEY (Id)"})
                  .ok());
  auto proxy = gcpstream::testing::FaultProxy::Start(*host);
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  MetricsRegistry metrics;
  runtime::Pipeline pipeline(ChaosOptions("spanner-sink"), &metrics);
  spanner::SpannerSinkOptions options;
  options.name = "chaos-sink";
  options.database =
      spanner::DatabaseDestination(kProject, kInstance, kDatabase);
  options.channel.endpoint = (*proxy)->address();
  options.channel.plaintext = true;
  options.max_batch_mutations = 100;
  auto failures =
      std::make_shared<std::vector<spanner::SpannerFailedElement>>();
  pipeline.AddSource(Numbers(), 1)
      .SinkTo(std::make_shared<spanner::SpannerSink<int64_t>>(
          options,
          [](const int64_t& i, const WriterContext&)
              -> absl::StatusOr<std::optional<spanner::Mutation>> {
            return spanner::Mutation::InsertOrUpdate("Numbers")
                .Set("Id", spanner::Value::Int64(i))
                .Set("Text", spanner::Value::String(absl::StrCat("n", i)));
          },
          gcpstream::testing::RecordingFactory(failures)));
  FaultSchedule schedule(**proxy,
                         CheckpointsCompleted(metrics, "spanner-sink"));
  auto summary = pipeline.Run();
  const std::vector<InjectedFault> faults = schedule.Finish();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(failures->empty()) << failures->front().status;
  const std::string rows =
      QueryOne(*channel, "SELECT COUNT(DISTINCT Id) FROM Numbers");
  EXPECT_EQ(rows, absl::StrCat(kRecords));
  EXPECT_EQ(QueryOne(*channel, "SELECT MAX(Id) FROM Numbers"),
            absl::StrCat(kRecords - 1));
  Report(absl::StrCat("spanner sink: ", kRecords, " in, ", rows, " rows out, ",
                      summary->restarts, " restarts, ",
                      (*proxy)->connections_reset(), " connections reset"),
         faults);
}

}  // namespace
}  // namespace gcpstream::chaos
