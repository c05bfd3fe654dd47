#ifndef GCPSTREAM_BIGQUERY_SCRIPTED_BIGQUERY_FIXTURE_H_
#define GCPSTREAM_BIGQUERY_SCRIPTED_BIGQUERY_FIXTURE_H_

// A BigQuery sink against a scripted Storage Write service and a loopback
// tables API that describes table p.d.t with one STRING column `value`:
// what the emulator cannot produce on demand.

#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/wrappers.pb.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_sink.h"
#include "gcpstream/testing/http_receiver.h"
#include "gcpstream/testing/scripted_server.h"
#include "gcpstream/testing/sink_test_task.h"
#include "google/cloud/bigquery/storage/v1/storage.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery::testing {

using ::gcpstream::testing::HttpAnswer;
using ::gcpstream::testing::HttpReceiver;
using ::gcpstream::testing::ReceivedRequest;
using ::gcpstream::testing::RecordingFactory;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::ScriptedServer;
using Json = nlohmann::json;
using storage_v1::AppendRowsRequest;
using storage_v1::AppendRowsResponse;

inline constexpr char kAppendRows[] =
    "google.cloud.bigquery.storage.v1.BigQueryWrite.AppendRows";

// The values of a request's rows (a one-STRING-column row is, on the wire,
// a StringValue).
inline std::vector<std::string> Values(const AppendRowsRequest& request) {
  std::vector<std::string> values;
  for (const std::string& row : request.proto_rows().rows().serialized_rows()) {
    google::protobuf::StringValue value;
    value.ParseFromString(row);
    values.push_back(value.value());
  }
  return values;
}

inline Reply Appended() {
  AppendRowsResponse response;
  response.mutable_append_result();
  return ::gcpstream::testing::Respond(response);
}

inline Reply InStreamError(absl::StatusCode code, const std::string& message) {
  AppendRowsResponse response;
  response.mutable_error()->set_code(static_cast<int>(code));
  response.mutable_error()->set_message(message);
  return ::gcpstream::testing::Respond(response);
}

class ScriptedBigQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ScriptedServer::Start(
        {"google.cloud.bigquery.storage.v1.BigQueryWrite"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto tables = HttpReceiver::Start([](const ReceivedRequest&) {
      return HttpAnswer{.status = 200,
                        .body = R"({"schema": {"fields": [{"name": "value",
                                              "type": "STRING"}]}})"};
    });
    ASSERT_TRUE(tables.ok()) << tables.status();
    tables_ = *std::move(tables);
    failures_ = std::make_shared<std::vector<BigQueryFailedElement>>();
  }

  BigQuerySinkOptions Options() const {
    BigQuerySinkOptions options;
    options.name = "bq";
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.tables_target.endpoint =
        absl::StrCat("http://127.0.0.1:", tables_->port());
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    options.max_batch_rows = 3;
    return options;
  }

  // Writes one record per value and flushes; with `committables`, also
  // prepares the checkpoint's commit into it.
  absl::Status WriteValues(const std::vector<std::string>& values,
                           const BigQuerySinkOptions& options,
                           std::vector<std::string>* committables = nullptr) {
    BigQuerySink<Json> sink(options, TableDestination("p", "d", "t"),
                            JsonRows(), RecordingFactory(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    if (!writer.ok()) return writer.status();
    std::vector<Json> records;
    records.reserve(values.size());
    for (const std::string& value : values) {
      records.push_back({{"value", value}});
    }
    absl::Status status = task_.WriteAll(**writer, records);
    if (status.ok() && committables != nullptr) {
      absl::StatusOr<std::vector<std::string>> prepared =
          (*writer)->PrepareCommit(1);
      if (prepared.ok()) {
        *committables = *std::move(prepared);
      } else {
        status = prepared.status();
      }
    }
    (*writer)->Close();
    return status;
  }
  absl::Status WriteValues(const std::vector<std::string>& values) {
    return WriteValues(values, Options());
  }

  std::vector<AppendRowsRequest> Sent() const {
    std::vector<AppendRowsRequest> sent;
    for (const auto& recorded : server_->Requests(kAppendRows)) {
      sent.push_back(static_cast<const AppendRowsRequest&>(*recorded.message));
    }
    return sent;
  }

  std::unique_ptr<ScriptedServer> server_;
  std::unique_ptr<HttpReceiver> tables_;
  std::shared_ptr<std::vector<BigQueryFailedElement>> failures_;
  gcpstream::testing::SinkTestTask task_;
};

}  // namespace gcpstream::bigquery::testing

#endif  // GCPSTREAM_BIGQUERY_SCRIPTED_BIGQUERY_FIXTURE_H_
