#include "gcpstream/runtime/connectors/generator_source.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gcpstream/runtime/connectors/collecting_output.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::unique_ptr<GeneratorSource<int64_t>> MakeGeneratorSource(
    GeneratorOptions options) {
  auto source = GeneratorSource<int64_t>::Create(
      "numbers", [](int64_t index) { return index; }, options);
  EXPECT_TRUE(source.ok()) << source.status();
  return source.ok() ? *std::move(source) : nullptr;
}

std::unique_ptr<SourceReader<int64_t>> MakeGeneratorReader(
    GeneratorSource<int64_t>& source, std::vector<Split> splits,
    int parallelism = 1) {
  SourceReaderContext context;
  context.parallelism = parallelism;
  auto reader = source.CreateReader(context, std::move(splits));
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *std::move(reader) : nullptr;
}

// Polls until end of input (or `max_polls`), returning the last status.
InputStatus DrainGenerator(SourceReader<int64_t>& reader,
                           CollectingOutput<int64_t>& output,
                           int max_polls = 1000) {
  InputStatus status = InputStatus::kMoreAvailable;
  for (int i = 0; i < max_polls && status != InputStatus::kEndOfInput; ++i) {
    absl::StatusOr<PollResult> result = reader.PollNext(output);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) break;
    status = result->status;
  }
  return status;
}

std::vector<int64_t> Iota(int64_t from, int64_t to, int64_t step = 1) {
  std::vector<int64_t> out;
  for (int64_t i = from; i < to; i += step) out.push_back(i);
  return out;
}

TEST(GeneratorSourceTest, BoundedSequenceInPollsOfAtMostMaxRecords) {
  GeneratorOptions options;
  options.count = 2500;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(source->bounded());
  auto splits = source->PlanSplits(1);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeGeneratorReader(*source, *splits);
  ASSERT_NE(reader, nullptr);

  CollectingOutput<int64_t> output;
  std::vector<size_t> sizes;
  std::vector<InputStatus> statuses;
  for (int i = 0; i < 3; ++i) {
    const size_t before = output.values.size();
    auto result = reader->PollNext(output);
    ASSERT_TRUE(result.ok());
    sizes.push_back(output.values.size() - before);
    statuses.push_back(result->status);
  }
  EXPECT_THAT(sizes, ElementsAre(1000, 1000, 500));
  EXPECT_THAT(statuses, ElementsAre(InputStatus::kMoreAvailable,
                                    InputStatus::kMoreAvailable,
                                    InputStatus::kEndOfInput));
  EXPECT_EQ(output.values, Iota(0, 2500));
}

TEST(GeneratorSourceTest, RecordsComeFromTheFunction) {
  GeneratorOptions options;
  options.count = 3;
  auto source = GeneratorSource<std::string>::Create(
      "words", [](int64_t i) { return "record-" + std::to_string(i); },
      options);
  ASSERT_TRUE(source.ok());
  auto splits = (*source)->PlanSplits(1);
  ASSERT_TRUE(splits.ok());
  auto reader = (*source)->CreateReader(SourceReaderContext{}, *splits);
  ASSERT_TRUE(reader.ok());
  CollectingOutput<std::string> output;
  auto result = (*reader)->PollNext(output);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, InputStatus::kEndOfInput);
  EXPECT_THAT(output.values, ElementsAre("record-0", "record-1", "record-2"));
}

TEST(GeneratorSourceTest, PlanSplitsIsDeterministicAndStrided) {
  GeneratorOptions options;
  options.count = 20;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(3);
  ASSERT_TRUE(splits.ok());
  ASSERT_EQ(splits->size(), 3u);
  auto again = source->PlanSplits(3);
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*splits)[i].id, (*again)[i].id);
    EXPECT_EQ((*splits)[i].state, (*again)[i].state);
  }
  EXPECT_EQ((*splits)[1].id, "generator-1-of-3");
  EXPECT_EQ((*splits)[1].state, "1");

  for (int i = 0; i < 3; ++i) {
    auto reader = MakeGeneratorReader(*source, {(*splits)[i]}, 3);
    ASSERT_NE(reader, nullptr);
    CollectingOutput<int64_t> output;
    EXPECT_EQ(DrainGenerator(*reader, output), InputStatus::kEndOfInput);
    EXPECT_EQ(output.values, Iota(i, 20, 3)) << "split " << i;
  }
}

TEST(GeneratorSourceTest, ReaderWithSeveralSplitsEmitsAscendingIndices) {
  GeneratorOptions options;
  options.count = 10;
  options.max_records_per_poll = 4;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(3);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeGeneratorReader(*source, {(*splits)[0], (*splits)[2]});
  ASSERT_NE(reader, nullptr);
  CollectingOutput<int64_t> output;
  EXPECT_EQ(DrainGenerator(*reader, output), InputStatus::kEndOfInput);
  EXPECT_THAT(output.values, ElementsAre(0, 2, 3, 5, 6, 8, 9));
}

