#include "gcpstream/connector/retry.h"

#include <memory>
#include <vector>

#include "gcpstream/base/retry_policy.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::connector {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RetryTest : public ::testing::Test {
 protected:
  RetryTest() {
    options_.max_attempts = 4;
    options_.total_timeout = absl::Minutes(1);
    options_.backoff.initial_delay = absl::Milliseconds(100);
    options_.backoff.max_delay = absl::Seconds(10);
    options_.backoff.multiplier = 2;
  }

  RetryContext Context() {
    return RetryContext{.options = &options_,
                        .timer = &timer_,
                        .executor = executor_,
                        .who = "sink",
                        // The floor of equal jitter: half the ceiling.
                        .random = [] { return 0.0; }};
  }

  RetryOptions options_;
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  runtime::MailboxExecutor executor_{&mailbox_};
  FakeClock clock_;
  ManualTimer timer_{clock_, executor_, /*auto_advance=*/true};
};

TEST_F(RetryTest, BacksOffExponentiallyOnTheTimerUntilAnAttemptSucceeds) {
  int attempts = 0;
  std::vector<int> retried;
  absl::Status status = RunWithRetries(
      Context(), Idempotency::kIdempotent,
      [&](const Retry& retry) {
        ++attempts;
        EXPECT_EQ(retry.attempts(), attempts);
        return attempts < 4
                   ? AttemptResult::RetryAfter(absl::UnavailableError("x"))
                   : AttemptResult::Done();
      },
      [&](const absl::Status&) { retried.push_back(attempts); });
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(attempts, 4);
  EXPECT_THAT(retried, ElementsAre(1, 2, 3));
  EXPECT_THAT(timer_.delays(),
              ElementsAre(absl::Milliseconds(50), absl::Milliseconds(100),
                          absl::Milliseconds(200)));
  EXPECT_EQ(clock_.Now() - absl::UnixEpoch(), absl::Milliseconds(350));
}

TEST_F(RetryTest, ExhaustionIsMarkedAndNamesTheLastError) {
  absl::Status status = RunWithRetries(
      Context(), Idempotency::kIdempotent,
      [](const Retry&) {
        return AttemptResult::RetryAfter(absl::UnavailableError("down"));
      },
      [](const absl::Status&) {});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(IsRetryExhausted(status));
  EXPECT_THAT(status.message(), HasSubstr("4 attempts"));
  EXPECT_THAT(status.message(), HasSubstr("down"));
}

TEST_F(RetryTest, StopEndsTheLoopWithItsStatusUnmarked) {
  int attempts = 0;
  absl::Status status = RunWithRetries(
      Context(), Idempotency::kIdempotent,
      [&](const Retry&) {
        ++attempts;
        return AttemptResult::Stop(absl::PermissionDeniedError("no"));
      },
      [](const absl::Status&) {});
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(status, absl::PermissionDeniedError("no"));
  EXPECT_FALSE(IsRetryExhausted(status));
}

TEST_F(RetryTest, ANonIdempotentRequestIsNotResentAfterAnAmbiguousFailure) {
  for (absl::StatusCode code :
       {absl::StatusCode::kDeadlineExceeded, absl::StatusCode::kUnavailable,
        absl::StatusCode::kUnknown, absl::StatusCode::kInternal}) {
    int attempts = 0;
    absl::Status status = RunWithRetries(
        Context(), Idempotency::kNonIdempotent,
        [&](const Retry&) {
          ++attempts;
          return AttemptResult::RetryAfter(absl::Status(code, "lost answer"));
        },
        [](const absl::Status&) {});
    EXPECT_EQ(attempts, 1) << code;
    EXPECT_EQ(status.code(), code);
    EXPECT_TRUE(IsRetryExhausted(status)) << "never routed";
    EXPECT_THAT(status.message(), HasSubstr("not idempotent"));
  }
}

TEST_F(RetryTest, ANonIdempotentRequestIsResentAfterARefusalBeforeAnyEffect) {
  int attempts = 0;
  absl::Status status = RunWithRetries(
      Context(), Idempotency::kNonIdempotent,
      [&](const Retry&) {
        ++attempts;
        return attempts == 1 ? AttemptResult::RetryAfter(
                                   absl::ResourceExhaustedError("quota"))
                             : AttemptResult::Done();
      },
      [](const absl::Status&) {});
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(attempts, 2);
}

TEST_F(RetryTest, TheTotalTimeoutIsMeasuredOnTheTimersClock) {
  options_.max_attempts = 100;
  options_.total_timeout = absl::Milliseconds(300);
  int attempts = 0;
  absl::Status status = RunWithRetries(
      Context(), Idempotency::kIdempotent,
      [&](const Retry&) {
        ++attempts;
        return AttemptResult::RetryAfter(absl::UnavailableError("x"));
      },
      [](const absl::Status&) {});
  // Waits of 50 and 100 ms fit; the next 200 ms would pass 300 ms.
  EXPECT_EQ(attempts, 3);
  EXPECT_TRUE(IsRetryExhausted(status));
  EXPECT_THAT(status.message(), HasSubstr("total timeout"));
}

TEST(AttemptDeadlineTest, IsTheRemainingBudgetCappedByTheAttemptTimeout) {
  FakeClock clock;
  RetryOptions options;
  options.total_timeout = absl::Seconds(30);
  absl::StatusOr<Retry> retry =
      Retry::Create(options, clock, Idempotency::kIdempotent);
  ASSERT_TRUE(retry.ok());
  // The deadline is wall time now plus the budget, whatever the clock.
  auto expect_budget = [&](absl::Duration budget) {
    const absl::Time before = absl::Now();
    const absl::Time deadline = retry->AttemptDeadline(absl::Seconds(10));
    const absl::Time after = absl::Now();
    EXPECT_GE(deadline, before + budget);
    EXPECT_LE(deadline, after + budget);
  };
  expect_budget(absl::Seconds(10));
  clock.Advance(absl::Seconds(25));
  expect_budget(absl::Seconds(5));
  clock.Advance(absl::Seconds(60));
  expect_budget(absl::Milliseconds(1));
}

TEST(RewordedTest, KeepsTheCodeAndTheRetriesExhaustedMark) {
  absl::Status marked = MarkRetryExhausted(absl::UnavailableError("a"));
  absl::Status reworded = Reworded(marked, "sink: 3 rows undecided: a");
  EXPECT_EQ(reworded.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(reworded.message(), "sink: 3 rows undecided: a");
  EXPECT_TRUE(IsRetryExhausted(reworded));
}

}  // namespace
}  // namespace gcpstream::connector
