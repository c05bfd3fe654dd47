#include "gcpstream/base/rejection_confirmation.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::HasSubstr;

constexpr ClassificationTable kTable(
    ClassificationTable::Level(
        {{absl::StatusCode::kUnavailable, StatusClass::kTransient},
         {absl::StatusCode::kAlreadyExists, StatusClass::kPerRecord},
         {absl::StatusCode::kInvalidArgument, StatusClass::kPerRecord}},
        StatusClass::kFatal),
    ClassificationTable::Level({}, StatusClass::kFatal));

RejectionConfirmation Make(int64_t max) {
  auto confirmation =
      RejectionConfirmation::Create(kTable, max, "spanner sink");
  EXPECT_TRUE(confirmation.ok()) << confirmation.status();
  return *std::move(confirmation);
}

TEST(RejectionConfirmationTest, ClassifiesEachSingleResult) {
  RejectionConfirmation confirmation = Make(100);
  EXPECT_EQ(confirmation.OnSingleResult(absl::OkStatus()).kind,
            ConfirmationVerdict::kWritten);
  EXPECT_EQ(confirmation.OnSingleResult(absl::AlreadyExistsError("dup")).kind,
            ConfirmationVerdict::kRouted);
  EXPECT_EQ(confirmation.OnSingleResult(absl::UnavailableError("x")).kind,
            ConfirmationVerdict::kRetry);
  auto fatal = confirmation.OnSingleResult(absl::PermissionDeniedError("iam"));
  EXPECT_EQ(fatal.kind, ConfirmationVerdict::kFatal);
  EXPECT_EQ(fatal.status.code(), absl::StatusCode::kPermissionDenied);
}

TEST(RejectionConfirmationTest, GuardTripsOnTheNthRefusalInARow) {
  RejectionConfirmation confirmation = Make(3);
  const absl::Status refused = absl::InvalidArgumentError("no column Foo");
  EXPECT_EQ(confirmation.OnSingleResult(refused).kind,
            ConfirmationVerdict::kRouted);
  EXPECT_EQ(confirmation.OnSingleResult(refused).kind,
            ConfirmationVerdict::kRouted);
  auto tripped = confirmation.OnSingleResult(refused);
  EXPECT_EQ(tripped.kind, ConfirmationVerdict::kFatal);
  EXPECT_THAT(tripped.status.message(),
              testing::AllOf(HasSubstr("spanner sink"),
                             HasSubstr("max-consecutive-rejections=3"),
                             HasSubstr("no column Foo")));
}

TEST(RejectionConfirmationTest, AnySuccessResetsTheGuard) {
  RejectionConfirmation confirmation = Make(2);
  const absl::Status refused = absl::AlreadyExistsError("dup");
  EXPECT_EQ(confirmation.OnSingleResult(refused).kind,
            ConfirmationVerdict::kRouted);
  confirmation.OnSuccess();  // A normal batch went through.
  EXPECT_EQ(confirmation.OnSingleResult(refused).kind,
            ConfirmationVerdict::kRouted);
  EXPECT_EQ(confirmation.OnSingleResult(absl::OkStatus()).kind,
            ConfirmationVerdict::kWritten);
  EXPECT_EQ(confirmation.consecutive_rejections(), 0);
  EXPECT_EQ(confirmation.OnSingleResult(refused).kind,
            ConfirmationVerdict::kRouted);
  // Transient failures neither count nor reset.
  EXPECT_EQ(confirmation.OnSingleResult(absl::UnavailableError("x")).kind,
            ConfirmationVerdict::kRetry);
  EXPECT_EQ(confirmation.OnSingleResult(refused).kind,
            ConfirmationVerdict::kFatal);
}

TEST(RejectionConfirmationTest, UnboundedNeverTrips) {
  RejectionConfirmation confirmation = Make(RejectionConfirmation::kUnbounded);
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_EQ(confirmation.OnSingleResult(absl::AlreadyExistsError("d")).kind,
              ConfirmationVerdict::kRouted);
  }
}

TEST(RejectionConfirmationTest, InvalidBoundNamesTheOption) {
  for (int64_t bad : {0, -2, -100}) {
    auto confirmation = RejectionConfirmation::Create(kTable, bad, "sink");
    ASSERT_FALSE(confirmation.ok());
    EXPECT_THAT(confirmation.status().message(),
                HasSubstr("max-consecutive-rejections"));
  }
}

}  // namespace
}  // namespace gcpstream
