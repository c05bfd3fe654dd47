#ifndef GCPSTREAM_TESTING_SCRIPTED_SERVER_H_
#define GCPSTREAM_TESTING_SCRIPTED_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/message.h>
#include <grpcpp/channel.h>
#include <grpcpp/support/status.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gcpstream::testing {

// What the server does in answer to one request message of a call.
struct Reply {
  // Wait this long (without blocking any thread) before answering.
  absl::Duration delay = absl::ZeroDuration();
  // Sent in order.
  std::vector<std::shared_ptr<const google::protobuf::Message>> responses;
  // Ends the call after `responses`. Unset: a call whose requests are not
  // streamed (unary, server streaming) ends OK; a call with streamed requests
  // reads the next one, and ends OK when the client half-closes. A non-OK
  // status after some responses is how a test resets a stream midway.
  std::optional<grpc::Status> finish;
};

// Decides the reply to one request message. Requests arrive as instances of
// the generated request type, so a responder may static_cast to it (or use
// Typed() below).
using Responder =
    std::function<Reply(const google::protobuf::Message& request)>;

Reply Respond(const google::protobuf::Message& response);
Reply RespondStream(
    const std::vector<const google::protobuf::Message*>& responses,
    std::optional<grpc::Status> finish = std::nullopt);
Reply Fail(grpc::StatusCode code, const std::string& message);
Reply Delayed(absl::Duration delay, Reply reply);
// The same reply to every request of the call.
Responder Always(Reply reply);

template <typename Request>
Responder Typed(std::function<Reply(const Request&)> responder) {
  return [responder =
              std::move(responder)](const google::protobuf::Message& request) {
    return responder(static_cast<const Request&>(request));
  };
}

struct RecordedRequest {
  int call = 0;  // Which call of the method it belongs to, from 0.
  std::shared_ptr<const google::protobuf::Message> message;
  std::multimap<std::string, std::string> metadata;
};

// An in-process gRPC server on a free loopback port that serves any of the
// generated googleapis services and answers each method from a script, for
// what an emulator cannot produce on demand (status storms, partial per-entry
// failures, latency, stream resets) and as the null service of benchmarks.
//
// Methods are named by their protobuf full name, e.g.
// "google.pubsub.v1.Publisher.Publish". Each call takes the next queued
// responder of its method, else the method's default responder, else it
// fails with UNIMPLEMENTED naming the method. Every request is recorded.
class ScriptedServer {
 public:
  // `services` are full service names ("google.bigtable.v2.Bigtable"); the
  // generated code for each must be linked into the test.
  static absl::StatusOr<std::unique_ptr<ScriptedServer>> Start(
      const std::vector<std::string>& services);

  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  const std::string& address() const;
  std::shared_ptr<grpc::Channel> NewChannel() const;

  // Queue the responder of the next call of `method` not yet scripted.
  void Enqueue(const std::string& method, Responder responder);
  // Answer every unscripted call of `method`.
  void SetDefault(const std::string& method, Responder responder);

  std::vector<RecordedRequest> Requests(const std::string& method) const;
  int CallCount(const std::string& method) const;

  class Impl;

 private:
  explicit ScriptedServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_SCRIPTED_SERVER_H_
