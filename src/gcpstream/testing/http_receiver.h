#ifndef GCPSTREAM_TESTING_HTTP_RECEIVER_H_
#define GCPSTREAM_TESTING_HTTP_RECEIVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gcpstream::testing {

// One HTTP request as it arrived.
struct ReceivedRequest {
  std::string method;
  std::string target;                          // Path and query.
  std::map<std::string, std::string> headers;  // Names in lower case.
  std::string body;
};

// What the receiver answers to one request.
struct HttpAnswer {
  int status = 200;
  std::string body;
  std::vector<std::string> headers{};  // Extra "Name: value" lines.
  // Close the connection without answering (a broken exchange).
  bool drop_connection = false;
};
using HttpResponder = std::function<HttpAnswer(const ReceivedRequest&)>;

// A minimal HTTP/1.1 server on a free loopback port that records every
// request and answers it with the responder (200 and no body without one):
// the endpoint of dispatched tasks, a token endpoint, a metadata server in
// tests. One connection at a time, one request per connection.
class HttpReceiver {
 public:
  static absl::StatusOr<std::unique_ptr<HttpReceiver>> Start(
      HttpResponder responder = nullptr);
  ~HttpReceiver();
  HttpReceiver(const HttpReceiver&) = delete;
  HttpReceiver& operator=(const HttpReceiver&) = delete;

  int port() const { return port_; }
  // Waits until at least `count` requests arrived or `timeout` passed.
  std::vector<ReceivedRequest> WaitFor(size_t count, absl::Duration timeout);

 private:
  HttpReceiver(int listener, int port, HttpResponder responder);
  void Serve();
  void HandleConnection(int connection);

  const int listener_;
  const int port_;
  const HttpResponder responder_;
  absl::Mutex mu_;
  std::vector<ReceivedRequest> requests_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_HTTP_RECEIVER_H_
