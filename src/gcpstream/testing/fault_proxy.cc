#include "gcpstream/testing/fault_proxy.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/testing/loopback_sockets.h"

namespace gcpstream::testing {

absl::StatusOr<std::unique_ptr<FaultProxy>> FaultProxy::Start(
    const std::string& upstream) {
  absl::StatusOr<int> upstream_port = PortOf(upstream);
  if (!upstream_port.ok()) return upstream_port.status();
  absl::StatusOr<Listener> listener = ListenOnLoopback();
  if (!listener.ok()) return listener.status();
  return std::make_unique<FaultProxy>(ConstructorKey(), listener->fd,
                                      listener->port, *upstream_port);
}

FaultProxy::FaultProxy(ConstructorKey, int listen_fd, int port,
                       int upstream_port)
    : listen_fd_(listen_fd), port_(port), upstream_port_(upstream_port) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

FaultProxy::~FaultProxy() {
  stopping_.store(true);
  acceptor_.join();
  close(listen_fd_);
  std::vector<std::thread> connections;
  {
    absl::MutexLock lock(&mu_);
    connections.swap(connections_);
  }
  for (std::thread& connection : connections) connection.join();
}

std::string FaultProxy::address() const {
  return absl::StrCat("127.0.0.1:", port_);
}

void FaultProxy::ResetConnections() { reset_generation_.fetch_add(1); }

void FaultProxy::Blackhole(absl::Duration duration) {
  absl::MutexLock lock(&mu_);
  blackhole_until_ = absl::Now() + duration;
}

void FaultProxy::Down(absl::Duration duration) {
  {
    absl::MutexLock lock(&mu_);
    down_until_ = absl::Now() + duration;
  }
  ResetConnections();
}

bool FaultProxy::IsDown() const {
  absl::MutexLock lock(&mu_);
  return absl::Now() < down_until_;
}

void FaultProxy::SetLatency(absl::Duration latency) {
  absl::MutexLock lock(&mu_);
  latency_ = latency;
}

bool FaultProxy::Blackholed() const {
  absl::MutexLock lock(&mu_);
  return absl::Now() < blackhole_until_;
}

absl::Duration FaultProxy::Latency() const {
  absl::MutexLock lock(&mu_);
  return latency_;
}

void FaultProxy::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd listening{.fd = listen_fd_, .events = POLLIN, .revents = 0};
    if (poll(&listening, 1, 100) <= 0) continue;
    const int client_fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client_fd < 0) continue;
    NoDelay(client_fd);
    accepted_.fetch_add(1);
    absl::MutexLock lock(&mu_);
    connections_.emplace_back([this, client_fd] { Serve(client_fd); });
  }
}

void FaultProxy::Serve(int client_fd) {
  if (IsDown()) {
    reset_.fetch_add(1);
    CloseWithReset(client_fd);
    return;
  }
  const int64_t generation = reset_generation_.load();
  // A partitioned network connects nothing: the client waits.
  while (Blackholed() && !stopping_.load() &&
         reset_generation_.load() == generation) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  const int upstream_fd = ConnectLoopback(upstream_port_);
  if (upstream_fd < 0) {
    CloseWithReset(client_fd);
    return;
  }
  std::array<char, size_t{64} << 10> buffer{};
  bool reset = false;
  while (!stopping_.load()) {
    if (reset_generation_.load() != generation) {
      reset = true;
      break;
    }
    if (Blackholed()) {
      absl::SleepFor(absl::Milliseconds(20));
      continue;
    }
    std::array<pollfd, 2> fds = {
        pollfd{.fd = client_fd, .events = POLLIN, .revents = 0},
        pollfd{.fd = upstream_fd, .events = POLLIN, .revents = 0}};
    if (poll(fds.data(), fds.size(), 20) <= 0) continue;
    bool closed = false;
    for (int side = 0; side < 2 && !closed; ++side) {
      if (fds[side].revents == 0) continue;
      const int from = side == 0 ? client_fd : upstream_fd;
      const int to = side == 0 ? upstream_fd : client_fd;
      const ssize_t n = read(from, buffer.data(), buffer.size());
      if (n <= 0) {
        closed = true;
        break;
      }
      if (const absl::Duration latency = Latency();
          latency > absl::ZeroDuration()) {
        absl::SleepFor(latency);
      }
      closed = !WriteAll(to, buffer.data(), static_cast<size_t>(n));
    }
    if (closed) break;
  }
  if (reset) {
    reset_.fetch_add(1);
    CloseWithReset(client_fd);
    CloseWithReset(upstream_fd);
    return;
  }
  close(client_fd);
  close(upstream_fd);
}

}  // namespace gcpstream::testing
