#ifndef GCPSTREAM_RUNTIME_EXCHANGE_H_
#define GCPSTREAM_RUNTIME_EXCHANGE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "gcpstream/runtime/build_context.h"
#include "gcpstream/runtime/channel.h"
#include "gcpstream/runtime/operator_metrics.h"
#include "gcpstream/runtime/output.h"
#include "gcpstream/runtime/task.h"

namespace gcpstream::runtime {

// The wiring between stages and the next: which consumer subtask each
// record goes to, and the channels of the current attempt. A union has
// several producing stages; their subtasks are the rows of one matrix.
template <typename T>
class ExchangeSpec {
 public:
  // Returns the consumer index for a record.
  using Partitioner = std::function<size_t(const T&, size_t consumers)>;
  using Matrix = std::vector<std::vector<std::shared_ptr<Channel<T>>>>;
  enum class Routing {
    kPartitioner,  // By the partitioner (KeyBy).
    kRoundRobin,   // Record by record over every consumer (Rebalance).
    // Producer subtask i always feeds consumer i mod consumers (Union): the
    // records of one split stay in order.
    kPointwise
  };

  ExchangeSpec(std::vector<int> producer_stages, int consumer_stage,
               Routing routing, Partitioner partitioner = nullptr)
      : producer_stages_(std::move(producer_stages)),
        consumer_stage_(consumer_stage),
        routing_(routing),
        partitioner_(std::move(partitioner)) {}

  // The channels [producer row][consumer] of this attempt, created on first
  // use.
  Matrix& Channels(AttemptResources& attempt) const {
    auto& slot = attempt.exchanges[consumer_stage_];
    if (slot == nullptr) {
      const auto& consumers = attempt.signals[consumer_stage_];
      auto matrix = std::make_shared<Matrix>();
      for (int stage : producer_stages_) {
        for (const auto& producer : attempt.signals[stage]) {
          auto& row = matrix->emplace_back();
          for (const auto& consumer : consumers) {
            row.push_back(std::make_shared<Channel<T>>(attempt.channel_capacity,
                                                       consumer, producer));
          }
        }
      }
      slot = matrix;
    }
    return *std::static_pointer_cast<Matrix>(slot);
  }

  // The matrix row of `subtask` of producing stage `stage`.
  size_t RowOf(const AttemptResources& attempt, int stage, int subtask) const {
    size_t row = 0;
    for (int producer : producer_stages_) {
      if (producer == stage) break;
      row += attempt.signals[producer].size();
    }
    return row + static_cast<size_t>(subtask);
  }

  Routing routing() const { return routing_; }
  const Partitioner& partitioner() const { return partitioner_; }
  int consumer_stage() const { return consumer_stage_; }

 private:
  std::vector<int> producer_stages_;
  int consumer_stage_;
  Routing routing_;
  Partitioner partitioner_;
};

// The producer side of an exchange in one subtask: records are batched per
// consumer and pushed when a batch is full, at control events, and when the
// task's input runs dry. A full channel makes the task wait (backpressure),
// serving completion mails meanwhile.
template <typename T>
class ExchangeEndpoint final : public Endpoint, public Output<T> {
 public:
  ExchangeEndpoint(const ExchangeSpec<T>* spec, BuildContext& context,
                   OperatorMetrics metrics)
      : spec_(spec),
        task_(&context.task->context()),
        channels_(spec->Channels(*context.attempt)[spec->RowOf(
            *context.attempt, context.stage, context.subtask)]),
        buffers_(channels_.size()),
        batch_size_(context.attempt->batch_size),
        metrics_(std::move(metrics)),
        next_(static_cast<size_t>(context.subtask) % channels_.size()) {
    for (auto& buffer : buffers_) buffer.reserve(batch_size_);
  }

  void Collect(StreamRecord<T>&& record) override {
    size_t consumer = next_;
    switch (spec_->routing()) {
      case ExchangeSpec<T>::Routing::kPartitioner:
        consumer = spec_->partitioner()(record.value, channels_.size());
        break;
      case ExchangeSpec<T>::Routing::kRoundRobin:
        next_ = (next_ + 1) % channels_.size();
        break;
      case ExchangeSpec<T>::Routing::kPointwise:
        break;
    }
    auto& buffer = buffers_[consumer];
    buffer.emplace_back(std::move(record));
    if (buffer.size() >= batch_size_) Push(consumer);
  }

  absl::Status OnWatermark(const WatermarkEvent& event) override {
    for (size_t c = 0; c < buffers_.size(); ++c) {
      buffers_[c].emplace_back(event);
      Push(c);
    }
    return task_->failure();
  }

  absl::Status OnBarrier(const Barrier& barrier, TaskSnapshot&) override {
    for (size_t c = 0; c < buffers_.size(); ++c) {
      buffers_[c].emplace_back(barrier);
      Push(c);
    }
    return task_->cancelled() ? absl::CancelledError("job cancelled")
                              : task_->failure();
  }

  absl::Status FlushBuffers() override {
    for (size_t c = 0; c < buffers_.size(); ++c) {
      if (!buffers_[c].empty()) Push(c);
    }
    return absl::OkStatus();
  }

  void Close() override {}

 private:
  void Push(size_t consumer) {
    auto& buffer = buffers_[consumer];
    size_t records = 0;
    for (const auto& element : buffer) {
      records += std::holds_alternative<StreamRecord<T>>(element) ? 1 : 0;
    }
    Channel<T>& channel = *channels_[consumer];
    if (!channel.TryPush(buffer)) {
      const absl::Time start = absl::Now();
      // Returns false when cancelled: the buffer is dropped with the job.
      task_->WaitUntil([&] { return channel.TryPush(buffer); });
      metrics_.backpressure_micros->Increment(
          absl::ToInt64Microseconds(absl::Now() - start));
      buffer.clear();
    }
    metrics_.records_out->Increment(records);
    buffer.reserve(batch_size_);
  }

  const ExchangeSpec<T>* spec_;
  TaskContext* task_;
  std::vector<std::shared_ptr<Channel<T>>> channels_;
  std::vector<typename Channel<T>::Batch> buffers_;
  size_t batch_size_;
  OperatorMetrics metrics_;
  size_t next_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_EXCHANGE_H_
