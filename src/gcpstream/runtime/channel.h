#ifndef GCPSTREAM_RUNTIME_CHANNEL_H_
#define GCPSTREAM_RUNTIME_CHANNEL_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gcpstream/runtime/stream_element.h"
#include "gcpstream/runtime/task_signal.h"

namespace gcpstream::runtime {

// A bounded queue of element batches from one producer subtask to one
// consumer subtask. Elements move in batches so the per-record cost of an
// exchange is a vector append, not a lock; the bound (in batches) is what
// gives backpressure: a full channel makes its producer wait.
template <typename T>
class Channel {
 public:
  using Batch = std::vector<StreamElement<T>>;

  Channel(size_t capacity, std::shared_ptr<TaskSignal> consumer,
          std::shared_ptr<TaskSignal> producer)
      : capacity_(capacity),
        consumer_(std::move(consumer)),
        producer_(std::move(producer)) {}

  // Moves `batch` in unless the channel is full.
  bool TryPush(Batch& batch) {
    {
      absl::MutexLock lock(&mu_);
      if (batches_.size() >= capacity_) return false;
      batches_.push_back(std::move(batch));
    }
    batch.clear();
    consumer_->Notify();
    return true;
  }

  bool TryPop(Batch* batch) {
    {
      absl::MutexLock lock(&mu_);
      if (batches_.empty()) return false;
      *batch = std::move(batches_.front());
      batches_.pop_front();
    }
    producer_->Notify();
    return true;
  }

  bool HasRoom() const {
    absl::MutexLock lock(&mu_);
    return batches_.size() < capacity_;
  }

 private:
  const size_t capacity_;
  std::shared_ptr<TaskSignal> consumer_;
  std::shared_ptr<TaskSignal> producer_;
  mutable absl::Mutex mu_;
  std::deque<Batch> batches_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CHANNEL_H_
