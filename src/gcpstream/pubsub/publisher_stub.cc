#include "gcpstream/pubsub/publisher_stub.h"

#include <utility>

#include "gcpstream/connector/request_metadata.h"

namespace gcpstream::pubsub {
namespace {

using ::gcpstream::connector::RpcDone;
using ::google::pubsub::v1::GetTopicRequest;
using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PublishResponse;
using ::google::pubsub::v1::Topic;

class GrpcPublisherStub final : public PublisherStub {
 public:
  explicit GrpcPublisherStub(std::shared_ptr<grpc::Channel> channel)
      : stub_(google::pubsub::v1::Publisher::NewStub(std::move(channel))) {}

  void AsyncPublish(grpc::ClientContext& context, const PublishRequest& request,
                    PublishResponse& response, RpcDone done) override {
    stub_->async()->Publish(&context, &request, &response, std::move(done));
  }
  void AsyncCreateTopic(grpc::ClientContext& context, const Topic& request,
                        Topic& response, RpcDone done) override {
    stub_->async()->CreateTopic(&context, &request, &response, std::move(done));
  }
  void AsyncGetTopic(grpc::ClientContext& context,
                     const GetTopicRequest& request, Topic& response,
                     RpcDone done) override {
    stub_->async()->GetTopic(&context, &request, &response, std::move(done));
  }

 private:
  std::unique_ptr<google::pubsub::v1::Publisher::Stub> stub_;
};

}  // namespace

std::shared_ptr<PublisherStub> MakeGrpcPublisherStub(
    std::shared_ptr<grpc::Channel> channel) {
  return std::make_shared<GrpcPublisherStub>(std::move(channel));
}

void PublisherMetadata::AsyncPublish(grpc::ClientContext& context,
                                     const PublishRequest& request,
                                     PublishResponse& response, RpcDone done) {
  if (request.topic() != last_topic_ || last_param_.empty()) {
    last_topic_ = request.topic();
    last_param_ = connector::RoutingParam("topic", last_topic_);
  }
  connector::AddRoutingParam(context, last_param_);
  next_->AsyncPublish(context, request, response, std::move(done));
}

void PublisherMetadata::AsyncCreateTopic(grpc::ClientContext& context,
                                         const Topic& request, Topic& response,
                                         RpcDone done) {
  connector::AddRoutingParam(context, "name", request.name());
  next_->AsyncCreateTopic(context, request, response, std::move(done));
}

void PublisherMetadata::AsyncGetTopic(grpc::ClientContext& context,
                                      const GetTopicRequest& request,
                                      Topic& response, RpcDone done) {
  connector::AddRoutingParam(context, "topic", request.topic());
  next_->AsyncGetTopic(context, request, response, std::move(done));
}

void PublisherObserved::AsyncPublish(grpc::ClientContext& context,
                                     const PublishRequest& request,
                                     PublishResponse& response, RpcDone done) {
  next_->AsyncPublish(context, request, response,
                      observers_.Observe("Publish", request, std::move(done)));
}

void PublisherObserved::AsyncCreateTopic(grpc::ClientContext& context,
                                         const Topic& request, Topic& response,
                                         RpcDone done) {
  next_->AsyncCreateTopic(
      context, request, response,
      observers_.Observe("CreateTopic", request, std::move(done)));
}

void PublisherObserved::AsyncGetTopic(grpc::ClientContext& context,
                                      const GetTopicRequest& request,
                                      Topic& response, RpcDone done) {
  next_->AsyncGetTopic(
      context, request, response,
      observers_.Observe("GetTopic", request, std::move(done)));
}

std::shared_ptr<PublisherStub> MakePublisherStub(
    std::shared_ptr<grpc::Channel> channel,
    const PublisherStubFactory& make_bottom,
    connector::RpcObservers observers) {
  std::shared_ptr<PublisherStub> stub =
      make_bottom ? make_bottom(channel)
                  : MakeGrpcPublisherStub(std::move(channel));
  stub = std::make_shared<PublisherMetadata>(std::move(stub));
  return std::make_shared<PublisherObserved>(std::move(stub),
                                             std::move(observers));
}

}  // namespace gcpstream::pubsub
