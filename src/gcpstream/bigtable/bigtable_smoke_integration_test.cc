// Proves the generated Bigtable stubs against the emulator: a table with a
// column family through the admin API, MutateRow, then ReadRows.

#include <grpcpp/client_context.h>

#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::google::bigtable::v2::Bigtable;

constexpr char kTable[] =
    "projects/smoke-project/instances/smoke-instance/tables/events";

TEST(BigtableSmokeIntegrationTest, MutateRowThenReadRows) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kBigtable)
          .ok());
  auto admin_channel = auth::MakeChannel(auth::Service::kBigtableAdmin);
  ASSERT_TRUE(admin_channel.ok()) << admin_channel.status();
  absl::Status created = emulators::EnsureBigtableTable(
      *admin_channel, "smoke-project", "smoke-instance", "events", {"cf"});
  ASSERT_TRUE(created.ok()) << created;

  auto channel = auth::MakeChannel(auth::Service::kBigtable);
  ASSERT_TRUE(channel.ok()) << channel.status();
  auto stub = Bigtable::NewStub(*channel);
  {
    grpc::ClientContext context;
    google::bigtable::v2::MutateRowRequest request;
    request.set_table_name(kTable);
    request.set_row_key("row-1");
    auto* cell = request.add_mutations()->mutable_set_cell();
    cell->set_family_name("cf");
    cell->set_column_qualifier("payload");
    cell->set_timestamp_micros(1'000'000);  // Explicit: replays overwrite.
    cell->set_value("hello");
    google::bigtable::v2::MutateRowResponse response;
    grpc::Status status = stub->MutateRow(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  grpc::ClientContext context;
  google::bigtable::v2::ReadRowsRequest request;
  request.set_table_name(kTable);
  auto reader = stub->ReadRows(&context, request);
  google::bigtable::v2::ReadRowsResponse response;
  std::vector<std::string> keys;
  std::string value;
  while (reader->Read(&response)) {
    for (const auto& chunk : response.chunks()) {
      if (!chunk.row_key().empty()) keys.push_back(chunk.row_key());
      value += chunk.value();
    }
  }
  grpc::Status status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_THAT(keys, ::testing::ElementsAre("row-1"));
  EXPECT_EQ(value, "hello");

  // A family the table lacks is refused per request.
  grpc::ClientContext bad_context;
  google::bigtable::v2::MutateRowRequest bad;
  bad.set_table_name(kTable);
  bad.set_row_key("row-2");
  auto* cell = bad.add_mutations()->mutable_set_cell();
  cell->set_family_name("missing");
  cell->set_column_qualifier("q");
  cell->set_value("v");
  google::bigtable::v2::MutateRowResponse ignored;
  EXPECT_FALSE(stub->MutateRow(&bad_context, bad, &ignored).ok());
}

}  // namespace
}  // namespace gcpstream
