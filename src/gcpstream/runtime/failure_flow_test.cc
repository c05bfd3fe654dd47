// The failure contracts of the core (docs/failure-handling.md) as a writer
// built on the runtime's mailbox sees them: refusals that arrive in
// asynchronous completions reach the handler on the task thread, the
// handler's Flush() runs only after the write path drained, and a failure
// raised in a completion is returned by the next Write() or Flush().

#include <thread>
#include <vector>

#include "gcpstream/base/async_failure.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/runtime/mailbox.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;

// Records the order of handler calls, and the thread they came from.
class RecordingHandler final : public FailureHandler<FailedElement> {
 public:
  RecordingHandler(std::vector<std::string>* log, absl::Status handle_status)
      : log_(log), handle_status_(std::move(handle_status)) {}
  absl::Status Open(const FailureHandlerContext&) override {
    log_->emplace_back("open");
    return absl::OkStatus();
  }
  absl::Status Handle(const FailedElement& failure) override {
    log_->push_back("handle " + *failure.payload);
    wrong_thread_ |= std::this_thread::get_id() != task_thread_;
    return handle_status_;
  }
  absl::Status Flush() override {
    log_->emplace_back("flush");
    return absl::OkStatus();
  }
  void Close() override {}
  bool wrong_thread() const { return wrong_thread_; }

 private:
  std::vector<std::string>* log_;
  absl::Status handle_status_;
  std::thread::id task_thread_ = std::this_thread::get_id();
  bool wrong_thread_ = false;
};

// A minimal asynchronous writer: each record is "sent" on another thread,
// whose answer is posted back to the mailbox.
class AsyncWriter {
 public:
  AsyncWriter(Mailbox* mailbox, FailureHandler<FailedElement>* handler,
              std::vector<std::string>* log)
      : executor_(mailbox), handler_(handler), log_(log) {}
  ~AsyncWriter() {
    for (auto& thread : senders_) thread.join();
  }

  absl::Status Write(const std::string& record, bool refused) {
    if (absl::Status failed = failure_.Check(); !failed.ok()) return failed;
    ++in_flight_;
    senders_.emplace_back([this, record, refused] {
      absl::SleepFor(absl::Milliseconds(5));  // The service thinks.
      executor_.Post([this, record, refused] { OnAnswer(record, refused); });
    });
    return absl::OkStatus();
  }

  absl::Status Flush() {
    executor_.YieldUntil([this] { return in_flight_ == 0; });
    if (absl::Status failed = failure_.Check(); !failed.ok()) return failed;
    log_->emplace_back("drained");
    return handler_->Flush();
  }

 private:
  void OnAnswer(const std::string& record, bool refused) {
    --in_flight_;
    if (!refused) {
      log_->push_back("acked " + record);
      return;
    }
    FailedElement failure;
    failure.connector = "test";
    failure.status = absl::AlreadyExistsError("exists");
    failure.payload = record;
    failure_.Capture(handler_->Handle(failure));
  }

  MailboxExecutor executor_;
  FailureHandler<FailedElement>* handler_;
  std::vector<std::string>* log_;
  AsyncFailure failure_;
  int in_flight_ = 0;
  std::vector<std::thread> senders_;
};

TEST(FailureFlowTest, HandlerFlushComesAfterTheWritePathDrained) {
  Mailbox mailbox(std::make_shared<TaskSignal>());
  std::vector<std::string> log;
  RecordingHandler handler(&log, absl::OkStatus());
  ASSERT_TRUE(handler.Open({}).ok());
  AsyncWriter writer(&mailbox, &handler, &log);
  ASSERT_TRUE(writer.Write("a", false).ok());
  ASSERT_TRUE(writer.Write("b", true).ok());
  ASSERT_TRUE(writer.Flush().ok());
  EXPECT_FALSE(handler.wrong_thread());
  ASSERT_EQ(log.size(), 5u);
  EXPECT_THAT(std::vector<std::string>(log.end() - 2, log.end()),
              ElementsAre("drained", "flush"));
  EXPECT_THAT(std::vector<std::string>(log.begin() + 1, log.end() - 2),
              ::testing::UnorderedElementsAre("acked a", "handle b"));
}

TEST(FailureFlowTest, FailureInACompletionSurfacesOnTheNextCall) {
  Mailbox mailbox(std::make_shared<TaskSignal>());
  std::vector<std::string> log;
  // A handler that fails the job, as FailJob() does.
  RecordingHandler handler(&log, absl::AlreadyExistsError("fail-job"));
  ASSERT_TRUE(handler.Open({}).ok());
  AsyncWriter writer(&mailbox, &handler, &log);
  ASSERT_TRUE(writer.Write("bad", true).ok());
  // The refusal arrives while the task waits; Flush reports it...
  EXPECT_EQ(writer.Flush().code(), absl::StatusCode::kAlreadyExists);
  // ...and so does every later call: the first failure stays.
  EXPECT_EQ(writer.Write("next", false).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(log, ElementsAre("open", "handle bad"));
}

}  // namespace
}  // namespace gcpstream::runtime
