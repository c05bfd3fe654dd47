#include "gcpstream/base/retry_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::HasSubstr;
using Action = RetryDecision::Action;

UniformRandom Top() {
  return [] { return 1.0; };
}

RetryOptions Options(int max_attempts, absl::Duration total_timeout) {
  RetryOptions options;
  options.max_attempts = max_attempts;
  options.total_timeout = total_timeout;
  options.backoff = {absl::Seconds(1), absl::Seconds(8), 2.0};
  return options;
}

RetryState MakeState(const RetryOptions& options, const Clock& clock) {
  auto state = RetryState::Create(options, clock, Top());
  EXPECT_TRUE(state.ok()) << state.status();
  return *std::move(state);
}

TEST(RetryStateTest, TransientFailuresRetryWithBackoffUntilMaxAttempts) {
  FakeClock clock;
  RetryState state = MakeState(Options(4, absl::Hours(1)), clock);
  const absl::Status unavailable = absl::UnavailableError("connection reset");
  std::vector<absl::Duration> delays;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(state.attempts(), i + 1);
    RetryDecision decision =
        state.OnFailure(unavailable, StatusClass::kTransient);
    ASSERT_EQ(decision.action, Action::kRetryAfter) << i;
    delays.push_back(decision.delay);
    clock.Advance(decision.delay);
  }
  EXPECT_EQ(delays, (std::vector<absl::Duration>{
                        absl::Seconds(1), absl::Seconds(2), absl::Seconds(4)}));
  EXPECT_EQ(state.attempts(), 4);

  RetryDecision last = state.OnFailure(unavailable, StatusClass::kTransient);
  EXPECT_EQ(last.action, Action::kFail);
  EXPECT_EQ(last.status.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(IsRetryExhausted(last.status));
  EXPECT_THAT(last.status.message(), HasSubstr("gave up after 4 attempts"));
  EXPECT_THAT(last.status.message(), HasSubstr("in 7s"));
  EXPECT_THAT(last.status.message(), HasSubstr("max attempts (4)"));
  EXPECT_THAT(last.status.message(),
              HasSubstr("last error: UNAVAILABLE: connection reset"));
}

TEST(RetryStateTest, SingleAttemptNeverRetries) {
  FakeClock clock;
  RetryState state = MakeState(Options(1, absl::Hours(1)), clock);
  RetryDecision decision =
      state.OnFailure(absl::AbortedError("x"), StatusClass::kTransient);
  EXPECT_EQ(decision.action, Action::kFail);
  EXPECT_TRUE(IsRetryExhausted(decision.status));
  EXPECT_THAT(decision.status.message(), HasSubstr("after 1 attempt in"));
}

