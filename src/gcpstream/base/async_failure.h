#ifndef GCPSTREAM_BASE_ASYNC_FAILURE_H_
#define GCPSTREAM_BASE_ASYNC_FAILURE_H_

#include <atomic>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace gcpstream {

// Carries a failure from wherever it happened (a gRPC completion, a timer, a
// failure handler called from a completion posted to the mailbox) to the
// writer's next Write() or Flush() on its task thread, which returns it.
// The first failure wins and stays: once a writer has failed, every later
// call reports the same cause, so no failure is lost or replaced by a
// consequence of it. Checking is one relaxed atomic load when nothing failed.
class AsyncFailure {
 public:
  // Records `status` if it is an error and none was recorded before.
  // Safe from any thread.
  void Capture(const absl::Status& status) {
    if (status.ok()) return;
    absl::MutexLock lock(&mu_);
    if (!first_.ok()) return;
    first_ = status;
    failed_.store(true, std::memory_order_release);
  }

  // OK, or the first captured failure.
  absl::Status Check() const {
    if (!failed_.load(std::memory_order_acquire)) return absl::OkStatus();
    absl::MutexLock lock(&mu_);
    return first_;
  }

  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> failed_{false};
  mutable absl::Mutex mu_;
  absl::Status first_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_ASYNC_FAILURE_H_
