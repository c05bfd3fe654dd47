// `local:` Cloud Tasks queues for `gcpstream run --local`: created on the
// Cloud Tasks emulator before the run (paused if asked, so that tasks stay
// in their queue); after it, the tasks each queue holds are counted.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/emulators/provisioning.h"
#include "google/cloud/tasks/v2/cloudtasks.grpc.pb.h"

namespace gcpstream::config {
namespace {

namespace v2 = ::google::cloud::tasks::v2;

absl::Status TasksStatus(const grpc::Status& status, absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(what, ": ", status.error_message()));
}

class CloudTasksLocalResources final : public LocalResource {
 public:
  struct Queue {
    std::string location;
    std::string queue;
    bool paused = false;
  };

  std::vector<emulators::EmulatorKind> Emulators() const override {
    return {emulators::EmulatorKind::kCloudTasks};
  }
  std::vector<std::string> Declared() const override {
    std::vector<std::string> lines;
    lines.reserve(queues.size());
    for (const Queue& queue : queues) {
      lines.push_back(absl::StrCat("cloud tasks queue ", queue.location, "/",
                                   queue.queue,
                                   queue.paused ? " (paused)" : ""));
    }
    return lines;
  }
  absl::Status Provision(const std::string& project) const override {
    auto channel = auth::MakeChannel(auth::Service::kCloudTasks);
    if (!channel.ok()) return channel.status();
    auto stub = v2::CloudTasks::NewStub(*channel);
    for (const Queue& queue : queues) {
      if (absl::Status status = emulators::EnsureCloudTasksQueue(
              *channel, project, queue.location, queue.queue);
          !status.ok()) {
        return status;
      }
      if (!queue.paused) continue;
      grpc::ClientContext context;
      v2::PauseQueueRequest request;
      request.set_name(Name(project, queue));
      v2::Queue response;
      if (absl::Status status =
              TasksStatus(stub->PauseQueue(&context, request, &response),
                          absl::StrCat("pausing ", request.name()));
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
      const std::string& project) const override {
    auto channel = auth::MakeChannel(auth::Service::kCloudTasks);
    if (!channel.ok()) return channel.status();
    auto stub = v2::CloudTasks::NewStub(*channel);
    std::vector<std::string> lines;
    for (const Queue& queue : queues) {
      v2::ListTasksRequest request;
      request.set_parent(Name(project, queue));
      request.set_page_size(1000);
      int64_t tasks = 0;
      while (true) {
        grpc::ClientContext context;
        v2::ListTasksResponse response;
        if (absl::Status status = TasksStatus(
                stub->ListTasks(&context, request, &response),
                absl::StrCat("listing the tasks of ", request.parent()));
            !status.ok()) {
          return status;
        }
        tasks += response.tasks_size();
        if (response.next_page_token().empty()) break;
        request.set_page_token(response.next_page_token());
      }
      lines.push_back(absl::StrCat(
          "cloud tasks queue ", queue.queue, ": ", tasks, " tasks",
          queue.paused ? " held (paused)" : " not yet dispatched"));
    }
    return lines;
  }

  std::vector<Queue> queues;

 private:
  static std::string Name(const std::string& project, const Queue& queue) {
    return absl::StrCat("projects/", project, "/locations/", queue.location,
                        "/queues/", queue.queue);
  }
};

absl::StatusOr<std::shared_ptr<const LocalResource>> ReadCloudTasksLocal(
    OptionMap& local) {
  absl::StatusOr<std::optional<std::vector<OptionMap>>> entries =
      local.MapList("cloud-tasks-queues");
  if (!entries.ok()) return entries.status();
  if (!entries->has_value() || (*entries)->empty()) {
    return std::shared_ptr<const LocalResource>();
  }
  auto resources = std::make_shared<CloudTasksLocalResources>();
  for (OptionMap& entry : **entries) {
    CloudTasksLocalResources::Queue queue;
    absl::StatusOr<std::string> location = entry.RequiredString("location");
    if (!location.ok()) return location.status();
    absl::StatusOr<std::string> name = entry.RequiredString("queue");
    if (!name.ok()) return name.status();
    queue.location = *location;
    queue.queue = *name;
    for (absl::Status status : {AssignIfSet(entry.Bool("paused"), queue.paused),
                                entry.CheckNoUnknownKeys()}) {
      if (!status.ok()) return status;
    }
    resources->queues.push_back(std::move(queue));
  }
  return std::shared_ptr<const LocalResource>(std::move(resources));
}

const RegisterLocalResource kCloudTasksLocal("cloudtasks", ReadCloudTasksLocal);

}  // namespace
}  // namespace gcpstream::config
