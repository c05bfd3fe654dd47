#include "gcpstream/base/dead_letter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(DeadLetterTest, ShortErrorIsKeptWhole) {
  const std::string exact(kDlqErrorMaxBytes, 'x');
  EXPECT_EQ(TruncateDlqError(exact), exact);
}

TEST(DeadLetterTest, LongErrorIsCutTo1024BytesWithEllipsis) {
  const std::string longer(kDlqErrorMaxBytes + 1, 'x');
  const std::string cut = TruncateDlqError(longer);
  EXPECT_EQ(cut.size(), kDlqErrorMaxBytes);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
}

TEST(DeadLetterTest, CutNeverSplitsAUtf8Character) {
  // The cut is at byte 1021 (1024 minus "..."). "é" (2 bytes) ending right
  // before it is kept whole.
  std::string message(1019, 'a');
  message += "\xC3\xA9";
  message += std::string(100, 'b');
  const std::string cut = TruncateDlqError(message);
  EXPECT_EQ(cut, std::string(1019, 'a') + "\xC3\xA9...");
  EXPECT_EQ(cut.size(), kDlqErrorMaxBytes);
  std::string straddling(1020, 'a');
  straddling += "\xE2\x82\xAC";  // "€": bytes 1020..1022, cut at 1021.
  straddling += std::string(100, 'b');
  EXPECT_EQ(TruncateDlqError(straddling), std::string(1020, 'a') + "...");
}

TEST(DeadLetterTest, AttributesUseTheSharedSpelling) {
  FailedElement failure;
  failure.connector = "spanner";
  failure.destination = "projects/p/instances/i/databases/d";
  failure.status = absl::AlreadyExistsError("Row [7] in table Orders exists");
  failure.attempts = 2;
  failure.failure_time = absl::FromUnixMillis(1'764'692'145'123);
  failure.subtask_index = 3;
  EXPECT_THAT(
      DeadLetterAttributes(failure),
      UnorderedElementsAre(
          Pair("dlq-connector", "spanner"),
          Pair("dlq-destination", "projects/p/instances/i/databases/d"),
          Pair("dlq-error", "Row [7] in table Orders exists"),
          Pair("dlq-timestamp", "2025-12-02T16:15:45.123Z"),
          Pair("dlq-subtask", "3"), Pair("dlq-error-code", "ALREADY_EXISTS"),
          Pair("dlq-attempts", "2")));
}

TEST(DeadLetterTest, UnresolvedIsTheDefaultDestination) {
  EXPECT_EQ(DeadLetterAttributes(FailedElement{}).at("dlq-destination"),
            "unresolved");
}

}  // namespace
}  // namespace gcpstream
