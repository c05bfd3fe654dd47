#ifndef GCPSTREAM_RUNTIME_JOB_HEALTH_H_
#define GCPSTREAM_RUNTIME_JOB_HEALTH_H_

#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gcpstream/base/clock.h"

namespace gcpstream::runtime {

// A probe's answer: healthy or not, and a line saying why.
struct HealthVerdict {
  bool ok = false;
  std::string detail;
};

// What a liveness and a readiness probe should answer for one pipeline
// (served as /healthz and /readyz, see docs/deploy.md). The pipeline reports
// its progress; probes read it from any thread. Updated a few times per
// checkpoint, never per record.
//
// Live: the job has not failed for good, and while it runs a checkpoint
// completed within `checkpoint_stall_bound` (counted from the run's start
// until the first one): a job whose checkpoints stopped completing (a sink
// stuck, a restart loop) is not making progress that will ever be
// acknowledged. A job that finished or was stopped stays live.
// Ready: the current attempt's tasks are running, their source readers
// created (not during a restart's backoff, nor after the end).
class JobHealth {
 public:
  // InfiniteDuration turns the checkpoint bound off.
  explicit JobHealth(absl::Duration checkpoint_stall_bound,
                     const Clock* clock = &RealClock::Instance())
      : bound_(checkpoint_stall_bound), clock_(clock) {}

  void RunStarted();
  void AttemptRunning();
  void AttemptEnded();
  void CheckpointCompleted();
  void FailedForGood(const absl::Status& status);
  void RunEnded();

  HealthVerdict Liveness() const;
  HealthVerdict Readiness() const;

 private:
  enum class Phase { kNotStarted, kRunning, kFailed, kEnded };

  const absl::Duration bound_;
  const Clock* const clock_;
  mutable absl::Mutex mu_;
  Phase phase_ ABSL_GUARDED_BY(mu_) = Phase::kNotStarted;
  bool attempt_running_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time run_started_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Time> last_checkpoint_ ABSL_GUARDED_BY(mu_);
  std::string failure_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_JOB_HEALTH_H_
