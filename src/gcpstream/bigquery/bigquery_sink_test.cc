// The BigQuery sink against a scripted Storage Write service and a loopback
// tables API: what the emulator cannot produce on demand (row errors of
// some rows among good ones, RESOURCE_EXHAUSTED storms, stream resets,
// permission refusals) and what every request carries.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gcpstream/bigquery/row_test_util.h"
#include "gcpstream/bigquery/scripted_bigquery_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::gcpstream::testing::ReceivedRequest;
using ::gcpstream::testing::RecordingFactory;
using testing::Appended;
using testing::AppendRowsRequest;
using testing::AppendRowsResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InStreamError;
using testing::Json;
using testing::kAppendRows;
using ::testing::SizeIs;
using testing::Values;
using BigQuerySinkTest = testing::ScriptedBigQueryTest;

TEST_F(BigQuerySinkTest, RowErrorsRouteOnlyTheirRowsAndResendTheRest) {
  int requests = 0;
  server_->SetDefault(kAppendRows,
                      ::gcpstream::testing::Typed<AppendRowsRequest>(
                          [&](const AppendRowsRequest&) {
                            if (requests++ > 0) return Appended();
                            AppendRowsResponse response;
                            response.mutable_error()->set_code(3);
                            response.mutable_error()->set_message("bad rows");
                            auto& error = *response.add_row_errors();
                            error.set_index(1);
                            error.set_code(storage_v1::RowError::FIELDS_ERROR);
                            error.set_message("value 'b' is not allowed");
                            return ::gcpstream::testing::Respond(response);
                          }));
  ASSERT_TRUE(WriteValues({"a", "b", "c"}).ok());
  const std::vector<AppendRowsRequest> sent = Sent();
  ASSERT_THAT(sent, SizeIs(2));
  EXPECT_THAT(Values(sent[0]), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Values(sent[1]), ElementsAre("a", "c"));
  ASSERT_THAT(*failures_, SizeIs(1));
  EXPECT_EQ((*failures_)[0].status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT((*failures_)[0].status.message(),
              HasSubstr("value 'b' is not allowed"));
  EXPECT_EQ(Json::parse(*(*failures_)[0].payload), Json({{"value", "b"}}));
  EXPECT_EQ((*failures_)[0].destination, "projects/p/datasets/d/tables/t");
  EXPECT_EQ(task_.Metric("records_written"), "2");
  EXPECT_EQ(task_.Metric("records_routed"), "1");
  EXPECT_EQ(task_.Metric("rows_resent"), "2");
}

TEST_F(BigQuerySinkTest, EveryRequestNamesItsStreamAndCarriesItsSchema) {
  server_->SetDefault(kAppendRows, ::gcpstream::testing::Always(Appended()));
  ASSERT_TRUE(WriteValues({"a", "b", "c", "d", "e", "f", "g"}).ok());
  const auto recorded = server_->Requests(kAppendRows);
  ASSERT_THAT(recorded, SizeIs(3));  // 3 + 3 + 1 rows.
  for (const auto& request : recorded) {
    const auto& append =
        static_cast<const AppendRowsRequest&>(*request.message);
    EXPECT_EQ(append.write_stream(),
              "projects/p/datasets/d/tables/t/streams/_default");
    EXPECT_EQ(
        append.proto_rows().writer_schema().proto_descriptor().field(0).name(),
        "value");
    EXPECT_FALSE(append.has_offset());
  }
  // One stream for every request, routed to the table's default stream.
  EXPECT_EQ(server_->CallCount(kAppendRows), 1);
  const auto params = recorded[0].metadata.find("x-goog-request-params");
  ASSERT_NE(params, recorded[0].metadata.end());
  EXPECT_THAT(params->second, HasSubstr("write_stream=projects%2Fp"));
  EXPECT_EQ(task_.Metric("records_written"), "7");
  EXPECT_EQ(task_.Metric("append_streams_opened"), "1");
  // The tables API was asked once for the table's schema.
  const std::vector<ReceivedRequest> gets =
      tables_->WaitFor(1, absl::Seconds(1));
  ASSERT_THAT(gets, SizeIs(1));
  EXPECT_EQ(gets[0].target, "/bigquery/v2/projects/p/datasets/d/tables/t");
}

TEST_F(BigQuerySinkTest, AQuotaStormIsRetriedUntilItPasses) {
  int requests = 0;
  server_->SetDefault(
      kAppendRows, ::gcpstream::testing::Typed<AppendRowsRequest>(
                       [&](const AppendRowsRequest&) {
                         return requests++ < 4
                                    ? InStreamError(
                                          absl::StatusCode::kResourceExhausted,
                                          "quota")
                                    : Appended();
                       }));
  ASSERT_TRUE(WriteValues({"a", "b"}).ok());
  EXPECT_THAT(Sent(), SizeIs(5));
  EXPECT_THAT(*failures_, SizeIs(0));
  EXPECT_EQ(task_.Metric("records_written"), "2");
  EXPECT_EQ(task_.Metric("request_retries"), "4");
  EXPECT_EQ(task_.Metric("append_errors_resource_exhausted"), "4");
}

TEST_F(BigQuerySinkTest, AResetStreamIsReopenedAndItsAppendsResent) {
  server_->Enqueue(kAppendRows,
                   ::gcpstream::testing::Always(::gcpstream::testing::Fail(
                       grpc::StatusCode::UNAVAILABLE, "connection reset")));
  server_->SetDefault(kAppendRows, ::gcpstream::testing::Always(Appended()));
  ASSERT_TRUE(WriteValues({"a", "b", "c", "d"}).ok());
  EXPECT_EQ(task_.Metric("records_written"), "4");
  EXPECT_EQ(server_->CallCount(kAppendRows), 2);
  EXPECT_EQ(task_.Metric("append_streams_opened"), "2");
  EXPECT_THAT(*failures_, SizeIs(0));
}

TEST_F(BigQuerySinkTest, PermissionDeniedFailsTheJobNamingTheTable) {
  server_->SetDefault(kAppendRows,
                      ::gcpstream::testing::Always(InStreamError(
                          absl::StatusCode::kPermissionDenied, "no access")));
  absl::Status status = WriteValues({"a"});
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(status.message(),
              HasSubstr("bq: appending to table p.d.t failed: no access"));
  EXPECT_THAT(*failures_, SizeIs(0));
}

TEST_F(BigQuerySinkTest, AnOversizedRowIsRoutedWithoutBeingSent) {
  server_->SetDefault(kAppendRows, ::gcpstream::testing::Always(Appended()));
  ASSERT_TRUE(WriteValues({"a", std::string(kMaxRowBytes, 'x'), "c"}).ok());
  ASSERT_THAT(*failures_, SizeIs(1));
  EXPECT_THAT((*failures_)[0].status.message(),
              HasSubstr("that fit in an AppendRows request"));
  EXPECT_EQ(task_.Metric("records_written"), "2");
}

// The table has only `value`; the sink's schema adds `extra`. Under
// allow-field-addition the writer patches the table first, and the
// service's refusal of the new column while its schema propagates is
// retried, not routed.
TEST_F(BigQuerySinkTest, AnAddedColumnIsPatchedAndEarlyRefusalsRetried) {
  auto tables = gcpstream::testing::HttpReceiver::Start(
      [](const ReceivedRequest& request) {
        if (request.method == "PATCH") {
          return gcpstream::testing::HttpAnswer{.status = 200,
                                                .body = request.body};
        }
        return gcpstream::testing::HttpAnswer{
            .status = 200, .body = R"({"schema": {"fields": [{"name": "value",
                                               "type": "STRING"}]}})"};
      });
  ASSERT_TRUE(tables.ok());
  BigQuerySinkOptions options = Options();
  options.tables_target.endpoint =
      absl::StrCat("http://127.0.0.1:", (*tables)->port());
  options.table.schema = TableSchema{
      {{.name = "value"}, {.name = "extra", .type = FieldType::kInt64}}};
  options.schema_update_options = {kAllowFieldAddition};
  int requests = 0;
  server_->SetDefault(
      kAppendRows, ::gcpstream::testing::Typed<AppendRowsRequest>(
                       [&](const AppendRowsRequest&) {
                         return requests++ < 2
                                    ? InStreamError(
                                          absl::StatusCode::kInvalidArgument,
                                          "Input schema has more fields than "
                                          "BigQuery schema, extra fields: "
                                          "'extra'")
                                    : Appended();
                       }));
  ASSERT_TRUE(WriteValues({"a", "b"}, options).ok());
  EXPECT_THAT(*failures_, SizeIs(0));
  EXPECT_EQ(task_.Metric("records_written"), "2");
  EXPECT_EQ(task_.Metric("table_schemas_updated"), "1");
  EXPECT_EQ(task_.Metric("request_retries"), "2");
  const std::vector<ReceivedRequest> received =
      (*tables)->WaitFor(2, absl::Seconds(1));
  ASSERT_THAT(received, SizeIs(2));
  EXPECT_EQ(received[1].method, "PATCH");
  const Json patched = Json::parse(received[1].body);
  ASSERT_EQ(patched["schema"]["fields"].size(), 2u);
  EXPECT_EQ(patched["schema"]["fields"][1]["name"], "extra");
  EXPECT_EQ(patched["schema"]["fields"][1]["mode"], "NULLABLE");
  // The rows carry the new column in their writer schema.
  EXPECT_EQ(Sent()
                .back()
                .proto_rows()
                .writer_schema()
                .proto_descriptor()
                .field_size(),
            2);
}

