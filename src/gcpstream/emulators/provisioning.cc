#include "gcpstream/emulators/provisioning.h"

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "google/bigtable/admin/v2/bigtable_table_admin.grpc.pb.h"
#include "google/cloud/tasks/v2/cloudtasks.grpc.pb.h"
#include "google/longrunning/operations.grpc.pb.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "google/spanner/admin/database/v1/spanner_database_admin.grpc.pb.h"
#include "google/spanner/admin/instance/v1/spanner_instance_admin.grpc.pb.h"

namespace gcpstream::emulators {
namespace {

constexpr absl::Duration kRpcTimeout = absl::Seconds(30);

void SetDeadline(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
}

// OK and ALREADY_EXISTS both mean the resource is there.
absl::Status Existing(const grpc::Status& status, absl::string_view what) {
  if (status.ok() || status.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
    return absl::OkStatus();
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(what, ": ", status.error_message()));
}

absl::Status AwaitOperation(const std::shared_ptr<grpc::Channel>& channel,
                            google::longrunning::Operation operation,
                            absl::string_view what, absl::Duration timeout) {
  auto stub = google::longrunning::Operations::NewStub(channel);
  const absl::Time deadline = absl::Now() + timeout;
  while (!operation.done()) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(what, ": operation ", operation.name(),
                       " not done after ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(100));
    grpc::ClientContext context;
    SetDeadline(context, kRpcTimeout);
    google::longrunning::GetOperationRequest request;
    request.set_name(operation.name());
    grpc::Status status = stub->GetOperation(&context, request, &operation);
    if (!status.ok()) return Existing(status, what);
  }
  if (operation.has_error() && operation.error().code() != 0) {
    if (operation.error().code() ==
        static_cast<int>(grpc::StatusCode::ALREADY_EXISTS)) {
      return absl::OkStatus();
    }
    return absl::Status(static_cast<absl::StatusCode>(operation.error().code()),
                        absl::StrCat(what, ": ", operation.error().message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EnsurePubSubTopic(const std::shared_ptr<grpc::Channel>& channel,
                               const std::string& project,
                               const std::string& topic) {
  auto stub = google::pubsub::v1::Publisher::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context, kRpcTimeout);
  google::pubsub::v1::Topic request;
  request.set_name(absl::StrCat("projects/", project, "/topics/", topic));
  google::pubsub::v1::Topic response;
  return Existing(stub->CreateTopic(&context, request, &response),
                  absl::StrCat("create topic ", request.name()));
}

absl::Status EnsurePubSubSubscription(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& subscription, const std::string& topic,
    bool enable_message_ordering) {
  auto stub = google::pubsub::v1::Subscriber::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context, kRpcTimeout);
  google::pubsub::v1::Subscription request;
  request.set_name(
      absl::StrCat("projects/", project, "/subscriptions/", subscription));
  request.set_topic(absl::StrCat("projects/", project, "/topics/", topic));
  request.set_ack_deadline_seconds(60);
  request.set_enable_message_ordering(enable_message_ordering);
  google::pubsub::v1::Subscription response;
  return Existing(stub->CreateSubscription(&context, request, &response),
                  absl::StrCat("create subscription ", request.name()));
}

absl::Status EnsureSpannerDatabase(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& instance, const std::string& database,
    const std::vector<std::string>& ddl, absl::Duration timeout,
    bool postgresql) {
  namespace instance_admin = google::spanner::admin::instance::v1;
  namespace database_admin = google::spanner::admin::database::v1;
  const std::string project_name = absl::StrCat("projects/", project);
  const std::string instance_name =
      absl::StrCat(project_name, "/instances/", instance);
  {
    auto stub = instance_admin::InstanceAdmin::NewStub(channel);
    grpc::ClientContext context;
    SetDeadline(context, kRpcTimeout);
    instance_admin::CreateInstanceRequest request;
    request.set_parent(project_name);
    request.set_instance_id(instance);
    request.mutable_instance()->set_config(
        absl::StrCat(project_name, "/instanceConfigs/emulator-config"));
    request.mutable_instance()->set_display_name(instance);
    request.mutable_instance()->set_node_count(1);
    google::longrunning::Operation operation;
    const std::string what = absl::StrCat("create instance ", instance_name);
    grpc::Status status = stub->CreateInstance(&context, request, &operation);
    if (!status.ok()) {
      if (absl::Status existing = Existing(status, what); !existing.ok()) {
        return existing;
      }
    } else if (absl::Status done =
                   AwaitOperation(channel, operation, what, timeout);
               !done.ok()) {
      return done;
    }
  }
  auto stub = database_admin::DatabaseAdmin::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context, kRpcTimeout);
  database_admin::CreateDatabaseRequest request;
  request.set_parent(instance_name);
  if (postgresql) {
    // A PostgreSQL database takes no extra statements at creation.
    request.set_create_statement(
        absl::StrCat("CREATE DATABASE \"", database, "\""));
    request.set_database_dialect(database_admin::DatabaseDialect::POSTGRESQL);
  } else {
    request.set_create_statement(
        absl::StrCat("CREATE DATABASE `", database, "`"));
    for (const std::string& statement : ddl) {
      request.add_extra_statements(statement);
    }
  }
  google::longrunning::Operation operation;
  const std::string database_name =
      absl::StrCat(instance_name, "/databases/", database);
  const std::string what = absl::StrCat("create database ", database_name);
  grpc::Status status = stub->CreateDatabase(&context, request, &operation);
  if (!status.ok()) return Existing(status, what);
  if (absl::Status done = AwaitOperation(channel, operation, what, timeout);
      !done.ok() || !postgresql || ddl.empty()) {
    return done;
  }
  return UpdateSpannerDdl(channel, database_name, ddl, timeout);
}

absl::Status UpdateSpannerDdl(const std::shared_ptr<grpc::Channel>& channel,
                              const std::string& database_name,
                              const std::vector<std::string>& statements,
                              absl::Duration timeout) {
  namespace database_admin = google::spanner::admin::database::v1;
  auto stub = database_admin::DatabaseAdmin::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context, kRpcTimeout);
  database_admin::UpdateDatabaseDdlRequest request;
  request.set_database(database_name);
  for (const std::string& statement : statements) {
    request.add_statements(statement);
  }
  google::longrunning::Operation operation;
  const std::string what = absl::StrCat("update the DDL of ", database_name);
  grpc::Status status = stub->UpdateDatabaseDdl(&context, request, &operation);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        absl::StrCat(what, ": ", status.error_message()));
  }
  return AwaitOperation(channel, operation, what, timeout);
}

