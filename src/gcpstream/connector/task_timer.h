#ifndef GCPSTREAM_CONNECTOR_TASK_TIMER_H_
#define GCPSTREAM_CONNECTOR_TASK_TIMER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::connector {

// Runs work on a task thread after a delay: batch ages, retry backoff,
// progress checks. Writers never read wall time or arm gRPC alarms
// themselves; they ask their timer, so a test that swaps in a ManualTimer
// drives every wait of a connector with a fake clock.
//
// Threading: Schedule, Cancel and CancelAll are called on the task thread,
// and a scheduled mail runs there (posted to the task's mailbox as a
// completion, so it also runs while the task yields inside Write/Flush).
// A mail cancelled before it ran never runs, even if it was already due.
class TaskTimer {
 public:
  using Id = uint64_t;
  using Mail = std::function<void()>;

  virtual ~TaskTimer() = default;

  // The time this timer's delays are measured on.
  virtual const Clock& clock() const = 0;

  // Runs `mail` on the task thread once `delay` has passed (at once when it
  // is not positive, at the task's next yield).
  virtual Id Schedule(absl::Duration delay, Mail mail) = 0;
  // The mail of `id` will not run; unknown or finished ids are ignored.
  virtual void Cancel(Id id) = 0;
  // Cancels every mail; on return no callback of the timer runs on another
  // thread any more. Called before the owner's state goes away.
  virtual void CancelAll() = 0;
};

// The production timer: one gRPC alarm per scheduled mail, on real time.
std::unique_ptr<TaskTimer> MakeAlarmTimer(runtime::MailboxExecutor executor);

// How a connector's options let a test swap the timer of each writer.
using TimerFactory =
    std::function<std::unique_ptr<TaskTimer>(runtime::MailboxExecutor)>;
// `factory`'s timer, or the alarm timer when it is null.
std::unique_ptr<TaskTimer> MakeTimer(const TimerFactory& factory,
                                     runtime::MailboxExecutor executor);

// A timer on a FakeClock that moves only when a test says so. Advance() may
// be called from any thread (a test thread while the task thread waits in a
// writer call); due mails are posted to the task's mailbox. With
// `auto_advance`, a task thread that waits on the timer moves the clock
// itself: each Schedule() advances the clock to the mail's due time at
// once, so a retry loop runs through its backoff deterministically in one
// thread, and delays() records what it waited.
class ManualTimer final : public TaskTimer {
 public:
  ManualTimer(FakeClock& clock, runtime::MailboxExecutor executor,
              bool auto_advance = false);
  ~ManualTimer() override;

  const Clock& clock() const override { return clock_; }
  Id Schedule(absl::Duration delay, Mail mail) override;
  void Cancel(Id id) override;
  void CancelAll() override;

  // Moves the clock by `delta` and posts every mail now due.
  void Advance(absl::Duration delta);
  // Every delay passed to Schedule(), in order.
  std::vector<absl::Duration> delays() const;
  // Mails scheduled and neither run nor cancelled.
  int pending() const;

 private:
  struct Entry {
    absl::Time due;
    Mail mail;
  };
  void PostDue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  FakeClock& clock_;
  runtime::MailboxExecutor executor_;
  const bool auto_advance_;
  // Mails hold a weak reference: one posted before the timer went away
  // does nothing.
  std::shared_ptr<ManualTimer*> self_;
  mutable absl::Mutex mu_;
  std::map<Id, Entry> entries_ ABSL_GUARDED_BY(mu_);
  // Due and posted, not yet run: Cancel() still stops them.
  std::map<Id, Mail> posted_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Duration> delays_ ABSL_GUARDED_BY(mu_);
  Id next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_TASK_TIMER_H_
