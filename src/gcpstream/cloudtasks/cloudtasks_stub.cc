#include "gcpstream/cloudtasks/cloudtasks_stub.h"

#include <utility>

#include "gcpstream/connector/request_metadata.h"

namespace gcpstream::cloudtasks {
namespace {

namespace v2 = ::google::cloud::tasks::v2;
using ::gcpstream::connector::RpcDone;

class GrpcCloudTasksStub final : public CloudTasksStub {
 public:
  explicit GrpcCloudTasksStub(
      const std::vector<std::shared_ptr<grpc::Channel>>& channels) {
    stubs_.reserve(channels.size());
    for (const auto& channel : channels) {
      stubs_.push_back(v2::CloudTasks::NewStub(channel));
    }
  }

  void AsyncCreateTask(grpc::ClientContext& context,
                       const v2::CreateTaskRequest& request, v2::Task& response,
                       RpcDone done) override {
    // Called from the writer's task thread only.
    v2::CloudTasks::Stub& stub = *stubs_[next_];
    next_ = (next_ + 1) % stubs_.size();
    stub.async()->CreateTask(&context, &request, &response, std::move(done));
  }

 private:
  std::vector<std::unique_ptr<v2::CloudTasks::Stub>> stubs_;
  size_t next_ = 0;
};

}  // namespace

std::shared_ptr<CloudTasksStub> MakeGrpcCloudTasksStub(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels) {
  return std::make_shared<GrpcCloudTasksStub>(channels);
}

void CloudTasksMetadata::AsyncCreateTask(grpc::ClientContext& context,
                                         const v2::CreateTaskRequest& request,
                                         v2::Task& response, RpcDone done) {
  connector::AddRoutingParam(context, "parent", request.parent());
  next_->AsyncCreateTask(context, request, response, std::move(done));
}

void CloudTasksObserved::AsyncCreateTask(grpc::ClientContext& context,
                                         const v2::CreateTaskRequest& request,
                                         v2::Task& response, RpcDone done) {
  next_->AsyncCreateTask(
      context, request, response,
      observers_.Observe("CreateTask", request, std::move(done)));
}

std::shared_ptr<CloudTasksStub> MakeCloudTasksStub(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels,
    const CloudTasksStubFactory& make_bottom,
    connector::RpcObservers observers) {
  std::shared_ptr<CloudTasksStub> stub =
      make_bottom ? make_bottom(channels) : MakeGrpcCloudTasksStub(channels);
  stub = std::make_shared<CloudTasksMetadata>(std::move(stub));
  return std::make_shared<CloudTasksObserved>(std::move(stub),
                                              std::move(observers));
}

}  // namespace gcpstream::cloudtasks
