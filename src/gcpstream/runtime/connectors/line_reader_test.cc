#include "gcpstream/runtime/connectors/line_reader.h"

#include <string>
#include <vector>

#include "gcpstream/runtime/connectors/testing_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Read {
  std::vector<std::string> lines;
  std::vector<int64_t> offsets;  // After each line.
};

Read ReadAll(const std::string& path, int64_t offset = 0) {
  Read read;
  absl::StatusOr<LineReader> reader = LineReader::Open(path, offset);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return read;
  std::string line;
  while (true) {
    absl::StatusOr<bool> more = reader->Next(line);
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) break;
    read.lines.push_back(line);
    read.offsets.push_back(reader->offset());
  }
  return read;
}

TEST(LineReaderTest, LinesAndOffsets) {
  const std::string path = FreshTestDirectory() + "/a.txt";
  WriteTestFile(path, "one\n\nthree\r\nlast");
  const Read read = ReadAll(path);
  EXPECT_THAT(read.lines, ElementsAre("one", "", "three", "last"));
  EXPECT_THAT(read.offsets, ElementsAre(4, 5, 12, 16));
}

TEST(LineReaderTest, TrailingNewlineMakesNoEmptyLastLine) {
  const std::string path = FreshTestDirectory() + "/a.txt";
  WriteTestFile(path, "a\nb\n");
  EXPECT_THAT(ReadAll(path).lines, ElementsAre("a", "b"));
  WriteTestFile(path, "");
  EXPECT_TRUE(ReadAll(path).lines.empty());
}

TEST(LineReaderTest, ResumesAtAnOffset) {
  const std::string path = FreshTestDirectory() + "/a.txt";
  WriteTestFile(path, "one\ntwo\nthree\n");
  EXPECT_THAT(ReadAll(path, 4).lines, ElementsAre("two", "three"));
  EXPECT_TRUE(ReadAll(path, 14).lines.empty());
}

TEST(LineReaderTest, LinesLongerThanTheBufferAndSplitTerminators) {
  const std::string path = FreshTestDirectory() + "/long.txt";
  // Lines around the 64 KiB chunk size, so "\r\n" and line ends fall on
  // chunk boundaries.
  std::vector<std::string> expected;
  std::string text;
  for (size_t length : {65535u, 65534u, 1u, 200000u, 0u, 65536u}) {
    expected.emplace_back(length, 'x');
    text += expected.back() + "\r\n";
  }
  WriteTestFile(path, text);
  const Read read = ReadAll(path);
  EXPECT_EQ(read.lines, expected);
  ASSERT_FALSE(read.offsets.empty());
  EXPECT_EQ(read.offsets.back(), static_cast<int64_t>(text.size()));
}

// A line over the limit is passed over, never held whole: the reader's
// blocks stay near the limit however long the line is.
TEST(LineReaderTest, LinesOverTheLimitArePassedOverAndMeasured) {
  const std::string path = FreshTestDirectory() + "/long.txt";
  const std::string huge(5'000'000, 'x');
  WriteTestFile(path, "short\n" + huge + "\nmid\n" + std::string(101, 'y') +
                          "\r\n" + std::string(100, 'z') + "\n" + huge);
  absl::StatusOr<LineReader> reader =
      LineReader::Open(path, 0, /*max_line_bytes=*/100);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> lines;
  std::vector<int64_t> oversized;
  std::vector<int64_t> starts;
  std::string line;
  while (true) {
    absl::StatusOr<bool> more = reader->Next(line);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    lines.push_back(line);
    oversized.push_back(reader->oversized_line_bytes());
    starts.push_back(reader->line_start());
  }
  EXPECT_THAT(lines,
              ElementsAre("short", "", "mid", "", std::string(100, 'z'), ""));
  EXPECT_THAT(oversized, ElementsAre(0, 5'000'000, 0, 101, 0, 5'000'000));
  EXPECT_THAT(starts,
              ElementsAre(0, 6, 5'000'007, 5'000'011, 5'000'114, 5'000'215));
  EXPECT_EQ(reader->offset(), 10'000'215);
}

TEST(LineReaderTest, RefusesAnOffsetThatIsNotALineStart) {
  const std::string path = FreshTestDirectory() + "/a.txt";
  WriteTestFile(path, "one\ntwo\n");
  absl::StatusOr<LineReader> mid = LineReader::Open(path, 2);
  EXPECT_EQ(mid.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(mid.status().message()), HasSubstr(path));
  absl::StatusOr<LineReader> past = LineReader::Open(path, 9);
  EXPECT_EQ(past.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(LineReaderTest, MissingFileIsNotFoundNamingThePath) {
  const std::string path = FreshTestDirectory() + "/missing.txt";
  absl::StatusOr<LineReader> reader = LineReader::Open(path, 0);
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr(path));
}

TEST(LineReaderTest, LineNumberAtCountsFromTheFileStart) {
  const std::string path = FreshTestDirectory() + "/a.txt";
  WriteTestFile(path, "a\nb\nc\nd\n");
  absl::StatusOr<LineReader> reader = LineReader::Open(path, 4);
  ASSERT_TRUE(reader.ok());
  std::string line;
  ASSERT_TRUE(reader->Next(line).value());
  EXPECT_EQ(line, "c");
  EXPECT_EQ(reader->line_start(), 4);
  EXPECT_EQ(reader->LineNumberAt(reader->line_start()).value(), 3);
  EXPECT_EQ(reader->LineNumberAt(0).value(), 1);
}

// Lines handed out as PaddedBytes share read blocks; a block is reused only
// once no line holds it, so kept lines never change, whether all are kept
// or most are let go while reading on (which lets blocks be reused).
TEST(LineReaderTest, SharedLinesStayIntactAcrossBlocks) {
  const std::string path = FreshTestDirectory() + "/big.txt";
  std::string text;
  std::vector<std::string> expected;
  for (int i = 0; text.size() < (size_t{5} << 20); ++i) {
    expected.push_back(std::to_string(i) + ":" +
                       std::string(static_cast<size_t>(i % 3000),
                                   static_cast<char>('a' + i % 26)));
    text += expected.back() + "\n";
  }
  WriteTestFile(path, text);
  for (const bool keep_all : {true, false}) {
    absl::StatusOr<LineReader> reader = LineReader::Open(path, 0);
    ASSERT_TRUE(reader.ok()) << reader.status();
    std::vector<json::PaddedBytes> kept;
    size_t read = 0;
    json::PaddedBytes line;
    while (true) {
      absl::StatusOr<bool> more = reader->Next(line);
      ASSERT_TRUE(more.ok()) << more.status();
      if (!*more) break;
      ASSERT_EQ(line.view(), expected[read]) << read;
      if (keep_all || read % 1000 == 0) kept.push_back(line);
      ++read;
    }
    ASSERT_EQ(read, expected.size());
    for (size_t i = 0; i < kept.size(); ++i) {
      const size_t index = keep_all ? i : i * 1000;
      EXPECT_EQ(kept[i].view(), expected[index]) << index;
    }
  }
}

}  // namespace
}  // namespace gcpstream::runtime
