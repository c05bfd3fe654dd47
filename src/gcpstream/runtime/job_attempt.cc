#include "gcpstream/runtime/job_attempt.h"

#include <pthread.h>

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace gcpstream::runtime {
namespace {

// `top -H`, perf and the benchmarks tell subtasks apart by thread name; the
// kernel keeps 15 bytes, so the end (the subtask index) is kept.
void NameThisThread(const std::string& task) {
  constexpr size_t kMax = 15;
  const std::string name =
      task.size() <= kMax ? task : task.substr(task.size() - kMax);
  pthread_setname_np(pthread_self(), name.c_str());
}

}  // namespace

JobAttempt::JobAttempt(const PipelineGraph& graph,
                       const PipelineOptions& options,
                       CheckpointStorage* storage, MetricsRegistry* metrics,
                       const RestoredState& restored, JobSummary* summary,
                       JobHealth* health)
    : graph_(graph),
      options_(options),
      storage_(storage),
      metrics_(metrics),
      restored_(restored),
      summary_(summary),
      health_(health),
      next_checkpoint_id_(
          std::max(restored.checkpoint_id, summary->highest_checkpoint_id) +
          1) {}

JobAttempt::~JobAttempt() { Shutdown(); }

void JobAttempt::Post(Event event) {
  absl::MutexLock lock(&mu_);
  events_.push_back(std::move(event));
}

void JobAttempt::AcknowledgeCheckpoint(int64_t checkpoint_id,
                                       TaskSnapshot snapshot) {
  Post(Ack{checkpoint_id, std::move(snapshot)});
}
void JobAttempt::SourceFinished() { Post(Finished{}); }
void JobAttempt::TaskFailed(const std::string& task,
                            const absl::Status& status) {
  Post(Failed{task, status});
}
void JobAttempt::Stop() { Post(StopRequest{}); }
void JobAttempt::StopWithCheckpoint(absl::Duration timeout) {
  Post(StopRequest{timeout});
}

int JobAttempt::SourceTaskCount() const {
  int count = 0;
  for (const auto& stage : graph_.stages) {
    if (stage.is_source) count += stage.parallelism;
  }
  return count;
}

absl::Status JobAttempt::BuildTasks() {
  resources_.pipeline = options_.name;
  resources_.cancelled = &cancelled_;
  resources_.events = this;
  resources_.metrics = metrics_;
  resources_.restored = &restored_;
  resources_.batch_size = options_.batch_size;
  resources_.checkpoint_interval = options_.checkpoint_interval;
  resources_.channel_capacity = options_.channel_capacity;
  for (const auto& stage : graph_.stages) {
    auto& signals = resources_.signals.emplace_back();
    for (int i = 0; i < stage.parallelism; ++i) {
      signals.push_back(std::make_shared<TaskSignal>());
    }
  }
  for (size_t s = 0; s < graph_.stages.size(); ++s) {
    const auto& stage = graph_.stages[s];
    for (int i = 0; i < stage.parallelism; ++i) {
      auto context = std::make_unique<TaskContext>(
          absl::StrCat(stage.name, "[", i, "/", stage.parallelism, "]"),
          options_.name, static_cast<int>(s), i, stage.parallelism,
          resources_.signals[s][i], &cancelled_, this, metrics_);
      BuildContext build{&resources_, nullptr, static_cast<int>(s), i,
                         stage.parallelism};
      auto task = stage.create_task(build, std::move(context));
      if (!task.ok()) {
        return absl::Status(task.status().code(),
                            absl::StrCat("cannot start ", stage.name, "[", i,
                                         "]: ", task.status().message()));
      }
      tasks_.push_back(*std::move(task));
    }
  }
  for (const auto& sink : graph_.sinks) {
    committers_.push_back(sink.create_committer());
    if (committers_.back() != nullptr) {
      committers_.back()->Bind({.pipeline = options_.name,
                                .sink_name = sink.name,
                                .metrics = metrics_});
    }
  }
  return absl::OkStatus();
}

void JobAttempt::StartThreads() {
  for (auto& task : tasks_) {
    threads_.emplace_back([raw = task.get()] {
      NameThisThread(raw->context().name());
      raw->Run();
    });
  }
}

void JobAttempt::Shutdown() {
  cancelled_.store(true, std::memory_order_release);
  for (auto& stage : resources_.signals) {
    for (auto& signal : stage) signal->Notify();
  }
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

void JobAttempt::Trigger(bool final) {
  Pending pending;
  pending.id = next_checkpoint_id_++;
  summary_->highest_checkpoint_id = pending.id;
  pending.final = final;
  pending.started = absl::Now();
  pending_ = std::move(pending);
  final_triggered_ = final;
  for (auto& task : tasks_) {
    if (task->context().stage() < static_cast<int>(graph_.stages.size()) &&
        graph_.stages[task->context().stage()].is_source) {
      task->TriggerCheckpoint(pending_->id, final);
    }
  }
}

void JobAttempt::MaybeTrigger() {
  if (pending_.has_value() || final_triggered_) return;
  if (sources_finished_ >= SourceTaskCount() || draining_) {
    Trigger(/*final=*/true);
  } else if (absl::Now() >= next_trigger_) {
    Trigger(/*final=*/false);
  }
}

absl::Status JobAttempt::Complete(Pending& pending) {
  CheckpointData data;
  data.id = pending.id;
  data.final = pending.final;
  data.time = absl::Now();
  data.pipeline = options_.name;
  for (const auto& source : graph_.sources) data.source_splits[source.id];
  for (const auto& sink : graph_.sinks) {
    data.sink_states[sink.id].resize(sink.parallelism);
  }
  for (TaskSnapshot& snapshot : pending.snapshots) {
    if (snapshot.source_splits.has_value()) {
      // A source's stage is named by the source's id.
      auto& splits = data.source_splits[graph_.stages[snapshot.stage].name];
      for (Split& split : *snapshot.source_splits) {
        splits.push_back(std::move(split));
      }
    }
    for (auto& [sink, sink_snapshot] : snapshot.sinks) {
      auto& states = data.sink_states[sink];
      if (snapshot.subtask < static_cast<int>(states.size())) {
        states[snapshot.subtask] = std::move(sink_snapshot.writer_state);
      }
      auto& committables = data.committables[sink];
      for (auto& committable : sink_snapshot.committables) {
        committables.push_back(std::move(committable));
      }
    }
  }
  for (auto& [sink, carried] : carried_committables_) {
    auto& committables = data.committables[sink];
    committables.insert(committables.begin(),
                        std::make_move_iterator(carried.begin()),
                        std::make_move_iterator(carried.end()));
  }
  carried_committables_.clear();
  int64_t bytes = 0;
  if (storage_ != nullptr) {
    auto written = storage_->Write(data);
    if (!written.ok()) return written.status();
    bytes = *written;
  }
  // The checkpoint is durable: make its results visible. A crash from here
  // on re-runs these commits from the stored checkpoint.
  for (size_t i = 0; i < graph_.sinks.size(); ++i) {
    const auto& committables = data.committables[graph_.sinks[i].id];
    if (committers_[i] == nullptr || committables.empty()) continue;
    absl::Status committed = committers_[i]->Commit(data.id, committables);
    if (!committed.ok()) {
      return absl::Status(
          committed.code(),
          absl::StrCat("commit of checkpoint ", data.id, " for ",
                       graph_.sinks[i].id, ": ", committed.message()));
    }
  }
  for (auto& task : tasks_) task->NotifyCheckpointComplete(data.id);

  const absl::Duration duration = absl::Now() - pending.started;
  summary_->checkpoints_completed++;
  summary_->last_checkpoint_id = data.id;
  summary_->last_checkpoint_bytes = bytes;
  summary_->last_checkpoint_duration = duration;
  health_->CheckpointCompleted();
  if (metrics_ != nullptr) {
    const MetricLabels labels{options_.name, "checkpoint-coordinator", 0,
                              std::nullopt};
    if (auto c = metrics_->GetCounter("checkpoints_completed",
                                      "Checkpoints made durable", labels);
        c.ok()) {
      (*c)->Increment();
    }
    if (auto g = metrics_->GetGauge("checkpoint_size_bytes",
                                    "Size of the last checkpoint", labels);
        g.ok()) {
      (*g)->Set(bytes);
    }
    if (auto h = metrics_->GetHistogram("checkpoint_duration_seconds",
                                        "From trigger to durable and committed",
                                        labels, DefaultDurationBuckets());
        h.ok()) {
      (*h)->Observe(absl::ToDoubleSeconds(duration));
    }
  }
  spdlog::debug("pipeline={} checkpoint={} final={} bytes={} duration={}",
                options_.name, data.id, data.final, bytes,
                absl::FormatDuration(duration));
  return absl::OkStatus();
}

void JobAttempt::CarryCommittables(TaskSnapshot& snapshot) {
  for (auto& [sink, sink_snapshot] : snapshot.sinks) {
    auto& carried = carried_committables_[sink];
    for (auto& committable : sink_snapshot.committables) {
      carried.push_back(std::move(committable));
    }
  }
}

std::string JobAttempt::Unacknowledged(const Pending& pending) const {
  std::set<std::pair<int, int>> acknowledged;
  for (const TaskSnapshot& snapshot : pending.snapshots) {
    acknowledged.emplace(snapshot.stage, snapshot.subtask);
  }
  std::string missing;
  for (const auto& task : tasks_) {
    const TaskContext& context = task->context();
    if (acknowledged.contains({context.stage(), context.subtask()})) continue;
    absl::StrAppend(&missing, missing.empty() ? "" : ", ", context.name());
  }
  return missing;
}

void JobAttempt::CountCheckpointFailure() {
  summary_->checkpoints_failed++;
  if (metrics_ == nullptr) return;
  const MetricLabels labels{options_.name, "checkpoint-coordinator", 0,
                            std::nullopt};
  if (auto c = metrics_->GetCounter(
          "checkpoints_failed",
          "Checkpoints not complete within checkpoint-timeout", labels);
      c.ok()) {
    (*c)->Increment();
  }
}

void JobAttempt::CheckpointTimedOut() {
  CountCheckpointFailure();
  ++consecutive_checkpoint_failures_;
  const std::string missing = Unacknowledged(*pending_);
  const std::string what =
      absl::StrCat("checkpoint ", pending_->id,
                   " did not complete within checkpoint-timeout (",
                   absl::FormatDuration(options_.checkpoint_timeout),
                   "): no acknowledgement from ", missing);
  if (consecutive_checkpoint_failures_ >
      options_.tolerable_checkpoint_failures) {
    ending_ = Ending{absl::DeadlineExceededError(absl::StrCat(
        what,
        consecutive_checkpoint_failures_ > 1
            ? absl::StrCat(" (", consecutive_checkpoint_failures_,
                           " checkpoints in a row failed)")
            : "",
        "; those operators are blocked or too slow (a destination that does "
        "not answer, a full channel behind one); raise checkpoint-timeout or "
        "tolerable-checkpoint-failures only if they are slow, not stuck"))};
    return;
  }
  spdlog::warn("pipeline={} {}; tolerated ({} of {} in a row)", options_.name,
               what, consecutive_checkpoint_failures_,
               options_.tolerable_checkpoint_failures);
  for (TaskSnapshot& snapshot : pending_->snapshots) {
    CarryCommittables(snapshot);
  }
  abandoned_[pending_->id] =
      static_cast<int>(tasks_.size() - pending_->snapshots.size());
  if (pending_->final) final_triggered_ = false;  // Try the final one again.
  pending_.reset();
  next_trigger_ = absl::Now() + options_.checkpoint_interval;
}

void JobAttempt::CheckDeadlines() {
  const absl::Time now = absl::Now();
  if (draining_ && now >= drain_deadline_) {
    spdlog::warn(
        "pipeline={} the final checkpoint of the stop did not complete within "
        "shutdown-timeout; stopping without it (what was read since the last "
        "checkpoint will be read again)",
        options_.name);
    summary_->stopped = true;
    ending_ = Ending{absl::OkStatus()};
    return;
  }
  if (pending_.has_value() &&
      now >= pending_->started + options_.checkpoint_timeout) {
    CheckpointTimedOut();
  }
}

absl::Time JobAttempt::NextWake() const {
  absl::Time wake = pending_.has_value()
                        ? pending_->started + options_.checkpoint_timeout
                        : next_trigger_;
  if (draining_) wake = std::min(wake, drain_deadline_);
  return wake;
}

std::deque<JobAttempt::Event> JobAttempt::AwaitEvents(absl::Time deadline) {
  std::deque<Event> events;
  absl::MutexLock lock(&mu_);
  auto has_events = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !events_.empty();
  };
  mu_.AwaitWithDeadline(absl::Condition(&has_events), deadline);
  events.swap(events_);
  return events;
}

void JobAttempt::HandleAck(Ack& ack) {
  if (auto it = abandoned_.find(ack.checkpoint_id); it != abandoned_.end()) {
    CarryCommittables(ack.snapshot);  // A late acknowledgement.
    if (--it->second <= 0) abandoned_.erase(it);
    return;
  }
  if (!pending_.has_value() || ack.checkpoint_id != pending_->id) return;
  pending_->snapshots.push_back(std::move(ack.snapshot));
  if (pending_->snapshots.size() < tasks_.size()) return;
  absl::Status completed = Complete(*pending_);
  const bool final = pending_->final;
  pending_.reset();
  next_trigger_ = absl::Now() + options_.checkpoint_interval;
  if (!completed.ok()) {
    ending_ = Ending{completed};
    return;
  }
  consecutive_checkpoint_failures_ = 0;
  if (final) {
    summary_->stopped_with_checkpoint = draining_;
    ending_ = Ending{absl::OkStatus(), /*finish_tasks=*/true};
  }
}

void JobAttempt::HandleStop(const StopRequest& request) {
  if (!request.checkpoint_timeout.has_value()) {
    summary_->stopped = true;
    ending_ = Ending{absl::OkStatus()};
    return;
  }
  if (draining_) return;
  draining_ = true;
  drain_deadline_ = absl::Now() + *request.checkpoint_timeout;
  spdlog::info("pipeline={} stopping with a final checkpoint (within {})",
               options_.name,
               absl::FormatDuration(*request.checkpoint_timeout));
}

void JobAttempt::Handle(Event& event) {
  if (auto* ack = std::get_if<Ack>(&event)) {
    HandleAck(*ack);
  } else if (std::holds_alternative<Finished>(event)) {
    ++sources_finished_;
  } else if (auto* failed = std::get_if<Failed>(&event)) {
    ending_ = Ending{absl::Status(
        failed->status.code(),
        absl::StrCat(failed->task, ": ", failed->status.message()))};
  } else {
    HandleStop(std::get<StopRequest>(event));
  }
}

absl::Status JobAttempt::Run() {
  if (absl::Status built = BuildTasks(); !built.ok()) {
    Shutdown();
    return built;
  }
  StartThreads();
  health_->AttemptRunning();
  next_trigger_ = absl::Now() + options_.checkpoint_interval;
  while (!ending_.has_value()) {
    for (Event& event : AwaitEvents(NextWake())) {
      Handle(event);
      if (ending_.has_value()) break;
    }
    if (!ending_.has_value()) CheckDeadlines();
    if (!ending_.has_value()) MaybeTrigger();
  }
  if (ending_->finish_tasks) {
    for (auto& task : tasks_) task->RequestFinish();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }
  // Anything else ends by cancellation: a task waiting for acknowledgements
  // or for room in a channel gives up at once instead of waiting out its
  // connector's timeout.
  Shutdown();
  return ending_->status;
}

}  // namespace gcpstream::runtime
