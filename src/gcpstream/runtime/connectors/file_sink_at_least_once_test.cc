#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/runtime/connectors/file_sink.h"
#include "gcpstream/runtime/connectors/testing_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::IsEmpty;

// At-least-once file sink: one appended file per subtask, fsynced by Flush.

std::unique_ptr<FileSink<int>> MakeAtLeastOnceSink(const std::string& dir) {
  FileSinkOptions options;
  options.directory = dir;
  options.extension = "log";
  options.delivery = FileSinkDelivery::kAtLeastOnce;
  auto sink = FileSink<int>::Create(
      "out", [](const int& v) { return absl::StrCat(v); }, options);
  EXPECT_TRUE(sink.ok()) << sink.status();
  return sink.ok() ? *std::move(sink) : nullptr;
}

std::unique_ptr<SinkWriter<int>> MakeAtLeastOnceWriter(FileSink<int>& sink,
                                                       int subtask = 0) {
  SinkWriterContext context;
  context.subtask_index = subtask;
  context.parallelism = 2;
  auto writer = sink.CreateWriter(context);
  EXPECT_TRUE(writer.ok()) << writer.status();
  return writer.ok() ? *std::move(writer) : nullptr;
}

void WriteRangeAtLeastOnce(SinkWriter<int>& writer, int from, int to) {
  for (int i = from; i < to; ++i) {
    ASSERT_TRUE(writer.Write(i, WriterContext{}).ok());
  }
}

TEST(FileSinkAtLeastOnceTest, FlushWritesEverythingBeforeItAndNoCommitter) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeAtLeastOnceSink(dir);
  ASSERT_NE(sink, nullptr);
  EXPECT_EQ(sink->CreateCommitter(), nullptr);
  auto writer = MakeAtLeastOnceWriter(*sink, 1);
  ASSERT_NE(writer, nullptr);
  WriteRangeAtLeastOnce(*writer, 0, 3);
  EXPECT_EQ(ReadTestFile(dir + "/part-1.log"), "");  // Still buffered.
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(ReadTestFile(dir + "/part-1.log"), "0\n1\n2\n");
  auto committables = writer->PrepareCommit(1);
  ASSERT_TRUE(committables.ok());
  EXPECT_THAT(*committables, IsEmpty());
  WriteRangeAtLeastOnce(*writer, 3, 4);
  ASSERT_TRUE(writer->Flush(true).ok());
  EXPECT_EQ(ReadTestFile(dir + "/part-1.log"), "0\n1\n2\n3\n");
}

TEST(FileSinkAtLeastOnceTest, RestartAppends) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeAtLeastOnceSink(dir);
  ASSERT_NE(sink, nullptr);
  {
    auto writer = MakeAtLeastOnceWriter(*sink);
    ASSERT_NE(writer, nullptr);
    WriteRangeAtLeastOnce(*writer, 0, 2);
    ASSERT_TRUE(writer->Flush(false).ok());
    writer->Close();
  }
  auto writer = MakeAtLeastOnceWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRangeAtLeastOnce(*writer, 2, 4);
  ASSERT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(ReadTestFile(dir + "/part-0.log"), "0\n1\n2\n3\n");
}

TEST(FileSinkAtLeastOnceTest, PartialLastLineOfACrashIsCutOff) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeAtLeastOnceSink(dir);
  ASSERT_NE(sink, nullptr);
  WriteTestFile(dir + "/part-0.log", "0\n1\n2");
  // A partial line longer than the 64 KiB scan chunk, after whole lines.
  WriteTestFile(dir + "/part-1.log", "0\n" + std::string(200000, 'x'));
  auto zero = MakeAtLeastOnceWriter(*sink, 0);
  auto one = MakeAtLeastOnceWriter(*sink, 1);
  ASSERT_NE(zero, nullptr);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(ReadTestFile(dir + "/part-0.log"), "0\n1\n");
  EXPECT_EQ(ReadTestFile(dir + "/part-1.log"), "0\n");
  WriteRangeAtLeastOnce(*zero, 2, 3);
  ASSERT_TRUE(zero->Flush(false).ok());
  EXPECT_EQ(ReadTestFile(dir + "/part-0.log"), "0\n1\n2\n");

  WriteTestFile(dir + "/part-0.log", "no newline at all");
  auto again = MakeAtLeastOnceWriter(*sink, 0);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(ReadTestFile(dir + "/part-0.log"), "");
}

// Checkpoint 1 covers 0..9; 10..14 were written after it when the process
// died. The replay from checkpoint 1 writes 10..19: nothing is lost, and the
// only duplicates are from after the last complete checkpoint.
TEST(FileSinkAtLeastOnceTest, CrashReplayLosesNothing) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeAtLeastOnceSink(dir);
  ASSERT_NE(sink, nullptr);
  {
    auto writer = MakeAtLeastOnceWriter(*sink);
    ASSERT_NE(writer, nullptr);
    WriteRangeAtLeastOnce(*writer, 0, 10);
    ASSERT_TRUE(writer->Flush(false).ok());  // Checkpoint 1.
    WriteRangeAtLeastOnce(*writer, 10, 15);
    ASSERT_TRUE(writer->Flush(false).ok());
  }
  auto writer = MakeAtLeastOnceWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRangeAtLeastOnce(*writer, 10, 20);
  ASSERT_TRUE(writer->Flush(true).ok());

  std::map<int, int> seen;
  for (absl::string_view line :
       absl::StrSplit(ReadTestFile(dir + "/part-0.log"), '\n')) {
    if (line.empty()) continue;
    int value = 0;
    ASSERT_TRUE(absl::SimpleAtoi(line, &value)) << line;
    ++seen[value];
  }
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(seen[i], (i >= 10 && i < 15) ? 2 : 1) << i;
  }
  EXPECT_EQ(seen.size(), 20u);
}

}  // namespace
}  // namespace gcpstream::runtime
