#include "gcpstream/connector/writer_core.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gcpstream/base/retry_policy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::connector {
namespace {

using ::testing::HasSubstr;

constexpr ClassificationTable kWriterTable(
    ClassificationTable::Level(
        {{absl::StatusCode::kInvalidArgument, StatusClass::kPerRecord},
         {absl::StatusCode::kUnavailable, StatusClass::kTransient}},
        StatusClass::kFatal),
    ClassificationTable::Level({}, StatusClass::kFatal));

struct TestFailedElement : FailedElement {
  std::string extra;
};

// Records what the core does to its handler.
class RecordingHandler final : public FailureHandler<TestFailedElement> {
 public:
  struct Log {
    std::vector<TestFailedElement> handled;
    std::vector<std::string> calls;
    absl::Status handle_result;
    absl::Status flush_result;
  };
  explicit RecordingHandler(std::shared_ptr<Log> log) : log_(std::move(log)) {}
  absl::Status Open(const FailureHandlerContext& context) override {
    log_->calls.push_back("open " + context.connector);
    return absl::OkStatus();
  }
  absl::Status Handle(const TestFailedElement& failed) override {
    log_->handled.push_back(failed);
    return log_->handle_result;
  }
  absl::Status Flush() override {
    log_->calls.emplace_back("flush");
    return log_->flush_result;
  }
  void Close() override { log_->calls.emplace_back("close"); }

 private:
  std::shared_ptr<Log> log_;
};

class WriterCoreTest : public ::testing::Test {
 protected:
  absl::Status Open(MetricsRegistry* registry) {
    runtime::SinkWriterContext context;
    context.pipeline = "p";
    context.sink_name = "out";
    context.subtask_index = 3;
    context.metrics = registry;
    return core_.Open(
        WriterCoreOptions{.connector = "test",
                          .sink_name = "my-sink",
                          .classification = &kWriterTable,
                          .max_consecutive_rejections = 2,
                          .error_metric_prefix = "test_errors_",
                          .error_metric_help = "Refusals by code.",
                          .clock = &clock_},
        context, std::make_unique<RecordingHandler>(log_));
  }

  std::string Metric(absl::string_view name) const {
    for (absl::string_view line :
         absl::StrSplit(registry_.ExportPrometheusText(), '\n')) {
      if (absl::StartsWith(line, absl::StrCat(name, "{"))) {
        return std::string(line.substr(line.rfind(' ') + 1));
      }
    }
    return "";
  }

