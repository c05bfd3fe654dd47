// Pipelines with several sources: unions, their checkpoints and restores.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/runtime/testing/test_connectors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using testing::Collected;
using testing::CollectingSink;
using testing::CountingSource;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Source B's records are told apart from A's by this offset.
constexpr int64_t kOffsetB = 1'000'000;

std::vector<int64_t> Expected(int64_t count_a, int64_t count_b) {
  std::vector<int64_t> values;
  values.reserve(count_a + count_b);
  for (int64_t v = 0; v < count_a; ++v) values.push_back(v);
  for (int64_t v = 0; v < count_b; ++v) values.push_back(kOffsetB + v);
  return values;
}

std::vector<int64_t> SortedValues(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  return values;
}

class PipelineUnionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        ::testing::TempDir() + "/pipeline-union-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  PipelineOptions Options() const {
    PipelineOptions options;
    options.name = "union";
    options.checkpoint_directory = directory_;
    options.checkpoint_interval = absl::Milliseconds(20);
    options.batch_size = 16;
    return options;
  }

  // A (parallelism 2) and B (parallelism 1, shifted) unioned into
  // `union_parallelism` subtasks, then `then` (the rest of the pipeline).
  template <typename Then>
  static void Build(Pipeline& pipeline, std::shared_ptr<CountingSource> a,
                    std::shared_ptr<CountingSource> b, int union_parallelism,
                    Then then) {
    auto stream_a = pipeline.AddSource(std::move(a), 2);
    auto stream_b = pipeline.AddSource(std::move(b), 1).Map([](int64_t v) {
      return v + kOffsetB;
    });
    then(stream_a.Union({stream_b}, union_parallelism));
  }

  std::string directory_;
};

TEST_F(PipelineUnionTest, EveryRecordOfEverySourceOnceInSplitOrder) {
  auto collected = std::make_shared<Collected>();
  auto a = std::make_shared<CountingSource>(3000, 20, absl::Milliseconds(1));
  auto b = std::make_shared<CountingSource>(2000, 20, absl::Milliseconds(1));
  Pipeline pipeline(Options());
  Build(pipeline, a, b, 1, [&](DataStream<int64_t> stream) {
    stream.SinkTo(std::make_shared<CollectingSink>(collected));
  });
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_GE(summary->checkpoints_completed, 2);
  absl::MutexLock lock(&collected->mu);
  EXPECT_THAT(SortedValues(collected->committed),
              ElementsAreArray(Expected(3000, 2000)));
  // One union subtask: each split's records arrive in the order read (A's
  // split 0 holds the even numbers, split 1 the odd ones; B has one split).
  std::vector<int64_t> last(3, -1);
  for (int64_t v : collected->written) {
    const int split = v >= kOffsetB ? 2 : static_cast<int>(v % 2);
    EXPECT_GT(v, last[split]);
    last[split] = v;
  }
}

TEST_F(PipelineUnionTest, FailureRestoresEverySourceFromTheCheckpoint) {
  auto collected = std::make_shared<Collected>();
  auto sink = std::make_shared<CollectingSink>(collected);
  sink->fail_after = 2500;
  auto a = std::make_shared<CountingSource>(4000, 20, absl::Milliseconds(1));
  auto b = std::make_shared<CountingSource>(3000, 20, absl::Milliseconds(1));
  PipelineOptions options = Options();
  options.restart = RestartStrategy::FixedDelay(2, absl::Milliseconds(1));
  Pipeline pipeline(options);
  Build(pipeline, a, b, 3, [&](DataStream<int64_t> stream) {
    stream.KeyBy([](const int64_t& v) { return v % 7; }, 2).SinkTo(sink);
  });
  auto summary = pipeline.Run();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->restarts, 1);
  EXPECT_GT(summary->restored_checkpoint_id, 0);
  // Both sources resumed mid-way rather than from the start.
  EXPECT_LT(a->emitted.load(), 2 * 4000);
  EXPECT_LT(b->emitted.load(), 2 * 3000);
  absl::MutexLock lock(&collected->mu);
  EXPECT_THAT(SortedValues(collected->committed),
              ElementsAreArray(Expected(4000, 3000)));
}

TEST_F(PipelineUnionTest, ANewProcessResumesEverySource) {
  auto collected = std::make_shared<Collected>();
  {
    auto sink = std::make_shared<CollectingSink>(collected);
    sink->fail_after = 2000;
    Pipeline pipeline(Options());
    Build(pipeline,
          std::make_shared<CountingSource>(3000, 20, absl::Milliseconds(1)),
          std::make_shared<CountingSource>(3000, 20, absl::Milliseconds(1)), 0,
          [&](DataStream<int64_t> stream) { stream.SinkTo(sink); });
    auto summary = pipeline.Run();
    ASSERT_FALSE(summary.ok());
    EXPECT_THAT(summary.status().message(), HasSubstr("injected failure"));
  }
  auto a = std::make_shared<CountingSource>(3000, 20, absl::Milliseconds(1));
  auto b = std::make_shared<CountingSource>(3000, 20, absl::Milliseconds(1));
  Pipeline pipeline(Options());
  Build(pipeline, a, b, 0, [&](DataStream<int64_t> stream) {
    stream.SinkTo(std::make_shared<CollectingSink>(collected));
  });
  ASSERT_TRUE(pipeline.Run().ok());
  EXPECT_LT(a->emitted.load() + b->emitted.load(), 6000);
  absl::MutexLock lock(&collected->mu);
  EXPECT_THAT(SortedValues(collected->committed),
              ElementsAreArray(Expected(3000, 3000)));
}

// A checkpoint of a one-source pipeline is not mistaken for one of this
// pipeline: the missing source is named.
TEST_F(PipelineUnionTest, ACheckpointWithoutOneOfTheSourcesIsRefused) {
  {
    Pipeline pipeline(Options());
    pipeline.AddSource(std::make_shared<CountingSource>(100), 1)
        .SinkTo(
            std::make_shared<CollectingSink>(std::make_shared<Collected>()));
    ASSERT_TRUE(pipeline.Run().ok());
  }
  Pipeline pipeline(Options());
  Build(pipeline, std::make_shared<CountingSource>(100),
        std::make_shared<CountingSource>(100), 0,
        [&](DataStream<int64_t> stream) {
          stream.SinkTo(
              std::make_shared<CollectingSink>(std::make_shared<Collected>()));
        });
  auto summary = pipeline.Run();
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(),
              HasSubstr("has no state for source-1-counting"));
}

}  // namespace
}  // namespace gcpstream::runtime
