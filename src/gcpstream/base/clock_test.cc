#include "gcpstream/base/clock.h"

#include <thread>

#include "gtest/gtest.h"

namespace gcpstream {
namespace {

TEST(FakeClockTest, MovesOnlyWhenTold) {
  FakeClock clock(absl::FromUnixSeconds(1000));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(1000));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(1000));
  clock.Advance(absl::Milliseconds(1500));
  EXPECT_EQ(clock.Now(), absl::FromUnixMillis(1001500));
  clock.Set(absl::FromUnixSeconds(5));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(5));
}

TEST(FakeClockTest, DefaultsToTheUnixEpoch) {
  EXPECT_EQ(FakeClock().Now(), absl::UnixEpoch());
}

TEST(FakeClockTest, ConcurrentAdvancesAreNotLost) {
  FakeClock clock;
  std::thread other([&clock] {
    for (int i = 0; i < 1000; ++i) clock.Advance(absl::Nanoseconds(1));
  });
  for (int i = 0; i < 1000; ++i) clock.Advance(absl::Nanoseconds(1));
  other.join();
  EXPECT_EQ(clock.Now(), absl::UnixEpoch() + absl::Nanoseconds(2000));
}

TEST(RealClockTest, TracksWallTime) {
  const absl::Time before = absl::Now();
  const absl::Time now = RealClock::Instance().Now();
  const absl::Time after = absl::Now();
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
  EXPECT_EQ(&RealClock::Instance(), &RealClock::Instance());
}

}  // namespace
}  // namespace gcpstream
