// The Spanner sink through a FaultProxy in front of the emulator: resets, a
// blackhole and latency while checkpointing every second. Every row lands
// (insert-or-update: a resent row is rewritten, never doubled) and nothing
// is routed.

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/ascii.h"
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

constexpr char kSpannerProject[] = "chaos-project";
constexpr char kSpannerInstance[] = "chaos-instance";

// One cell of `sql`'s first row in `database`, read directly (not through
// the proxy).
std::string QueryOne(const std::shared_ptr<grpc::Channel>& channel,
                     const std::string& database, const std::string& sql) {
  auto stub = google::spanner::v1::Spanner::NewStub(channel);
  google::spanner::v1::Session session;
  {
    grpc::ClientContext context;
    google::spanner::v1::CreateSessionRequest request;
    request.set_database(spanner::DatabaseDestination(
                             kSpannerProject, kSpannerInstance, database)
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

class SpannerChaosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host =
        gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kSpanner);
    ASSERT_TRUE(host.ok()) << host.status();
    auto channel = gcpstream::testing::TestEmulatorChannel(
        emulators::EmulatorKind::kSpanner);
    ASSERT_TRUE(channel.ok()) << channel.status();
    channel_ = *channel;
    database_ =
        absl::AsciiStrToLower(
            ::testing::UnitTest::GetInstance()->current_test_info()->name())
            .substr(0, 28);
    ASSERT_TRUE(
        emulators::EnsureSpannerDatabase(
            channel_, kSpannerProject, kSpannerInstance, database_,
            {"CREATE TABLE Numbers (Id INT64 NOT NULL, Text STRING(MAX))"
             " PRIMARY KEY (Id)"})
            .ok());
    auto proxy = gcpstream::testing::FaultProxy::Start(*host);
    ASSERT_TRUE(proxy.ok()) << proxy.status();
    proxy_ = *std::move(proxy);
  }

  // Writes the numbers through the proxy while `faults` runs; returns the
  // run's summary after checking every row landed and nothing was routed.
  template <typename Faults>
  absl::StatusOr<runtime::JobSummary> Run(const std::string& name,
                                          const RetryOptions& retry,
                                          Faults faults) {
    MetricsRegistry metrics;
    runtime::PipelineOptions pipeline_options = ChaosOptions(name);
    pipeline_options.restart =
        runtime::RestartStrategy::FixedDelay(30, absl::Milliseconds(500));
    // Restarts restore from the last checkpoint rather than the start.
    pipeline_options.checkpoint_directory =
        absl::StrCat(::testing::TempDir(), "/", name, "-checkpoints");
    std::filesystem::remove_all(pipeline_options.checkpoint_directory);
    runtime::Pipeline pipeline(pipeline_options, &metrics);
    spanner::SpannerSinkOptions options;
    options.name = "chaos-sink";
    options.database = spanner::DatabaseDestination(
        kSpannerProject, kSpannerInstance, database_);
    options.channel.endpoint = proxy_->address();
    options.channel.plaintext = true;
    options.max_batch_mutations = 100;
    options.retry = retry;
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
    faults_ = faults(metrics, name);
    auto summary = pipeline.Run();
    if (summary.ok()) {
      rows_ = QueryOne(channel_, database_,
                       "SELECT COUNT(DISTINCT Id) FROM Numbers");
      EXPECT_EQ(rows_, absl::StrCat(kRecords));
      EXPECT_EQ(QueryOne(channel_, database_, "SELECT MAX(Id) FROM Numbers"),
                absl::StrCat(kRecords - 1));
    }
    EXPECT_TRUE(failures->empty()) << failures->front().status;
    return summary;
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::string database_;
  std::unique_ptr<gcpstream::testing::FaultProxy> proxy_;
  std::unique_ptr<FaultSchedule> faults_;
  std::string rows_;
};

TEST_F(SpannerChaosTest, EveryRowLandsThroughTheFaults) {
  auto summary = Run("spanner-sink", RetryOptions(),
                     [this](MetricsRegistry& metrics, const std::string& name) {
                       return std::make_unique<FaultSchedule>(
                           *proxy_, CheckpointsCompleted(metrics, name));
                     });
  const std::vector<InjectedFault> faults = faults_->Finish();
  ASSERT_TRUE(summary.ok()) << summary.status();
  Report(absl::StrCat("spanner sink: ", kRecords, " in, ", rows_, " rows out, ",
                      summary->restarts, " restarts, ",
                      proxy_->connections_reset(), " connections reset"),
         faults);
}

// The service goes away for 6 s, longer than the sink's retry budget (2 s):
// the job fails, the restart strategy restores it from its last checkpoint
// (failing again while the service is down), and once the service is back
// every row lands.
TEST_F(SpannerChaosTest, AnOutageBeyondTheRetryBudgetRestartsTheJob) {
  std::thread outage;
  RetryOptions retry;
  retry.max_attempts = 100;
  retry.total_timeout = absl::Seconds(2);
  auto summary =
      Run("spanner-outage", retry, [&](MetricsRegistry&, const std::string&) {
        outage = std::thread([this] {
          absl::SleepFor(absl::Seconds(4));
          proxy_->Down(absl::Seconds(6));
        });
        return nullptr;
      });
  outage.join();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_GE(summary->restarts, 1);
  EXPECT_GT(summary->restored_checkpoint_id, 0);
  std::cout << "chaos spanner sink, 6 s outage, 2 s retry budget: " << kRecords
            << " in, " << rows_ << " rows out, " << summary->restarts
            << " restarts, restored from checkpoint "
            << summary->restored_checkpoint_id << "\n";
}

}  // namespace
}  // namespace gcpstream::chaos
