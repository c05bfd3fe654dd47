// Pipeline files with `type: spanner` against the emulator: JSON records
// mapped to typed columns; records that do not fit (a missing field, a date
// that is no date), a CHECK violation and a duplicate insert go to the
// dead-letter queue, everything else lands.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/config/pipeline_file.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/spanner/v1/spanner.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kDatabase[] =
    "projects/yaml-project/instances/yaml-instance/databases/yaml-db";

// Every row of `sql` as strings.
std::vector<std::vector<std::string>> Query(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& sql) {
  auto rows = emulators::QuerySpanner(channel, kDatabase, sql);
  EXPECT_TRUE(rows.ok()) << rows.status();
  return rows.ok() ? *std::move(rows) : std::vector<std::vector<std::string>>();
}

TEST(SpannerConnectorsTest, MapsRecordsToTypedColumnsAndRoutesRefusals) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kSpanner)
          .ok());
  auto channel = auth::MakeChannel(auth::Service::kSpanner);
  ASSERT_TRUE(channel.ok());
  ASSERT_TRUE(emulators::EnsureSpannerDatabase(
                  *channel, "yaml-project", "yaml-instance", "yaml-db",
                  {"CREATE TABLE Orders (OrderId INT64 NOT NULL, "
                   "Region STRING(10), Amount NUMERIC, PlacedOn DATE, "
                   "Details JSON, CONSTRAINT AmountPositive CHECK "
                   "(Amount >= 0)) PRIMARY KEY (OrderId)"})
                  .ok());
  const std::string root =
      ::testing::TempDir() + "/yaml-spanner-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root + "/in");
  {
    std::ofstream in(root + "/in/orders.jsonl");
    for (int i = 1; i <= 20; ++i) {
      nlohmann::json order = {{"id", i},
                              {"region", i % 2 == 0 ? "eu" : "us"},
                              {"amount", absl::StrCat(i, ".50")},
                              {"day", "2026-12-01"},
                              {"details", {{"items", i}}}};
      in << order.dump() << "\n";
    }
    // No id; a CHECK violation; a date that is no date; a duplicate.
    for (const char* bad :
         {R"({"region":"eu","amount":"1","day":"2026-12-01"})",
          R"({"id":21,"region":"eu","amount":"-5","day":"2026-12-01"})",
          R"({"id":22,"region":"eu","amount":"1","day":"2026-13-01"})",
          R"({"id":5,"region":"eu","amount":"9","day":"2026-12-01"})"}) {
      nlohmann::json order = nlohmann::json::parse(bad);
      order["details"] = nullptr;
      in << order.dump() << "\n";
    }
  }
  const std::string yaml = absl::StrCat(
      "name: orders\n"
      "source: {type: json-lines, directory: ",
      root, "/in}\n",
      "sinks:\n"
      "  - name: orders-table\n"
      "    type: spanner\n"
      "    database: ",
      kDatabase, "\n",
      "    table: Orders\n"
      "    operation: insert\n"
      "    write-method: commit\n"
      "    columns: {OrderId: id, Region: region, Amount: amount, "
      "PlacedOn: day, Details: details}\n"
      "    constraint-violation-policy: route-to-failure-handler\n"
      "    failure-handler:\n"
      "      type: dead-letter-queue\n"
      "      queue: {type: file, directory: ",
      root, "/dlq}\n");
  auto file = ParsePipelineFile(yaml, "orders.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  auto pipeline = BuildPipeline(*file, ConnectorRegistry::Global());
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto summary = (*pipeline)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status();

  EXPECT_EQ(Query(*channel, "SELECT COUNT(*) FROM Orders")[0][0], "20");
  const auto row = Query(*channel,
                         "SELECT Region, CAST(Amount AS STRING), "
                         "CAST(PlacedOn AS STRING), TO_JSON_STRING(Details) "
                         "FROM Orders WHERE OrderId = 5");
  ASSERT_EQ(row.size(), 1U);
  EXPECT_EQ(row[0], (std::vector<std::string>{"us", "5.5", "2026-12-01",
                                              R"({"items":5})"}));
  std::vector<std::string> dead;
  for (const auto& entry : fs::directory_iterator(root + "/dlq")) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) dead.push_back(line);
  }
  ASSERT_EQ(dead.size(), 4U);
  std::string all;
  for (const std::string& line : dead) all += line + "\n";
  EXPECT_THAT(all, HasSubstr("field 'id' is missing"));
  // A record refused before it became a mutation still travels with its
  // dead-letter entry.
  for (const std::string& line : dead) {
    const nlohmann::json entry = nlohmann::json::parse(line);
    if (!absl::StrContains(entry.at("error").get<std::string>(),
                           "field 'id' is missing")) {
      continue;
    }
    std::string record;
    ASSERT_TRUE(absl::Base64Unescape(
        entry.at("payload_base64").get<std::string>(), &record));
    EXPECT_EQ(nlohmann::json::parse(record).at("amount"), "1");
  }
  EXPECT_THAT(all, HasSubstr("OUT_OF_RANGE"));
  EXPECT_THAT(all, HasSubstr("PlacedOn is DATE; cannot write a STRING"));
  EXPECT_THAT(all, HasSubstr("ALREADY_EXISTS"));
  // The duplicate was written from its wire encoding; refused, it is
  // reported as the typed mutation, built then from the record.
  bool duplicate_seen = false;
  for (const std::string& line : dead) {
    const nlohmann::json entry = nlohmann::json::parse(line);
    if (entry.at("error_code").get<std::string>() != "ALREADY_EXISTS") {
      continue;
    }
    duplicate_seen = true;
    std::string payload;
    ASSERT_TRUE(absl::Base64Unescape(
        entry.at("payload_base64").get<std::string>(), &payload));
    const nlohmann::json mutation = nlohmann::json::parse(payload);
    EXPECT_EQ(mutation.at("table").get<std::string>(), "Orders");
    EXPECT_EQ(mutation.at("operation").get<std::string>(), "insert");
    EXPECT_EQ(mutation.at("columns").at("OrderId").get<std::string>(), "5");
    EXPECT_EQ(mutation.at("columns").at("Amount").get<std::string>(), "9");
    EXPECT_TRUE(mutation.at("columns").at("Details").is_null());
  }
  EXPECT_TRUE(duplicate_seen);
  fs::remove_all(root);
}

TEST(SpannerConnectorsTest, BadOptionsAreConfigurationErrors) {
  for (const auto& [yaml, expected] :
       std::vector<std::pair<std::string, std::string>>{
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: spanner, database: shop, table: T, "
            "columns: {A: a}}]\n",
            "option 'project' is required"},
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: spanner, database: projects/p/instances/i/"
            "databases/d, table: T, operation: upsert, columns: {A: a}}]\n",
            "operation: unknown value 'upsert'; accepted values: insert, "
            "update, insert-or-update, replace, delete"},
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: spanner, database: projects/p/instances/i/"
            "databases/d, table: T}]\n",
            "option 'columns' is required"},
           {"source: {type: json-lines, paths: [a]}\n"
            "sinks: [{type: spanner, database: projects/p/instances/i/"
            "databases/d, table: T, columns: {A: a}, "
            "constraint-violation-policy: route}]\n",
            "constraint-violation-policy: unknown value 'route'"},
       }) {
    auto file = ParsePipelineFile(yaml, "bad.yaml");
    absl::Status status =
        file.ok() ? BuildPipeline(*file, ConnectorRegistry::Global()).status()
                  : file.status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << yaml;
    EXPECT_THAT(status.message(), HasSubstr(expected)) << yaml;
  }
}

}  // namespace
}  // namespace gcpstream::config
