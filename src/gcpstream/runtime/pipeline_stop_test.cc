// Stopping a pipeline (at once, or with a final checkpoint) and checkpoints
// that do not complete in time.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/runtime/testing/test_connectors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using testing::Collected;
using testing::CollectingSink;
using testing::CountingSource;
using ::testing::HasSubstr;

// Polls `condition` for up to 20 s.
template <typename Condition>
bool Eventually(Condition condition) {
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (absl::Now() < deadline) {
    if (condition()) return true;
    absl::SleepFor(absl::Milliseconds(2));
  }
  return false;
}

int64_t Written(Collected& collected) {
  absl::MutexLock lock(&collected.mu);
  return static_cast<int64_t>(collected.written.size());
}

// Runs a pipeline on its own thread, the way `gcpstream run` does while
// its signal thread may stop it.
class RunningPipeline {
 public:
  explicit RunningPipeline(Pipeline& pipeline) : pipeline_(pipeline) {
    thread_ = std::thread([this] {
      summary_ = pipeline_.Run();
      absl::MutexLock lock(&mu_);
      returned_ = absl::Now();
    });
  }
  ~RunningPipeline() {
    if (thread_.joinable()) thread_.join();
  }

  // Joins, and returns how long after `since` Run() returned.
  absl::Duration ReturnedAfter(absl::Time since) {
    thread_.join();
    absl::MutexLock lock(&mu_);
    return returned_ - since;
  }
  const absl::StatusOr<JobSummary>& summary() const { return summary_; }

 private:
  Pipeline& pipeline_;
  std::thread thread_;
  absl::StatusOr<JobSummary> summary_;
  absl::Mutex mu_;
  absl::Time returned_ ABSL_GUARDED_BY(mu_);
};

class PipelineStopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        ::testing::TempDir() + "/pipeline-stop-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  PipelineOptions Options() const {
    PipelineOptions options;
    options.name = "test";
    options.checkpoint_directory = directory_;
    options.checkpoint_interval = absl::Milliseconds(50);
    options.batch_size = 16;
    return options;
  }

  std::string directory_;
};

// A checkpoint's Flush() waits for acknowledgements that never come (5 s
// stands for a connector's own timeout, 600 s for Pub/Sub): Stop() must not
// wait it out.
TEST_F(PipelineStopTest, StopReturnsAtOnceWhileAWriterWaitsForAnAnswer) {
  for (bool exchange : {false, true}) {
    auto collected = std::make_shared<Collected>();
    auto sink = std::make_shared<CollectingSink>(collected);
    sink->stall_flush = 1;
    sink->stall_for = absl::Seconds(5);
    PipelineOptions options = Options();
    options.checkpoint_directory = absl::StrCat(directory_, "/", exchange);
    Pipeline pipeline(options);
    auto stream = pipeline.AddSource(
        std::make_shared<CountingSource>(1'000'000, 20, absl::Milliseconds(1)),
        1);
    if (exchange) {
      stream.KeyBy([](const int64_t& v) { return v; }, 2).SinkTo(sink);
    } else {
      stream.SinkTo(sink);
    }
    RunningPipeline running(pipeline);
    ASSERT_TRUE(Eventually([&] { return sink->stalled.load(); }));
    const absl::Time stopped = absl::Now();
    pipeline.Stop();
    EXPECT_LT(running.ReturnedAfter(stopped), absl::Seconds(1))
        << "exchange: " << exchange;
    ASSERT_TRUE(running.summary().ok()) << running.summary().status();
    EXPECT_TRUE(running.summary()->stopped);
    EXPECT_FALSE(running.summary()->stopped_with_checkpoint);
  }
}

