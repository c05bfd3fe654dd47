#ifndef GCPSTREAM_CLI_METRICS_SERVER_H_
#define GCPSTREAM_CLI_METRICS_SERVER_H_

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "gcpstream/base/metrics.h"

namespace gcpstream::cli {

// A minimal HTTP/1.1 server on its own thread for scrapers: GET /metrics
// answers the registry in Prometheus text format, GET /healthz "ok";
// anything else 404. One request per connection.
class MetricsServer {
 public:
  // `address`: the interface to listen on ("127.0.0.1" by default; "0.0.0.0"
  // for every interface). Port 0 picks a free one.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const MetricsRegistry& metrics, const std::string& address, int port);

  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  MetricsServer(ConstructorKey, const MetricsRegistry& metrics, int fd,
                int port);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }

 private:
  void Serve();
  void Answer(int client) const;

  const MetricsRegistry& metrics_;
  const int fd_;
  const int port_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace gcpstream::cli

#endif  // GCPSTREAM_CLI_METRICS_SERVER_H_
