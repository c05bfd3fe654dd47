#include "gcpstream/runtime/pipeline.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <thread>

#include "absl/time/clock.h"
#include "gcpstream/runtime/testing/test_connectors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::AllOf;
using testing::Collected;
using testing::CollectingSink;
using ::testing::Contains;
using testing::CountingSource;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::Ge;
using ::testing::HasSubstr;
using ::testing::Lt;

std::vector<int64_t> Range(int64_t n) {
  std::vector<int64_t> values(n);
  std::iota(values.begin(), values.end(), 0);
  return values;
}

std::vector<int64_t> Sorted(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  return values;
}

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        ::testing::TempDir() + "/pipeline-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  PipelineOptions Options() {
    PipelineOptions options;
    options.name = "test";
    options.checkpoint_directory = directory_;
    options.checkpoint_interval = absl::Milliseconds(20);
    options.batch_size = 16;
    return options;
  }

  std::string directory_;
};

TEST_F(PipelineTest, BoundedJobWritesEverythingAndCommitsAtTheEnd) {
  auto collected = std::make_shared<Collected>();
  Pipeline pipeline(Options());
  pipeline.AddSource(std::make_shared<CountingSource>(5000), 2)
      .Map([](int64_t v) { return v * 2; })
      .Filter([](const int64_t& v) { return v % 3 != 0; })
      .Map([](int64_t v) { return v / 2; })
      .KeyBy([](const int64_t& v) { return v % 7; }, 3)
      .SinkTo(std::make_shared<CollectingSink>(collected));
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  std::vector<int64_t> expected;
  for (int64_t v = 0; v < 5000; ++v) {
    if ((v * 2) % 3 != 0) expected.push_back(v);
  }
  absl::MutexLock lock(&collected->mu);
  EXPECT_THAT(Sorted(collected->committed), ElementsAreArray(expected));
  EXPECT_EQ(collected->final_flushes, 3);  // Every writer saw end of input.
  EXPECT_GE(summary->checkpoints_completed, 1);
  // The committer learnt where it runs before its first commit.
  EXPECT_THAT(collected->committer_bindings,
              ElementsAre("test/collecting with metrics"));
}

// A sink learns when its input runs dry, so it can send partial batches
// without waiting for a checkpoint: from the source's own task, and from an
// exchange's.
TEST_F(PipelineTest, WritersHearWhenTheirInputRunsDry) {
  for (bool exchange : {false, true}) {
    auto collected = std::make_shared<Collected>();
    PipelineOptions options = Options();
    options.checkpoint_interval = absl::Hours(1);  // Only the final one.
    // Each run starts afresh, not from the previous run's checkpoint.
    options.checkpoint_directory = absl::StrCat(directory_, "/", exchange);
    Pipeline pipeline(options);
    auto stream = pipeline.AddSource(
        std::make_shared<CountingSource>(40, /*per_poll=*/10,
                                         /*pause=*/absl::Milliseconds(20)),
        1);
    if (exchange) {
      stream.KeyBy([](const int64_t& v) { return v % 2; }, 1)
          .SinkTo(std::make_shared<CollectingSink>(collected));
    } else {
      stream.SinkTo(std::make_shared<CollectingSink>(collected));
    }
    auto summary = pipeline.Run();
    ASSERT_TRUE(summary.ok()) << summary.status();
    absl::MutexLock lock(&collected->mu);
    // The source pauses after each 10 records: the writer hears of a pause
    // with records written and before the end of input.
    EXPECT_THAT(collected->written_at_idle, Contains(AllOf(Ge(10), Lt(40))))
        << "exchange: " << exchange;
  }
}

TEST_F(PipelineTest, KeyByRoutesEachKeyToOneSubtask) {
  auto collected = std::make_shared<Collected>();
  Pipeline pipeline(Options());
  pipeline.AddSource(std::make_shared<CountingSource>(3000), 2)
      .KeyBy([](const int64_t& v) { return v % 10; }, 4)
      .SinkTo(std::make_shared<CollectingSink>(collected));
  ASSERT_TRUE(pipeline.Run().ok());
  absl::MutexLock lock(&collected->mu);
  std::map<int64_t, std::set<int>> subtasks_of_key;
  for (const auto& [value, subtask] : collected->subtask_of) {
    subtasks_of_key[value % 10].insert(subtask);
  }
  ASSERT_EQ(subtasks_of_key.size(), 10u);
  std::set<int> used;
  for (const auto& [key, subtasks] : subtasks_of_key) {
    EXPECT_EQ(subtasks.size(), 1u) << "key " << key;
    used.insert(*subtasks.begin());
  }
  EXPECT_GT(used.size(), 1u);  // The keys are spread.
}

