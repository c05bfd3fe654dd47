#include "gcpstream/runtime/job_attempt.h"

#include <algorithm>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace gcpstream::runtime {

JobAttempt::JobAttempt(const PipelineGraph& graph,
                       const PipelineOptions& options,
                       CheckpointStorage* storage, MetricsRegistry* metrics,
                       const RestoredState& restored, JobSummary* summary)
    : graph_(graph),
      options_(options),
      storage_(storage),
      metrics_(metrics),
      restored_(restored),
      summary_(summary),
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
    threads_.emplace_back([raw = task.get()] { raw->Run(); });
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
      // One source per pipeline today; its id is the first.
      auto& splits = data.source_splits[graph_.sources.front().id];
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

absl::Status JobAttempt::Run() {
  if (absl::Status built = BuildTasks(); !built.ok()) {
    Shutdown();
    return built;
  }
  StartThreads();
  const int total_tasks = static_cast<int>(tasks_.size());
  const int source_tasks = SourceTaskCount();
  absl::Time next_trigger = absl::Now() + options_.checkpoint_interval;
  absl::Status result;
  bool done = false;
  while (!done) {
    std::deque<Event> events;
    {
      absl::MutexLock lock(&mu_);
      auto has_events = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !events_.empty();
      };
      const absl::Time wake =
          pending_.has_value() ? absl::Now() + absl::Seconds(1) : next_trigger;
      mu_.AwaitWithDeadline(absl::Condition(&has_events), wake);
      events.swap(events_);
    }
    for (Event& event : events) {
      if (auto* ack = std::get_if<Ack>(&event)) {
        if (!pending_.has_value() || ack->checkpoint_id != pending_->id) {
          continue;
        }
        pending_->snapshots.push_back(std::move(ack->snapshot));
        if (static_cast<int>(pending_->snapshots.size()) < total_tasks) {
          continue;
        }
        result = Complete(*pending_);
        const bool final = pending_->final;
        pending_.reset();
        next_trigger = absl::Now() + options_.checkpoint_interval;
        if (!result.ok() || final) done = true;
      } else if (std::holds_alternative<Finished>(event)) {
        ++sources_finished_;
      } else if (auto* failed = std::get_if<Failed>(&event)) {
        result = absl::Status(
            failed->status.code(),
            absl::StrCat(failed->task, ": ", failed->status.message()));
        done = true;
      } else {
        done = true;  // Stop requested.
      }
      if (done) break;
    }
    if (done) break;
    if (!pending_.has_value() && !final_triggered_) {
      if (sources_finished_ >= source_tasks) {
        Trigger(/*final=*/true);
      } else if (absl::Now() >= next_trigger) {
        Trigger(/*final=*/false);
      }
    }
  }
  if (result.ok()) {
    for (auto& task : tasks_) task->RequestFinish();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }
  Shutdown();
  return result;
}

}  // namespace gcpstream::runtime
