// Proves the generated Spanner stubs against the emulator: instance and
// database with DDL through the admin APIs, a committed row read back.

#include <grpcpp/client_context.h>

#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/spanner/v1/spanner.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::google::spanner::v1::Spanner;

constexpr char kDatabase[] =
    "projects/smoke-project/instances/smoke-instance/databases/smoke-db";

TEST(SpannerSmokeIntegrationTest, CreateDatabaseWriteRowReadItBack) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kSpanner)
          .ok());
  auto channel = auth::MakeChannel(auth::Service::kSpanner);
  ASSERT_TRUE(channel.ok()) << channel.status();
  absl::Status created = emulators::EnsureSpannerDatabase(
      *channel, "smoke-project", "smoke-instance", "smoke-db",
      {"CREATE TABLE Orders (OrderId INT64 NOT NULL, Item STRING(MAX)) "
       "PRIMARY KEY (OrderId)"});
  ASSERT_TRUE(created.ok()) << created;

  auto stub = Spanner::NewStub(*channel);
  google::spanner::v1::Session session;
  {
    grpc::ClientContext context;
    google::spanner::v1::CreateSessionRequest request;
    request.set_database(kDatabase);
    ASSERT_TRUE(stub->CreateSession(&context, request, &session).ok());
  }
  {
    grpc::ClientContext context;
    google::spanner::v1::CommitRequest commit;
    commit.set_session(session.name());
    commit.mutable_single_use_transaction()->mutable_read_write();
    auto* insert = commit.add_mutations()->mutable_insert();
    insert->set_table("Orders");
    insert->add_columns("OrderId");
    insert->add_columns("Item");
    auto* row = insert->add_values();
    row->add_values()->set_string_value("42");  // INT64 travels as a string.
    row->add_values()->set_string_value("widget");
    google::spanner::v1::CommitResponse response;
    grpc::Status status = stub->Commit(&context, commit, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_TRUE(response.has_commit_timestamp());
  }
  grpc::ClientContext context;
  google::spanner::v1::ExecuteSqlRequest query;
  query.set_session(session.name());
  query.set_sql("SELECT OrderId, Item FROM Orders");
  google::spanner::v1::ResultSet result;
  grpc::Status status = stub->ExecuteSql(&context, query, &result);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(result.rows_size(), 1);
  EXPECT_EQ(result.rows(0).values(0).string_value(), "42");
  EXPECT_EQ(result.rows(0).values(1).string_value(), "widget");

  grpc::ClientContext delete_context;
  google::spanner::v1::DeleteSessionRequest remove;
  remove.set_name(session.name());
  google::protobuf::Empty empty;
  EXPECT_TRUE(stub->DeleteSession(&delete_context, remove, &empty).ok());
}

}  // namespace
}  // namespace gcpstream
