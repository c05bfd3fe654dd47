#ifndef GCPSTREAM_RUNTIME_SOURCE_TASK_H_
#define GCPSTREAM_RUNTIME_SOURCE_TASK_H_

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/time/clock.h"
#include "gcpstream/runtime/operator_metrics.h"
#include "gcpstream/runtime/output.h"
#include "gcpstream/runtime/source.h"
#include "gcpstream/runtime/task.h"
#include "gcpstream/runtime/watermark_strategy.h"

namespace gcpstream::runtime {

// A subtask that reads splits: polls its reader between mails, assigns event
// times and generates watermarks, and injects checkpoint barriers when the
// coordinator triggers them. The reader is only ever called on this thread,
// and never while a barrier is being emitted, so its snapshot always matches
// the records emitted before the barrier.
template <typename T>
class SourceTask final : public Task, private ReaderOutput<T> {
 public:
  SourceTask(std::unique_ptr<TaskContext> context,
             WatermarkStrategy<T> strategy, OperatorMetrics metrics)
      : Task(std::move(context)),
        strategy_(std::move(strategy)),
        metrics_(std::move(metrics)) {}

  // Set once the chain is built, before Run().
  void Attach(std::unique_ptr<SourceReader<T>> reader,
              std::shared_ptr<Output<T>> head) {
    reader_ = std::move(reader);
    head_ = std::move(head);
  }

  void TriggerCheckpoint(int64_t checkpoint_id, bool final) override {
    context().mailbox().PostControl([this, checkpoint_id, final] {
      auto splits = reader_->SnapshotState(checkpoint_id);
      if (!splits.ok()) {
        context().Fail(splits.status());
        return;
      }
      TaskSnapshot snapshot;
      snapshot.source_splits = *std::move(splits);
      Checkpoint(Barrier{checkpoint_id, final}, std::move(snapshot));
      // Nothing is read after a final barrier: on a stop with checkpoint,
      // the final checkpoint then covers everything this source emitted.
      if (final) reading_stopped_ = true;
    });
  }

  void NotifyCheckpointComplete(int64_t checkpoint_id) override {
    context().mailbox().PostControl([this, checkpoint_id] {
      absl::Status status = reader_->NotifyCheckpointComplete(checkpoint_id);
      if (!status.ok()) context().Fail(status);
    });
  }

  void Run() override {
    TaskContext& task = context();
    absl::Time next_poll = absl::InfinitePast();
    last_record_time_ = absl::Now();
    while (!task.cancelled() && !finish_requested_ && !task.failed()) {
      const uint64_t seen = task.signal().generation();
      task.mailbox().RunAll();
      if (task.cancelled() || finish_requested_ || task.failed()) break;
      absl::Time wake = absl::Now() + absl::Seconds(1);
      if (!end_of_input_ && !reading_stopped_ && absl::Now() >= next_poll) {
        auto result = reader_->PollNext(*this);
        if (!result.ok()) {
          task.Fail(result.status());
          break;
        }
        if (result->status == InputStatus::kEndOfInput) {
          EndOfInput();
        } else if (result->status == InputStatus::kNothingAvailable) {
          ForEachEndpoint(&Endpoint::FlushBuffers);
          next_poll = absl::Now() + result->retry_after;
          wake = std::min(wake, next_poll);
        } else {
          MaybeEmitWatermark();
          continue;  // More is available: poll again after the mailbox.
        }
      }
      MaybeEmitWatermark();
      if (!end_of_input_ && !reading_stopped_) {
        wake = std::min(wake, next_poll);
      }
      if (!task.mailbox().HasAny()) task.signal().WaitPast(seen, wake);
    }
    ReportFailure();
    CloseEndpoints();
    reader_->Close();
  }

 private:
  void Collect(T value) override { Emit(std::move(value), kNoTimestamp); }

  void Collect(T value, absl::Time event_time) override {
    Emit(std::move(value), absl::ToUnixMicros(event_time));
  }

  void Emit(T value, int64_t timestamp) {
    if (strategy_.timestamp) {
      if (auto assigned = strategy_.timestamp(value)) {
        timestamp = absl::ToUnixMicros(*assigned);
      }
    }
    if (timestamp != kNoTimestamp) {
      max_timestamp_ = std::max(max_timestamp_, timestamp);
    }
    metrics_.records_in->Increment();
    records_since_check_ = true;
    head_->Collect(StreamRecord<T>{std::move(value), timestamp});
  }

  // Sends the watermark when it moved (at most every emit interval), and
  // marks this source idle after `idleness` without records.
  void MaybeEmitWatermark() {
    const absl::Time now = absl::Now();
    if (records_since_check_) {
      records_since_check_ = false;
      last_record_time_ = now;
      idle_ = false;
    } else if (!idle_ && now - last_record_time_ >= strategy_.idleness) {
      idle_ = true;
      BroadcastWatermark(WatermarkEvent{kMinWatermark, true});
      return;
    }
    if (idle_ || max_timestamp_ == kMinWatermark ||
        now - last_watermark_emit_ < strategy_.emit_interval) {
      return;
    }
    const int64_t watermark =
        max_timestamp_ -
        absl::ToInt64Microseconds(strategy_.max_out_of_orderness) - 1;
    if (watermark > emitted_watermark_) {
      emitted_watermark_ = watermark;
      last_watermark_emit_ = now;
      BroadcastWatermark(WatermarkEvent{watermark, false});
    }
  }

  void EndOfInput() {
    end_of_input_ = true;
    // Everything event-time based may now complete.
    BroadcastWatermark(WatermarkEvent{kMaxWatermark, false});
    ForEachEndpoint(&Endpoint::FlushBuffers);
    context().events().SourceFinished();
  }

  WatermarkStrategy<T> strategy_;
  OperatorMetrics metrics_;
  std::unique_ptr<SourceReader<T>> reader_;
  std::shared_ptr<Output<T>> head_;
  bool end_of_input_ = false;
  bool reading_stopped_ = false;
  int64_t max_timestamp_ = kMinWatermark;
  int64_t emitted_watermark_ = kMinWatermark;
  absl::Time last_watermark_emit_ = absl::InfinitePast();
  absl::Time last_record_time_;
  bool records_since_check_ = false;
  bool idle_ = false;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_SOURCE_TASK_H_
