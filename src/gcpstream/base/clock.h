#ifndef GCPSTREAM_BASE_CLOCK_H_
#define GCPSTREAM_BASE_CLOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gcpstream {

// The one source of "now" for retry deadlines, idle timeouts, flush durations
// and failure timestamps, so that tests drive time instead of sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

// Wall-clock time. A step of the system clock shortens or stretches a retry
// timeout by the step; the attempt bound still ends any retry loop.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }

  // A process-wide instance for callers that take a `const Clock&`.
  static const RealClock& Instance();
};

// Time that moves only when a test says so. Thread-safe, so a test thread can
// advance it while a writer under test reads it.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch()) : now_(start) {}

  absl::Time Now() const override;
  void Advance(absl::Duration delta);
  void Set(absl::Time now);

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_CLOCK_H_
