#include "gcpstream/runtime/connectors/file_source.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gcpstream/runtime/connectors/collecting_output.h"
#include "gcpstream/runtime/connectors/testing_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<FileSource> MakeSource(FileSourceOptions options) {
  auto source = FileSource::Create("lines", std::move(options));
  EXPECT_TRUE(source.ok()) << source.status();
  return source.ok() ? *std::move(source) : nullptr;
}

std::unique_ptr<SourceReader<std::string>> MakeReader(
    FileSource& source, std::vector<Split> splits) {
  auto reader = source.CreateReader(SourceReaderContext{}, std::move(splits));
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *std::move(reader) : nullptr;
}

InputStatus Drain(SourceReader<std::string>& reader,
                  CollectingOutput<std::string>& output) {
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<PollResult> result = reader.PollNext(output);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return InputStatus::kNothingAvailable;
    if (result->status == InputStatus::kEndOfInput) return result->status;
  }
  return InputStatus::kMoreAvailable;
}

TEST(FileSourceTest, ReadsListedFilesInOrder) {
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/b.txt", "b1\nb2\n");
  WriteTestFile(dir + "/a.txt", "a1\n\na3");  // Last line without newline.
  FileSourceOptions options;
  options.paths = {dir + "/b.txt", dir + "/a.txt"};
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(source->bounded());
  auto splits = source->PlanSplits(4);
  ASSERT_TRUE(splits.ok());
  ASSERT_EQ(splits->size(), 2u);
  EXPECT_EQ((*splits)[0].id, dir + "/b.txt");
  EXPECT_EQ((*splits)[0].state, "0");

  auto reader = MakeReader(*source, *splits);
  ASSERT_NE(reader, nullptr);
  CollectingOutput<std::string> output;
  EXPECT_EQ(Drain(*reader, output), InputStatus::kEndOfInput);
  EXPECT_THAT(output.values, ElementsAre("b1", "b2", "a1", "", "a3"));

  auto snapshot = reader->SnapshotState(1);
  ASSERT_TRUE(snapshot.ok());
  ASSERT_EQ(snapshot->size(), 2u);
  EXPECT_EQ((*snapshot)[0].state, "6");
  EXPECT_EQ((*snapshot)[1].state, "6");
}

TEST(FileSourceTest, DirectoryWithSuffixInNameOrderSkippingHiddenFiles) {
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/2.jsonl", "two\n");
  WriteTestFile(dir + "/1.jsonl", "one\n");
  WriteTestFile(dir + "/3.txt", "not me\n");
  WriteTestFile(dir + "/.hidden.jsonl", "nor me\n");
  std::filesystem::create_directories(dir + "/sub.jsonl");
  FileSourceOptions options;
  options.directory = dir;
  options.suffix = ".jsonl";
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(1);
  ASSERT_TRUE(splits.ok()) << splits.status();
  ASSERT_EQ(splits->size(), 2u);
  EXPECT_EQ((*splits)[0].id, dir + "/1.jsonl");
  EXPECT_EQ((*splits)[1].id, dir + "/2.jsonl");
  auto reader = MakeReader(*source, *splits);
  ASSERT_NE(reader, nullptr);
  CollectingOutput<std::string> output;
  EXPECT_EQ(Drain(*reader, output), InputStatus::kEndOfInput);
  EXPECT_THAT(output.values, ElementsAre("one", "two"));
}

TEST(FileSourceTest, MissingDirectoryIsAnErrorNamingIt) {
  FileSourceOptions options;
  options.directory = FreshTestDirectory() + "/nope";
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(1);
  EXPECT_EQ(splits.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(splits.status().message()),
              HasSubstr(options.directory));
}

TEST(FileSourceTest, MissingFileIsAnErrorNamingThePath) {
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/a.txt", "a\n");
  FileSourceOptions options;
  options.paths = {dir + "/a.txt", dir + "/gone.txt"};
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  auto splits = source->PlanSplits(1);
  ASSERT_TRUE(splits.ok());
  auto reader = MakeReader(*source, *splits);
  ASSERT_NE(reader, nullptr);
  CollectingOutput<std::string> output;
  absl::StatusOr<PollResult> result = reader->PollNext(output);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr(dir + "/gone.txt"));
  // Records of the readable file before it were emitted.
  EXPECT_THAT(output.values, ElementsAre("a"));
}

TEST(FileSourceTest, ADirectoryInPlaceOfAFileIsAnErrorNamingIt) {
  const std::string dir = FreshTestDirectory();
  std::filesystem::create_directories(dir + "/not-a-file");
  FileSourceOptions options;
  options.paths = {dir + "/not-a-file"};
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  auto reader = MakeReader(*source, source->PlanSplits(1).value());
  ASSERT_NE(reader, nullptr);
  CollectingOutput<std::string> output;
  absl::StatusOr<PollResult> result = reader->PollNext(output);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr(dir + "/not-a-file"));
}

