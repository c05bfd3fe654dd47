// The BigQuery sink (Storage Write API, default stream) against the
// emulator: 10,000 JSON records routed per day to tables it creates with
// partitioning and clustering, unroutable records and rows that do not fit
// routed with their reasons, create-never, a row the service refuses found
// by splitting its request, CDC rows, and the emulator's deviations pinned
// (also those off the sink's path: offsets on the default stream, FlushRows,
// insertAll).

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/wrappers.pb.h>
#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/bigquery/bigquery_sink.h"
#include "gcpstream/bigquery/bigquery_test_util.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::gcpstream::testing::RecordingFactory;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using Json = nlohmann::json;

constexpr char kProject[] = "it-project";

class BigQuerySinkIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> host = gcpstream::testing::TestEmulatorHost(
        emulators::EmulatorKind::kBigQuery);
    ASSERT_TRUE(host.ok()) << host.status();
  }

  static BigQuerySinkOptions Options() {
    BigQuerySinkOptions options = testing::PerDayOptions();
    options.max_batch_rows = 500;
    return options;
  }

  gcpstream::testing::SinkTestTask task_;
};

TEST_F(BigQuerySinkIntegrationTest,
       RoutesRecordsPerDayAndRoutesWhatCannotBeWritten) {
  const std::string dataset = testing::FreshDataset("per_day");
  auto failures = std::make_shared<std::vector<BigQueryFailedElement>>();
  BigQuerySink<Json> sink(Options(), testing::PerDayResolver(kProject, dataset),
                          JsonRows(), RecordingFactory(failures));
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok()) << writer.status();

  const testing::PerDayInput input = testing::MakePerDayInput(10'000);
  const std::vector<Json>& records = input.records;
  const int unfit = input.unfit;
  const int unroutable_expected = input.unroutable;
  ASSERT_TRUE(task_.WriteAll(**writer, records).ok());
  ASSERT_TRUE((*writer)->Flush(/*end_of_input=*/true).ok());
  (*writer)->Close();

  int unroutable = 0;
  int serializer = 0;
  for (const BigQueryFailedElement& failed : *failures) {
    if (failed.destination == kUnresolvedDestination) {
      ++unroutable;
      EXPECT_THAT(failed.status.message(), HasSubstr("no table for day 9"));
      EXPECT_EQ(Json::parse(*failed.payload)["day"], "2026-12-09");
    } else {
      ++serializer;
      EXPECT_THAT(failed.status.message(),
                  HasSubstr("column 'amount' (NUMERIC): 'not a number'"));
    }
  }
  EXPECT_EQ(unroutable, unroutable_expected);
  EXPECT_EQ(serializer, unfit);
  EXPECT_GT(unfit, 0);
  EXPECT_EQ(task_.Metric("records_routed"), absl::StrCat(failures->size()));
  EXPECT_EQ(task_.Metric("records_written"),
            absl::StrCat(input.records.size() - failures->size()));
  EXPECT_EQ(task_.Metric("in_flight_rows"), "0");

  testing::ExpectTablesHoldTheInput(kProject, dataset, input);
  // Columns the comparison leaves out, on one row.
  absl::StatusOr<std::vector<Json>> day1 =
      testing::ReadRows(TableDestination(kProject, dataset, "events_01"));
  ASSERT_TRUE(day1.ok());
  std::map<std::string, Json> by_id;
  for (const Json& row : *day1) by_id[row["id"].get<std::string>()] = row;
  ASSERT_TRUE(by_id.contains("10"));
  EXPECT_EQ(by_id["10"]["doc"], "{\"n\":10}");

  // Created with the sink's partitioning and clustering.
  absl::StatusOr<rest::RestClientOptions> rest_options =
      rest::ResolveRestTarget(BigQueryRestService(), {});
  ASSERT_TRUE(rest_options.ok());
  absl::StatusOr<TableInfo> info =
      TablesClient(rest::RestClient(*rest_options))
          .GetTable(TableDestination(kProject, dataset, "events_02"));
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_TRUE(info->time_partitioning.has_value());
  EXPECT_EQ(info->time_partitioning->field, "day");
  EXPECT_EQ(info->time_partitioning->granularity, "DAY");
  EXPECT_EQ(info->clustering, (std::vector<std::string>{"region", "id"}));
}

