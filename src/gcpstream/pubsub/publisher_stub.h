#ifndef GCPSTREAM_PUBSUB_PUBLISHER_STUB_H_
#define GCPSTREAM_PUBSUB_PUBLISHER_STUB_H_

#include <functional>
#include <memory>
#include <string>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "gcpstream/connector/rpc_observer.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::pubsub {

// The Publisher RPCs gcpstream makes, one method each, as in
// google-cloud-cpp: the gRPC implementation at the bottom, decorators
// (request metadata, logging and latency) stacked on it by
// MakePublisherStub(), and the sink, topic creation and the dead-letter
// queue on top. Logic tests put a mock at the bottom.
//
// Each call is asynchronous: the caller keeps `context`, `request` and
// `response` alive until `done` ran; `done` runs exactly once, on any
// thread.
class PublisherStub {
 public:
  virtual ~PublisherStub() = default;
  virtual void AsyncPublish(grpc::ClientContext& context,
                            const google::pubsub::v1::PublishRequest& request,
                            google::pubsub::v1::PublishResponse& response,
                            connector::RpcDone done) = 0;
  virtual void AsyncCreateTopic(grpc::ClientContext& context,
                                const google::pubsub::v1::Topic& request,
                                google::pubsub::v1::Topic& response,
                                connector::RpcDone done) = 0;
  virtual void AsyncGetTopic(grpc::ClientContext& context,
                             const google::pubsub::v1::GetTopicRequest& request,
                             google::pubsub::v1::Topic& response,
                             connector::RpcDone done) = 0;
};

// What the bottom of the stack is made from; null means gRPC over the
// channel (tests return a mock).
using PublisherStubFactory = std::function<std::shared_ptr<PublisherStub>(
    const std::shared_ptr<grpc::Channel>&)>;

// The bottom of the stack: gRPC's callback API over `channel`.
std::shared_ptr<PublisherStub> MakeGrpcPublisherStub(
    std::shared_ptr<grpc::Channel> channel);

// Adds the routing header Google's clients send (x-goog-request-params:
// topic=... or, for CreateTopic, name=...) so the front end routes by
// topic without parsing the request. Not thread-safe, like the writer that
// owns the stack: it remembers the last topic's encoded header, since a
// writer mostly publishes to the topic it published to last.
class PublisherMetadata final : public PublisherStub {
 public:
  explicit PublisherMetadata(std::shared_ptr<PublisherStub> next)
      : next_(std::move(next)) {}
  void AsyncPublish(grpc::ClientContext& context,
                    const google::pubsub::v1::PublishRequest& request,
                    google::pubsub::v1::PublishResponse& response,
                    connector::RpcDone done) override;
  void AsyncCreateTopic(grpc::ClientContext& context,
                        const google::pubsub::v1::Topic& request,
                        google::pubsub::v1::Topic& response,
                        connector::RpcDone done) override;
  void AsyncGetTopic(grpc::ClientContext& context,
                     const google::pubsub::v1::GetTopicRequest& request,
                     google::pubsub::v1::Topic& response,
                     connector::RpcDone done) override;

 private:
  std::shared_ptr<PublisherStub> next_;
  std::string last_topic_;
  std::string last_param_;
};

// Tells the observers (logging, latency) about every call.
class PublisherObserved final : public PublisherStub {
 public:
  PublisherObserved(std::shared_ptr<PublisherStub> next,
                    connector::RpcObservers observers)
      : next_(std::move(next)), observers_(std::move(observers)) {}
  void AsyncPublish(grpc::ClientContext& context,
                    const google::pubsub::v1::PublishRequest& request,
                    google::pubsub::v1::PublishResponse& response,
                    connector::RpcDone done) override;
  void AsyncCreateTopic(grpc::ClientContext& context,
                        const google::pubsub::v1::Topic& request,
                        google::pubsub::v1::Topic& response,
                        connector::RpcDone done) override;
  void AsyncGetTopic(grpc::ClientContext& context,
                     const google::pubsub::v1::GetTopicRequest& request,
                     google::pubsub::v1::Topic& response,
                     connector::RpcDone done) override;

 private:
  std::shared_ptr<PublisherStub> next_;
  connector::RpcObservers observers_;
};

// The stack: observed(metadata(bottom)), where bottom is `make_bottom`'s
// stub or, when it is null, gRPC over `channel`.
std::shared_ptr<PublisherStub> MakePublisherStub(
    std::shared_ptr<grpc::Channel> channel,
    const PublisherStubFactory& make_bottom, connector::RpcObservers observers);

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBLISHER_STUB_H_
