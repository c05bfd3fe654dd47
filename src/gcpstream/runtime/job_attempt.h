#ifndef GCPSTREAM_RUNTIME_JOB_ATTEMPT_H_
#define GCPSTREAM_RUNTIME_JOB_ATTEMPT_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/runtime/build_context.h"
#include "gcpstream/runtime/checkpoint_storage.h"
#include "gcpstream/runtime/job_health.h"
#include "gcpstream/runtime/pipeline_graph.h"
#include "gcpstream/runtime/pipeline_options.h"
#include "gcpstream/runtime/task.h"

namespace gcpstream::runtime {

// Counts over a whole run, restarts included.
struct JobSummary {
  int64_t checkpoints_completed = 0;
  int64_t last_checkpoint_id = 0;
  int64_t last_checkpoint_bytes = 0;
  absl::Duration last_checkpoint_duration = absl::ZeroDuration();
  int restarts = 0;
  // The checkpoint the last attempt resumed from (0: none).
  int64_t restored_checkpoint_id = 0;
  // The highest checkpoint id any attempt of this run started (completed
  // or not): the next attempt's ids start above it, so an id is never used
  // twice in a process, checkpoint directory or not.
  int64_t highest_checkpoint_id = 0;
  // Checkpoints given up on after checkpoint-timeout.
  int64_t checkpoints_failed = 0;
  // How the run ended when it did not end with its input: Stop() or a
  // StopWithCheckpoint() whose final checkpoint did not complete in time
  // (`stopped`), or a StopWithCheckpoint() that completed it
  // (`stopped_with_checkpoint`: everything read was written, committed and
  // acknowledged to the source).
  bool stopped = false;
  bool stopped_with_checkpoint = false;
};

// One run of every task of a pipeline, from a restored state until the
// input ends (after a final checkpoint) or something fails. It is also the
// checkpoint coordinator: it triggers checkpoints at the sources, collects
// every task's acknowledgement, makes the checkpoint durable, runs the
// committers, and notifies the sources.
class JobAttempt final : public JobEvents {
 public:
  JobAttempt(const PipelineGraph& graph, const PipelineOptions& options,
             CheckpointStorage* storage, MetricsRegistry* metrics,
             const RestoredState& restored, JobSummary* summary,
             JobHealth* health);
  ~JobAttempt() override;

  // Runs until done; OK only after the final checkpoint of a bounded job
  // completed (or Stop() was called).
  absl::Status Run();

  // Thread-safe: ends the run now. Tasks waiting inside a writer or on a
  // full channel give up; nothing after the last checkpoint is committed.
  void Stop();
  // Thread-safe: takes a final checkpoint (the sources stop reading at its
  // barrier), commits it and acknowledges it to the sources, then ends the
  // run; if that takes longer than `timeout`, ends it as Stop() does.
  void StopWithCheckpoint(absl::Duration timeout);

  void AcknowledgeCheckpoint(int64_t checkpoint_id,
                             TaskSnapshot snapshot) override;
  void SourceFinished() override;
  void TaskFailed(const std::string& task, const absl::Status& status) override;

 private:
  struct Ack {
    int64_t checkpoint_id;
    TaskSnapshot snapshot;
  };
  struct Finished {};
  struct Failed {
    std::string task;
    absl::Status status;
  };
  struct StopRequest {
    std::optional<absl::Duration> checkpoint_timeout;  // Unset: at once.
  };
  using Event = std::variant<Ack, Finished, Failed, StopRequest>;

  struct Pending {
    int64_t id = 0;
    bool final = false;
    absl::Time started;
    std::vector<TaskSnapshot> snapshots;
  };

  // Why the coordinator loop ended.
  struct Ending {
    absl::Status status;
    // The final checkpoint completed: tasks finish their work and close
    // rather than being cancelled.
    bool finish_tasks = false;
  };

  void Post(Event event);
  absl::Status BuildTasks();
  void StartThreads();
  void Shutdown();
  std::deque<Event> AwaitEvents(absl::Time deadline);
  absl::Time NextWake() const;
  void Handle(Event& event);
  void HandleAck(Ack& ack);
  void HandleStop(const StopRequest& request);
  void CheckDeadlines();
  void CheckpointTimedOut();
  void MaybeTrigger();
  void Trigger(bool final);
  absl::Status Complete(Pending& pending);
  void CarryCommittables(TaskSnapshot& snapshot);
  std::string Unacknowledged(const Pending& pending) const;
  void CountCheckpointFailure();
  int SourceTaskCount() const;

  const PipelineGraph& graph_;
  const PipelineOptions& options_;
  CheckpointStorage* storage_;
  MetricsRegistry* metrics_;
  const RestoredState& restored_;
  JobSummary* summary_;
  JobHealth* health_;

  std::atomic<bool> cancelled_{false};
  AttemptResources resources_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<std::thread> threads_;
  std::vector<std::unique_ptr<Committer>> committers_;  // By graph sink.

  absl::Mutex mu_;
  std::deque<Event> events_ ABSL_GUARDED_BY(mu_);

  int64_t next_checkpoint_id_;
  absl::Time next_trigger_ = absl::InfiniteFuture();
  std::optional<Pending> pending_;
  int sources_finished_ = 0;
  bool final_triggered_ = false;
  std::optional<Ending> ending_;
  // StopWithCheckpoint() was asked: the next checkpoint is the final one,
  // and the run ends at `drain_deadline_` without it.
  bool draining_ = false;
  absl::Time drain_deadline_ = absl::InfiniteFuture();
  int consecutive_checkpoint_failures_ = 0;
  // Checkpoints given up on -> acknowledgements still to come. Their
  // committables are committed with the next checkpoint that completes, so
  // what a writer prepared for a failed checkpoint is never lost.
  std::map<int64_t, int> abandoned_;
  std::map<std::string, std::vector<std::string>> carried_committables_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_JOB_ATTEMPT_H_