TEST_F(PipelineTest, FailureRestoresFromTheCheckpointExactlyOnce) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  sink->fail_after = 2500;
  auto source = std::make_shared<CountingSource>(6000, /*per_poll=*/50,
                                                 absl::Milliseconds(1));
  PipelineOptions options = Options();
  options.restart = RestartStrategy::FixedDelay(3, absl::Milliseconds(1));
  Pipeline pipeline(options);
  pipeline.AddSource(source, 2)
      .KeyBy([](const int64_t& v) { return v; }, 2)
      .SinkTo(sink);
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->restarts, 1);
  EXPECT_GT(summary->restored_checkpoint_id, 0);
  absl::MutexLock lock(&collected->mu);
  // The at-least-once view saw replays; the committed view is exact.
  EXPECT_GT(collected->written.size(), 6000u);
  EXPECT_THAT(Sorted(collected->committed), ElementsAreArray(Range(6000)));
}

// Without a checkpoint directory a restart replays the input from the start,
// but checkpoint ids go on growing: a committer keyed by them (as the file
// sink's staged names are) never mistakes a new checkpoint for one it
// committed before the failure.
TEST_F(PipelineTest, CheckpointIdsKeepGrowingAcrossRestartsWithoutDirectory) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  sink->fail_after = 2500;
  auto source = std::make_shared<CountingSource>(6000, /*per_poll=*/50,
                                                 absl::Milliseconds(1));
  PipelineOptions options = Options();
  options.checkpoint_directory.clear();
  options.restart = RestartStrategy::FixedDelay(3, absl::Milliseconds(1));
  Pipeline pipeline(options);
  pipeline.AddSource(source, 2)
      .KeyBy([](const int64_t& v) { return v; }, 2)
      .SinkTo(sink);
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->restarts, 1);
  EXPECT_EQ(summary->restored_checkpoint_id, 0);
  absl::MutexLock lock(&collected->mu);
  std::map<int, int64_t> last_by_subtask;
  for (const auto& [subtask, id] : collected->prepared) {
    EXPECT_GT(id, last_by_subtask[subtask]) << "subtask " << subtask;
    last_by_subtask[subtask] = id;
  }
  // At least once: every value committed (replayed ones maybe twice).
  const std::set<int64_t> committed(collected->committed.begin(),
                                    collected->committed.end());
  EXPECT_EQ(committed.size(), 6000u);
}

TEST_F(PipelineTest, CrashBetweenDurableAndCommitIsRecommittedOnce) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  sink->fail_first_commit = true;
  PipelineOptions options = Options();
  options.restart = RestartStrategy::FixedDelay(2, absl::Milliseconds(1));
  Pipeline pipeline(options);
  pipeline
      .AddSource(
          std::make_shared<CountingSource>(4000, 50, absl::Milliseconds(1)), 1)
      .SinkTo(sink);
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->restarts, 1);
  absl::MutexLock lock(&collected->mu);
  EXPECT_THAT(Sorted(collected->committed), ElementsAreArray(Range(4000)));
}

TEST_F(PipelineTest, ANewProcessResumesFromTheCheckpointDirectory) {
  auto collected = std::make_shared<Collected>();
  {
    // First "process": fails for good half-way (no restarts).
    auto sink = std::make_shared<CollectingSink>(collected);
    sink->fail_after = 3000;
    Pipeline pipeline(Options());
    pipeline
        .AddSource(
            std::make_shared<CountingSource>(8000, 50, absl::Milliseconds(1)),
            2)
        .SinkTo(sink);
    auto summary = pipeline.Run();
    ASSERT_FALSE(summary.ok());
    EXPECT_THAT(summary.status().message(), HasSubstr("injected failure"));
  }
  auto source =
      std::make_shared<CountingSource>(8000, 50, absl::Milliseconds(1));
  Pipeline pipeline(Options());
  pipeline.AddSource(source, 2).SinkTo(
      std::make_shared<CollectingSink>(collected));
  ASSERT_TRUE(pipeline.Run().ok());
  // The second process did not start over: it read less than everything.
  EXPECT_LT(source->emitted.load(), 8000);
  absl::MutexLock lock(&collected->mu);
  EXPECT_THAT(Sorted(collected->committed), ElementsAreArray(Range(8000)));
}

TEST_F(PipelineTest, RestartStrategyGivesUp) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  PipelineOptions options = Options();
  options.checkpoint_directory.clear();
  Pipeline pipeline(options);
  pipeline.AddSource(std::make_shared<CountingSource>(1000), 1)
      .Map([](int64_t v) { return v; })
      .SinkTo(sink);
  sink->fail_after = 10;
  auto summary = pipeline.Run();
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(summary.status().message(), HasSubstr("pipeline test failed"));
  // What /healthz serves: not live, and why.
  EXPECT_FALSE(pipeline.health().Liveness().ok);
  EXPECT_THAT(pipeline.health().Liveness().detail,
              HasSubstr("failed for good"));
  EXPECT_FALSE(pipeline.health().Readiness().ok);
}

