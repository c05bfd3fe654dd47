#ifndef GCPSTREAM_CHAOS_FAULT_SCHEDULE_H_
#define GCPSTREAM_CHAOS_FAULT_SCHEDULE_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/testing/fault_proxy.h"

namespace gcpstream::chaos {

// One fault the schedule injected, and how long the pipeline took after it
// ended to complete a checkpoint again (its recovery).
struct InjectedFault {
  std::string what;
  absl::Duration at;  // From the schedule's start.
  absl::Duration lasted;
  absl::Duration recovery = absl::InfiniteDuration();  // None seen.
};

// The faults every chaos test injects through its FaultProxy, on a thread of
// its own, while the pipeline checkpoints every second:
//   1.5 s  every connection reset (in-flight calls fail, streams break)
//   3 s    a 5-second blackhole (nothing moves; new connections wait)
//   9 s    200 ms of latency on every chunk, for 2 s
//   12 s   every connection reset again
class FaultSchedule {
 public:
  // `checkpoints`: the pipeline's checkpoints_completed counter.
  FaultSchedule(testing::FaultProxy& proxy,
                std::shared_ptr<Counter> checkpoints);
  ~FaultSchedule();
  FaultSchedule(const FaultSchedule&) = delete;
  FaultSchedule& operator=(const FaultSchedule&) = delete;

  // Waits for the schedule (and the recovery after its last fault, up to
  // 30 s) and returns what was injected.
  std::vector<InjectedFault> Finish();

 private:
  void Run();
  // Waits until `checkpoints_` moves past `seen` (or 30 s pass).
  absl::Duration WaitForCheckpoint(uint64_t seen, absl::Time since);

  testing::FaultProxy& proxy_;
  std::shared_ptr<Counter> checkpoints_;
  absl::Mutex mu_;
  std::vector<InjectedFault> faults_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// The checkpoints_completed counter of `pipeline` in `metrics`.
std::shared_ptr<Counter> CheckpointsCompleted(MetricsRegistry& metrics,
                                              const std::string& pipeline);

// Prints `summary` (what went in and came out) and one line per fault, for
// the test log and docs/reliability.md, and expects the pipeline to have
// checkpointed again after every fault.
void Report(const std::string& summary,
            const std::vector<InjectedFault>& faults);

}  // namespace gcpstream::chaos

#endif  // GCPSTREAM_CHAOS_FAULT_SCHEDULE_H_
