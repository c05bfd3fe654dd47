#include "gcpstream/cli/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::cli {
namespace {

void SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n =
        send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

std::string Response(const char* status, const char* type,
                     const std::string& body) {
  return absl::StrCat("HTTP/1.1 ", status, "\r\nContent-Type: ", type,
                      "\r\nContent-Length: ", body.size(),
                      "\r\nConnection: close\r\n\r\n", body);
}

// 200 "ok: <detail>" or 503 "<detail>": probes look at the status; people
// read the line.
std::string ProbeResponse(const runtime::HealthVerdict& verdict) {
  return verdict.ok ? Response("200 OK", "text/plain",
                               absl::StrCat("ok: ", verdict.detail, "\n"))
                    : Response("503 Service Unavailable", "text/plain",
                               absl::StrCat(verdict.detail, "\n"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const MetricsRegistry& metrics, const std::string& address, int port,
    const runtime::JobHealth* health) {
  sockaddr_in bind_address{};
  bind_address.sin_family = AF_INET;
  bind_address.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &bind_address.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics-address '", address, "' is not an IPv4 address"));
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  socklen_t length = sizeof(bind_address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&bind_address),
           sizeof(bind_address)) != 0 ||
      listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&bind_address), &length) !=
          0) {
    const int error = errno;
    close(fd);
    return absl::ErrnoToStatus(
        error, absl::StrCat("cannot serve metrics on ", address, ":", port,
                            " (option --metrics-port)"));
  }
  return std::make_unique<MetricsServer>(ConstructorKey(), metrics, health, fd,
                                         ntohs(bind_address.sin_port));
}

MetricsServer::MetricsServer(ConstructorKey, const MetricsRegistry& metrics,
                             const runtime::JobHealth* health, int fd, int port)
    : metrics_(metrics), health_(health), fd_(fd), port_(port) {
  thread_ = std::thread([this] { Serve(); });
}

MetricsServer::~MetricsServer() {
  stop_.Notify();
  thread_.join();
  close(fd_);
}

void MetricsServer::Serve() {
  while (!stop_.HasBeenNotified()) {
    pollfd listening{.fd = fd_, .events = POLLIN, .revents = 0};
    if (poll(&listening, 1, 200) <= 0) continue;
    const int client = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    Answer(client);
    close(client);
  }
}

void MetricsServer::Answer(int client) const {
  // The request line is all that matters; a slow client gets 2 s.
  std::string request;
  std::array<char, 2048> buffer{};
  while (request.find("\r\n") == std::string::npos && request.size() < 8192) {
    pollfd readable{.fd = client, .events = POLLIN, .revents = 0};
    if (poll(&readable, 1, 2000) <= 0) return;
    const ssize_t n = recv(client, buffer.data(), buffer.size(), 0);
    if (n <= 0) return;
    request.append(buffer.data(), static_cast<size_t>(n));
  }
  if (absl::StartsWith(request, "GET /metrics ")) {
    SendAll(client, Response("200 OK", "text/plain; version=0.0.4",
                             metrics_.ExportPrometheusText()));
  } else if (absl::StartsWith(request, "GET /healthz ")) {
    SendAll(client, ProbeResponse(health_ == nullptr
                                      ? runtime::HealthVerdict{true, "ok"}
                                      : health_->Liveness()));
  } else if (absl::StartsWith(request, "GET /readyz ")) {
    SendAll(client, ProbeResponse(health_ == nullptr
                                      ? runtime::HealthVerdict{true, "ok"}
                                      : health_->Readiness()));
  } else {
    SendAll(client, Response("404 Not Found", "text/plain",
                             "only /metrics, /healthz and /readyz\n"));
  }
}

}  // namespace gcpstream::cli
