#include "gcpstream/runtime/restart_strategy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

TEST(RestartStrategyTest, NoneNeverRestarts) {
  EXPECT_FALSE(RestartStrategy::None().DelayBeforeRestart(1).has_value());
}

TEST(RestartStrategyTest, FixedDelayUpToMaxAttempts) {
  auto strategy = RestartStrategy::FixedDelay(2, absl::Seconds(3));
  EXPECT_EQ(strategy.DelayBeforeRestart(1), absl::Seconds(3));
  EXPECT_EQ(strategy.DelayBeforeRestart(2), absl::Seconds(3));
  EXPECT_FALSE(strategy.DelayBeforeRestart(3).has_value());
}

TEST(RestartStrategyTest, ExponentialBackoffGrowsToTheMax) {
  auto strategy = RestartStrategy::ExponentialBackoff(10, absl::Seconds(1),
                                                      absl::Seconds(10), 2.0);
  ASSERT_TRUE(strategy.Validate().ok());
  EXPECT_EQ(strategy.DelayBeforeRestart(1), absl::Seconds(1));
  EXPECT_EQ(strategy.DelayBeforeRestart(2), absl::Seconds(2));
  EXPECT_EQ(strategy.DelayBeforeRestart(4), absl::Seconds(8));
  EXPECT_EQ(strategy.DelayBeforeRestart(5), absl::Seconds(10));
  EXPECT_EQ(strategy.DelayBeforeRestart(10), absl::Seconds(10));
  EXPECT_FALSE(strategy.DelayBeforeRestart(11).has_value());
}

TEST(RestartStrategyTest, InvalidValuesNameTheOption) {
  EXPECT_THAT(
      RestartStrategy::FixedDelay(0, absl::Seconds(1)).Validate().message(),
      ::testing::HasSubstr("max-attempts"));
  EXPECT_THAT(
      RestartStrategy::ExponentialBackoff(3, absl::Seconds(2), absl::Seconds(1))
          .Validate()
          .message(),
      ::testing::HasSubstr("max-delay"));
  EXPECT_THAT(RestartStrategy::ExponentialBackoff(3, absl::Seconds(1),
                                                  absl::Seconds(2), 1.0)
                  .Validate()
                  .message(),
              ::testing::HasSubstr("multiplier"));
}

}  // namespace
}  // namespace gcpstream::runtime
