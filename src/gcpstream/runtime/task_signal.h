#ifndef GCPSTREAM_RUNTIME_TASK_SIGNAL_H_
#define GCPSTREAM_RUNTIME_TASK_SIGNAL_H_

#include <cstdint>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gcpstream::runtime {

// Wakes one task thread when anything it may wait for changes: a mail
// arrived, an input channel got data, an output channel got room, the job
// was cancelled. Producers call Notify(); the task waits for a generation
// newer than the one it last saw, so no notification between its check and
// its wait is lost.
class TaskSignal {
 public:
  void Notify() {
    absl::MutexLock lock(&mu_);
    ++generation_;
  }

  uint64_t generation() const {
    absl::MutexLock lock(&mu_);
    return generation_;
  }

  // Returns when the generation moved past `seen` or `deadline` passed.
  void WaitPast(uint64_t seen, absl::Time deadline) const {
    absl::MutexLock lock(&mu_);
    auto moved = [this, seen]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return generation_ != seen;
    };
    mu_.AwaitWithDeadline(absl::Condition(&moved), deadline);
  }

 private:
  mutable absl::Mutex mu_;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_TASK_SIGNAL_H_
