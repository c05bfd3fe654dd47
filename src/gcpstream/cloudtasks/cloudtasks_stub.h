#ifndef GCPSTREAM_CLOUDTASKS_CLOUDTASKS_STUB_H_
#define GCPSTREAM_CLOUDTASKS_CLOUDTASKS_STUB_H_

#include <functional>
#include <memory>
#include <vector>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "gcpstream/connector/rpc_observer.h"
#include "google/cloud/tasks/v2/cloudtasks.grpc.pb.h"

namespace gcpstream::cloudtasks {

// The Cloud Tasks RPC the sink makes, as in google-cloud-cpp: the gRPC
// implementation at the bottom, decorators (request metadata, logging and
// latency) stacked on it by MakeCloudTasksStub(). The caller keeps
// `context`, `request` and `response` alive until `done` ran; `done` runs
// exactly once, on any thread.
class CloudTasksStub {
 public:
  virtual ~CloudTasksStub() = default;
  virtual void AsyncCreateTask(
      grpc::ClientContext& context,
      const google::cloud::tasks::v2::CreateTaskRequest& request,
      google::cloud::tasks::v2::Task& response, connector::RpcDone done) = 0;
};

// What the bottom of the stack is made from: the pool's channels. Null
// means gRPC over them, one call after another round the pool (tests
// return a fake).
using CloudTasksStubFactory = std::function<std::shared_ptr<CloudTasksStub>(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels)>;

// The bottom of the stack: gRPC's callback API, calls spread round the
// channels.
std::shared_ptr<CloudTasksStub> MakeGrpcCloudTasksStub(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels);

// Adds x-goog-request-params: parent=<queue>, as Google's clients send it.
class CloudTasksMetadata final : public CloudTasksStub {
 public:
  explicit CloudTasksMetadata(std::shared_ptr<CloudTasksStub> next)
      : next_(std::move(next)) {}
  void AsyncCreateTask(
      grpc::ClientContext& context,
      const google::cloud::tasks::v2::CreateTaskRequest& request,
      google::cloud::tasks::v2::Task& response,
      connector::RpcDone done) override;

 private:
  std::shared_ptr<CloudTasksStub> next_;
};

// Tells the observers (logging, latency) about every call.
class CloudTasksObserved final : public CloudTasksStub {
 public:
  CloudTasksObserved(std::shared_ptr<CloudTasksStub> next,
                     connector::RpcObservers observers)
      : next_(std::move(next)), observers_(std::move(observers)) {}
  void AsyncCreateTask(
      grpc::ClientContext& context,
      const google::cloud::tasks::v2::CreateTaskRequest& request,
      google::cloud::tasks::v2::Task& response,
      connector::RpcDone done) override;

 private:
  std::shared_ptr<CloudTasksStub> next_;
  connector::RpcObservers observers_;
};

// The stack: observed(metadata(bottom)), where bottom is `make_bottom`'s
// stub or, when it is null, gRPC over the channels.
std::shared_ptr<CloudTasksStub> MakeCloudTasksStub(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels,
    const CloudTasksStubFactory& make_bottom,
    connector::RpcObservers observers);

}  // namespace gcpstream::cloudtasks

#endif  // GCPSTREAM_CLOUDTASKS_CLOUDTASKS_STUB_H_
