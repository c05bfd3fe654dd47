#include "gcpstream/runtime/job_health.h"

#include <string>

#include "gcpstream/base/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::HasSubstr;

TEST(JobHealthTest, ReadyOnlyWhileAnAttemptRuns) {
  FakeClock clock;
  JobHealth health(absl::Minutes(5), &clock);
  EXPECT_FALSE(health.Readiness().ok);
  health.RunStarted();
  EXPECT_FALSE(health.Readiness().ok);
  health.AttemptRunning();
  EXPECT_TRUE(health.Readiness().ok);
  // A failed attempt waiting for its restart is not ready, but still live.
  health.AttemptEnded();
  EXPECT_THAT(health.Readiness().detail, HasSubstr("waiting to restart"));
  EXPECT_FALSE(health.Readiness().ok);
  EXPECT_TRUE(health.Liveness().ok);
  health.AttemptRunning();
  health.RunEnded();
  EXPECT_FALSE(health.Readiness().ok);
}

TEST(JobHealthTest, LivenessFailsWhenCheckpointsStopCompleting) {
  FakeClock clock;
  JobHealth health(absl::Minutes(5), &clock);
  health.RunStarted();
  health.AttemptRunning();
  // Counted from the start until the first checkpoint.
  clock.Advance(absl::Minutes(5));
  EXPECT_TRUE(health.Liveness().ok);
  clock.Advance(absl::Seconds(1));
  HealthVerdict stalled = health.Liveness();
  EXPECT_FALSE(stalled.ok);
  EXPECT_THAT(stalled.detail, HasSubstr("since the job started"));
  EXPECT_THAT(stalled.detail, HasSubstr("health-checkpoint-timeout"));
  // A completed checkpoint restores it; then the bound runs from there.
  health.CheckpointCompleted();
  EXPECT_TRUE(health.Liveness().ok);
  clock.Advance(absl::Minutes(4));
  EXPECT_TRUE(health.Liveness().ok);
  clock.Advance(absl::Minutes(2));
  EXPECT_FALSE(health.Liveness().ok);
  EXPECT_THAT(health.Liveness().detail,
              HasSubstr("since the last completed checkpoint"));
}

TEST(JobHealthTest, FailedForGoodIsNotLiveAndSaysWhy) {
  FakeClock clock;
  JobHealth health(absl::Minutes(5), &clock);
  health.RunStarted();
  health.AttemptRunning();
  health.FailedForGood(absl::PermissionDeniedError("topic orders"));
  EXPECT_FALSE(health.Liveness().ok);
  EXPECT_THAT(health.Liveness().detail, HasSubstr("topic orders"));
  EXPECT_FALSE(health.Readiness().ok);
}

TEST(JobHealthTest, AnEndedJobStaysLiveAndAnInfiniteBoundNeverExpires) {
  FakeClock clock;
  JobHealth ended(absl::Minutes(5), &clock);
  ended.RunStarted();
  ended.RunEnded();
  clock.Advance(absl::Hours(1));
  EXPECT_TRUE(ended.Liveness().ok);

  JobHealth unbounded(absl::InfiniteDuration(), &clock);
  unbounded.RunStarted();
  clock.Advance(absl::Hours(100));
  EXPECT_TRUE(unbounded.Liveness().ok);
}

}  // namespace
}  // namespace gcpstream::runtime