  FakeClock clock_{absl::FromUnixSeconds(1000)};
  MetricsRegistry registry_;
  std::shared_ptr<RecordingHandler::Log> log_ =
      std::make_shared<RecordingHandler::Log>();
  WriterCore<TestFailedElement> core_;
};

TEST_F(WriterCoreTest, OpensTheHandlerAndRegistersTheSinkMetrics) {
  ASSERT_TRUE(Open(&registry_).ok());
  EXPECT_THAT(log_->calls, ::testing::ElementsAre("open test"));
  core_.CountIn();
  core_.CountSkipped();
  EXPECT_EQ(Metric("records_in"), "1");
  EXPECT_EQ(Metric("records_skipped"), "1");
  EXPECT_EQ(core_.labels().subtask, 3);
}

TEST_F(WriterCoreTest, CountsWithoutARegistry) {
  ASSERT_TRUE(Open(nullptr).ok());
  core_.CountIn();
  core_.CountError(absl::UnavailableError("x"));
  EXPECT_EQ(core_.metrics().records_in->Value(), 1);
}

TEST_F(WriterCoreTest, RouteFillsTheCommonFieldsAndCounts) {
  ASSERT_TRUE(Open(&registry_).ok());
  TestFailedElement failed;
  failed.destination = "projects/p/topics/t";
  failed.status = absl::InvalidArgumentError("bad");
  failed.attempts = 2;
  failed.extra = "kept";
  EXPECT_TRUE(core_.Route(failed).ok());
  ASSERT_EQ(log_->handled.size(), 1u);
  const TestFailedElement& got = log_->handled[0];
  EXPECT_EQ(got.connector, "test");
  EXPECT_EQ(got.subtask_index, 3);
  EXPECT_EQ(got.failure_time, absl::FromUnixSeconds(1000));
  EXPECT_EQ(got.attempts, 2);
  EXPECT_EQ(got.extra, "kept");
  EXPECT_EQ(Metric("records_routed"), "1");
}

TEST_F(WriterCoreTest, ARetriesExhaustedStatusIsNeverRoutedButFailsTheWriter) {
  ASSERT_TRUE(Open(&registry_).ok());
  TestFailedElement failed;
  failed.status = MarkRetryExhausted(absl::UnavailableError("outage"));
  const absl::Status result = core_.Route(failed);
  EXPECT_EQ(result.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(log_->handled.empty());
  EXPECT_TRUE(core_.failed());
  EXPECT_EQ(Metric("records_routed"), "0");
}

TEST_F(WriterCoreTest, AHandlerRefusalIsTheFirstFailureAndSticks) {
  ASSERT_TRUE(Open(&registry_).ok());
  log_->handle_result = absl::FailedPreconditionError("fail-job");
  TestFailedElement failed;
  failed.status = absl::InvalidArgumentError("bad");
  EXPECT_EQ(core_.Route(failed).code(), absl::StatusCode::kFailedPrecondition);
  core_.Fail(absl::InternalError("later"));
  EXPECT_EQ(core_.failure().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(core_.FinishFlush(clock_.Now()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(log_->calls, ::testing::ElementsAre("open test"))
      << "a failed writer does not flush its handler";
}

TEST_F(WriterCoreTest, RouteSerializationFailureNamesTheRecordAndKeepsPayload) {
  ASSERT_TRUE(Open(&registry_).ok());
  WriterContext context;
  context.record_position = 41;
  EXPECT_TRUE(core_
                  .RouteSerializationFailure(
                      "db",
                      WithRecordPayload(absl::InvalidArgumentError("no"),
                                        R"({"id":1})"),
                      context)
                  .ok());
  ASSERT_EQ(log_->handled.size(), 1u);
  EXPECT_EQ(log_->handled[0].destination, "db");
  EXPECT_THAT(log_->handled[0].status.message(),
              HasSubstr("serializer failed on record #41: no"));
  EXPECT_EQ(log_->handled[0].payload, R"({"id":1})");
}

TEST_F(WriterCoreTest, CountsErrorsPerCodeUnderTheConnectorsPrefix) {
  ASSERT_TRUE(Open(&registry_).ok());
  core_.CountError(absl::UnavailableError("a"));
  core_.CountError(absl::UnavailableError("b"));
  core_.CountError(absl::InvalidArgumentError("c"));
  EXPECT_EQ(Metric("test_errors_unavailable"), "2");
  EXPECT_EQ(Metric("test_errors_invalid_argument"), "1");
}

TEST_F(WriterCoreTest, FinishFlushFlushesTheHandlerAndObservesTheDuration) {
  ASSERT_TRUE(Open(&registry_).ok());
  const absl::Time started = clock_.Now();
  clock_.Advance(absl::Seconds(2));
  EXPECT_TRUE(core_.FinishFlush(started).ok());
  EXPECT_THAT(log_->calls, ::testing::ElementsAre("open test", "flush"));
  EXPECT_EQ(Metric("flush_duration_sum"), "2");
  log_->flush_result = absl::UnavailableError("dlq down");
  EXPECT_EQ(core_.FinishFlush(started).code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(core_.failed());
}

TEST_F(WriterCoreTest, TheRejectionGuardUsesTheConnectorsLimit) {
  ASSERT_TRUE(Open(&registry_).ok());
  const absl::Status refused = absl::InvalidArgumentError("bad column");
  EXPECT_EQ(core_.rejection().OnSingleResult(refused).kind,
            ConfirmationVerdict::kRouted);
  RejectionConfirmation::Verdict second =
      core_.rejection().OnSingleResult(refused);
  EXPECT_EQ(second.kind, ConfirmationVerdict::kFatal);
  EXPECT_THAT(second.status.message(), HasSubstr("my-sink"));
}

TEST_F(WriterCoreTest, ConnectorMetricsRegisterUnderTheWritersLabels) {
  ASSERT_TRUE(Open(&registry_).ok());
  MetricSet set = core_.ConnectorMetrics();
  set.AddCounter("batches_sent", "Requests sent.")->Increment(3);
  set.AddGauge("buffered", "Open batch.")->Set(7);
  EXPECT_TRUE(set.status().ok());
  EXPECT_EQ(Metric("batches_sent"), "3");
  EXPECT_EQ(Metric("buffered"), "7");
  // A name taken by another type: a usable private metric, and an error.
  std::shared_ptr<Gauge> clash = set.AddGauge("records_in", "Clash.");
  ASSERT_NE(clash, nullptr);
  clash->Set(1);
  EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(WriterCoreTest, CloseClosesTheHandlerOnce) {
  ASSERT_TRUE(Open(&registry_).ok());
  core_.Close();
  core_.Close();
  EXPECT_THAT(log_->calls, ::testing::ElementsAre("open test", "close"));
}

}  // namespace
}  // namespace gcpstream::connector
