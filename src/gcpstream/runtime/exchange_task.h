#ifndef GCPSTREAM_RUNTIME_EXCHANGE_TASK_H_
#define GCPSTREAM_RUNTIME_EXCHANGE_TASK_H_

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "absl/time/clock.h"
#include "gcpstream/runtime/channel.h"
#include "gcpstream/runtime/operator_metrics.h"
#include "gcpstream/runtime/output.h"
#include "gcpstream/runtime/task.h"

namespace gcpstream::runtime {

// A subtask fed by the channels of an exchange (KeyBy, rebalance). It reads
// its inputs round-robin, aligns checkpoint barriers (an input that delivered
// barrier n is not read further until every input delivered it), and keeps
// the minimum watermark of its active inputs.
template <typename T>
class ExchangeTask final : public Task {
 public:
  ExchangeTask(std::unique_ptr<TaskContext> context, OperatorMetrics metrics)
      : Task(std::move(context)), metrics_(std::move(metrics)) {}

  void Attach(std::vector<std::shared_ptr<Channel<T>>> inputs,
              std::shared_ptr<Output<T>> head) {
    inputs_.clear();
    for (auto& channel : inputs) {
      Input input;
      input.channel = std::move(channel);
      inputs_.push_back(std::move(input));
    }
    head_ = std::move(head);
  }

  void Run() override {
    TaskContext& task = context();
    while (!task.cancelled() && !finish_requested_ && !task.failed()) {
      const uint64_t seen = task.signal().generation();
      task.mailbox().RunAll();
      if (task.cancelled() || finish_requested_ || task.failed()) break;
      bool progressed = false;
      for (size_t i = 0; i < inputs_.size() && !task.failed(); ++i) {
        progressed |= Drain(i);
      }
      if (task.failed()) break;
      if (!progressed) {
        ForEachEndpoint(&Endpoint::FlushBuffers);
        if (!task.mailbox().HasAny()) {
          task.signal().WaitPast(seen, absl::Now() + absl::Seconds(1));
        }
      }
    }
    ReportFailure();
    CloseEndpoints();
  }

 private:
  struct Input {
    std::shared_ptr<Channel<T>> channel;
    typename Channel<T>::Batch batch;
    size_t next = 0;
    std::optional<int64_t> blocked_at;  // Barrier delivered, not yet aligned.
    int64_t watermark = kMinWatermark;
    bool idle = false;
  };

  // Processes input i's current batch (popping one if needed) until it ends
  // or a barrier blocks the input. Returns whether anything was consumed.
  bool Drain(size_t i) {
    Input& input = inputs_[i];
    if (input.blocked_at.has_value()) return false;
    if (input.next >= input.batch.size()) {
      input.batch.clear();
      input.next = 0;
      if (!input.channel->TryPop(&input.batch)) return false;
    }
    while (input.next < input.batch.size() && !input.blocked_at.has_value()) {
      auto& element = input.batch[input.next++];
      if (auto* record = std::get_if<StreamRecord<T>>(&element)) {
        if (input.idle) {
          input.idle = false;
          UpdateWatermark();
        }
        metrics_.records_in->Increment();
        head_->Collect(std::move(*record));
        if (context().failed()) return true;
      } else if (auto* watermark = std::get_if<WatermarkEvent>(&element)) {
        input.idle = watermark->idle;
        if (!watermark->idle) {
          input.watermark = std::max(input.watermark, watermark->watermark);
        }
        UpdateWatermark();
      } else {
        OnBarrier(i, std::get<Barrier>(element));
      }
    }
    return true;
  }

  void OnBarrier(size_t i, const Barrier& barrier) {
    inputs_[i].blocked_at = barrier.checkpoint_id;
    for (const Input& input : inputs_) {
      if (!input.blocked_at.has_value()) return;  // Not aligned yet.
    }
    // Every input delivered the barrier: everything before it went through.
    Checkpoint(barrier, TaskSnapshot{});
    for (Input& input : inputs_) input.blocked_at.reset();
  }

  void UpdateWatermark() {
    int64_t combined = kMaxWatermark;
    bool all_idle = true;
    for (const Input& input : inputs_) {
      if (input.idle) continue;
      all_idle = false;
      combined = std::min(combined, input.watermark);
    }
    if (all_idle) {
      if (!idle_) {
        idle_ = true;
        BroadcastWatermark(WatermarkEvent{kMinWatermark, true});
      }
      return;
    }
    if (idle_ || combined > watermark_) {
      idle_ = false;
      watermark_ = std::max(watermark_, combined);
      BroadcastWatermark(WatermarkEvent{watermark_, false});
    }
  }

  OperatorMetrics metrics_;
  std::vector<Input> inputs_;
  std::shared_ptr<Output<T>> head_;
  int64_t watermark_ = kMinWatermark;
  bool idle_ = false;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_EXCHANGE_TASK_H_
