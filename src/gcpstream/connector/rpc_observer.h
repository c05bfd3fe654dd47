#ifndef GCPSTREAM_CONNECTOR_RPC_OBSERVER_H_
#define GCPSTREAM_CONNECTOR_RPC_OBSERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/message.h>
#include <grpcpp/support/status.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/base/metrics.h"

namespace gcpstream::connector {

// How a stub reports the end of a call: exactly once, on any thread.
using RpcDone = std::function<void(const grpc::Status&)>;
// Each response of a server-streaming call as it arrives, on gRPC's thread,
// before the call's RpcDone.
template <typename Response>
using RpcOnResponse = std::function<void(Response&&)>;

// Sees every call a service stub makes: the cross-cutting concerns a stub
// decorator adds to each RPC (logging, latency), kept out of the
// per-service code. OnStart runs on the caller's thread; OnEnd on gRPC's
// thread, so an observer must be thread-safe.
class RpcObserver {
 public:
  virtual ~RpcObserver() = default;
  virtual void OnStart(absl::string_view method,
                       const google::protobuf::Message& request) = 0;
  virtual void OnEnd(absl::string_view method, const grpc::Status& status,
                     absl::Duration elapsed) = 0;
};

// Records each call's latency in the histogram given for its method;
// methods without one are not timed.
class RpcLatency final : public RpcObserver {
 public:
  explicit RpcLatency(
      absl::flat_hash_map<std::string, std::shared_ptr<Histogram>> by_method)
      : by_method_(std::move(by_method)) {}
  void OnStart(absl::string_view, const google::protobuf::Message&) override {}
  void OnEnd(absl::string_view method, const grpc::Status& status,
             absl::Duration elapsed) override;

 private:
  const absl::flat_hash_map<std::string, std::shared_ptr<Histogram>> by_method_;
};

// Logs each call's start (with a summary of its request) and end (status
// code, elapsed time) at debug level, under `name` (the connector). Nothing
// is formatted unless debug logging is on (`gcpstream run --log-level
// debug`). Requests hold data, not credentials; metadata is never logged.
class RpcLogging final : public RpcObserver {
 public:
  // Longest request summary logged; the rest is cut with "...".
  static constexpr size_t kMaxRequestChars = 512;

  explicit RpcLogging(std::string name) : name_(std::move(name)) {}
  void OnStart(absl::string_view method,
               const google::protobuf::Message& request) override;
  void OnEnd(absl::string_view method, const grpc::Status& status,
             absl::Duration elapsed) override;

 private:
  const std::string name_;
};

// The observers of one stub; copies share them.
class RpcObservers {
 public:
  RpcObservers() = default;
  explicit RpcObservers(std::vector<std::shared_ptr<RpcObserver>> observers)
      : observers_(std::make_shared<const Observers>(std::move(observers))) {}

  // Tells every observer the call starts and returns `done` wrapped to tell
  // them it ended (before `done` runs). `method` must be a literal: the
  // wrapper keeps the view.
  RpcDone Observe(absl::string_view method,
                  const google::protobuf::Message& request, RpcDone done) const;

  bool empty() const { return observers_ == nullptr || observers_->empty(); }

 private:
  using Observers = std::vector<std::shared_ptr<RpcObserver>>;
  // Shared by every call's wrapper: one reference count per call, not one
  // per observer.
  std::shared_ptr<const Observers> observers_;
};

// The usual pair: debug logging under `name`, and latency per method.
RpcObservers LoggedAndTimed(
    std::string name,
    absl::flat_hash_map<std::string, std::shared_ptr<Histogram>> latency = {});

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_RPC_OBSERVER_H_
