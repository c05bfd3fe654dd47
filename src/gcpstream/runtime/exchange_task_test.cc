#include "gcpstream/runtime/exchange_task.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;

// Everything the task did, in order, as text.
struct Log {
  absl::Mutex mu;
  std::vector<std::string> events ABSL_GUARDED_BY(mu);
  void Add(std::string event) {
    absl::MutexLock lock(&mu);
    events.push_back(std::move(event));
  }
  std::vector<std::string> Get() {
    absl::MutexLock lock(&mu);
    return events;
  }
};

class RecordingEndpoint final : public Endpoint, public Output<int64_t> {
 public:
  explicit RecordingEndpoint(Log* log) : log_(log) {}
  void Collect(StreamRecord<int64_t>&& record) override {
    log_->Add(absl::StrCat("record ", record.value));
  }
  absl::Status OnWatermark(const WatermarkEvent& event) override {
    log_->Add(event.idle ? "idle"
                         : absl::StrCat("watermark ", event.watermark));
    return absl::OkStatus();
  }
  absl::Status OnBarrier(const Barrier& barrier, TaskSnapshot&) override {
    log_->Add(absl::StrCat("checkpoint ", barrier.checkpoint_id));
    return absl::OkStatus();
  }
  absl::Status FlushBuffers() override { return absl::OkStatus(); }
  void Close() override {}

 private:
  Log* log_;
};

class RecordingEvents final : public JobEvents {
 public:
  explicit RecordingEvents(Log* log) : log_(log) {}
  void AcknowledgeCheckpoint(int64_t id, TaskSnapshot) override {
    log_->Add(absl::StrCat("ack ", id));
  }
  void SourceFinished() override {}
  void TaskFailed(const std::string&, const absl::Status& status) override {
    log_->Add(status.ToString());
  }

 private:
  Log* log_;
};

class ExchangeTaskTest : public ::testing::Test {
 protected:
  ExchangeTaskTest() : events_(&log_) {
    auto signal = std::make_shared<TaskSignal>();
    auto producer = std::make_shared<TaskSignal>();
    for (int i = 0; i < 2; ++i) {
      channels_.push_back(
          std::make_shared<Channel<int64_t>>(8, signal, producer));
    }
    auto context = std::make_unique<TaskContext>(
        "keyby[0/1]", "test", 1, 0, 1, signal, &cancelled_, &events_, nullptr);
    task_ = std::make_unique<ExchangeTask<int64_t>>(
        std::move(context),
        OperatorMetrics::Create(nullptr, "test", "keyby", 0));
    auto endpoint = std::make_shared<RecordingEndpoint>(&log_);
    task_->endpoints().push_back(endpoint);
    task_->Attach(channels_, endpoint);
    thread_ = std::thread([this] { task_->Run(); });
  }
  ~ExchangeTaskTest() override {
    cancelled_ = true;
    task_->context().signal().Notify();
    thread_.join();
  }

  void Send(int channel, std::vector<StreamElement<int64_t>> elements) {
    Channel<int64_t>::Batch batch(std::move(elements));
    ASSERT_TRUE(channels_[channel]->TryPush(batch));
  }

  // Waits until the log has `n` events (the task runs on its own thread).
  std::vector<std::string> WaitFor(size_t n) {
    for (int i = 0; i < 500; ++i) {
      auto events = log_.Get();
      if (events.size() >= n) return events;
      absl::SleepFor(absl::Milliseconds(2));
    }
    return log_.Get();
  }

  Log log_;
  RecordingEvents events_;
  std::atomic<bool> cancelled_{false};
  std::vector<std::shared_ptr<Channel<int64_t>>> channels_;
  std::unique_ptr<ExchangeTask<int64_t>> task_;
  std::thread thread_;
};

TEST_F(ExchangeTaskTest, BarrierBlocksItsInputUntilEveryInputDeliveredIt) {
  Send(0, {StreamRecord<int64_t>{1}, Barrier{7}, StreamRecord<int64_t>{2}});
  Send(1, {StreamRecord<int64_t>{10}});
  // Record 2 is behind the barrier on input 0: it must wait for input 1.
  EXPECT_THAT(WaitFor(2), ElementsAre("record 1", "record 10"));
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_THAT(log_.Get(), ElementsAre("record 1", "record 10"));

  Send(1, {Barrier{7}, StreamRecord<int64_t>{11}});
  auto events = WaitFor(6);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_THAT(std::vector<std::string>(events.begin(), events.begin() + 4),
              ElementsAre("record 1", "record 10", "checkpoint 7", "ack 7"));
  // After alignment both inputs flow again.
  EXPECT_THAT(std::vector<std::string>(events.begin() + 4, events.end()),
              ::testing::UnorderedElementsAre("record 2", "record 11"));
}

TEST_F(ExchangeTaskTest, WatermarkIsTheMinimumOfActiveInputs) {
  Send(0, {WatermarkEvent{100}});
  Send(1, {WatermarkEvent{50}});
  EXPECT_THAT(WaitFor(1), ElementsAre("watermark 50"));
  Send(1, {WatermarkEvent{200}});
  EXPECT_THAT(WaitFor(2), ElementsAre("watermark 50", "watermark 100"));
  // An idle input stops holding the watermark back.
  Send(0, {WatermarkEvent{kMinWatermark, true}});
  EXPECT_THAT(WaitFor(3),
              ElementsAre("watermark 50", "watermark 100", "watermark 200"));
}

}  // namespace
}  // namespace gcpstream::runtime
