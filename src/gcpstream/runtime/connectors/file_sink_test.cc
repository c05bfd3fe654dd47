#include "gcpstream/runtime/connectors/file_sink.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/runtime/connectors/file_committable.h"
#include "gcpstream/runtime/connectors/testing_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// Exactly-once file sink: writer, PrepareCommit and committer driven
// directly, the way the runtime calls them.

std::unique_ptr<FileSink<int>> MakeSink(const std::string& dir,
                                        int64_t max_file_bytes = 0) {
  FileSinkOptions options;
  options.directory = dir;
  options.max_file_bytes = max_file_bytes;
  auto sink = FileSink<int>::Create(
      "out", [](const int& v) { return absl::StrCat("record-", v); }, options);
  EXPECT_TRUE(sink.ok()) << sink.status();
  return sink.ok() ? *std::move(sink) : nullptr;
}

std::unique_ptr<SinkWriter<int>> MakeWriter(FileSink<int>& sink,
                                            int subtask = 0,
                                            int parallelism = 1) {
  SinkWriterContext context;
  context.subtask_index = subtask;
  context.parallelism = parallelism;
  auto writer = sink.CreateWriter(context);
  EXPECT_TRUE(writer.ok()) << writer.status();
  return writer.ok() ? *std::move(writer) : nullptr;
}

void WriteRange(SinkWriter<int>& writer, int from, int to) {
  for (int i = from; i < to; ++i) {
    ASSERT_TRUE(writer.Write(i, WriterContext{}).ok());
  }
}

// A checkpoint as the runtime takes it: Flush, SnapshotState, PrepareCommit.
std::vector<std::string> Checkpoint(SinkWriter<int>& writer, int64_t id) {
  EXPECT_TRUE(writer.Flush(false).ok());
  EXPECT_TRUE(writer.SnapshotState(id).ok());
  auto committables = writer.PrepareCommit(id);
  EXPECT_TRUE(committables.ok()) << committables.status();
  return committables.ok() ? *committables : std::vector<std::string>();
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> StagingFiles(const std::string& dir) {
  return Names(dir + "/.inprogress");
}

// Every line of every committed file.
std::vector<std::string> CommittedLines(const std::string& dir) {
  std::vector<std::string> lines;
  for (const std::string& name : Names(dir)) {
    if (name.front() == '.') continue;
    const std::string text = ReadTestFile(absl::StrCat(dir, "/", name));
    EXPECT_TRUE(text.empty() || text.back() == '\n') << name;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (!line.empty()) lines.emplace_back(line);
    }
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::vector<std::string> Records(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back(absl::StrCat("record-", i));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FileSinkTest, DeliverySpellings) {
  EXPECT_TRUE(kFileSinkDeliveryOption.CheckSpellings().ok());
  EXPECT_EQ(kFileSinkDeliveryOption.Parse("At-Least-Once").value(),
            FileSinkDelivery::kAtLeastOnce);
  EXPECT_THAT(
      std::string(kFileSinkDeliveryOption.Parse("once").status().message()),
      HasSubstr("delivery"));
}

TEST(FileSinkTest, WritePrepareCommitReadBack) {
  const std::string dir = FreshTestDirectory() + "/out";
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 0, 3);
  const std::vector<std::string> committables = Checkpoint(*writer, 1);
  ASSERT_THAT(committables, SizeIs(1));
  // Staged, not visible.
  EXPECT_THAT(Names(dir), ElementsAre(".inprogress"));
  EXPECT_THAT(StagingFiles(dir), SizeIs(1));

  auto committer = sink->CreateCommitter();
  ASSERT_NE(committer, nullptr);
  ASSERT_TRUE(committer->Commit(1, committables).ok());
  EXPECT_THAT(Names(dir), ElementsAre(".inprogress", "part-0-1-0.txt"));
  EXPECT_EQ(ReadTestFile(dir + "/part-0-1-0.txt"),
            "record-0\nrecord-1\nrecord-2\n");
  EXPECT_THAT(StagingFiles(dir), IsEmpty());
}

TEST(FileSinkTest, EachCheckpointGetsItsOwnFiles) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink, 1, 2);
  ASSERT_NE(writer, nullptr);
  auto committer = sink->CreateCommitter();
  WriteRange(*writer, 0, 2);
  const auto first = Checkpoint(*writer, 5);
  // A checkpoint without records stages nothing.
  EXPECT_THAT(Checkpoint(*writer, 6), IsEmpty());
  WriteRange(*writer, 2, 3);
  const auto third = Checkpoint(*writer, 7);
  ASSERT_TRUE(committer->Commit(5, first).ok());
  ASSERT_TRUE(committer->Commit(7, third).ok());
  EXPECT_EQ(ReadTestFile(dir + "/part-1-5-0.txt"), "record-0\nrecord-1\n");
  EXPECT_EQ(ReadTestFile(dir + "/part-1-7-0.txt"), "record-2\n");
  EXPECT_THAT(Names(dir), SizeIs(3));
}

