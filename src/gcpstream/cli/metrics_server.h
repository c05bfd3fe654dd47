#ifndef GCPSTREAM_CLI_METRICS_SERVER_H_
#define GCPSTREAM_CLI_METRICS_SERVER_H_

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/runtime/job_health.h"

namespace gcpstream::cli {

// A minimal HTTP/1.1 server on its own thread for scrapers and probes:
// GET /metrics answers the registry in Prometheus text format; GET /healthz
// and GET /readyz answer the job's liveness and readiness (200 or 503, with
// a line saying why; "ok" for both without a job); anything else 404. One
// request per connection.
class MetricsServer {
 public:
  // `address`: the interface to listen on ("127.0.0.1" by default; "0.0.0.0"
  // for every interface). Port 0 picks a free one.
  // `health` (may be null) must outlive the server.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const MetricsRegistry& metrics, const std::string& address, int port,
      const runtime::JobHealth* health = nullptr);

  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  MetricsServer(ConstructorKey, const MetricsRegistry& metrics,
                const runtime::JobHealth* health, int fd, int port);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }

 private:
  void Serve();
  void Answer(int client) const;

  const MetricsRegistry& metrics_;
  const runtime::JobHealth* const health_;
  const int fd_;
  const int port_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace gcpstream::cli

#endif  // GCPSTREAM_CLI_METRICS_SERVER_H_
