#include "gcpstream/runtime/connectors/file_committer.h"

#include <string>
#include <vector>

#include "gcpstream/runtime/connectors/file_committable.h"
#include "gcpstream/runtime/connectors/testing_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::HasSubstr;

TEST(FileCommittableTest, RoundTrips) {
  const FileCommittable committable{"/d/.inprogress/a \"b\".tmp",
                                    "/d/part-0-1-0.txt"};
  absl::StatusOr<FileCommittable> back =
      FileCommittable::Decode(committable.Encode());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->temp_path, committable.temp_path);
  EXPECT_EQ(back->final_path, committable.final_path);
}

TEST(FileCommittableTest, DecodeRefusesAnythingElse) {
  for (const char* text :
       {"", "not json", "[]", "{}", R"({"temp":"/a"})",
        R"({"temp":"/a","final":3})", R"({"temp":"","final":"/b"})"}) {
    EXPECT_EQ(FileCommittable::Decode(text).status().code(),
              absl::StatusCode::kInvalidArgument)
        << text;
  }
}

TEST(FileCommitterTest, RenamesAndIsIdempotent) {
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/a.tmp", "a\n");
  WriteTestFile(dir + "/b.tmp", "b\n");
  const std::vector<std::string> committables = {
      FileCommittable{dir + "/a.tmp", dir + "/a.txt"}.Encode(),
      FileCommittable{dir + "/b.tmp", dir + "/b.txt"}.Encode()};
  FileCommitter committer;
  ASSERT_TRUE(committer.Commit(1, committables).ok());
  EXPECT_EQ(ReadTestFile(dir + "/a.txt"), "a\n");
  EXPECT_EQ(ReadTestFile(dir + "/b.txt"), "b\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/a.tmp"));
  ASSERT_TRUE(committer.Commit(1, committables).ok());
  EXPECT_EQ(ReadTestFile(dir + "/a.txt"), "a\n");
}

TEST(FileCommitterTest, PartlyDoneCommitCompletes) {
  // A crash after the first of two renames.
  const std::string dir = FreshTestDirectory();
  WriteTestFile(dir + "/a.txt", "a\n");
  WriteTestFile(dir + "/b.tmp", "b\n");
  FileCommitter committer;
  ASSERT_TRUE(
      committer
          .Commit(1, {FileCommittable{dir + "/a.tmp", dir + "/a.txt"}.Encode(),
                      FileCommittable{dir + "/b.tmp", dir + "/b.txt"}.Encode()})
          .ok());
  EXPECT_EQ(ReadTestFile(dir + "/b.txt"), "b\n");
}

TEST(FileCommitterTest, EmptyListIsOk) {
  EXPECT_TRUE(FileCommitter().Commit(1, {}).ok());
}

TEST(FileCommitterTest, MalformedCommittableIsAnError) {
  absl::Status status = FileCommitter().Commit(1, {"garbage"});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("garbage"));
}

}  // namespace
}  // namespace gcpstream::runtime