TEST(FileSinkTest, CommitTwiceIsIdempotent) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 0, 10);
  const auto committables = Checkpoint(*writer, 1);
  auto committer = sink->CreateCommitter();
  ASSERT_TRUE(committer->Commit(1, committables).ok());
  // A new committer, as after a process restart.
  ASSERT_TRUE(sink->CreateCommitter()->Commit(1, committables).ok());
  EXPECT_EQ(CommittedLines(dir), Records(0, 10));
}

TEST(FileSinkTest, CommitWithNeitherFileIsDataLossNamingBoth) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 0, 1);
  const auto committables = Checkpoint(*writer, 1);
  ASSERT_THAT(committables, SizeIs(1));
  const FileCommittable committable =
      FileCommittable::Decode(committables[0]).value();
  std::filesystem::remove(committable.temp_path);
  absl::Status status = sink->CreateCommitter()->Commit(1, committables);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()), HasSubstr(committable.temp_path));
  EXPECT_THAT(std::string(status.message()), HasSubstr(committable.final_path));
}

TEST(FileSinkTest, CommitNeverOverwritesAnotherFinalFile) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 0, 1);
  const auto committables = Checkpoint(*writer, 1);
  WriteTestFile(dir + "/part-0-1-0.txt", "someone else's\n");
  absl::Status status = sink->CreateCommitter()->Commit(1, committables);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("part-0-1-0.txt"));
  EXPECT_EQ(ReadTestFile(dir + "/part-0-1-0.txt"), "someone else's\n");
}

// The process dies after checkpoint 1 is durable, before its commit, with
// more records staged after it. The restart commits checkpoint 1, creates a
// writer (which deletes the stale staging file) and replays from the
// checkpoint; a second re-commit of checkpoint 1 changes nothing.
TEST(FileSinkTest, CrashBetweenDurableAndCommitLosesAndRepeatsNothing) {
  const std::string dir = FreshTestDirectory();
  std::vector<std::string> checkpoint1;
  {
    auto sink = MakeSink(dir);
    ASSERT_NE(sink, nullptr);
    auto writer = MakeWriter(*sink);
    ASSERT_NE(writer, nullptr);
    WriteRange(*writer, 0, 10);
    checkpoint1 = Checkpoint(*writer, 1);
    WriteRange(*writer, 10, 15);
    ASSERT_TRUE(writer->Flush(false).ok());
    // Crash: no Close(), no commit.
  }
  ASSERT_THAT(StagingFiles(dir), SizeIs(2));

  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(sink->CreateCommitter()->Commit(1, checkpoint1).ok());
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  EXPECT_THAT(StagingFiles(dir), IsEmpty());  // Records 10..14 dropped.
  WriteRange(*writer, 10, 20);                // Replayed from checkpoint 1.
  const auto checkpoint2 = Checkpoint(*writer, 2);
  ASSERT_TRUE(sink->CreateCommitter()->Commit(2, checkpoint2).ok());
  ASSERT_TRUE(sink->CreateCommitter()->Commit(1, checkpoint1).ok());
  EXPECT_EQ(CommittedLines(dir), Records(0, 20));
}

// The same crash, but after the commit of checkpoint 1 had completed (and
// before anyone recorded that): re-committing finds the files in place.
TEST(FileSinkTest, CrashAfterCommitThenRecommitIsANoOp) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  std::vector<std::string> checkpoint1;
  {
    auto writer = MakeWriter(*sink);
    ASSERT_NE(writer, nullptr);
    WriteRange(*writer, 0, 10);
    checkpoint1 = Checkpoint(*writer, 1);
    ASSERT_TRUE(sink->CreateCommitter()->Commit(1, checkpoint1).ok());
    WriteRange(*writer, 10, 12);
    ASSERT_TRUE(writer->Flush(false).ok());
  }
  ASSERT_TRUE(sink->CreateCommitter()->Commit(1, checkpoint1).ok());
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 10, 20);
  ASSERT_TRUE(sink->CreateCommitter()->Commit(2, Checkpoint(*writer, 2)).ok());
  EXPECT_EQ(CommittedLines(dir), Records(0, 20));
}

TEST(FileSinkTest, NewWriterDeletesOnlyItsOwnStaleStagingFiles) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  {
    auto zero = MakeWriter(*sink, 0, 2);
    auto one = MakeWriter(*sink, 1, 2);
    ASSERT_NE(zero, nullptr);
    ASSERT_NE(one, nullptr);
    WriteRange(*zero, 0, 3);
    WriteRange(*one, 3, 6);
    ASSERT_TRUE(zero->Flush(false).ok());
    ASSERT_TRUE(one->Flush(false).ok());
  }
  ASSERT_THAT(StagingFiles(dir), SizeIs(2));
  auto one = MakeWriter(*sink, 1, 2);
  ASSERT_NE(one, nullptr);
  const std::vector<std::string> left = StagingFiles(dir);
  ASSERT_THAT(left, SizeIs(1));
  EXPECT_THAT(left[0], ::testing::StartsWith("part-0-"));
}