TEST_F(BigQuerySinkTest, WithoutTheOptionTheTableIsLeftAlone) {
  BigQuerySinkOptions options = Options();
  options.table.schema = TableSchema{
      {{.name = "value"}, {.name = "extra", .type = FieldType::kInt64}}};
  server_->SetDefault(kAppendRows, ::gcpstream::testing::Always(Appended()));
  ASSERT_TRUE(WriteValues({"a"}, options).ok());
  EXPECT_EQ(task_.Metric("table_schemas_updated"), "0");
  EXPECT_THAT(tables_->WaitFor(2, absl::Milliseconds(200)), SizeIs(1));
}

// CDC upserts: a table the sink creates gets the primary key, and every
// row carries _CHANGE_TYPE and _CHANGE_SEQUENCE_NUMBER after its columns;
// a delete needs only its key.
TEST_F(BigQuerySinkTest, ChangeRowsCarryThePseudoColumnsAndTablesAKey) {
  auto tables = gcpstream::testing::HttpReceiver::Start(
      [](const ReceivedRequest& request) {
        if (request.method == "GET") {
          return gcpstream::testing::HttpAnswer{.status = 404, .body = "{}"};
        }
        return gcpstream::testing::HttpAnswer{.status = 200,
                                              .body = request.body};
      });
  ASSERT_TRUE(tables.ok());
  BigQuerySinkOptions options = Options();
  options.tables_target.endpoint =
      absl::StrCat("http://127.0.0.1:", (*tables)->port());
  options.table.schema = TableSchema{
      {{.name = "id", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "value", .mode = FieldMode::kRequired}}};
  options.table.primary_key = {"id"};
  options.change_type_field = "op";
  options.change_sequence_field = "lsn";
  server_->SetDefault(kAppendRows,
                      ::gcpstream::testing::Typed<AppendRowsRequest>(
                          [](const AppendRowsRequest&) { return Appended(); }));
  BigQuerySink<Json> sink(options, TableDestination("p", "d", "t"), JsonRows(),
                          RecordingFactory(failures_));
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(
      task_
          .WriteAll(**writer,
                    {{{"id", 1}, {"value", "a"}, {"op", "UPSERT"}, {"lsn", 10}},
                     {{"id", 1}, {"op", "delete"}, {"lsn", 11}},
                     {{"id", 2}, {"value", "b"}, {"op", "MERGE"}, {"lsn", 12}}})
          .ok());
  (*writer)->Close();

  bool created = false;
  for (const ReceivedRequest& request :
       (*tables)->WaitFor(0, absl::ZeroDuration())) {
    if (request.method != "POST" ||
        !absl::EndsWith(request.target, "/tables")) {
      continue;
    }
    created = true;
    EXPECT_EQ(Json::parse(request.body)["tableConstraints"],
              Json::parse(R"({"primaryKey": {"columns": ["id"]}})"));
  }
  EXPECT_TRUE(created);
  const std::vector<AppendRowsRequest> sent = Sent();
  ASSERT_THAT(sent, SizeIs(1));
  const auto& descriptor =
      sent[0].proto_rows().writer_schema().proto_descriptor();
  ASSERT_EQ(descriptor.field_size(), 4);
  EXPECT_EQ(descriptor.field(2).name(), "_CHANGE_TYPE");
  EXPECT_EQ(descriptor.field(3).name(), "_CHANGE_SEQUENCE_NUMBER");
  testing::RowReader reader(descriptor);
  const auto& rows = sent[0].proto_rows().rows().serialized_rows();
  ASSERT_EQ(rows.size(), 2);
  EXPECT_EQ(reader.Text(rows[0]),
            "id: 1 value: \"a\" _CHANGE_TYPE: \"UPSERT\" "
            "_CHANGE_SEQUENCE_NUMBER: \"A\" ");
  EXPECT_EQ(reader.Text(rows[1]),
            "id: 1 _CHANGE_TYPE: \"DELETE\" _CHANGE_SEQUENCE_NUMBER: \"B\" ");
  // A change type that is none is the record's failure.
  ASSERT_THAT(*failures_, SizeIs(1));
  EXPECT_THAT((*failures_)[0].status.message(),
              HasSubstr("\"MERGE\" is no change type"));
}

}  // namespace
}  // namespace gcpstream::bigquery
