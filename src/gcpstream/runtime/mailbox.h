#ifndef GCPSTREAM_RUNTIME_MAILBOX_H_
#define GCPSTREAM_RUNTIME_MAILBOX_H_

#include <atomic>
#include <deque>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gcpstream/runtime/task_signal.h"

namespace gcpstream::runtime {

// The queue of work for one subtask's task thread. Everything that touches a
// writer, a reader or a failure handler runs on that thread; other threads
// (gRPC completions, timers, the checkpoint coordinator) post a mail instead
// of touching them, so no lock is needed around connector state.
//
// Two kinds of mail:
// - completions (Post): results of asynchronous work a connector started.
//   They may run whenever the task yields, including inside Write() or
//   Flush() while a writer waits for room or for acknowledgements.
// - control (PostControl): checkpoint triggers and notifications. They run
//   only between two records, never inside a writer call, so a checkpoint
//   always sees a writer at a record boundary.
class Mailbox {
 public:
  using Mail = std::function<void()>;

  // `cancelled`, if set, is the job's cancellation flag: waits inside the
  // task (YieldUntil) give up once it is raised, so a cancelled job never
  // hangs on acknowledgements that will not come.
  explicit Mailbox(std::shared_ptr<TaskSignal> signal,
                   const std::atomic<bool>* cancelled = nullptr)
      : signal_(std::move(signal)), cancelled_(cancelled) {}

  // Thread-safe.
  void Post(Mail mail);
  void PostControl(Mail mail);

  // Task thread only. Runs every completion mail queued now; returns how
  // many ran.
  int RunCompletions();
  // Task thread only. Runs every queued mail, completions first.
  int RunAll();

  bool HasCompletions() const;
  bool HasAny() const;

  TaskSignal& signal() { return *signal_; }
  bool cancelled() const {
    return cancelled_ != nullptr && cancelled_->load(std::memory_order_acquire);
  }

 private:
  mutable absl::Mutex mu_;
  std::deque<Mail> completions_ ABSL_GUARDED_BY(mu_);
  std::deque<Mail> control_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<TaskSignal> signal_;
  const std::atomic<bool>* cancelled_;
};

// What a writer or reader gets to talk to its task thread.
class MailboxExecutor {
 public:
  explicit MailboxExecutor(Mailbox* mailbox) : mailbox_(mailbox) {}

  // Thread-safe: run `mail` on the task thread at its next yield or loop.
  void Post(Mailbox::Mail mail) { mailbox_->Post(std::move(mail)); }

  // Task thread only: runs completion mails until `done()` holds, sleeping
  // while there are none. Returns false if `deadline` passed or the job was
  // cancelled first. This is how Flush() waits for acknowledgements without
  // blocking the completions that deliver them.
  template <typename Predicate>
  bool YieldUntil(Predicate done, absl::Time deadline = absl::InfiniteFuture());

 private:
  Mailbox* mailbox_;
};

template <typename Predicate>
bool MailboxExecutor::YieldUntil(Predicate done, absl::Time deadline) {
  while (true) {
    const uint64_t seen = mailbox_->signal().generation();
    mailbox_->RunCompletions();
    if (done()) return true;
    if (absl::Now() >= deadline || mailbox_->cancelled()) return false;
    if (!mailbox_->HasCompletions()) {
      mailbox_->signal().WaitPast(seen, deadline);
    }
  }
}

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_MAILBOX_H_
