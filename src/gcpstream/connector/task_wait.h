#ifndef GCPSTREAM_CONNECTOR_TASK_WAIT_H_
#define GCPSTREAM_CONNECTOR_TASK_WAIT_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::connector {

enum class WaitResult {
  kDone,      // done() held.
  kTimedOut,  // `deadline` passed on the timer's clock first.
  kCancelled  // The job was cancelled first.
};

// Serves the task's mailbox (completions only) until `done()` holds, the
// timer's clock reaches `deadline`, or the job is cancelled. The deadline
// is a timer mail, so a ManualTimer drives it. Task thread only.
template <typename Done>
WaitResult WaitOnTask(TaskTimer& timer, runtime::MailboxExecutor executor,
                      Done done, absl::Time deadline) {
  if (done()) return WaitResult::kDone;
  auto timed_out = std::make_shared<bool>(false);
  TaskTimer::Id alarm = 0;
  if (deadline != absl::InfiniteFuture()) {
    alarm = timer.Schedule(deadline - timer.clock().Now(),
                           [timed_out] { *timed_out = true; });
  }
  const bool stopped =
      executor.YieldUntil([&] { return *timed_out || done(); });
  if (alarm != 0) timer.Cancel(alarm);
  if (!stopped) return WaitResult::kCancelled;
  return done() ? WaitResult::kDone : WaitResult::kTimedOut;
}

// Waits `delay` on the timer while serving the mailbox (a retry backoff).
// Cancelled, naming `who`, when the job is cancelled first.
inline absl::Status SleepOnTask(TaskTimer& timer,
                                runtime::MailboxExecutor executor,
                                absl::Duration delay, absl::string_view who) {
  const WaitResult result = WaitOnTask(
      timer, executor, [] { return false; }, timer.clock().Now() + delay);
  if (result == WaitResult::kCancelled) {
    return absl::CancelledError(
        absl::StrCat(who, ": stopped waiting to retry: the job was cancelled"));
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_TASK_WAIT_H_
