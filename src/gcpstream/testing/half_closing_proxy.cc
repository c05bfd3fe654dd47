#include "gcpstream/testing/half_closing_proxy.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/testing/loopback_sockets.h"

namespace gcpstream::testing {
namespace {

constexpr size_t kClientPrefaceBytes =
    24;  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
constexpr size_t kFrameHeaderBytes = 9;
constexpr uint8_t kData = 0x0;
constexpr uint8_t kHeaders = 0x1;
constexpr uint8_t kRstStream = 0x3;
constexpr uint8_t kEndStream = 0x1;
// How long a vanished client's streams may take to end on the server.
constexpr absl::Duration kDrainLimit = absl::Seconds(10);

// Follows the frame boundaries of one direction of an HTTP/2 connection and
// reports every frame header.
class FrameTracker {
 public:
  explicit FrameTracker(size_t preface) : to_skip_(preface) {}

  template <typename OnHeader>
  void Feed(const char* data, size_t size, OnHeader on_header) {
    while (size > 0) {
      if (to_skip_ > 0) {
        const size_t n = std::min(to_skip_, size);
        to_skip_ -= n;
        data += n;
        size -= n;
        continue;
      }
      header_[header_size_++] = static_cast<uint8_t>(*data++);
      --size;
      if (header_size_ < kFrameHeaderBytes) continue;
      header_size_ = 0;
      to_skip_ =
          (size_t{header_[0]} << 16) | (size_t{header_[1]} << 8) | header_[2];
      const uint32_t stream = ((uint32_t{header_[5]} & 0x7f) << 24) |
                              (uint32_t{header_[6]} << 16) |
                              (uint32_t{header_[7]} << 8) | header_[8];
      on_header(header_[3], header_[4], stream);
    }
  }

  // Inside a frame header nothing can be appended safely.
  bool inside_header() const { return header_size_ > 0; }
  // Payload bytes still owed by the current frame.
  size_t payload_owed() const { return to_skip_; }

 private:
  size_t to_skip_;
  std::array<uint8_t, kFrameHeaderBytes> header_{};
  size_t header_size_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HalfClosingProxy>> HalfClosingProxy::Start(
    const std::string& upstream) {
  absl::StatusOr<int> upstream_port = PortOf(upstream);
  if (!upstream_port.ok()) return upstream_port.status();
  absl::StatusOr<Listener> listener = ListenOnLoopback();
  if (!listener.ok()) return listener.status();
  return std::make_unique<HalfClosingProxy>(ConstructorKey(), listener->fd,
                                            listener->port, *upstream_port);
}

HalfClosingProxy::HalfClosingProxy(ConstructorKey, int listen_fd, int port,
                                   int upstream_port)
    : listen_fd_(listen_fd), port_(port), upstream_port_(upstream_port) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

HalfClosingProxy::~HalfClosingProxy() {
  stopping_.store(true);
  acceptor_.join();
  close(listen_fd_);
  absl::MutexLock lock(&mu_);
  for (std::thread& connection : connections_) connection.join();
}

std::string HalfClosingProxy::address() const {
  return absl::StrCat("127.0.0.1:", port_);
}

void HalfClosingProxy::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd listening{.fd = listen_fd_, .events = POLLIN, .revents = 0};
    if (poll(&listening, 1, 200) <= 0) continue;
    const int client_fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client_fd < 0) continue;
    NoDelay(client_fd);
    absl::MutexLock lock(&mu_);
    connections_.emplace_back([this, client_fd] { Serve(client_fd); });
  }
}

void HalfClosingProxy::Serve(int client_fd) {
  const int upstream_fd = ConnectLoopback(upstream_port_);
  if (upstream_fd < 0) {
    close(client_fd);
    return;
  }
  // Streams the client opened and neither side has ended.
  std::set<uint32_t> open;
  FrameTracker from_client(kClientPrefaceBytes);
  FrameTracker from_server(0);
  auto client_frame = [&](uint8_t type, uint8_t flags, uint32_t stream) {
    if (type == kHeaders && (flags & kEndStream) == 0) open.insert(stream);
    if ((type == kData && (flags & kEndStream) != 0) || type == kRstStream) {
      open.erase(stream);
    }
  };
  auto server_frame = [&](uint8_t type, uint8_t flags, uint32_t stream) {
    if ((type == kHeaders && (flags & kEndStream) != 0) || type == kRstStream) {
      open.erase(stream);
    }
  };
  std::array<char, size_t{64} << 10> buffer{};
  bool client_gone = false;
  while (!stopping_.load() && !client_gone) {
    std::array<pollfd, 2> fds = {
        pollfd{.fd = client_fd, .events = POLLIN, .revents = 0},
        pollfd{.fd = upstream_fd, .events = POLLIN, .revents = 0}};
    if (poll(fds.data(), fds.size(), 200) <= 0) continue;
    if (fds[0].revents != 0) {
      const ssize_t n = read(client_fd, buffer.data(), buffer.size());
      if (n <= 0) {
        client_gone = true;
        break;
      }
      from_client.Feed(buffer.data(), static_cast<size_t>(n), client_frame);
      if (!WriteAll(upstream_fd, buffer.data(), static_cast<size_t>(n))) break;
    }
    if (fds[1].revents != 0) {
      const ssize_t n = read(upstream_fd, buffer.data(), buffer.size());
      if (n <= 0) break;
      from_server.Feed(buffer.data(), static_cast<size_t>(n), server_frame);
      // A vanished client shows on the next read.
      (void)WriteAll(client_fd, buffer.data(), static_cast<size_t>(n));
    }
  }
  close(client_fd);
  if (client_gone && !open.empty()) {
    if (from_client.inside_header()) {
      std::cerr << "half-closing proxy: the client died inside a frame "
                   "header; its streams cannot be half-closed\n";
    } else {
      // Complete a frame cut short, then end every open stream politely.
      std::string tail(from_client.payload_owed(), '\0');
      for (uint32_t stream : open) {
        const std::array<char, kFrameHeaderBytes> end_stream = {
            0,
            0,
            0,
            static_cast<char>(kData),
            static_cast<char>(kEndStream),
            static_cast<char>((stream >> 24) & 0x7f),
            static_cast<char>((stream >> 16) & 0xff),
            static_cast<char>((stream >> 8) & 0xff),
            static_cast<char>(stream & 0xff)};
        tail.append(end_stream.data(), end_stream.size());
      }
      if (WriteAll(upstream_fd, tail.data(), tail.size())) {
        streams_half_closed_.fetch_add(static_cast<int>(open.size()));
      }
      const absl::Time deadline = absl::Now() + kDrainLimit;
      while (!open.empty() && absl::Now() < deadline && !stopping_.load()) {
        pollfd upstream{.fd = upstream_fd, .events = POLLIN, .revents = 0};
        if (poll(&upstream, 1, 200) <= 0) continue;
        const ssize_t n = read(upstream_fd, buffer.data(), buffer.size());
        if (n <= 0) break;
        from_server.Feed(buffer.data(), static_cast<size_t>(n), server_frame);
      }
    }
  }
  close(upstream_fd);
}

}  // namespace gcpstream::testing
