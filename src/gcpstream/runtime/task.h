#ifndef GCPSTREAM_RUNTIME_TASK_H_
#define GCPSTREAM_RUNTIME_TASK_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "gcpstream/base/async_failure.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/source.h"
#include "gcpstream/runtime/stream_element.h"

namespace gcpstream::runtime {

struct SinkSnapshot {
  std::string writer_state;
  std::vector<std::string> committables;
};

// What one subtask contributes to a checkpoint.
struct TaskSnapshot {
  int stage = 0;
  int subtask = 0;
  std::optional<std::vector<Split>> source_splits;  // Source tasks only.
  std::map<std::string, SinkSnapshot> sinks;        // By sink id.
};

// The coordinator's side, called from task threads.
class JobEvents {
 public:
  virtual ~JobEvents() = default;
  virtual void AcknowledgeCheckpoint(int64_t checkpoint_id,
                                     TaskSnapshot snapshot) = 0;
  virtual void SourceFinished() = 0;
  virtual void TaskFailed(const std::string& task,
                          const absl::Status& status) = 0;
};

// Runtime services of one subtask.
class TaskContext {
 public:
  TaskContext(std::string name, std::string pipeline, int stage, int subtask,
              int parallelism, std::shared_ptr<TaskSignal> signal,
              const std::atomic<bool>* cancelled, JobEvents* events,
              MetricsRegistry* metrics)
      : name_(std::move(name)),
        pipeline_(std::move(pipeline)),
        stage_(stage),
        subtask_(subtask),
        parallelism_(parallelism),
        signal_(signal),
        mailbox_(std::move(signal), cancelled),
        cancelled_(cancelled),
        events_(events),
        metrics_(metrics) {}

  const std::string& name() const { return name_; }
  const std::string& pipeline() const { return pipeline_; }
  int stage() const { return stage_; }
  int subtask() const { return subtask_; }
  int parallelism() const { return parallelism_; }
  Mailbox& mailbox() { return mailbox_; }
  MailboxExecutor executor() { return MailboxExecutor(&mailbox_); }
  TaskSignal& signal() { return *signal_; }
  const std::shared_ptr<TaskSignal>& shared_signal() const { return signal_; }
  JobEvents& events() { return *events_; }
  MetricsRegistry* metrics() { return metrics_; }

  bool cancelled() const { return cancelled_->load(std::memory_order_acquire); }
  // Keeps the first failure; the task loop reports it and stops.
  void Fail(const absl::Status& status) { failure_.Capture(status); }
  bool failed() const { return failure_.failed(); }
  absl::Status failure() const { return failure_.Check(); }

  // Serves completion mails until `ready()`; false if the job is cancelled or
  // this task failed first. Used where a task must wait inside a record
  // (a full output channel).
  template <typename Predicate>
  bool WaitUntil(Predicate ready) {
    while (true) {
      const uint64_t seen = signal_->generation();
      mailbox_.RunCompletions();
      if (cancelled() || failed()) return false;
      if (ready()) return true;
      signal_->WaitPast(seen, absl::Now() + absl::Milliseconds(100));
    }
  }

 private:
  std::string name_;
  std::string pipeline_;
  int stage_;
  int subtask_;
  int parallelism_;
  std::shared_ptr<TaskSignal> signal_;
  Mailbox mailbox_;
  const std::atomic<bool>* cancelled_;
  JobEvents* events_;
  MetricsRegistry* metrics_;
  AsyncFailure failure_;
};

// The end of a chain inside a task: a sink writer or an exchange to the next
// stage. The task drives control events through its endpoints.
class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual absl::Status OnWatermark(const WatermarkEvent& event) = 0;
  // The barrier is aligned: everything before it has gone through the chain.
  virtual absl::Status OnBarrier(const Barrier& barrier,
                                 TaskSnapshot& snapshot) = 0;
  // The input is momentarily dry: send partial batches on, for latency.
  virtual absl::Status FlushBuffers() = 0;
  virtual void Close() = 0;
};

// One subtask's thread body and its control entry points.
class Task {
 public:
  explicit Task(std::unique_ptr<TaskContext> context)
      : context_(std::move(context)) {}
  virtual ~Task() = default;

  virtual void Run() = 0;

  // Called from the coordinator thread; each posts a control mail.
  virtual void TriggerCheckpoint(int64_t /*checkpoint_id*/, bool /*final*/) {}
  virtual void NotifyCheckpointComplete(int64_t /*checkpoint_id*/) {}
  void RequestFinish() {
    context_->mailbox().PostControl([this] { finish_requested_ = true; });
  }

  TaskContext& context() { return *context_; }
  std::vector<std::shared_ptr<Endpoint>>& endpoints() { return endpoints_; }

 protected:
  // Lets every endpoint take part in checkpoint `barrier`, then acknowledges
  // it with `snapshot`. A failure is recorded in the context.
  void Checkpoint(const Barrier& barrier, TaskSnapshot snapshot) {
    snapshot.stage = context_->stage();
    snapshot.subtask = context_->subtask();
    for (auto& endpoint : endpoints_) {
      absl::Status status = endpoint->OnBarrier(barrier, snapshot);
      if (!status.ok()) {
        context_->Fail(status);
        return;
      }
    }
    context_->events().AcknowledgeCheckpoint(barrier.checkpoint_id,
                                             std::move(snapshot));
  }

  void ForEachEndpoint(absl::Status (Endpoint::*call)()) {
    for (auto& endpoint : endpoints_) {
      absl::Status status = (endpoint.get()->*call)();
      if (!status.ok()) context_->Fail(status);
    }
  }

  void BroadcastWatermark(const WatermarkEvent& event) {
    for (auto& endpoint : endpoints_) {
      absl::Status status = endpoint->OnWatermark(event);
      if (!status.ok()) context_->Fail(status);
    }
  }

  void CloseEndpoints() {
    for (auto& endpoint : endpoints_) endpoint->Close();
  }

  // The loop ends with a failure report, if any.
  void ReportFailure() {
    if (context_->failed()) {
      context_->events().TaskFailed(context_->name(), context_->failure());
    }
  }

  bool finish_requested_ = false;

 private:
  std::unique_ptr<TaskContext> context_;
  std::vector<std::shared_ptr<Endpoint>> endpoints_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_TASK_H_
