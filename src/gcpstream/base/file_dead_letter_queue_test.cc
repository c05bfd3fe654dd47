#include "gcpstream/base/file_dead_letter_queue.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gcpstream/base/failure_handler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace gcpstream {
namespace {

using ::testing::HasSubstr;

class FileDeadLetterQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        ::testing::TempDir() + "/dlq-" + std::to_string(getpid()) + "-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  static std::vector<nlohmann::json> ReadLines(const std::string& path) {
    std::vector<nlohmann::json> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      lines.push_back(nlohmann::json::parse(line));
    }
    return lines;
  }

  static FailedElement Failure(const std::string& payload) {
    FailedElement failure;
    failure.connector = "bigtable";
    failure.destination = "projects/p/instances/i/tables/t";
    failure.status = absl::InvalidArgumentError("bad \xff family");
    failure.attempts = 1;
    failure.failure_time = absl::FromUnixSeconds(1'800'000'000);
    failure.subtask_index = 1;
    failure.payload = payload;
    failure.attributes = {{"origin", "sensor-9"}};
    return failure;
  }

  std::string directory_;
};

TEST_F(FileDeadLetterQueueTest, FlushMakesEveryOfferedFailureDurable) {
  FileDeadLetterQueue queue(directory_);
  ASSERT_TRUE(queue.Open({.subtask_index = 1, .connector = "bigtable"}).ok());
  EXPECT_EQ(queue.path(), directory_ + "/dead-letters-bigtable-1.jsonl");
  const std::string binary("\x00\x01\xfe payload", 11);
  ASSERT_TRUE(queue.Offer(Failure(binary)).ok());
  ASSERT_TRUE(queue.Offer(Failure("second")).ok());
  // Buffered until the checkpoint's flush.
  EXPECT_TRUE(ReadLines(queue.path()).empty());
  ASSERT_TRUE(queue.Flush().ok());

  auto lines = ReadLines(queue.path());
  ASSERT_EQ(lines.size(), 2u);
  std::string decoded;
  ASSERT_TRUE(absl::Base64Unescape(
      lines[0]["payload_base64"].get<std::string>(), &decoded));
  EXPECT_EQ(decoded, binary);
  EXPECT_EQ(lines[0]["connector"], "bigtable");
  EXPECT_EQ(lines[0]["destination"], "projects/p/instances/i/tables/t");
  EXPECT_EQ(lines[0]["error_code"], "INVALID_ARGUMENT");
  EXPECT_THAT(lines[0]["error"].get<std::string>(), HasSubstr("family"));
  EXPECT_EQ(lines[0]["attempts"], 1);
  EXPECT_EQ(lines[0]["subtask"], 1);
  EXPECT_EQ(lines[0]["timestamp"], "2027-01-15T08:00:00.000Z");
  EXPECT_EQ(lines[0]["attributes"]["origin"], "sensor-9");
  EXPECT_EQ(lines[0]["dlq_attributes"]["dlq-error-code"], "INVALID_ARGUMENT");
}

TEST_F(FileDeadLetterQueueTest, ReopeningAppendsAcrossRestarts) {
  {
    FileDeadLetterQueue queue(directory_);
    ASSERT_TRUE(queue.Open({.connector = "pubsub"}).ok());
    ASSERT_TRUE(queue.Offer(Failure("one")).ok());
    ASSERT_TRUE(queue.Flush().ok());
  }
  FileDeadLetterQueue queue(directory_);
  ASSERT_TRUE(queue.Open({.connector = "pubsub"}).ok());
  ASSERT_TRUE(queue.Offer(Failure("two")).ok());
  ASSERT_TRUE(queue.Flush().ok());
  EXPECT_EQ(ReadLines(queue.path()).size(), 2u);
}

TEST_F(FileDeadLetterQueueTest, MissingPayloadIsNull) {
  FileDeadLetterQueue queue(directory_);
  ASSERT_TRUE(queue.Open({.connector = "pubsub"}).ok());
  FailedElement failure = Failure("");
  failure.payload.reset();
  ASSERT_TRUE(queue.Offer(failure).ok());
  ASSERT_TRUE(queue.Flush().ok());
  EXPECT_TRUE(ReadLines(queue.path())[0]["payload_base64"].is_null());
}

TEST_F(FileDeadLetterQueueTest, UsableAsTheFailureHandlersQueue) {
  auto handler = SendToDeadLetterQueue<FailedElement>(
      std::make_unique<FileDeadLetterQueue>(directory_));
  ASSERT_TRUE(handler->Open({.connector = "spanner"}).ok());
  ASSERT_TRUE(handler->Handle(Failure("row")).ok());
  ASSERT_TRUE(handler->Flush().ok());
  handler->Close();
  EXPECT_EQ(ReadLines(directory_ + "/dead-letters-spanner-0.jsonl").size(), 1u);
}

TEST_F(FileDeadLetterQueueTest, UnusableDirectoryIsAClearError) {
  std::filesystem::create_directories(directory_);
  std::ofstream(directory_ + "/file") << "x";
  FileDeadLetterQueue queue(directory_ + "/file/below");
  const absl::Status opened = queue.Open({.connector = "pubsub"});
  EXPECT_FALSE(opened.ok());
  EXPECT_THAT(opened.message(), HasSubstr(directory_ + "/file/below"));
  EXPECT_EQ(queue.Offer(Failure("x")).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace gcpstream