TEST(GeneratorSourceTest, SnapshotListsEverySplitIncludingFinishedOnes) {
  GeneratorOptions options;
  options.count = 4;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(2);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeGeneratorReader(*source, *splits);
  ASSERT_NE(reader, nullptr);
  CollectingOutput<int64_t> output;
  EXPECT_EQ(DrainGenerator(*reader, output), InputStatus::kEndOfInput);
  auto snapshot = reader->SnapshotState(1);
  ASSERT_TRUE(snapshot.ok());
  ASSERT_EQ(snapshot->size(), 2u);
  EXPECT_EQ((*snapshot)[0].id, "generator-0-of-2");
  EXPECT_EQ((*snapshot)[0].state, "4");
  EXPECT_EQ((*snapshot)[1].id, "generator-1-of-2");
  EXPECT_EQ((*snapshot)[1].state, "5");

  // A reader restored from finished splits ends at once.
  auto restored = MakeGeneratorReader(*source, *snapshot);
  ASSERT_NE(restored, nullptr);
  CollectingOutput<int64_t> more;
  EXPECT_EQ(DrainGenerator(*restored, more), InputStatus::kEndOfInput);
  EXPECT_THAT(more.values, IsEmpty());
}

// Checkpoint mid-stream at parallelism 3, restore at parallelism 2: the
// outputs before and after the snapshot together are the whole sequence,
// once each.
TEST(GeneratorSourceTest, RestoreResumesRightAfterTheSnapshot) {
  GeneratorOptions options;
  options.count = 5000;
  options.max_records_per_poll = 333;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(3);
  ASSERT_TRUE(splits.ok());

  std::vector<int64_t> all;
  std::vector<Split> snapshot;
  for (int i = 0; i < 3; ++i) {
    auto reader = MakeGeneratorReader(*source, {(*splits)[i]}, 3);
    ASSERT_NE(reader, nullptr);
    CollectingOutput<int64_t> output;
    for (int poll = 0; poll < i + 1; ++poll) {  // Unequal progress.
      ASSERT_TRUE(reader->PollNext(output).ok());
    }
    auto state = reader->SnapshotState(7);
    ASSERT_TRUE(state.ok());
    snapshot.insert(snapshot.end(), state->begin(), state->end());
    // Records after the snapshot belong to the failed attempt: dropped.
    ASSERT_TRUE(reader->PollNext(output).ok());
    output.values.resize(333u * static_cast<size_t>(i + 1));
    all.insert(all.end(), output.values.begin(), output.values.end());
  }

  // Round-robin assignment to two readers, as the runtime does.
  std::vector<std::vector<Split>> assigned(2);
  for (size_t i = 0; i < snapshot.size(); ++i) {
    assigned[i % 2].push_back(snapshot[i]);
  }
  for (int i = 0; i < 2; ++i) {
    auto reader = MakeGeneratorReader(*source, assigned[i], 2);
    ASSERT_NE(reader, nullptr);
    CollectingOutput<int64_t> output;
    EXPECT_EQ(DrainGenerator(*reader, output), InputStatus::kEndOfInput);
    EXPECT_TRUE(std::is_sorted(output.values.begin(), output.values.end()));
    all.insert(all.end(), output.values.begin(), output.values.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Iota(0, 5000));
}

TEST(GeneratorSourceTest, UnboundedNeverEnds) {
  auto source = MakeGeneratorSource(GeneratorOptions{});
  ASSERT_NE(source, nullptr);
  EXPECT_FALSE(source->bounded());
  auto splits = source->PlanSplits(1);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeGeneratorReader(*source, *splits);
  ASSERT_NE(reader, nullptr);
  CollectingOutput<int64_t> output;
  for (int i = 0; i < 5; ++i) {
    auto result = reader->PollNext(output);
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->status, InputStatus::kMoreAvailable);
  }
  EXPECT_EQ(output.values, Iota(0, 5000));
}

TEST(GeneratorSourceTest, UnboundedStopsBeforeInt64Overflow) {
  auto source = MakeGeneratorSource(GeneratorOptions{});
  ASSERT_NE(source, nullptr);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // kMax is odd, so kMax - 4 is in split 1 of 2.
  auto reader = MakeGeneratorReader(
      *source, {Split{"generator-1-of-2", std::to_string(kMax - 4)}});
  ASSERT_NE(reader, nullptr);
  CollectingOutput<int64_t> output;
  EXPECT_EQ(DrainGenerator(*reader, output), InputStatus::kEndOfInput);
  EXPECT_THAT(output.values, ElementsAre(kMax - 4, kMax - 2));
}