TEST_F(BigQuerySinkIntegrationTest, CreateNeverFailsNamingTheTableAndOption) {
  BigQuerySinkOptions options;
  options.name = "bq";
  options.create_disposition = CreateDisposition::kCreateNever;
  BigQuerySink<Json> sink(
      options, TableDestination(kProject, "nowhere", "missing"), JsonRows());
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok()) << writer.status();
  absl::Status status = task_.Write(**writer, Json{{"id", 1}});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(),
              HasSubstr("table it-project.nowhere.missing does not exist and "
                        "option 'create-disposition' is 'create-never'"));
  (*writer)->Close();
}

// The emulator refuses a whole request for one row it cannot convert and
// names no row (the service would name it in row_errors): the sink splits
// the request until the row is alone, routes it, and writes the rest.
TEST_F(BigQuerySinkIntegrationTest, ARefusedRowIsFoundBySplittingItsRequest) {
  BigQuerySinkOptions options = Options();
  options.table.schema =
      TableSchema{{{.name = "value", .type = FieldType::kInt64}}};
  options.table.time_partitioning.reset();
  options.table.clustering.clear();
  options.max_batch_rows = 8;
  auto failures = std::make_shared<std::vector<BigQueryFailedElement>>();
  const TableDestination table(kProject, testing::FreshDataset("split"),
                               "numbers");
  BigQuerySink<google::protobuf::StringValue> sink(
      options, table, ProtoRows<google::protobuf::StringValue>(),
      RecordingFactory(failures));
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok()) << writer.status();
  std::vector<google::protobuf::StringValue> records;
  for (const char* value : {"1", "2", "3", "abc", "5", "6", "7", "8"}) {
    google::protobuf::StringValue record;
    record.set_value(value);
    records.push_back(record);
  }
  ASSERT_TRUE(task_.WriteAll(**writer, records).ok());
  (*writer)->Close();
  ASSERT_THAT(*failures, SizeIs(1));
  EXPECT_EQ((*failures)[0].status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Json::parse(*(*failures)[0].payload), Json({{"value", "abc"}}));
  // 8 rows -> 4 + 4 -> 2 + 2 -> 1 + 1: three splits to isolate the row.
  EXPECT_EQ(task_.Metric("appends_split"), "3");
  absl::StatusOr<std::vector<Json>> rows = testing::ReadRows(table);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(*rows, SizeIs(7));
}

// Runs a GoogleSQL statement through the REST API's jobs.query.
absl::Status RunQuery(const std::string& sql) {
  absl::StatusOr<rest::RestClientOptions> options =
      rest::ResolveRestTarget(BigQueryRestService(), {});
  if (!options.ok()) return options.status();
  absl::StatusOr<http::HttpResponse> response = rest::RestClient(*options).Send(
      {.method = "POST",
       .path = absl::StrCat("/bigquery/v2/projects/", kProject, "/queries"),
       .headers = {"Content-Type: application/json"},
       .body = Json{{"query", sql}, {"useLegacySql", false}}.dump()});
  if (!response.ok()) return response.status();
  const Json answer = Json::parse(response->body, nullptr, false);
  if (answer.contains("errors")) {
    return absl::InternalError(absl::StrCat(sql, ": ", response->body));
  }
  return absl::OkStatus();
}

