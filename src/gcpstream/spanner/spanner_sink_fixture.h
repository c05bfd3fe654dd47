// The scripted-Spanner fixture of the Spanner sink's tests.

#ifndef GCPSTREAM_SPANNER_SPANNER_SINK_FIXTURE_H_
#define GCPSTREAM_SPANNER_SPANNER_SINK_FIXTURE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "gcpstream/testing/scripted_server.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gmock/gmock.h"
#include "google/spanner/admin/database/v1/spanner_database_admin.pb.h"
#include "google/spanner/v1/spanner.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::spanner::testing {

using ::gcpstream::testing::Always;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Reply;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::RespondStream;
using ::gcpstream::testing::ScriptedServer;
using ::gcpstream::testing::Typed;
using ::google::spanner::v1::BatchWriteRequest;
using ::google::spanner::v1::BatchWriteResponse;
using ::google::spanner::v1::CommitRequest;
using ::google::spanner::v1::CommitResponse;
using ::google::spanner::v1::ExecuteSqlRequest;
using ::google::spanner::v1::ResultSet;

inline constexpr char kBatchWrite[] = "google.spanner.v1.Spanner.BatchWrite";
inline constexpr char kCommit[] = "google.spanner.v1.Spanner.Commit";
inline constexpr char kCreateSession[] =
    "google.spanner.v1.Spanner.CreateSession";
inline constexpr char kExecuteSql[] = "google.spanner.v1.Spanner.ExecuteSql";
inline constexpr char kDeleteSession[] =
    "google.spanner.v1.Spanner.DeleteSession";
inline constexpr char kGetDatabase[] =
    "google.spanner.admin.database.v1.DatabaseAdmin.GetDatabase";

// A record: the order id and amount to upsert into Orders.
struct Row {
  int64_t id = 0;
  int64_t amount = 0;
};

inline void AddRow(ResultSet& result,
                   const std::vector<std::optional<std::string>>& cells) {
  auto& row = *result.add_rows();
  for (const auto& cell : cells) {
    if (cell.has_value()) {
      row.add_values()->set_string_value(*cell);
    } else {
      row.add_values()->set_null_value({});
    }
  }
}

// Orders(OrderId INT64 key, Amount INT64 indexed by OrdersByAmount).
inline Reply SchemaReply(const ExecuteSqlRequest& request) {
  ResultSet result;
  if (absl::StrContains(request.sql(), "REFERENTIAL_CONSTRAINTS")) {
    return Respond(result);  // No interleaving, no foreign keys.
  }
  if (absl::StrContains(request.sql(), "INDEX_COLUMNS")) {
    AddRow(result,
           {"", "Orders", "PRIMARY_KEY", "PRIMARY_KEY", "OrderId", "1"});
    AddRow(result, {"", "Orders", "OrdersByAmount", "INDEX", "Amount", "1"});
  } else {
    AddRow(result, {"", "Orders", "OrderId", "INT64", "NO"});
    AddRow(result, {"", "Orders", "Amount", "INT64", "NO"});
  }
  return Respond(result);
}

inline BatchWriteResponse GroupStatus(const std::vector<int>& indexes, int code,
                                      const std::string& message = "") {
  BatchWriteResponse response;
  for (int index : indexes) response.add_indexes(index);
  response.mutable_status()->set_code(code);
  response.mutable_status()->set_message(message);
  return response;
}

inline int64_t IdOf(const google::spanner::v1::Mutation& mutation) {
  int64_t id = 0;
  EXPECT_TRUE(absl::SimpleAtoi(
      mutation.insert_or_update().values(0).values(0).string_value(), &id));
  return id;
}

class SpannerSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ScriptedServer::Start(
        {"google.spanner.v1.Spanner",
         "google.spanner.admin.database.v1.DatabaseAdmin"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    google::spanner::admin::database::v1::Database database;
    database.set_name("projects/p/instances/i/databases/d");
    database.set_database_dialect(
        google::spanner::admin::database::v1::GOOGLE_STANDARD_SQL);
    server_->SetDefault(kGetDatabase, Always(Respond(database)));
    google::spanner::v1::Session session;
    session.set_name("projects/p/instances/i/databases/d/sessions/s1");
    server_->SetDefault(kCreateSession, Always(Respond(session)));
    server_->SetDefault(kExecuteSql, Typed<ExecuteSqlRequest>(SchemaReply));
    server_->SetDefault(kDeleteSession,
                        Always(Respond(google::protobuf::Empty())));
    server_->SetDefault(kCommit, Always(Respond(CommitResponse())));
    failures_ = std::make_shared<std::vector<SpannerFailedElement>>();
  }

  SpannerSinkOptions Options() const {
    SpannerSinkOptions options;
    options.name = "orders-db";
    options.database = DatabaseDestination("p", "i", "d");
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    return options;
  }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<Row>>> Writer(
      const SpannerSinkOptions& options) {
    return WriterOf<Row>(
        options,
        [](const Row& row,
           const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
          if (row.id < 0) return std::nullopt;
          return Mutation::InsertOrUpdate("Orders")
              .Set("OrderId", Value::Int64(row.id))
              .Set("Amount", Value::Int64(row.amount));
        });
  }

  // A writer of T whose failure handler records into failures_.
  template <typename T>
  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<T>>> WriterOf(
      const SpannerSinkOptions& options, SpannerSerializer<T> serializer) {
    SpannerSink<T> sink(options, std::move(serializer),
                        ::gcpstream::testing::RecordingFactory(failures_));
    runtime::SinkWriterContext context;
    context.pipeline = "test";
    context.sink_name = "spanner";
    context.mailbox = runtime::MailboxExecutor(&mailbox_);
    context.metrics = &registry_;
    return sink.CreateWriter(context);
  }

  template <typename T>
  absl::Status Write(runtime::SinkWriter<T>& writer, const T& row) {
    WriterContext context;
    context.record_position = position_++;
    return writer.Write(row, context);
  }

  std::string Metric(absl::string_view metric) const {
    for (absl::string_view line :
         absl::StrSplit(registry_.ExportPrometheusText(), '\n')) {
      if (absl::StartsWith(line, absl::StrCat(metric, "{"))) {
        return std::string(line.substr(line.rfind(' ') + 1));
      }
    }
    return "";
  }

  std::vector<BatchWriteRequest> BatchWrites() const {
    std::vector<BatchWriteRequest> out;
    for (const auto& r : server_->Requests(kBatchWrite)) {
      out.push_back(static_cast<const BatchWriteRequest&>(*r.message));
    }
    return out;
  }
  std::vector<CommitRequest> Commits() const {
    std::vector<CommitRequest> out;
    for (const auto& r : server_->Requests(kCommit)) {
      out.push_back(static_cast<const CommitRequest&>(*r.message));
    }
    return out;
  }

  std::unique_ptr<ScriptedServer> server_;
  std::shared_ptr<std::vector<SpannerFailedElement>> failures_;
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  MetricsRegistry registry_;
  int64_t position_ = 0;
};

}  // namespace gcpstream::spanner::testing

#endif  // GCPSTREAM_SPANNER_SPANNER_SINK_FIXTURE_H_
