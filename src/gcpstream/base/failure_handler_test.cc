#include "gcpstream/base/failure_handler.h"

#include <memory>
#include <sstream>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace gcpstream {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A connector's own element type, as each connector derives one.
struct SpannerFailure : FailedElement {
  std::string table;
};

SpannerFailure Refused() {
  SpannerFailure failure;
  failure.connector = "spanner";
  failure.destination = "projects/p/instances/i/databases/d";
  failure.status = absl::AlreadyExistsError("Row [7] already exists");
  failure.payload = "secret-card-number-4111";
  failure.table = "Orders";
  return failure;
}

TEST(FailJobTest, FailsWithTheRefusalAndHowToRoute) {
  auto handler = FailJob<SpannerFailure>();
  ASSERT_TRUE(handler->Open({}).ok());
  const absl::Status status = handler->Handle(Refused());
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("projects/p/instances/i/databases/d"),
                    HasSubstr("Row [7] already exists"), HasSubstr("fail-job"),
                    HasSubstr("dead-letter-queue"),
                    Not(HasSubstr("secret-card-number"))));
}

TEST(FailureHandlerTest, HandleBeforeOpenIsRefusedAndReopenWorks) {
  auto handler = LogAndDrop<SpannerFailure>();
  EXPECT_EQ(handler->Handle(Refused()).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(handler->Open({}).ok());
  EXPECT_TRUE(handler->Handle(Refused()).ok());
  handler->Close();
  EXPECT_EQ(handler->Flush().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(handler->Open({}).ok());  // After a restore.
  EXPECT_TRUE(handler->Handle(Refused()).ok());
}

TEST(LogAndDropTest, LogsStatusAndDestinationButNeverThePayload) {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  auto handler = LogAndDrop<SpannerFailure>();
  ASSERT_TRUE(handler->Open({}).ok());
  EXPECT_TRUE(handler->Handle(Refused()).ok());
  spdlog::set_default_logger(previous);
  EXPECT_THAT(captured.str(),
              AllOf(HasSubstr("warning"), HasSubstr("ALREADY_EXISTS"),
                    HasSubstr("projects/p/instances/i/databases/d"),
                    Not(HasSubstr("secret-card-number"))));
}

TEST(LogAndDropTest, CountsDropsInTheSinksMetrics) {
  MetricsRegistry registry;
  FailureHandlerContext context;
  context.metrics = &registry;
  context.labels = {"orders", "spanner-sink", 1, std::nullopt};
  auto previous = spdlog::default_logger();
  std::ostringstream ignored;
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "test", std::make_shared<spdlog::sinks::ostream_sink_mt>(ignored)));
  auto handler = LogAndDrop<SpannerFailure>();
  ASSERT_TRUE(handler->Open(context).ok());
  ASSERT_TRUE(handler->Handle(Refused()).ok());
  ASSERT_TRUE(handler->Handle(Refused()).ok());
  spdlog::set_default_logger(previous);
  auto metrics = SinkMetrics::Create(registry, context.labels);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metrics->records_dropped->Value(), 2u);
}

class RecordingQueue : public DeadLetterQueue {
 public:
  explicit RecordingQueue(std::vector<std::string>* calls) : calls_(calls) {}
  absl::Status Open(const FailureHandlerContext& context) override {
    calls_->push_back("open " + context.connector + " " +
                      std::to_string(context.subtask_index));
    return absl::OkStatus();
  }
  absl::Status Offer(const FailedElement& failure) override {
    calls_->push_back("offer " + failure.destination);
    return offer_status;
  }
  absl::Status Flush() override {
    calls_->emplace_back("flush");
    return flush_status;
  }
  void Close() override { calls_->emplace_back("close"); }

  absl::Status offer_status;
  absl::Status flush_status;

 private:
  std::vector<std::string>* calls_;
};

TEST(SendToDeadLetterQueueTest, DrivesTheQueueLifecycle) {
  std::vector<std::string> calls;
  auto handler = SendToDeadLetterQueue<SpannerFailure>(
      std::make_unique<RecordingQueue>(&calls));
  ASSERT_TRUE(handler->Open({.subtask_index = 2, .connector = "spanner"}).ok());
  ASSERT_TRUE(handler->Handle(Refused()).ok());
  ASSERT_TRUE(handler->Flush().ok());
  handler->Close();
  EXPECT_THAT(calls, ElementsAre("open spanner 2",
                                 "offer projects/p/instances/i/databases/d",
                                 "flush", "close"));
}

TEST(SendToDeadLetterQueueTest, QueueFailuresFailTheJob) {
  std::vector<std::string> calls;
  auto queue = std::make_unique<RecordingQueue>(&calls);
  RecordingQueue* raw = queue.get();
  auto handler = SendToDeadLetterQueue<SpannerFailure>(std::move(queue));
  ASSERT_TRUE(handler->Open({}).ok());
  raw->offer_status = absl::UnavailableError("dlq topic unreachable");
  EXPECT_EQ(handler->Handle(Refused()).code(), absl::StatusCode::kUnavailable);
  raw->flush_status = absl::DeadlineExceededError("publish timed out");
  EXPECT_EQ(handler->Flush().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace gcpstream