// A table made with `id` and a REQUIRED `note`; the sink's schema adds
// `color` and relaxes `note`. Each schema-update option allows its change
// and only that; without them the records that need a change are routed.
TEST_F(BigQuerySinkIntegrationTest, SchemaUpdatesOnlyWhatTheOptionsAllow) {
  const TableDestination table(kProject, testing::FreshDataset("evolve"),
                               "events");
  absl::StatusOr<rest::RestClientOptions> rest_options =
      rest::ResolveRestTarget(BigQueryRestService(), {});
  ASSERT_TRUE(rest_options.ok());
  TablesClient tables{rest::RestClient(*rest_options)};
  ASSERT_TRUE(tables.EnsureDataset(kProject, table.dataset).ok());
  TableDefinition first;
  first.schema = TableSchema{
      {{.name = "id", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "note", .mode = FieldMode::kRequired}}};
  ASSERT_TRUE(tables.CreateTable(table, first).ok());
  // Emulator deviation: tables.patch changes the table's metadata but not
  // its storage, and DDL the other way round. The storage half of what the
  // sink patches is made here beforehand; the sink sees the old schema.
  ASSERT_TRUE(RunQuery(absl::StrCat("ALTER TABLE ", table.dataset,
                                    ".events ADD COLUMN color STRING"))
                  .ok());
  ASSERT_TRUE(RunQuery(absl::StrCat("ALTER TABLE ", table.dataset,
                                    ".events ALTER COLUMN note DROP NOT NULL"))
                  .ok());

  const auto write = [&](std::vector<std::string> updates,
                         const std::vector<Json>& records) {
    BigQuerySinkOptions options;
    options.name = "bq";
    options.table.schema = TableSchema{{{.name = "id",
                                         .type = FieldType::kInt64,
                                         .mode = FieldMode::kRequired},
                                        {.name = "note"},
                                        {.name = "color"}}};
    options.schema_update_options = std::move(updates);
    auto failures = std::make_shared<std::vector<BigQueryFailedElement>>();
    BigQuerySink<Json> sink(options, table, JsonRows(),
                            RecordingFactory(failures));
    gcpstream::testing::SinkTestTask task;
    auto writer = sink.CreateWriter(task.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    EXPECT_TRUE(task.WriteAll(**writer, records).ok());
    (*writer)->Close();
    std::vector<std::string> reasons;
    for (const BigQueryFailedElement& failed : *failures) {
      reasons.emplace_back(failed.status.message());
    }
    return reasons;
  };
  const Json colored = {{"id", 1}, {"note", "n"}, {"color", "red"}};
  const Json without_note = {{"id", 2}};
  EXPECT_THAT(write({}, {colored}),
              ElementsAre(HasSubstr("field 'color' is not a column")));
  EXPECT_THAT(write({kAllowFieldAddition}, {colored, without_note}),
              ElementsAre(HasSubstr("column 'note' (STRING): the column is "
                                    "REQUIRED")));
  EXPECT_THAT(
      write({kAllowFieldAddition, kAllowFieldRelaxation}, {without_note}),
      SizeIs(0));

  absl::StatusOr<TableInfo> info = tables.GetTable(table);
  ASSERT_TRUE(info.ok());
  ASSERT_NE(info->schema.Find("color"), nullptr);
  EXPECT_EQ(info->schema.Find("note")->mode, FieldMode::kNullable);
  absl::StatusOr<std::vector<Json>> rows = testing::ReadRows(table);
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::map<std::string, Json> by_id;
  for (const Json& row : *rows) by_id[row["id"].get<std::string>()] = row;
  ASSERT_EQ(by_id.size(), 2u);
  EXPECT_EQ(by_id["1"]["color"], "red");
  EXPECT_TRUE(by_id["2"]["note"].is_null());
}

// The emulator's answer to CDC rows (docs/bigquery.md, deviations): the
// primary key is not kept and changes are not applied; each change is
// appended as a row of its own.
TEST_F(BigQuerySinkIntegrationTest, EmulatorAppendsChangesInsteadOfApplying) {
  const std::string dataset = testing::FreshDataset("cdc");
  BigQuerySinkOptions options;
  options.name = "bq";
  options.table.schema = TableSchema{
      {{.name = "id", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "value"}}};
  options.table.primary_key = {"id"};
  options.change_type_field = "op";
  options.change_sequence_field = "lsn";
  auto failures = std::make_shared<std::vector<BigQueryFailedElement>>();
  const TableDestination table(kProject, dataset, "changes");
  BigQuerySink<Json> sink(options, table, JsonRows(),
                          RecordingFactory(failures));
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok()) << writer.status();
  const std::vector<Json> records = {
      {{"id", 1}, {"value", "a"}, {"op", "UPSERT"}, {"lsn", 1}},
      {{"id", 1}, {"value", "b"}, {"op", "UPSERT"}, {"lsn", 2}},
      {{"id", 2}, {"value", "c"}, {"op", "UPSERT"}, {"lsn", 3}},
      {{"id", 2}, {"op", "DELETE"}, {"lsn", 4}}};
  ASSERT_TRUE(task_.WriteAll(**writer, records).ok());
  ASSERT_TRUE((*writer)->Flush(/*end_of_input=*/true).ok());
  (*writer)->Close();
  EXPECT_THAT(*failures, SizeIs(0));

  absl::StatusOr<std::vector<Json>> rows = testing::ReadRows(table);
  ASSERT_TRUE(rows.ok()) << rows.status();
  // The service would hold one row: {id 1, value "b"}.
  EXPECT_THAT(*rows, SizeIs(4));
  for (const Json& row : *rows) {
    EXPECT_FALSE(row.contains("_CHANGE_TYPE")) << row;
  }
}

// One STRING column `value`: a row is, on the wire, a StringValue.
storage_v1::AppendRowsRequest ValueRows(const std::string& stream,
                                        const std::vector<std::string>& values,
                                        std::optional<int64_t> offset) {
  storage_v1::AppendRowsRequest request;
  request.set_write_stream(stream);
  if (offset.has_value()) request.mutable_offset()->set_value(*offset);
  auto& rows = *request.mutable_proto_rows();
  *rows.mutable_writer_schema()->mutable_proto_descriptor() =
      RowDescriptorFor(TableSchema{{{.name = "value"}}});
  for (const std::string& value : values) {
    google::protobuf::StringValue row;
    row.set_value(value);
    rows.mutable_rows()->add_serialized_rows(row.SerializeAsString());
  }
  return request;
}

