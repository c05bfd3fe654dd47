#ifndef GCPSTREAM_CONNECTOR_COMPLETIONS_H_
#define GCPSTREAM_CONNECTOR_COMPLETIONS_H_

#include <functional>
#include <memory>
#include <utility>

#include <grpcpp/support/status.h>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gcpstream/connector/callback_tracker.h"
#include "gcpstream/connector/grpc_status.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::connector {

// Turns gRPC completions into task-thread work. A writer's state changes only
// on its task thread; gRPC calls back on its own threads. Each callback made
// by Wrap() posts the result to the task's mailbox and then tells the tracker
// gRPC is done with it, so Close() can wait until no callback still uses the
// call's memory. A mail that runs after Close() does nothing.
class Completions {
 public:
  explicit Completions(runtime::MailboxExecutor executor)
      : executor_(executor),
        alive_(std::make_shared<bool>(true)),
        tracker_(std::make_shared<CallbackTracker>()) {}
  ~Completions() { Close(); }
  Completions(const Completions&) = delete;
  Completions& operator=(const Completions&) = delete;

  // The callback to give a unary gRPC call: `on_task(status)` runs on the
  // task thread. `also` (e.g. one destination's tracker) counts the
  // callback too.
  template <typename OnTask>
  std::function<void(const grpc::Status&)> Wrap(
      OnTask on_task, std::shared_ptr<CallbackTracker> also = nullptr) {
    tracker_->Begin();
    if (also != nullptr) also->Begin();
    return [executor = executor_, alive = alive_, tracker = tracker_,
            also = std::move(also),
            on_task = std::move(on_task)](const grpc::Status& status) mutable {
      executor.Post([alive, on_task, result = FromGrpc(status)]() mutable {
        if (*alive) on_task(result);
      });
      if (also != nullptr) also->End();
      tracker->End();
    };
  }

  // The per-response callback of a streaming call whose end goes through
  // Wrap(): `on_task(response)` runs on the task thread, in arrival order.
  // gRPC delivers every response before the call's end, so Wrap()'s
  // tracking covers these callbacks too.
  template <typename Response, typename OnTask>
  std::function<void(Response&&)> WrapEach(OnTask on_task) {
    return [executor = executor_, alive = alive_,
            on_task = std::move(on_task)](Response&& response) mutable {
      executor.Post([alive, on_task, response = std::move(response)]() mutable {
        if (*alive) on_task(std::move(response));
      });
    };
  }

  // Counts a callback that is not a unary call's (a stream reactor's).
  CallbackTracker& tracker() { return *tracker_; }
  runtime::MailboxExecutor executor() const { return executor_; }

  // Task thread. Mails of earlier callbacks do nothing from now on; waits
  // until gRPC returned every callback (the caller cancelled the calls).
  // False when some are still out after `timeout`.
  bool Close(absl::Duration timeout = absl::InfiniteDuration()) {
    *alive_ = false;
    return tracker_->WaitForNone(timeout);
  }

 private:
  runtime::MailboxExecutor executor_;
  // Read and written on the task thread only.
  std::shared_ptr<bool> alive_;
  std::shared_ptr<CallbackTracker> tracker_;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_COMPLETIONS_H_