TEST(RetryStateTest, TotalTimeoutStopsRetriesBeforeMaxAttempts) {
  FakeClock clock;
  // Delays 1s, 2s, 4s: the third retry would start at 1+2+4 = 7s >= 6s.
  RetryState state = MakeState(Options(100, absl::Seconds(6)), clock);
  EXPECT_EQ(state.deadline(), absl::UnixEpoch() + absl::Seconds(6));
  const absl::Status error = absl::DeadlineExceededError("slow");
  for (int i = 0; i < 2; ++i) {
    RetryDecision decision = state.OnFailure(error, StatusClass::kTransient);
    ASSERT_EQ(decision.action, Action::kRetryAfter);
    clock.Advance(decision.delay);
  }
  RetryDecision decision = state.OnFailure(error, StatusClass::kTransient);
  EXPECT_EQ(decision.action, Action::kFail);
  EXPECT_TRUE(IsRetryExhausted(decision.status));
  EXPECT_EQ(decision.status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(decision.status.message(), HasSubstr("total timeout (6s)"));
  EXPECT_THAT(decision.status.message(), HasSubstr("after 3 attempts in 3s"));
}

TEST(RetryStateTest, TimeSpentInsideAttemptsCountsTowardsTheTimeout) {
  FakeClock clock;
  RetryState state = MakeState(Options(100, absl::Seconds(10)), clock);
  clock.Advance(absl::Seconds(9));  // A slow first attempt.
  RetryDecision decision =
      state.OnFailure(absl::UnavailableError("x"), StatusClass::kTransient);
  EXPECT_EQ(decision.action, Action::kFail);
  EXPECT_TRUE(IsRetryExhausted(decision.status));
}

TEST(RetryStateTest, RetryLandingJustBeforeDeadlineIsAllowed) {
  FakeClock clock;
  RetryState state = MakeState(Options(100, absl::Seconds(10)), clock);
  clock.Advance(absl::Seconds(9) - absl::Nanoseconds(1));
  EXPECT_EQ(
      state.OnFailure(absl::UnavailableError("x"), StatusClass::kTransient)
          .action,
      Action::kRetryAfter);
}

TEST(RetryStateTest, PerRecordRoutesTheOriginalStatusWithoutRetrying) {
  FakeClock clock;
  RetryState state = MakeState(Options(5, absl::Hours(1)), clock);
  state.OnFailure(absl::UnavailableError("blip"), StatusClass::kTransient);
  const absl::Status bad_row = absl::InvalidArgumentError("bad row");
  RetryDecision decision = state.OnFailure(bad_row, StatusClass::kPerRecord);
  EXPECT_EQ(decision.action, Action::kRouteToHandler);
  EXPECT_EQ(decision.status, bad_row);
  EXPECT_FALSE(IsRetryExhausted(decision.status));
  EXPECT_EQ(state.attempts(), 2);
}

TEST(RetryStateTest, FatalFailsWithTheOriginalStatus) {
  FakeClock clock;
  RetryState state = MakeState(Options(5, absl::Hours(1)), clock);
  const absl::Status denied = absl::PermissionDeniedError("no");
  RetryDecision decision = state.OnFailure(denied, StatusClass::kFatal);
  EXPECT_EQ(decision.action, Action::kFail);
  EXPECT_EQ(decision.status, denied);
  EXPECT_FALSE(IsRetryExhausted(decision.status));
}

TEST(RetryStateTest, OkStatusIsACallerBugThatFails) {
  FakeClock clock;
  RetryState state = MakeState(Options(5, absl::Hours(1)), clock);
  RetryDecision decision =
      state.OnFailure(absl::OkStatus(), StatusClass::kTransient);
  EXPECT_EQ(decision.action, Action::kFail);
  EXPECT_EQ(decision.status.code(), absl::StatusCode::kInternal);
}

TEST(RetryStateTest, ExhaustedMarkSurvivesCopiesButNotOtherStatuses) {
  FakeClock clock;
  RetryState state = MakeState(Options(1, absl::Hours(1)), clock);
  const absl::Status copy =
      state.OnFailure(absl::UnavailableError("x"), StatusClass::kTransient)
          .status;
  EXPECT_TRUE(IsRetryExhausted(copy));
  EXPECT_FALSE(IsRetryExhausted(absl::UnavailableError("x")));
  EXPECT_FALSE(IsRetryExhausted(absl::OkStatus()));
}

TEST(RetryStateTest, RejectsInvalidOptions) {
  FakeClock clock;
  EXPECT_THAT(RetryState::Create(Options(0, absl::Hours(1)), clock, Top())
                  .status()
                  .message(),
              HasSubstr("max attempts"));
  EXPECT_THAT(RetryState::Create(Options(3, absl::ZeroDuration()), clock, Top())
                  .status()
                  .message(),
              HasSubstr("total timeout"));
  EXPECT_THAT(
      RetryState::Create(Options(3, absl::InfiniteDuration()), clock, Top())
          .status()
          .message(),
      HasSubstr("total timeout"));
  RetryOptions bad_backoff = Options(3, absl::Hours(1));
  bad_backoff.backoff.multiplier = 1.0;
  EXPECT_EQ(RetryState::Create(bad_backoff, clock, Top()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(ValidateRetryOptions(RetryOptions()).ok());
}

}  // namespace
}  // namespace gcpstream
