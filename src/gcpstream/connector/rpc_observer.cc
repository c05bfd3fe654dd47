#include "gcpstream/connector/rpc_observer.h"

#include <utility>

#include "spdlog/spdlog.h"

namespace gcpstream::connector {

void RpcLatency::OnEnd(absl::string_view method, const grpc::Status&,
                       absl::Duration elapsed) {
  auto it = by_method_.find(method);
  if (it != by_method_.end()) {
    it->second->Observe(absl::ToDoubleSeconds(elapsed));
  }
}

void RpcLogging::OnStart(absl::string_view method,
                         const google::protobuf::Message& request) {
  if (!spdlog::should_log(spdlog::level::debug)) return;
  std::string summary = request.ShortDebugString();
  if (summary.size() > kMaxRequestChars) {
    summary.resize(kMaxRequestChars);
    summary += "...";
  }
  spdlog::debug("{}: {} start: {}", name_, std::string(method), summary);
}

void RpcLogging::OnEnd(absl::string_view method, const grpc::Status& status,
                       absl::Duration elapsed) {
  if (!spdlog::should_log(spdlog::level::debug)) return;
  spdlog::debug("{}: {} end: code {} after {}{}{}", name_, std::string(method),
                static_cast<int>(status.error_code()),
                absl::FormatDuration(elapsed), status.ok() ? "" : ": ",
                status.error_message());
}

RpcDone RpcObservers::Observe(absl::string_view method,
                              const google::protobuf::Message& request,
                              RpcDone done) const {
  if (empty()) return done;
  for (const auto& observer : *observers_) observer->OnStart(method, request);
  return [observers = observers_, method, started = absl::Now(),
          done = std::move(done)](const grpc::Status& status) {
    const absl::Duration elapsed = absl::Now() - started;
    for (const auto& observer : *observers) {
      observer->OnEnd(method, status, elapsed);
    }
    done(status);
  };
}

RpcObservers LoggedAndTimed(
    std::string name,
    absl::flat_hash_map<std::string, std::shared_ptr<Histogram>> latency) {
  std::vector<std::shared_ptr<RpcObserver>> observers;
  observers.push_back(std::make_shared<RpcLogging>(std::move(name)));
  if (!latency.empty()) {
    observers.push_back(std::make_shared<RpcLatency>(std::move(latency)));
  }
  return RpcObservers(std::move(observers));
}

}  // namespace gcpstream::connector
