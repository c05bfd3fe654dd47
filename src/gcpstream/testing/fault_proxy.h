#ifndef GCPSTREAM_TESTING_FAULT_PROXY_H_
#define GCPSTREAM_TESTING_FAULT_PROXY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gcpstream::testing {

// A loopback TCP proxy in front of an emulator that injects network faults
// on demand, for the chaos tests: every connection reset at once (in-flight
// calls fail, streams break mid-way), a blackhole (nothing moves either way
// and new connections wait, as in a partition; held bytes flow again after),
// added latency on every chunk forwarded, and an outage (every connection
// refused for a while, as when the service's process dies and restarts).
class FaultProxy {
 public:
  // Listens on a free loopback port and forwards to `upstream`
  // ("127.0.0.1:port").
  static absl::StatusOr<std::unique_ptr<FaultProxy>> Start(
      const std::string& upstream);
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  FaultProxy(ConstructorKey, int listen_fd, int port, int upstream_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // "127.0.0.1:port".
  std::string address() const;

  // Resets (TCP RST) both sides of every open connection.
  void ResetConnections();
  // Forwards nothing, and connects nothing upstream, for `duration`.
  void Blackhole(absl::Duration duration);
  // Each chunk waits `latency` before it is forwarded (zero: none).
  void SetLatency(absl::Duration latency);
  // The service is down for `duration`, as if its process died and came
  // back: open connections are reset, and new ones are reset at once.
  void Down(absl::Duration duration);

  int64_t connections_accepted() const { return accepted_.load(); }
  int64_t connections_reset() const { return reset_.load(); }

 private:
  void AcceptLoop();
  void Serve(int client_fd);
  bool Blackholed() const;
  bool IsDown() const;
  absl::Duration Latency() const;

  const int listen_fd_;
  const int port_;
  const int upstream_port_;
  std::atomic<bool> stopping_{false};
  // Bumped by ResetConnections(); a connection older than it resets.
  std::atomic<int64_t> reset_generation_{0};
  std::atomic<int64_t> accepted_{0};
  std::atomic<int64_t> reset_{0};
  mutable absl::Mutex mu_;
  absl::Time blackhole_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time down_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Duration latency_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  std::thread acceptor_;
  std::vector<std::thread> connections_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_FAULT_PROXY_H_