// One request on an AppendRows stream of its own, and its answer.
absl::StatusOr<storage_v1::AppendRowsResponse> AppendOnce(
    storage_v1::BigQueryWrite::Stub& stub,
    const storage_v1::AppendRowsRequest& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  auto stream = stub.AppendRows(&context);
  storage_v1::AppendRowsResponse response;
  if (!stream->Write(request) || !stream->WritesDone() ||
      !stream->Read(&response)) {
    return absl::UnavailableError("the AppendRows stream ended unanswered");
  }
  (void)stream->Finish();
  return response;
}

// What the emulator does differently where the sink does not go (it never
// flushes BUFFERED streams, reads append offsets on the default stream, or
// sends insertAll), pinned so that a test relying on them knows.
TEST_F(BigQuerySinkIntegrationTest, EmulatorDeviationsOffTheSinksPath) {
  const std::string dataset = testing::FreshDataset("deviations");
  absl::StatusOr<TablesClient> tables = TablesClientFor({});
  ASSERT_TRUE(tables.ok()) << tables.status();
  ASSERT_TRUE(tables->EnsureDataset(kProject, dataset).ok());
  TableDefinition definition;
  definition.schema = TableSchema{{{.name = "value"}}};
  const TableDestination default_table(kProject, dataset, "default_stream");
  const TableDestination buffered_table(kProject, dataset, "buffered");
  const TableDestination insert_all_table(kProject, dataset, "insert_all");
  for (const TableDestination& table :
       {default_table, buffered_table, insert_all_table}) {
    ASSERT_TRUE(tables->CreateTable(table, definition).ok()) << table.Spec();
  }
  auto channel = auth::MakeChannel(auth::Service::kBigQueryStorage, {});
  ASSERT_TRUE(channel.ok()) << channel.status();
  auto stub = storage_v1::BigQueryWrite::NewStub(*channel);

  // The default stream answers with an offset (the service leaves it
  // unset).
  absl::StatusOr<storage_v1::AppendRowsResponse> appended = AppendOnce(
      *stub, ValueRows(default_table.DefaultStream(), {"a"}, std::nullopt));
  ASSERT_TRUE(appended.ok()) << appended.status();
  EXPECT_TRUE(appended->append_result().has_offset());

  // FlushRows(1) on a BUFFERED stream shows the rows before offset 1 (the
  // service: up to and including it).
  grpc::ClientContext create_context;
  storage_v1::CreateWriteStreamRequest create;
  create.set_parent(buffered_table.ResourceName());
  create.mutable_write_stream()->set_type(storage_v1::WriteStream::BUFFERED);
  storage_v1::WriteStream stream;
  ASSERT_TRUE(stub->CreateWriteStream(&create_context, create, &stream).ok());
  ASSERT_TRUE(
      AppendOnce(*stub, ValueRows(stream.name(), {"x", "y", "z"}, 0)).ok());
  grpc::ClientContext flush_context;
  storage_v1::FlushRowsRequest flush;
  flush.set_write_stream(stream.name());
  flush.mutable_offset()->set_value(1);
  storage_v1::FlushRowsResponse flushed;
  ASSERT_TRUE(stub->FlushRows(&flush_context, flush, &flushed).ok());
  absl::StatusOr<std::vector<Json>> rows = testing::ReadRows(buffered_table);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(*rows, SizeIs(1));

  // tabledata.insertAll does not deduplicate by insertId.
  absl::StatusOr<rest::RestClientOptions> rest_options =
      rest::ResolveRestTarget(BigQueryRestService(), {});
  ASSERT_TRUE(rest_options.ok());
  const rest::RestClient rest(*rest_options);
  const Json insert = {
      {"rows", {{{"insertId", "same"}, {"json", {{"value", "v"}}}}}}};
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(rest.Send({.method = "POST",
                           .path = absl::StrCat("/bigquery/v2/projects/",
                                                kProject, "/datasets/", dataset,
                                                "/tables/insert_all/insertAll"),
                           .headers = {"Content-Type: application/json"},
                           .body = insert.dump()})
                    .ok());
  }
  rows = testing::ReadRows(insert_all_table);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(*rows, SizeIs(2));
}

}  // namespace
}  // namespace gcpstream::bigquery