TEST(FileSinkTest, SubtaskZeroDeletesStagingFilesOfVanishedSubtasks) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  {
    for (int subtask = 0; subtask < 12; ++subtask) {
      auto writer = MakeWriter(*sink, subtask, 12);
      ASSERT_NE(writer, nullptr);
      WriteRange(*writer, subtask, subtask + 1);
      ASSERT_TRUE(writer->Flush(false).ok());
    }
  }
  WriteTestFile(dir + "/.inprogress/unrelated.tmp", "x");
  // Restart at parallelism 2: subtask 0 removes its own and those of 2..11;
  // subtask 1's stays for subtask 1 (part-1- must not match part-10-/11-).
  auto zero = MakeWriter(*sink, 0, 2);
  ASSERT_NE(zero, nullptr);
  const std::vector<std::string> left = StagingFiles(dir);
  ASSERT_THAT(left, SizeIs(2));
  EXPECT_THAT(left[0], ::testing::StartsWith("part-1-"));
  EXPECT_EQ(left[1], "unrelated.tmp");
}

TEST(FileSinkTest, CloseDeletesUnpreparedStagingFilesOnly) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 0, 2);
  const auto committables = Checkpoint(*writer, 1);
  WriteRange(*writer, 2, 4);
  ASSERT_TRUE(writer->Flush(false).ok());
  ASSERT_THAT(StagingFiles(dir), SizeIs(2));
  writer->Close();
  ASSERT_THAT(StagingFiles(dir), SizeIs(1));
  ASSERT_TRUE(sink->CreateCommitter()->Commit(1, committables).ok());
  EXPECT_EQ(CommittedLines(dir), Records(0, 2));
}

TEST(FileSinkTest, RollsToANewPartFileAtMaxFileBytes) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir, /*max_file_bytes=*/25);  // "record-N\n" is 9.
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 0, 7);
  const auto committables = Checkpoint(*writer, 3);
  ASSERT_THAT(committables, SizeIs(3));
  ASSERT_TRUE(sink->CreateCommitter()->Commit(3, committables).ok());
  EXPECT_EQ(ReadTestFile(dir + "/part-0-3-0.txt"),
            "record-0\nrecord-1\nrecord-2\n");
  EXPECT_EQ(ReadTestFile(dir + "/part-0-3-1.txt"),
            "record-3\nrecord-4\nrecord-5\n");
  EXPECT_EQ(ReadTestFile(dir + "/part-0-3-2.txt"), "record-6\n");
}

TEST(FileSinkTest, ManyRecordsAcrossWriteChunks) {
  const std::string dir = FreshTestDirectory();
  auto sink = MakeSink(dir);
  ASSERT_NE(sink, nullptr);
  auto writer = MakeWriter(*sink);
  ASSERT_NE(writer, nullptr);
  WriteRange(*writer, 0, 100000);  // ~1.2 MB, several write chunks.
  ASSERT_TRUE(sink->CreateCommitter()->Commit(1, Checkpoint(*writer, 1)).ok());
  EXPECT_EQ(CommittedLines(dir), Records(0, 100000));
}

TEST(FileSinkTest, RecordWithANewlineIsRefusedWithItsPosition) {
  FileSinkOptions options;
  options.directory = FreshTestDirectory();
  auto sink = FileSink<std::string>::Create(
      "out", [](const std::string& s) { return s; }, options);
  ASSERT_TRUE(sink.ok());
  auto writer = (*sink)->CreateWriter(SinkWriterContext{});
  ASSERT_TRUE(writer.ok());
  WriterContext context;
  context.record_position = 17;
  absl::Status status = (*writer)->Write("two\nlines", context);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("17"));
}

TEST(FileSinkTest, CreateRefusesBadOptions) {
  auto serializer = [](const int& v) { return absl::StrCat(v); };
  FileSinkOptions no_dir;
  FileSinkOptions bad_utf8;
  bad_utf8.directory = "/tmp/\xff";
  FileSinkOptions bad_ext;
  bad_ext.directory = "/tmp/x";
  bad_ext.extension = "a/b";
  FileSinkOptions dot_ext;
  dot_ext.directory = "/tmp/x";
  dot_ext.extension = ".txt";
  FileSinkOptions negative;
  negative.directory = "/tmp/x";
  negative.max_file_bytes = -1;
  for (const FileSinkOptions& options :
       {no_dir, bad_utf8, bad_ext, dot_ext, negative}) {
    EXPECT_EQ(FileSink<int>::Create("s", serializer, options).status().code(),
              absl::StatusCode::kInvalidArgument)
        << options.directory << " " << options.extension;
  }
  FileSinkOptions fine;
  fine.directory = "/tmp/x";
  EXPECT_EQ(FileSink<int>::Create("s", nullptr, fine).status().code(),
            absl::StatusCode::kInvalidArgument);

  auto sink = MakeSink(FreshTestDirectory());
  ASSERT_NE(sink, nullptr);
  SinkWriterContext out_of_range;
  out_of_range.subtask_index = 2;
  out_of_range.parallelism = 2;
  EXPECT_EQ(sink->CreateWriter(out_of_range).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gcpstream::runtime