// A stop between attempts does not wait out the restart delay.
TEST_F(PipelineStopTest, StopDuringARestartDelayReturnsAtOnce) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  sink->fail_after = 100;
  PipelineOptions options = Options();
  options.restart = RestartStrategy::FixedDelay(3, absl::Seconds(30));
  Pipeline pipeline(options);
  pipeline
      .AddSource(std::make_shared<CountingSource>(1'000'000, 20,
                                                  absl::Milliseconds(1)),
                 1)
      .SinkTo(sink);
  auto restarts = pipeline.metrics().GetCounter(
      "restarts", "Times the job was restored after a failure",
      MetricLabels{"test", "job", 0, std::nullopt});
  ASSERT_TRUE(restarts.ok());
  RunningPipeline running(pipeline);
  ASSERT_TRUE(Eventually([&] { return (*restarts)->Value() == 1; }));
  const absl::Time stopped = absl::Now();
  pipeline.Stop();
  EXPECT_LT(running.ReturnedAfter(stopped), absl::Seconds(1));
  ASSERT_TRUE(running.summary().ok()) << running.summary().status();
  EXPECT_TRUE(running.summary()->stopped);
}

// The graceful stop: everything read is committed, and the next process
// starts exactly where this one stopped (nothing is read twice).
TEST_F(PipelineStopTest,
       StopWithCheckpointCommitsWhatWasReadAndReplaysNothing) {
  constexpr int64_t kCount = 30'000;
  auto collected = std::make_shared<Collected>();
  auto first_source =
      std::make_shared<CountingSource>(kCount, 20, absl::Milliseconds(1));
  {
    Pipeline pipeline(Options());
    pipeline.AddSource(first_source, 2)
        .KeyBy([](const int64_t& v) { return v % 5; }, 2)
        .SinkTo(std::make_shared<CollectingSink>(collected));
    RunningPipeline running(pipeline);
    ASSERT_TRUE(Eventually([&] { return Written(*collected) >= 3000; }));
    pipeline.StopWithCheckpoint();
    running.ReturnedAfter(absl::Now());
    ASSERT_TRUE(running.summary().ok()) << running.summary().status();
    EXPECT_TRUE(running.summary()->stopped_with_checkpoint);
    EXPECT_FALSE(running.summary()->stopped);
  }
  {
    absl::MutexLock lock(&collected->mu);
    EXPECT_EQ(collected->committed.size(), collected->written.size())
        << "everything written before the stop was committed";
    EXPECT_EQ(static_cast<int64_t>(collected->committed.size()),
              first_source->emitted.load());
    EXPECT_LT(first_source->emitted.load(), kCount) << "stopped mid-way";
  }
  auto second_source =
      std::make_shared<CountingSource>(kCount, 200, absl::ZeroDuration());
  Pipeline pipeline(Options());
  pipeline.AddSource(second_source, 2)
      .KeyBy([](const int64_t& v) { return v % 5; }, 2)
      .SinkTo(std::make_shared<CollectingSink>(collected));
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(first_source->emitted.load() + second_source->emitted.load(),
            kCount)
      << "nothing was read twice";
  absl::MutexLock lock(&collected->mu);
  std::vector<int64_t> committed = collected->committed;
  std::sort(committed.begin(), committed.end());
  ASSERT_EQ(static_cast<int64_t>(committed.size()), kCount);
  for (int64_t i = 0; i < kCount; ++i) ASSERT_EQ(committed[i], i);
}