absl::Status EnsureBigtableTable(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& instance, const std::string& table,
    const std::vector<std::string>& column_families) {
  namespace admin = google::bigtable::admin::v2;
  auto stub = admin::BigtableTableAdmin::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context, kRpcTimeout);
  admin::CreateTableRequest request;
  request.set_parent(
      absl::StrCat("projects/", project, "/instances/", instance));
  request.set_table_id(table);
  for (const std::string& family : column_families) {
    (*request.mutable_table()->mutable_column_families())[family]
        .mutable_gc_rule()
        ->set_max_num_versions(1);
  }
  admin::Table response;
  return Existing(
      stub->CreateTable(&context, request, &response),
      absl::StrCat("create table ", request.parent(), "/tables/", table));
}

absl::Status EnsureCloudTasksQueue(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& location, const std::string& queue) {
  namespace tasks = google::cloud::tasks::v2;
  auto stub = tasks::CloudTasks::NewStub(channel);
  grpc::ClientContext context;
  SetDeadline(context, kRpcTimeout);
  tasks::CreateQueueRequest request;
  request.set_parent(
      absl::StrCat("projects/", project, "/locations/", location));
  request.mutable_queue()->set_name(
      absl::StrCat(request.parent(), "/queues/", queue));
  tasks::Queue response;
  return Existing(stub->CreateQueue(&context, request, &response),
                  absl::StrCat("create queue ", request.queue().name()));
}

}  // namespace gcpstream::emulators
