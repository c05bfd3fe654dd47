#include "gcpstream/testing/http_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gcpstream::testing {

absl::StatusOr<std::unique_ptr<HttpReceiver>> HttpReceiver::Start(
    HttpResponder responder) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) return absl::InternalError("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
          0 ||
      listen(listener, 64) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) !=
          0) {
    close(listener);
    return absl::InternalError(
        absl::StrCat("cannot listen on loopback: ", std::strerror(errno)));
  }
  std::unique_ptr<HttpReceiver> receiver(new HttpReceiver(
      listener, ntohs(address.sin_port), std::move(responder)));
  receiver->thread_ = std::thread([raw = receiver.get()] { raw->Serve(); });
  return receiver;
}

HttpReceiver::HttpReceiver(int listener, int port, HttpResponder responder)
    : listener_(listener), port_(port), responder_(std::move(responder)) {}

HttpReceiver::~HttpReceiver() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
  close(listener_);
}

void HttpReceiver::Serve() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
    }
    pollfd ready{.fd = listener_, .events = POLLIN, .revents = 0};
    if (poll(&ready, 1, 50) <= 0) continue;
    const int connection = accept(listener_, nullptr, nullptr);
    if (connection >= 0) HandleConnection(connection);
  }
}

void HttpReceiver::HandleConnection(int connection) {
  std::string data;
  char buffer[8192];
  size_t header_end = std::string::npos;
  size_t body_length = 0;
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (absl::Now() < give_up) {
    if (header_end != std::string::npos &&
        data.size() >= header_end + 4 + body_length) {
      break;
    }
    pollfd ready{.fd = connection, .events = POLLIN, .revents = 0};
    if (poll(&ready, 1, 100) <= 0) continue;
    const ssize_t got = read(connection, buffer, sizeof(buffer));
    if (got <= 0) break;
    data.append(buffer, static_cast<size_t>(got));
    if (header_end == std::string::npos) {
      header_end = data.find("\r\n\r\n");
      if (header_end == std::string::npos) continue;
      for (absl::string_view line : absl::StrSplit(
               absl::string_view(data).substr(0, header_end), "\r\n")) {
        const size_t colon = line.find(':');
        if (colon == absl::string_view::npos) continue;
        if (absl::EqualsIgnoreCase(line.substr(0, colon), "content-length")) {
          (void)absl::SimpleAtoi(
              absl::StripAsciiWhitespace(line.substr(colon + 1)), &body_length);
        }
      }
    }
  }
  ReceivedRequest request;
  if (header_end != std::string::npos) {
    std::vector<absl::string_view> lines =
        absl::StrSplit(absl::string_view(data).substr(0, header_end), "\r\n");
    std::vector<absl::string_view> first = absl::StrSplit(lines[0], ' ');
    if (first.size() >= 2) {
      request.method = std::string(first[0]);
      request.target = std::string(first[1]);
    }
    for (size_t i = 1; i < lines.size(); ++i) {
      const size_t colon = lines[i].find(':');
      if (colon == absl::string_view::npos) continue;
      request.headers[absl::AsciiStrToLower(lines[i].substr(0, colon))] =
          std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
    }
    request.body = data.substr(header_end + 4, body_length);
  }
  const HttpAnswer answer = responder_ ? responder_(request) : HttpAnswer();
  {
    // Recorded before the answer goes out: a caller that got its answer
    // finds its request in WaitFor().
    absl::MutexLock lock(&mu_);
    requests_.push_back(std::move(request));
  }
  std::string response = absl::StrCat(
      "HTTP/1.1 ", answer.status, " X\r\nContent-Type: application/json\r\n",
      "Content-Length: ", answer.body.size(), "\r\nConnection: close\r\n");
  for (const std::string& header : answer.headers) {
    absl::StrAppend(&response, header, "\r\n");
  }
  absl::StrAppend(&response, "\r\n", answer.body);
  if (answer.drop_connection) response.clear();
  size_t sent = 0;
  while (sent < response.size()) {
    const ssize_t wrote =
        write(connection, response.data() + sent, response.size() - sent);
    if (wrote <= 0) break;
    sent += static_cast<size_t>(wrote);
  }
  close(connection);
}

std::vector<ReceivedRequest> HttpReceiver::WaitFor(size_t count,
                                                   absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return requests_.size() >= count;
  };
  mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  return requests_;
}

}  // namespace gcpstream::testing
