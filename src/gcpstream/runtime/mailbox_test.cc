#include "gcpstream/runtime/mailbox.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::runtime {
namespace {

using ::testing::ElementsAre;

TEST(MailboxTest, MailsRunInPostingOrderOnTheCallingThread) {
  Mailbox mailbox(std::make_shared<TaskSignal>());
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) mailbox.Post([&order, i] { order.push_back(i); });
  EXPECT_EQ(mailbox.RunAll(), 5);
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 3, 4));
}

TEST(MailboxTest, YieldRunsCompletionsButNeverControlMails) {
  Mailbox mailbox(std::make_shared<TaskSignal>());
  MailboxExecutor executor(&mailbox);
  bool checkpoint_ran = false;
  int acked = 0;
  mailbox.PostControl([&] { checkpoint_ran = true; });
  mailbox.Post([&] { ++acked; });
  mailbox.Post([&] { ++acked; });
  EXPECT_TRUE(executor.YieldUntil([&] { return acked == 2; }));
  // A checkpoint must never start inside a writer's Flush().
  EXPECT_FALSE(checkpoint_ran);
  mailbox.RunAll();
  EXPECT_TRUE(checkpoint_ran);
}

TEST(MailboxTest, YieldUntilTimesOut) {
  Mailbox mailbox(std::make_shared<TaskSignal>());
  MailboxExecutor executor(&mailbox);
  EXPECT_FALSE(executor.YieldUntil([] { return false; },
                                   absl::Now() + absl::Milliseconds(20)));
}

// The contract writers rely on: completions posted from other threads run on
// the task thread, one at a time, never concurrently with Write(); so writer
// state needs no lock.
TEST(MailboxTest, YieldUntilGivesUpWhenTheJobIsCancelled) {
  std::atomic<bool> cancelled{false};
  Mailbox mailbox(std::make_shared<TaskSignal>(), &cancelled);
  MailboxExecutor executor(&mailbox);
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(20));
    cancelled = true;
    mailbox.signal().Notify();
  });
  EXPECT_FALSE(executor.YieldUntil([] { return false; }));
  canceller.join();
}

TEST(MailboxTest, CompletionsNeverRunConcurrentlyWithTheTaskThread) {
  auto signal = std::make_shared<TaskSignal>();
  Mailbox mailbox(signal);
  MailboxExecutor executor(&mailbox);
  std::atomic<bool> in_write{false};
  std::atomic<int> overlaps{0};
  int in_flight = 0;  // Task-thread state, deliberately unsynchronised.
  int acknowledged = 0;
  std::vector<std::thread> completers;
  constexpr int kWrites = 2000;
  for (int i = 0; i < kWrites; ++i) {
    // "Write": start an asynchronous send completed by another thread.
    in_write = true;
    ++in_flight;
    completers.emplace_back([&] {
      executor.Post([&] {
        if (in_write.load()) overlaps++;
        --in_flight;
        ++acknowledged;
      });
    });
    in_write = false;
    if (i % 100 == 99) {
      for (auto& thread : completers) thread.join();
      completers.clear();
    }
    mailbox.RunCompletions();
  }
  for (auto& thread : completers) thread.join();
  // "Flush": wait for every acknowledgement through the mailbox.
  EXPECT_TRUE(executor.YieldUntil([&] { return in_flight == 0; },
                                  absl::Now() + absl::Seconds(10)));
  EXPECT_EQ(acknowledged, kWrites);
  EXPECT_EQ(overlaps.load(), 0);
}

TEST(MailboxTest, PostWakesAWaitingTask) {
  auto signal = std::make_shared<TaskSignal>();
  Mailbox mailbox(signal);
  const uint64_t seen = signal->generation();
  std::thread poster([&] {
    absl::SleepFor(absl::Milliseconds(20));
    mailbox.Post([] {});
  });
  const absl::Time start = absl::Now();
  signal->WaitPast(seen, absl::Now() + absl::Seconds(10));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_TRUE(mailbox.HasCompletions());
  poster.join();
}

}  // namespace
}  // namespace gcpstream::runtime