// The source and the sink share a task, named after the source: a sink that
// cannot start is named in the error, not taken for the source.
TEST_F(PipelineTest, ASinkThatCannotStartIsNamed) {
  auto sink = std::make_shared<CollectingSink>(std::make_shared<Collected>());
  sink->refuse_writers = absl::PermissionDeniedError("no access to the topic");
  PipelineOptions options = Options();
  options.checkpoint_directory.clear();
  Pipeline pipeline(options);
  pipeline.AddSource(std::make_shared<CountingSource>(10), 1).SinkTo(sink);
  auto summary = pipeline.Run();
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(summary.status().message(),
              HasSubstr("sink-0-collecting: no access to the topic"));
}

TEST_F(PipelineTest, HealthIsReadyWhileRunningAndLiveAfterTheEnd) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  auto source = std::make_shared<CountingSource>(4000, /*per_poll=*/20,
                                                 absl::Milliseconds(1));
  Pipeline pipeline(Options());
  pipeline.AddSource(source, 1).SinkTo(sink);
  EXPECT_FALSE(pipeline.health().Readiness().ok);
  std::atomic<bool> saw_ready{false};
  std::atomic<bool> done{false};
  std::thread prober([&] {
    while (!done.load()) {
      if (pipeline.health().Readiness().ok) saw_ready.store(true);
      absl::SleepFor(absl::Milliseconds(2));
    }
  });
  auto summary = pipeline.Run();
  done.store(true);
  prober.join();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(saw_ready.load());
  EXPECT_FALSE(pipeline.health().Readiness().ok);
  EXPECT_TRUE(pipeline.health().Liveness().ok);
  EXPECT_THAT(pipeline.health().Liveness().detail, HasSubstr("ended"));
}

TEST_F(PipelineTest, HealthCheckpointTimeoutMustExceedTheInterval) {
  PipelineOptions options = Options();
  EXPECT_EQ(options.HealthCheckpointBound(),
            2 * options.checkpoint_interval + options.checkpoint_timeout);
  options.health_checkpoint_timeout = options.checkpoint_interval;
  Pipeline pipeline(options);
  pipeline.AddSource(std::make_shared<CountingSource>(10), 1)
      .SinkTo(std::make_shared<CollectingSink>(std::make_shared<Collected>()));
  auto summary = pipeline.Run();
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(),
              HasSubstr("health-checkpoint-timeout: 20ms must be longer than "
                        "checkpoint-interval"));
}

TEST_F(PipelineTest, WatermarksAndEventTimesReachTheSink) {
  struct Seen {
    absl::Mutex mu;
    std::vector<std::optional<absl::Time>> event_times;
    absl::Time last_watermark = absl::InfinitePast();
  };
  auto seen = std::make_shared<Seen>();
  class Writer final : public SinkWriter<int64_t> {
   public:
    explicit Writer(std::shared_ptr<Seen> s) : seen_(std::move(s)) {}
    absl::Status Write(const int64_t&, const WriterContext& context) override {
      absl::MutexLock lock(&seen_->mu);
      seen_->event_times.push_back(context.event_time);
      if (context.watermark > seen_->last_watermark) {
        seen_->last_watermark = context.watermark;
      }
      return absl::OkStatus();
    }
    absl::Status Flush(bool) override { return absl::OkStatus(); }

   private:
    std::shared_ptr<Seen> seen_;
  };
  class SeenSink final : public Sink<int64_t> {
   public:
    explicit SeenSink(std::shared_ptr<Seen> s) : seen_(std::move(s)) {}
    std::string name() const override { return "seen"; }
    absl::StatusOr<std::unique_ptr<SinkWriter<int64_t>>> CreateWriter(
        const SinkWriterContext&) override {
      return std::make_unique<Writer>(seen_);
    }

   private:
    std::shared_ptr<Seen> seen_;
  };
  WatermarkStrategy<int64_t> strategy;
  strategy.timestamp = [](const int64_t& v) -> std::optional<absl::Time> {
    return absl::FromUnixSeconds(1'000'000 + v);
  };
  strategy.max_out_of_orderness = absl::Seconds(5);
  strategy.emit_interval = absl::ZeroDuration();
  Pipeline pipeline(Options());
  pipeline.AddSource(std::make_shared<CountingSource>(2000, 10), 1, strategy)
      .KeyBy([](const int64_t& v) { return v; }, 1)
      .SinkTo(std::make_shared<SeenSink>(seen));
  ASSERT_TRUE(pipeline.Run().ok());
  absl::MutexLock lock(&seen->mu);
  ASSERT_EQ(seen->event_times.size(), 2000u);
  EXPECT_EQ(seen->event_times[7], absl::FromUnixSeconds(1'000'007));
  // Watermarks trail the largest event time by the out-of-orderness.
  EXPECT_GT(seen->last_watermark, absl::FromUnixSeconds(1'000'000));
  EXPECT_LE(seen->last_watermark, absl::FromUnixSeconds(1'000'000 + 1999 - 5));
}

}  // namespace
}  // namespace gcpstream::runtime