TEST(FileSourceTest, UnreadableFileIsAnErrorNamingThePath) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/secret.txt", "a\n");
  std::filesystem::permissions(dir + "/secret.txt",
                               std::filesystem::perms::none);
  FileSourceOptions options;
  options.paths = {dir + "/secret.txt"};
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  auto reader = MakeReader(*source, source->PlanSplits(1).value());
  ASSERT_NE(reader, nullptr);
  CollectingOutput<std::string> output;
  absl::StatusOr<PollResult> result = reader->PollNext(output);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr(dir + "/secret.txt"));
}

TEST(FileSourceTest, PollReadsAtMostMaxLines) {
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/a.txt", "1\n2\n3\n4\n5\n");
  FileSourceOptions options;
  options.paths = {dir + "/a.txt"};
  options.max_lines_per_poll = 2;
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  auto reader = MakeReader(*source, source->PlanSplits(1).value());
  ASSERT_NE(reader, nullptr);
  CollectingOutput<std::string> output;
  auto first = reader->PollNext(output);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->status, InputStatus::kMoreAvailable);
  EXPECT_THAT(output.values, ElementsAre("1", "2"));
}

// Snapshot after every poll and restore a fresh reader from each snapshot:
// what the first reader emitted before the snapshot plus what the restored
// reader emits is every line exactly once.
TEST(FileSourceTest, RestoreFromAnySnapshotResumesAtTheNextLine) {
  const std::string dir = FreshTestDirectory();
  std::vector<std::string> expected;
  for (int file = 0; file < 3; ++file) {
    std::string text;
    for (int line = 0; line < 7; ++line) {
      expected.push_back(absl::StrCat("file", file, "-line", line));
      text += expected.back() + "\n";
    }
    WriteTestFile(absl::StrCat(dir, "/", file, ".txt"), text);
  }
  FileSourceOptions options;
  options.directory = dir;
  options.max_lines_per_poll = 3;
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  auto reader = MakeReader(*source, source->PlanSplits(1).value());
  ASSERT_NE(reader, nullptr);

  CollectingOutput<std::string> before;
  for (int poll = 0; poll < 10; ++poll) {
    auto snapshot = reader->SnapshotState(poll);
    ASSERT_TRUE(snapshot.ok());
    // Restore with the splits spread over two readers.
    std::vector<std::string> all = before.values;
    for (int part = 0; part < 2; ++part) {
      std::vector<Split> mine;
      for (size_t i = part; i < snapshot->size(); i += 2) {
        mine.push_back((*snapshot)[i]);
      }
      auto restored = MakeReader(*source, mine);
      ASSERT_NE(restored, nullptr);
      CollectingOutput<std::string> after;
      EXPECT_EQ(Drain(*restored, after), InputStatus::kEndOfInput);
      all.insert(all.end(), after.values.begin(), after.values.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, expected) << "after poll " << poll;
    ASSERT_TRUE(reader->PollNext(before).ok());
  }
}

TEST(FileSourceTest, RestoreRefusesAFileThatChanged) {
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/a.txt", "abc\ndef\n");
  FileSourceOptions options;
  options.paths = {dir + "/a.txt"};
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  WriteTestFile(dir + "/a.txt", "abcdef\n");
  auto reader = MakeReader(*source, {Split{dir + "/a.txt", "4"}});
  ASSERT_NE(reader, nullptr);
  CollectingOutput<std::string> output;
  auto result = reader->PollNext(output);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("a.txt"));
}

TEST(FileSourceTest, CreateRefusesBadOptions) {
  FileSourceOptions neither;
  FileSourceOptions both;
  both.paths = {"/a"};
  both.directory = "/d";
  FileSourceOptions twice;
  twice.paths = {"/a", "/a"};
  FileSourceOptions empty_path;
  empty_path.paths = {""};
  FileSourceOptions poll;
  poll.paths = {"/a"};
  poll.max_lines_per_poll = 0;
  for (const FileSourceOptions& options :
       {neither, both, twice, empty_path, poll}) {
    EXPECT_EQ(FileSource::Create("s", options).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(FileSourceTest, CreateReaderRefusesACorruptSplit) {
  FileSourceOptions options;
  options.paths = {"/a"};
  auto source = MakeSource(options);
  ASSERT_NE(source, nullptr);
  for (const Split& split :
       {Split{"/a", "x"}, Split{"/a", "-1"}, Split{"", "0"}}) {
    EXPECT_EQ(
        source->CreateReader(SourceReaderContext{}, {split}).status().code(),
        absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace gcpstream::runtime
