#include "bench/cloudtasks_null_service.h"

#include <memory>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "google/cloud/tasks/v2/cloudtasks.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace v2 = ::google::cloud::tasks::v2;

class NullCloudTasksService final : public v2::CloudTasks::CallbackService {
  grpc::ServerUnaryReactor* CreateTask(grpc::CallbackServerContext* context,
                                       const v2::CreateTaskRequest* request,
                                       v2::Task* task) override {
    // The BASIC view: the name, without the body.
    task->set_name(request->task().name());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

ForkedServer StartNullCloudTasks() {
  return StartForkedServer([] {
    std::vector<std::unique_ptr<grpc::Service>> services;
    services.push_back(std::make_unique<NullCloudTasksService>());
    return services;
  });
}

}  // namespace gcpstream::bench
