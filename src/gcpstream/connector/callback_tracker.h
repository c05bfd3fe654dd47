#ifndef GCPSTREAM_CONNECTOR_CALLBACK_TRACKER_H_
#define GCPSTREAM_CONNECTOR_CALLBACK_TRACKER_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gcpstream::connector {

// Counts gRPC callbacks (RPC completions, alarms) that have not run yet, so
// that whoever owns the memory they use can wait until gRPC let go of it.
// Shared (by shared_ptr) between the owner and the callbacks.
class CallbackTracker {
 public:
  void Begin() {
    absl::MutexLock lock(&mu_);
    ++pending_;
  }
  void End() {
    absl::MutexLock lock(&mu_);
    --pending_;
  }
  // False if callbacks are still pending after `timeout`.
  bool WaitForNone(absl::Duration timeout = absl::InfiniteDuration()) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(this, &CallbackTracker::None),
                                timeout);
  }
  int pending() const {
    absl::MutexLock lock(&mu_);
    return pending_;
  }

 private:
  bool None() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return pending_ == 0; }

  mutable absl::Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_CALLBACK_TRACKER_H_
