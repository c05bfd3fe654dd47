#ifndef GCPSTREAM_RUNTIME_SINK_ENDPOINT_H_
#define GCPSTREAM_RUNTIME_SINK_ENDPOINT_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/runtime/operator_metrics.h"
#include "gcpstream/runtime/output.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/runtime/task.h"

namespace gcpstream::runtime {

// One sink writer inside a task: records arrive through Collect(), control
// events through the Endpoint calls.
template <typename T>
class SinkEndpoint final : public Endpoint, public Output<T> {
 public:
  SinkEndpoint(std::string sink_id, std::unique_ptr<SinkWriter<T>> writer,
               TaskContext* task, OperatorMetrics metrics)
      : sink_id_(std::move(sink_id)),
        writer_(std::move(writer)),
        task_(task),
        metrics_(std::move(metrics)) {
    context_.subtask_index = task->subtask();
  }

  void Collect(StreamRecord<T>&& record) override {
    if (task_->failed()) return;  // Stop writing after the first failure.
    metrics_.records_in->Increment();
    context_.event_time =
        record.timestamp == kNoTimestamp
            ? std::nullopt
            : std::optional<absl::Time>(absl::FromUnixMicros(record.timestamp));
    absl::Status status = writer_->Write(record.value, context_);
    ++context_.record_position;
    if (!status.ok()) task_->Fail(status);
  }

  absl::Status OnWatermark(const WatermarkEvent& event) override {
    if (!event.idle) {
      context_.watermark = event.watermark == kMaxWatermark
                               ? absl::InfiniteFuture()
                               : absl::FromUnixMicros(event.watermark);
    }
    return absl::OkStatus();
  }

  absl::Status OnBarrier(const Barrier& barrier,
                         TaskSnapshot& snapshot) override {
    if (absl::Status flushed = writer_->Flush(barrier.final); !flushed.ok()) {
      return flushed;
    }
    auto state = writer_->SnapshotState(barrier.checkpoint_id);
    if (!state.ok()) return state.status();
    auto committables = writer_->PrepareCommit(barrier.checkpoint_id);
    if (!committables.ok()) return committables.status();
    snapshot.sinks[sink_id_] =
        SinkSnapshot{*std::move(state), *std::move(committables)};
    return absl::OkStatus();
  }

  absl::Status FlushBuffers() override {
    if (task_->failed()) return absl::OkStatus();
    return writer_->OnInputIdle();
  }

  void Close() override { writer_->Close(); }

 private:
  std::string sink_id_;
  std::unique_ptr<SinkWriter<T>> writer_;
  TaskContext* task_;
  OperatorMetrics metrics_;
  WriterContext context_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_SINK_ENDPOINT_H_
