#ifndef GCPSTREAM_BASE_FAILURE_HANDLER_H_
#define GCPSTREAM_BASE_FAILURE_HANDLER_H_

#include <concepts>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "gcpstream/base/dead_letter_queue.h"
#include "gcpstream/base/failed_element.h"

namespace gcpstream {

// Decides the fate of records a connector could not write (per-record
// refusals only: transient errors are retried inside the connector and
// request-level terminal errors always fail the job).
//
// All calls happen on the writer's task thread:
// - Open(): once before the first Handle(), when the writer is created and
//   again after a restore.
// - Handle(): OK means the record is dealt with (dropped or queued); an error
//   fails the ongoing write or checkpoint.
// - Flush(): at every checkpoint and at end of input, after the write path
//   drained; on OK every handled record is durable. An error fails the
//   checkpoint.
// - Close(): releases resources; never relied on for persistence.
template <typename F>
requires std::derived_from<F, FailedElement>
class FailureHandler {
 public:
  virtual ~FailureHandler() = default;
  virtual absl::Status Open(const FailureHandlerContext& context) = 0;
  virtual absl::Status Handle(const F& failure) = 0;
  virtual absl::Status Flush() = 0;
  virtual void Close() = 0;
};

namespace failure_handler_internal {

// The built-ins' behaviour, shared by every element type.
absl::Status FailJobStatus(const FailedElement& failure);
void LogDropped(const FailedElement& failure);
// The sink's `records_dropped` counter, or a private one without a registry.
std::shared_ptr<Counter> DroppedCounter(const FailureHandlerContext& context);
absl::Status NotOpen(const char* handler);

// Adapts a handler over FailedElement to any derived element type, and
// enforces that Handle() comes after Open().
template <typename F>
class Adapter final : public FailureHandler<F> {
 public:
  class Behaviour {
   public:
    virtual ~Behaviour() = default;
    virtual const char* name() const = 0;
    virtual absl::Status Open(const FailureHandlerContext&) {
      return absl::OkStatus();
    }
    virtual absl::Status Handle(const FailedElement& failure) = 0;
    virtual absl::Status Flush() { return absl::OkStatus(); }
    virtual void Close() {}
  };

  explicit Adapter(std::unique_ptr<Behaviour> behaviour)
      : behaviour_(std::move(behaviour)) {}

  absl::Status Open(const FailureHandlerContext& context) override {
    absl::Status opened = behaviour_->Open(context);
    open_ = opened.ok();
    return opened;
  }
  absl::Status Handle(const F& failure) override {
    if (!open_) return NotOpen(behaviour_->name());
    return behaviour_->Handle(failure);
  }
  absl::Status Flush() override {
    if (!open_) return NotOpen(behaviour_->name());
    return behaviour_->Flush();
  }
  void Close() override {
    open_ = false;
    behaviour_->Close();
  }

 private:
  std::unique_ptr<Behaviour> behaviour_;
  bool open_ = false;
};

}  // namespace failure_handler_internal

// The default everywhere: the first refused record fails the job, with an
// error naming the destination, the refusal and how to route instead.
template <typename F>
std::unique_ptr<FailureHandler<F>> FailJob() {
  using Adapter = failure_handler_internal::Adapter<F>;
  class Behaviour final : public Adapter::Behaviour {
   public:
    const char* name() const override { return "fail-job"; }
    absl::Status Handle(const FailedElement& failure) override {
      return failure_handler_internal::FailJobStatus(failure);
    }
  };
  return std::make_unique<Adapter>(std::make_unique<Behaviour>());
}

// Logs each refused record at WARN (status and destination, never the
// payload bytes), drops it, and counts it in `records_dropped`.

template <typename F>
std::unique_ptr<FailureHandler<F>> LogAndDrop() {
  using Adapter = failure_handler_internal::Adapter<F>;
  class Behaviour final : public Adapter::Behaviour {
   public:
    const char* name() const override { return "log-and-drop"; }
    absl::Status Open(const FailureHandlerContext& context) override {
      dropped_ = failure_handler_internal::DroppedCounter(context);
      return absl::OkStatus();
    }
    absl::Status Handle(const FailedElement& failure) override {
      failure_handler_internal::LogDropped(failure);
      dropped_->Increment();
      return absl::OkStatus();
    }

   private:
    std::shared_ptr<Counter> dropped_;
  };
  return std::make_unique<Adapter>(std::make_unique<Behaviour>());
}

// Offers each refused record to `queue` and drives the queue's Open, Flush
// and Close from its own. Any queue error fails the job.
template <typename F>
std::unique_ptr<FailureHandler<F>> SendToDeadLetterQueue(
    std::unique_ptr<DeadLetterQueue> queue) {
  using Adapter = failure_handler_internal::Adapter<F>;
  class Behaviour final : public Adapter::Behaviour {
   public:
    explicit Behaviour(std::unique_ptr<DeadLetterQueue> q)
        : queue_(std::move(q)) {}
    const char* name() const override { return "dead-letter-queue"; }
    absl::Status Open(const FailureHandlerContext& context) override {
      return queue_->Open(context);
    }
    absl::Status Handle(const FailedElement& failure) override {
      return queue_->Offer(failure);
    }
    absl::Status Flush() override { return queue_->Flush(); }
    void Close() override { queue_->Close(); }

   private:
    std::unique_ptr<DeadLetterQueue> queue_;
  };
  return std::make_unique<Adapter>(
      std::make_unique<Behaviour>(std::move(queue)));
}

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_FAILURE_HANDLER_H_
