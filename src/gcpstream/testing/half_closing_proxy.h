#ifndef GCPSTREAM_TESTING_HALF_CLOSING_PROXY_H_
#define GCPSTREAM_TESTING_HALF_CLOSING_PROXY_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace gcpstream::testing {

// A loopback proxy for cleartext HTTP/2 (gRPC) connections. When a client
// connection ends while streams it opened are still open (a killed process),
// the proxy half-closes each of them towards the server (an empty DATA frame
// with END_STREAM) and keeps the server connection until the server has
// ended them. The real Pub/Sub service notices a vanished client and
// redelivers its messages after their deadline; the emulator loses track of
// streams whose connection drops and keeps giving them messages (see
// docs/notes/pubsub-emulator-facts.md), so crash tests put this proxy in
// front of it to get the service's behaviour.
class HalfClosingProxy {
 public:
  // Listens on a free loopback port and forwards to `upstream`
  // ("127.0.0.1:port").
  static absl::StatusOr<std::unique_ptr<HalfClosingProxy>> Start(
      const std::string& upstream);
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  HalfClosingProxy(ConstructorKey, int listen_fd, int port, int upstream_port);
  ~HalfClosingProxy();
  HalfClosingProxy(const HalfClosingProxy&) = delete;
  HalfClosingProxy& operator=(const HalfClosingProxy&) = delete;

  // "127.0.0.1:port".
  std::string address() const;
  // Streams the proxy half-closed for clients that went away.
  int streams_half_closed() const { return streams_half_closed_.load(); }

 private:
  void AcceptLoop();
  void Serve(int client_fd);

  const int listen_fd_;
  const int port_;
  const int upstream_port_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> streams_half_closed_{0};
  std::thread acceptor_;
  absl::Mutex mu_;
  std::vector<std::thread> connections_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_HALF_CLOSING_PROXY_H_
