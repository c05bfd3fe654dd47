#include "gcpstream/runtime/connectors/rate_limiter.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

TEST(RateLimiterTest, RefusesRatesThatCannotPace) {
  FakeClock clock;
  for (double rate : {0.0, -1.0, std::nan(""),
                      std::numeric_limits<double>::infinity(), 1e12}) {
    EXPECT_EQ(RateLimiter::Create(rate, clock).status().code(),
              absl::StatusCode::kInvalidArgument)
        << rate;
  }
}

TEST(RateLimiterTest, FirstRecordIsDueAtOnceThenOnePerInterval) {
  FakeClock clock;
  absl::StatusOr<RateLimiter> limiter = RateLimiter::Create(4, clock);
  ASSERT_TRUE(limiter.ok()) << limiter.status();
  EXPECT_EQ(limiter->Allowed(100), 1);
  limiter->Consumed(1);
  EXPECT_EQ(limiter->Allowed(100), 0);
  EXPECT_EQ(limiter->NextDueIn(), absl::Milliseconds(250));
  clock.Advance(absl::Milliseconds(249));
  EXPECT_EQ(limiter->Allowed(100), 0);
  EXPECT_EQ(limiter->NextDueIn(), absl::Milliseconds(1));
  clock.Advance(absl::Milliseconds(1));
  EXPECT_EQ(limiter->Allowed(100), 1);
  EXPECT_EQ(limiter->NextDueIn(), absl::ZeroDuration());
}

TEST(RateLimiterTest, AllowedIsCappedByWanted) {
  FakeClock clock;
  absl::StatusOr<RateLimiter> limiter = RateLimiter::Create(100, clock);
  ASSERT_TRUE(limiter.ok());
  EXPECT_EQ(limiter->Allowed(1), 1);
  clock.Advance(absl::Milliseconds(500));
  EXPECT_EQ(limiter->Allowed(10), 10);
  EXPECT_EQ(limiter->Allowed(1000), 51);
}

TEST(RateLimiterTest, WaitingNextDueInAlwaysAllowsARecord) {
  // 3/s has an interval that is not a whole number of nanoseconds; rounding
  // must never leave a reader polling with a zero wait and nothing allowed.
  for (double rate : {3.0, 7.0, 0.3, 1000003.0}) {
    FakeClock clock;
    absl::StatusOr<RateLimiter> limiter = RateLimiter::Create(rate, clock);
    ASSERT_TRUE(limiter.ok());
    for (int i = 0; i < 200; ++i) {
      const int64_t allowed = limiter->Allowed(1000);
      if (allowed > 0) {
        EXPECT_EQ(limiter->NextDueIn(), absl::ZeroDuration());
        limiter->Consumed(allowed);
        continue;
      }
      const absl::Duration wait = limiter->NextDueIn();
      ASSERT_GT(wait, absl::ZeroDuration()) << rate << " at " << i;
      clock.Advance(wait);
      ASSERT_GE(limiter->Allowed(1000), 1) << rate << " at " << i;
    }
  }
}

TEST(RateLimiterTest, LongRunMatchesTheRate) {
  FakeClock clock;
  absl::StatusOr<RateLimiter> limiter = RateLimiter::Create(1000, clock);
  ASSERT_TRUE(limiter.ok());
  int64_t total = 0;
  for (int step = 0; step < 10000; ++step) {  // 10 s in 1 ms steps.
    const int64_t n = limiter->Allowed(1 << 20);
    limiter->Consumed(n);
    total += n;
    clock.Advance(absl::Milliseconds(1));
  }
  // Due at 0, 1ms, ..., 9999ms.
  EXPECT_EQ(total, 10000);
}

TEST(RateLimiterTest, CatchUpAfterAPauseIsAtMostOneSecond) {
  FakeClock clock;
  absl::StatusOr<RateLimiter> limiter = RateLimiter::Create(10, clock);
  ASSERT_TRUE(limiter.ok());
  limiter->Consumed(limiter->Allowed(100));
  clock.Advance(absl::Hours(1));
  const int64_t burst = limiter->Allowed(1 << 20);
  EXPECT_EQ(burst, 11);  // One second of credit plus the record due now.
  limiter->Consumed(burst);
  EXPECT_EQ(limiter->Allowed(100), 0);
  EXPECT_EQ(limiter->NextDueIn(), absl::Milliseconds(100));
}

}  // namespace
}  // namespace gcpstream::runtime
