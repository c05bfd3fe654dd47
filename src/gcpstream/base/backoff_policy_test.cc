#include "gcpstream/base/backoff_policy.h"

#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::HasSubstr;

UniformRandom Constant(double value) {
  return [value] { return value; };
}

ExponentialBackoff MakeBackoff(const BackoffOptions& options,
                               UniformRandom random) {
  auto backoff = ExponentialBackoff::Create(options, std::move(random));
  EXPECT_TRUE(backoff.ok()) << backoff.status();
  return *std::move(backoff);
}

TEST(ExponentialBackoffTest, TopOfJitterGrowsGeometricallyUpToMax) {
  // r just below 1 gives (almost) the ceiling; 1.0 is clamped to the same.
  ExponentialBackoff backoff = MakeBackoff(
      {absl::Milliseconds(100), absl::Milliseconds(1000), 3.0}, Constant(1.0));
  std::vector<absl::Duration> delays(5);
  for (absl::Duration& delay : delays) delay = backoff.NextDelay();
  EXPECT_EQ(delays, (std::vector<absl::Duration>{
                        absl::Milliseconds(100), absl::Milliseconds(300),
                        absl::Milliseconds(900), absl::Milliseconds(1000),
                        absl::Milliseconds(1000)}));
}

TEST(ExponentialBackoffTest, DelayForAttemptDrawsLikeTheNthDelay) {
  ExponentialBackoff backoff = MakeBackoff(
      {absl::Milliseconds(100), absl::Milliseconds(1000), 3.0}, Constant(1.0));
  EXPECT_EQ(backoff.DelayForAttempt(1), absl::Milliseconds(100));
  EXPECT_EQ(backoff.DelayForAttempt(3), absl::Milliseconds(900));
  EXPECT_EQ(backoff.DelayForAttempt(1000), absl::Milliseconds(1000));
  // It leaves the backoff's own progress alone.
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(100));
}

TEST(ExponentialBackoffTest, BottomOfJitterIsHalfTheCeiling) {
  ExponentialBackoff backoff = MakeBackoff(
      {absl::Milliseconds(100), absl::Seconds(10), 2.0}, Constant(0.0));
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(50));
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(100));
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(200));
}

TEST(ExponentialBackoffTest, JitterInterpolatesBetweenHalfAndCeiling) {
  ExponentialBackoff backoff = MakeBackoff(
      {absl::Milliseconds(100), absl::Seconds(10), 2.0}, Constant(0.5));
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(75));
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(150));
}

TEST(ExponentialBackoffTest, OutOfRangeRandomValuesAreClamped) {
  for (double bad : {-3.0, std::numeric_limits<double>::quiet_NaN()}) {
    ExponentialBackoff backoff = MakeBackoff(
        {absl::Milliseconds(100), absl::Seconds(1), 2.0}, Constant(bad));
    EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(50)) << bad;
  }
  ExponentialBackoff backoff = MakeBackoff(
      {absl::Milliseconds(100), absl::Seconds(1), 2.0}, Constant(7.0));
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(100));
}

TEST(ExponentialBackoffTest, ResetStartsOver) {
  ExponentialBackoff backoff = MakeBackoff(
      {absl::Milliseconds(10), absl::Seconds(1), 2.0}, Constant(1.0));
  backoff.NextDelay();
  backoff.NextDelay();
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(40));
  backoff.Reset();
  EXPECT_EQ(backoff.NextDelay(), absl::Milliseconds(10));
}

TEST(ExponentialBackoffTest, ManyStepsSaturateAtMaxWithoutOverflow) {
  ExponentialBackoff backoff =
      MakeBackoff({absl::Nanoseconds(1), absl::Hours(1), 1e300}, Constant(1.0));
  backoff.NextDelay();
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(backoff.NextDelay(), absl::Hours(1));
  }
}

TEST(ExponentialBackoffTest, DefaultRandomStaysWithinTheJitterBand) {
  ExponentialBackoff backoff = MakeBackoff(
      {absl::Seconds(1), absl::Seconds(1), 2.0}, DefaultUniformRandom());
  bool saw_below_ceiling = false;
  for (int i = 0; i < 200; ++i) {
    const absl::Duration delay = backoff.NextDelay();
    EXPECT_GE(delay, absl::Milliseconds(500));
    EXPECT_LE(delay, absl::Seconds(1));
    saw_below_ceiling |= delay < absl::Milliseconds(990);
  }
  EXPECT_TRUE(saw_below_ceiling) << "no jitter at all";
}

TEST(ExponentialBackoffTest, RejectsInvalidOptions) {
  struct Case {
    BackoffOptions options;
    const char* message;
  };
  const Case cases[] = {
      {{absl::ZeroDuration(), absl::Seconds(1), 2.0}, "initial delay"},
      {{-absl::Seconds(1), absl::Seconds(1), 2.0}, "initial delay"},
      {{absl::InfiniteDuration(), absl::InfiniteDuration(), 2.0},
       "initial delay"},
      {{absl::Seconds(2), absl::Seconds(1), 2.0}, "max delay"},
      {{absl::Seconds(1), absl::InfiniteDuration(), 2.0}, "max delay"},
      {{absl::Seconds(1), absl::Seconds(2), 1.0}, "multiplier"},
      {{absl::Seconds(1), absl::Seconds(2), 0.5}, "multiplier"},
      {{absl::Seconds(1), absl::Seconds(2),
        std::numeric_limits<double>::infinity()},
       "multiplier"},
      {{absl::Seconds(1), absl::Seconds(2),
        std::numeric_limits<double>::quiet_NaN()},
       "multiplier"},
  };
  for (const Case& c : cases) {
    auto backoff = ExponentialBackoff::Create(c.options, Constant(0.5));
    ASSERT_FALSE(backoff.ok()) << c.message;
    EXPECT_EQ(backoff.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(backoff.status().message(), HasSubstr(c.message));
  }
  EXPECT_FALSE(ExponentialBackoff::Create({}, UniformRandom()).ok());
  EXPECT_TRUE(ValidateBackoffOptions({}).ok());
}

}  // namespace
}  // namespace gcpstream
