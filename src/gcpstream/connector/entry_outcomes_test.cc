#include "gcpstream/connector/entry_outcomes.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::connector {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr ClassificationTable kTable(
    ClassificationTable::Level({{absl::StatusCode::kUnavailable,
                                 StatusClass::kTransient}},
                               StatusClass::kFatal),
    ClassificationTable::Level(
        {{absl::StatusCode::kAlreadyExists, StatusClass::kPerRecord},
         {absl::StatusCode::kAborted, StatusClass::kTransient}},
        StatusClass::kFatal));

TEST(EntryOutcomesTest, SortsEachEntryByTheEntryLevelByOriginalIndex) {
  EntryOutcomes outcomes(5);
  EXPECT_TRUE(outcomes.Report(4, absl::OkStatus()));
  EXPECT_TRUE(outcomes.Report(0, absl::AlreadyExistsError("dup")));
  EXPECT_TRUE(outcomes.Report(2, absl::AbortedError("contention")));
  EXPECT_TRUE(outcomes.Report(1, absl::OkStatus()));
  EntryOutcomes::Sorted sorted = outcomes.Sort(kTable, absl::OkStatus());
  EXPECT_THAT(sorted.written, ElementsAre(1, 4));
  EXPECT_THAT(sorted.routed,
              ElementsAre(Pair(0, absl::AlreadyExistsError("dup"))));
  // 3 was never reported: undecided, so sent again.
  EXPECT_THAT(sorted.retry, ElementsAre(2, 3));
  EXPECT_EQ(sorted.retry_status, absl::AbortedError("contention"));
  EXPECT_FALSE(sorted.fatal_entry.has_value());
  EXPECT_TRUE(sorted.fatal_request.ok());
}

TEST(EntryOutcomesTest, IgnoresIndexesNoServiceSends) {
  EntryOutcomes outcomes(2);
  EXPECT_FALSE(outcomes.Report(-1, absl::OkStatus()));
  EXPECT_FALSE(outcomes.Report(2, absl::OkStatus()));
  EXPECT_TRUE(outcomes.Report(0, absl::OkStatus()));
  EXPECT_FALSE(outcomes.Report(0, absl::AlreadyExistsError("again")));
  EntryOutcomes::Sorted sorted = outcomes.Sort(kTable, absl::OkStatus());
  EXPECT_THAT(sorted.written, ElementsAre(0));
  EXPECT_TRUE(sorted.routed.empty());
  EXPECT_THAT(sorted.retry, ElementsAre(1));
}

TEST(EntryOutcomesTest, UndecidedEntriesAloneGetAnUnavailableReason) {
  EntryOutcomes outcomes(3);
  outcomes.Report(0, absl::OkStatus());
  EntryOutcomes::Sorted sorted = outcomes.Sort(kTable, absl::OkStatus());
  EXPECT_THAT(sorted.retry, ElementsAre(1, 2));
  EXPECT_EQ(sorted.retry_status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(sorted.retry_status.message(), HasSubstr("2 of 3 entries"));
}

TEST(EntryOutcomesTest, ATransientRequestStatusIsTheRetryReason) {
  EntryOutcomes outcomes(2);
  outcomes.Report(0, absl::OkStatus());
  EntryOutcomes::Sorted sorted =
      outcomes.Sort(kTable, absl::UnavailableError("stream broke"));
  EXPECT_THAT(sorted.retry, ElementsAre(1));
  EXPECT_EQ(sorted.retry_status, absl::UnavailableError("stream broke"));
  EXPECT_TRUE(sorted.fatal_request.ok());
}

TEST(EntryOutcomesTest, AFatalRequestStatusIsNeverRoutedAndEntriesKeepTheirs) {
  EntryOutcomes outcomes(2);
  outcomes.Report(0, absl::AlreadyExistsError("dup"));
  EntryOutcomes::Sorted sorted =
      outcomes.Sort(kTable, absl::PermissionDeniedError("no"));
  EXPECT_EQ(sorted.fatal_request, absl::PermissionDeniedError("no"));
  EXPECT_THAT(sorted.routed,
              ElementsAre(Pair(0, absl::AlreadyExistsError("dup"))));
}

TEST(EntryOutcomesTest, KeepsTheFirstFatalEntryAndListsThemAll) {
  EntryOutcomes outcomes(3);
  outcomes.Report(2, absl::PermissionDeniedError("second"));
  outcomes.Report(1, absl::NotFoundError("first"));
  outcomes.Report(0, absl::OkStatus());
  EntryOutcomes::Sorted sorted = outcomes.Sort(kTable, absl::OkStatus());
  ASSERT_TRUE(sorted.fatal_entry.has_value());
  EXPECT_EQ(sorted.fatal_entry->first, 1u);
  EXPECT_EQ(sorted.fatal_entry->second, absl::NotFoundError("first"));
  EXPECT_THAT(sorted.fatal_entries,
              ElementsAre(Pair(1, absl::NotFoundError("first")),
                          Pair(2, absl::PermissionDeniedError("second"))));
}

}  // namespace
}  // namespace gcpstream::connector
