#include "gcpstream/connector/task_timer.h"

#include <memory>
#include <thread>
#include <vector>

#include "gcpstream/connector/task_wait.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::connector {
namespace {

using ::testing::ElementsAre;

class TaskTimerTest : public ::testing::Test {
 protected:
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  runtime::MailboxExecutor executor_{&mailbox_};
  FakeClock clock_;
};

TEST_F(TaskTimerTest, ManualTimerRunsOnlyDueMailsOnTheTaskThread) {
  ManualTimer timer(clock_, executor_);
  std::vector<int> ran;
  timer.Schedule(absl::Seconds(1), [&] { ran.push_back(1); });
  timer.Schedule(absl::Seconds(3), [&] { ran.push_back(3); });
  timer.Schedule(absl::Seconds(2), [&] { ran.push_back(2); });
  mailbox_.RunAll();
  EXPECT_TRUE(ran.empty());
  timer.Advance(absl::Seconds(2));
  EXPECT_TRUE(ran.empty()) << "mails run only when the task runs them";
  mailbox_.RunAll();
  EXPECT_THAT(ran, ElementsAre(1, 2));
  timer.Advance(absl::Seconds(1));
  mailbox_.RunAll();
  EXPECT_THAT(ran, ElementsAre(1, 2, 3));
  EXPECT_EQ(timer.pending(), 0);
}

TEST_F(TaskTimerTest, CancelStopsAMailEvenWhenItWasAlreadyPosted) {
  ManualTimer timer(clock_, executor_);
  int ran = 0;
  const TaskTimer::Id before = timer.Schedule(absl::Seconds(1), [&] { ++ran; });
  const TaskTimer::Id posted = timer.Schedule(absl::Seconds(1), [&] { ++ran; });
  timer.Cancel(before);
  timer.Advance(absl::Seconds(1));
  EXPECT_TRUE(mailbox_.HasCompletions());
  timer.Cancel(posted);
  mailbox_.RunAll();
  EXPECT_EQ(ran, 0);
}

TEST_F(TaskTimerTest, AMailPostedBeforeTheTimerWentAwayDoesNothing) {
  int ran = 0;
  {
    ManualTimer timer(clock_, executor_);
    timer.Schedule(absl::ZeroDuration(), [&] { ++ran; });
  }
  mailbox_.RunAll();
  EXPECT_EQ(ran, 0);
}

TEST_F(TaskTimerTest, AutoAdvanceMovesTheClockToEachDueTime) {
  ManualTimer timer(clock_, executor_, /*auto_advance=*/true);
  const absl::Time start = clock_.Now();
  ASSERT_TRUE(SleepOnTask(timer, executor_, absl::Milliseconds(250), "t").ok());
  ASSERT_TRUE(SleepOnTask(timer, executor_, absl::Seconds(2), "t").ok());
  EXPECT_EQ(clock_.Now() - start, absl::Milliseconds(2250));
  EXPECT_THAT(timer.delays(),
              ElementsAre(absl::Milliseconds(250), absl::Seconds(2)));
}

TEST_F(TaskTimerTest, WaitOnTaskEndsWhenDoneBeforeTheDeadline) {
  ManualTimer timer(clock_, executor_);
  bool done = false;
  std::thread answer([&] { executor_.Post([&] { done = true; }); });
  EXPECT_EQ(WaitOnTask(
                timer, executor_, [&] { return done; },
                clock_.Now() + absl::Hours(1)),
            WaitResult::kDone);
  answer.join();
  EXPECT_EQ(timer.pending(), 0) << "the deadline mail is cancelled";
}

TEST_F(TaskTimerTest, WaitOnTaskTimesOutOnTheTimersClock) {
  ManualTimer timer(clock_, executor_);
  std::thread advance([&] {
    while (timer.pending() == 0) absl::SleepFor(absl::Milliseconds(1));
    timer.Advance(absl::Minutes(5));
  });
  EXPECT_EQ(WaitOnTask(
                timer, executor_, [] { return false; },
                clock_.Now() + absl::Minutes(5)),
            WaitResult::kTimedOut);
  advance.join();
}

TEST_F(TaskTimerTest, WaitOnTaskGivesUpWhenTheJobIsCancelled) {
  std::atomic<bool> cancelled{true};
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>(), &cancelled);
  runtime::MailboxExecutor executor(&mailbox);
  ManualTimer timer(clock_, executor);
  EXPECT_EQ(WaitOnTask(
                timer, executor, [] { return false; }, absl::InfiniteFuture()),
            WaitResult::kCancelled);
  EXPECT_EQ(SleepOnTask(timer, executor, absl::Seconds(1), "sink").code(),
            absl::StatusCode::kCancelled);
}

TEST_F(TaskTimerTest, AlarmTimerPostsAfterTheDelayAndCancelStopsIt) {
  std::unique_ptr<TaskTimer> timer = MakeAlarmTimer(executor_);
  bool first = false;
  bool cancelled = false;
  const absl::Time start = absl::Now();
  timer->Schedule(absl::Milliseconds(20), [&] { first = true; });
  const TaskTimer::Id id =
      timer->Schedule(absl::Milliseconds(10), [&] { cancelled = true; });
  timer->Cancel(id);
  EXPECT_TRUE(executor_.YieldUntil([&] { return first; },
                                   absl::Now() + absl::Seconds(10)));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(20));
  mailbox_.RunAll();
  EXPECT_FALSE(cancelled);
}

TEST_F(TaskTimerTest, AlarmTimerCancelAllLetsGoOfPendingAlarms) {
  std::unique_ptr<TaskTimer> timer = MakeAlarmTimer(executor_);
  int ran = 0;
  for (int i = 0; i < 10; ++i) {
    timer->Schedule(absl::Hours(1), [&] { ++ran; });
  }
  timer->CancelAll();  // Returns although the alarms are an hour away.
  timer.reset();
  mailbox_.RunAll();
  EXPECT_EQ(ran, 0);
}

}  // namespace
}  // namespace gcpstream::connector
