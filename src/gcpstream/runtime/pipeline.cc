#include "gcpstream/runtime/pipeline.h"

#include <optional>

#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace gcpstream::runtime {

absl::StatusOr<RestoredState> Pipeline::Restore(CheckpointStorage* storage) {
  RestoredState restored;
  std::optional<CheckpointData> latest;
  if (storage != nullptr) {
    auto loaded = storage->LoadLatest();
    if (!loaded.ok()) return loaded.status();
    latest = *std::move(loaded);
  }
  if (!latest.has_value()) {
    for (const auto& source : graph_.sources) {
      auto splits = source.plan(source.parallelism);
      if (!splits.ok()) return splits.status();
      restored.source_splits[source.id] = *std::move(splits);
    }
    return restored;
  }
  // The checkpoint is durable, but the process may have died before its
  // commits ran: run them again (committers are idempotent) before any
  // writer is created.
  for (const auto& sink : graph_.sinks) {
    auto it = latest->committables.find(sink.id);
    if (it == latest->committables.end() || it->second.empty()) continue;
    auto committer = sink.create_committer();
    if (committer == nullptr) continue;
    committer->Bind({.pipeline = options_.name,
                     .sink_name = sink.name,
                     .metrics = metrics_});
    absl::Status committed = committer->Commit(latest->id, it->second);
    if (!committed.ok()) {
      return absl::Status(
          committed.code(),
          absl::StrCat("re-commit of checkpoint ", latest->id, " for ", sink.id,
                       ": ", committed.message()));
    }
  }
  restored.checkpoint_id = latest->id;
  restored.source_splits = std::move(latest->source_splits);
  restored.sink_states = std::move(latest->sink_states);
  for (const auto& source : graph_.sources) {
    if (!restored.source_splits.contains(source.id)) {
      return absl::FailedPreconditionError(
          absl::StrCat("checkpoint ", latest->id, " in ", storage->directory(),
                       " has no state for ", source.id,
                       "; it was written by a different pipeline"));
    }
  }
  spdlog::info("pipeline={} restoring from checkpoint {}", options_.name,
               latest->id);
  return restored;
}

absl::Status Pipeline::ValidateOptions() const {
  if (absl::Status valid = options_.restart.Validate(); !valid.ok()) {
    return valid;
  }
  if (options_.checkpoint_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "checkpoint-interval: must be positive (infinite for final only)");
  }
  if (options_.checkpoint_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint-timeout: ",
                     absl::FormatDuration(options_.checkpoint_timeout),
                     " must be positive (the default is 10m)"));
  }
  if (options_.tolerable_checkpoint_failures < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("tolerable-checkpoint-failures: ",
                     options_.tolerable_checkpoint_failures,
                     " must be 0 or more (the default is 0)"));
  }
  if (options_.health_checkpoint_timeout != absl::ZeroDuration() &&
      options_.health_checkpoint_timeout <= options_.checkpoint_interval) {
    return absl::InvalidArgumentError(
        absl::StrCat("health-checkpoint-timeout: ",
                     absl::FormatDuration(options_.health_checkpoint_timeout),
                     " must be longer than checkpoint-interval (",
                     absl::FormatDuration(options_.checkpoint_interval),
                     "), or 0 for twice the interval plus checkpoint-timeout"));
  }
  if (options_.shutdown_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shutdown-timeout: ", absl::FormatDuration(options_.shutdown_timeout),
        " must not be negative (the default is 25s)"));
  }
  return absl::OkStatus();
}

bool Pipeline::WaitBeforeRestart(absl::Duration delay) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&stop_requested_), delay);
  return !stop_requested_;
}

absl::StatusOr<JobSummary> Pipeline::Run() {
  health_.RunStarted();
  absl::StatusOr<JobSummary> result = RunAttempts();
  if (result.ok()) {
    health_.RunEnded();
  } else {
    health_.FailedForGood(result.status());
  }
  return result;
}

absl::StatusOr<JobSummary> Pipeline::RunAttempts() {
  if (graph_.sources.empty()) {
    return absl::FailedPreconditionError("pipeline has no source");
  }
  if (absl::Status valid = ValidateOptions(); !valid.ok()) return valid;
  std::optional<CheckpointStorage> storage;
  if (!options_.checkpoint_directory.empty()) {
    auto opened = CheckpointStorage::Open(options_.checkpoint_directory,
                                          options_.checkpoint_retention);
    if (!opened.ok()) return opened.status();
    storage = *std::move(opened);
  }
  auto restarts = metrics_->GetCounter(
      "restarts", "Times the job was restored after a failure",
      MetricLabels{options_.name, "job", 0, std::nullopt});
  JobSummary summary;
  while (true) {
    absl::Status status;
    auto restored = Restore(storage.has_value() ? &*storage : nullptr);
    if (!restored.ok()) {
      status = restored.status();
    } else {
      summary.restored_checkpoint_id = restored->checkpoint_id;
      JobAttempt attempt(graph_, options_,
                         storage.has_value() ? &*storage : nullptr, metrics_,
                         *restored, &summary, &health_);
      {
        absl::MutexLock lock(&mu_);
        if (stop_requested_) {
          summary.stopped = true;
          return summary;
        }
        running_ = &attempt;
      }
      status = attempt.Run();
      health_.AttemptEnded();
      absl::MutexLock lock(&mu_);
      running_ = nullptr;
      if (stop_requested_) {
        return status.ok() ? absl::StatusOr<JobSummary>(summary) : status;
      }
    }
    if (status.ok()) return summary;
    const auto delay =
        options_.restart.DelayBeforeRestart(summary.restarts + 1);
    if (!delay.has_value()) {
      return absl::Status(
          status.code(),
          absl::StrCat(
              "pipeline ", options_.name, " failed",
              summary.restarts > 0
                  ? absl::StrCat(" after ", summary.restarts, " restarts")
                  : "",
              ": ", status.message()));
    }
    ++summary.restarts;
    if (restarts.ok()) (*restarts)->Increment();
    spdlog::warn("pipeline={} failed: {}; restart {} in {}", options_.name,
                 status.ToString(), summary.restarts,
                 absl::FormatDuration(*delay));
    if (!WaitBeforeRestart(*delay)) {
      summary.stopped = true;
      return summary;
    }
  }
}

void Pipeline::Stop() {
  absl::MutexLock lock(&mu_);
  stop_requested_ = true;
  if (running_ != nullptr) running_->Stop();
}

void Pipeline::StopWithCheckpoint() {
  absl::MutexLock lock(&mu_);
  stop_requested_ = true;
  if (running_ != nullptr) {
    running_->StopWithCheckpoint(options_.shutdown_timeout);
  }
}

}  // namespace gcpstream::runtime