TEST(GeneratorSourceTest, EmptySequenceEndsAtOnce) {
  GeneratorOptions options;
  options.count = 0;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(2);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeGeneratorReader(*source, *splits, 2);
  ASSERT_NE(reader, nullptr);
  CollectingOutput<int64_t> output;
  auto result = reader->PollNext(output);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, InputStatus::kEndOfInput);
  EXPECT_THAT(output.values, IsEmpty());
}

TEST(GeneratorSourceTest, RateIsSharedByTheReaders) {
  FakeClock clock;
  GeneratorOptions options;
  options.records_per_second = 10;  // 5 per second for each of 2 readers.
  options.clock = &clock;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(2);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeGeneratorReader(*source, {(*splits)[1]}, 2);
  ASSERT_NE(reader, nullptr);

  CollectingOutput<int64_t> output;
  auto first = reader->PollNext(output);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->status, InputStatus::kMoreAvailable);
  EXPECT_THAT(output.values, ElementsAre(1));

  auto ahead = reader->PollNext(output);
  ASSERT_TRUE(ahead.ok());
  EXPECT_EQ(ahead->status, InputStatus::kNothingAvailable);
  EXPECT_EQ(ahead->retry_after, absl::Milliseconds(200));
  EXPECT_EQ(output.values.size(), 1u);

  clock.Advance(ahead->retry_after);
  ASSERT_TRUE(reader->PollNext(output).ok());
  EXPECT_THAT(output.values, ElementsAre(1, 3));

  clock.Advance(absl::Seconds(1));
  ASSERT_TRUE(reader->PollNext(output).ok());
  EXPECT_EQ(output.values, Iota(1, 15, 2));
}

TEST(GeneratorSourceTest, RateLimitedBoundedSourceStillEnds) {
  FakeClock clock;
  GeneratorOptions options;
  options.count = 3;
  options.records_per_second = 1;
  options.clock = &clock;
  auto source = MakeGeneratorSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(1);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeGeneratorReader(*source, *splits);
  ASSERT_NE(reader, nullptr);
  CollectingOutput<int64_t> output;
  std::vector<InputStatus> statuses;
  for (int i = 0; i < 3; ++i) {
    auto result = reader->PollNext(output);
    ASSERT_TRUE(result.ok());
    statuses.push_back(result->status);
    clock.Advance(absl::Seconds(1));
  }
  EXPECT_THAT(statuses, ElementsAre(InputStatus::kMoreAvailable,
                                    InputStatus::kMoreAvailable,
                                    InputStatus::kEndOfInput));
  EXPECT_THAT(output.values, ElementsAre(0, 1, 2));
}

TEST(GeneratorSourceTest, CreateRefusesBadOptions) {
  auto identity = [](int64_t i) { return i; };
  GeneratorOptions count;
  count.count = -2;
  GeneratorOptions rate;
  rate.records_per_second = -1;
  GeneratorOptions poll;
  poll.max_records_per_poll = 0;
  GeneratorOptions clock;
  clock.clock = nullptr;
  for (const GeneratorOptions& options : {count, rate, poll, clock}) {
    EXPECT_EQ(GeneratorSource<int64_t>::Create("g", identity, options)
                  .status()
                  .code(),
              absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(GeneratorSource<int64_t>::Create("g", nullptr, GeneratorOptions{})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  auto source = MakeGeneratorSource(GeneratorOptions{});
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->PlanSplits(0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GeneratorSourceTest, CreateReaderRefusesForeignOrCorruptSplits) {
  auto source = MakeGeneratorSource(GeneratorOptions{});
  ASSERT_NE(source, nullptr);
  const std::vector<Split> bad = {
      {"/data/file.jsonl", "0"},    // Another source's split.
      {"generator-3-of-3", "3"},    // Offset outside [0, stride).
      {"generator-1-of-3", "abc"},  // State not a number.
      {"generator-1-of-3", "5"},    // Index of split 2.
      {"generator-1-of-3", "-2"},   // Before the split's start.
      {"generator-x-of-3", "1"},
  };
  for (const Split& split : bad) {
    auto reader = source->CreateReader(SourceReaderContext{}, {split});
    EXPECT_EQ(reader.status().code(), absl::StatusCode::kInvalidArgument)
        << split.id << " " << split.state;
    if (!reader.ok()) {
      EXPECT_THAT(std::string(reader.status().message()),
                  ::testing::HasSubstr(split.id));
    }
  }
}

}  // namespace
}  // namespace gcpstream::runtime