// A final checkpoint that cannot complete (a destination that does not
// answer) does not hold the stop beyond shutdown-timeout.
TEST_F(PipelineStopTest, StopWithCheckpointGivesUpAfterShutdownTimeout) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  PipelineOptions options = Options();
  options.checkpoint_interval = absl::Hours(1);  // The stop's is the first.
  options.shutdown_timeout = absl::Milliseconds(300);
  sink->stall_flush = 1;
  Pipeline pipeline(options);
  pipeline
      .AddSource(std::make_shared<CountingSource>(1'000'000, 20,
                                                  absl::Milliseconds(1)),
                 1)
      .SinkTo(sink);
  RunningPipeline running(pipeline);
  ASSERT_TRUE(Eventually([&] { return Written(*collected) >= 100; }));
  const absl::Time stopped = absl::Now();
  pipeline.StopWithCheckpoint();
  const absl::Duration took = running.ReturnedAfter(stopped);
  EXPECT_GE(took, absl::Milliseconds(300));
  EXPECT_LT(took, absl::Seconds(1) + absl::Milliseconds(300));
  ASSERT_TRUE(running.summary().ok()) << running.summary().status();
  EXPECT_TRUE(running.summary()->stopped);
  EXPECT_FALSE(running.summary()->stopped_with_checkpoint);
  EXPECT_TRUE(sink->stalled.load());
  absl::MutexLock lock(&collected->mu);
  EXPECT_TRUE(collected->committed.empty());
}

TEST_F(PipelineStopTest, CheckpointTimeoutFailsTheAttemptNamingTheStuckTasks) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  sink->stall_flush = 1;  // Writer 0 or 1; the other acknowledges.
  PipelineOptions options = Options();
  options.checkpoint_timeout = absl::Milliseconds(200);
  Pipeline pipeline(options);
  pipeline
      .AddSource(std::make_shared<CountingSource>(1'000'000, 20,
                                                  absl::Milliseconds(1)),
                 1)
      .KeyBy([](const int64_t& v) { return v; }, 2)
      .SinkTo(sink);
  const absl::Time started = absl::Now();
  auto summary = pipeline.Run();
  EXPECT_LT(absl::Now() - started, absl::Seconds(5));
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(summary.status().message(),
              HasSubstr("did not complete within checkpoint-timeout (200ms): "
                        "no acknowledgement from "));
  // Exactly one of the two sink subtasks is named: the stuck one.
  const std::string message(summary.status().message());
  const bool first = absl::StrContains(message, "[0/2]");
  const bool second = absl::StrContains(message, "[1/2]");
  EXPECT_NE(first, second) << message;
  EXPECT_THAT(message, ::testing::Not(HasSubstr("source-0-counting")));
}

// A tolerated timeout abandons the checkpoint, but what the writers prepared
// for it (committables acknowledged before and after the timeout) is
// committed with the next checkpoint: nothing is lost.
TEST_F(PipelineStopTest, ToleratedCheckpointFailureLosesNoCommittables) {
  constexpr int64_t kCount = 6000;
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  sink->stall_flush = 3;
  sink->stall_for = absl::Milliseconds(600);
  PipelineOptions options = Options();
  options.checkpoint_timeout = absl::Milliseconds(200);
  options.tolerable_checkpoint_failures = 5;
  Pipeline pipeline(options);
  pipeline
      .AddSource(
          std::make_shared<CountingSource>(kCount, 20, absl::Milliseconds(1)),
          1)
      .KeyBy([](const int64_t& v) { return v; }, 2)
      .SinkTo(sink);
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_GE(summary->checkpoints_failed, 1);
  EXPECT_EQ(summary->restarts, 0);
  absl::MutexLock lock(&collected->mu);
  std::vector<int64_t> committed = collected->committed;
  std::sort(committed.begin(), committed.end());
  ASSERT_EQ(static_cast<int64_t>(committed.size()), kCount);
  for (int64_t i = 0; i < kCount; ++i) ASSERT_EQ(committed[i], i);
}

TEST_F(PipelineStopTest, TimeoutOptionsAreChecked) {
  PipelineOptions options = Options();
  options.checkpoint_timeout = absl::ZeroDuration();
  Pipeline pipeline(options);
  pipeline.AddSource(std::make_shared<CountingSource>(10), 1)
      .SinkTo(std::make_shared<CollectingSink>(std::make_shared<Collected>()));
  auto summary = pipeline.Run();
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(), HasSubstr("checkpoint-timeout"));
}

}  // namespace
}  // namespace gcpstream::runtime
