// Rows per second of client CPU for the BigQuery sink against a null
// Storage Write service (a child process that accepts every append), on the
// default stream (storage-api-at-least-once): rows of 200 B given already
// encoded, then JSON records of about 200 B encoded by the sink, and a
// raw-stub loop sending the same pre-encoded requests on one AppendRows
// stream, so the sink's overhead is a ratio. The tables API (read once per
// run) is a loopback HTTP fixture.
//
//   bigquery_sink_throughput [--rows N] [--runs R] [--quick]

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/bigquery_null_service.h"
#include "bench/sink_runs.h"
#include "gcpstream/bigquery/bigquery_sink.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/testing/http_receiver.h"
#include "google/cloud/bigquery/storage/v1/storage.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace storage_v1 = ::google::cloud::bigquery::storage::v1;
using Json = nlohmann::json;

constexpr SinkRunUnits kUnits{.benchmark = "bigquery_sink", .items = "rows"};

constexpr int64_t kBatchRows = 10'000;
constexpr int kRowBytes = 200;

// Table "raw" has one STRING column `payload`; table "orders" five.
constexpr char kRawSchema[] =
    R"({"schema": {"fields": [{"name": "payload", "type": "STRING"}]}})";
constexpr char kOrdersSchema[] = R"({"schema": {"fields": [
    {"name": "id", "type": "INT64", "mode": "REQUIRED"},
    {"name": "region", "type": "STRING"},
    {"name": "amount", "type": "NUMERIC"},
    {"name": "placed_at", "type": "TIMESTAMP"},
    {"name": "note", "type": "STRING"}]}})";

// A row of the raw table: field 1 (payload), length-delimited, 200 B in
// all.
std::string EncodedRow() {
  const std::string payload(kRowBytes - 3, 'p');
  std::string row;
  row.push_back(0x0A);
  row.push_back(static_cast<char>(0x80 | (payload.size() & 0x7F)));
  row.push_back(static_cast<char>(payload.size() >> 7));
  return row + payload;
}

// Records that are their rows already.
class PreEncodedRows final : public bigquery::RowSerializer<std::string> {
 public:
  absl::StatusOr<std::shared_ptr<const bigquery::RowFormat>> FormatFor(
      const bigquery::TableSchema& schema,
      const bigquery::RowFormatOptions& options) const override {
    return bigquery::JsonRows()->FormatFor(schema, options);
  }
  absl::StatusOr<bool> Encode(const std::string& record,
                              const bigquery::RowFormat& /*format*/,
                              const WriterContext& /*context*/,
                              std::string& row) const override {
    row.assign(record);
    return true;
  }
};

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::exit(1);
}

bigquery::BigQuerySinkOptions SinkOptions(const std::string& write_address,
                                          int tables_port) {
  bigquery::BigQuerySinkOptions options;
  options.channel.endpoint = write_address;
  options.channel.plaintext = true;
  options.tables_target.endpoint =
      absl::StrCat("http://127.0.0.1:", tables_port);
  return options;
}

template <typename T>
SinkRun RunSink(const std::string& scenario,
                const bigquery::BigQuerySinkOptions& options,
                const std::string& table,
                std::shared_ptr<const bigquery::RowSerializer<T>> serializer,
                const std::vector<T>& records, int64_t rows) {
  bigquery::BigQuerySink<T> sink(options,
                                 bigquery::TableDestination("p", "d", table),
                                 std::move(serializer));
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>());
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox);
  auto writer = sink.CreateWriter(context);
  if (!writer.ok()) Die(writer.status());
  const RunTimer timer;
  WriterContext record;
  for (int64_t i = 0; i < rows; ++i) {
    record.record_position = i;
    const T& next = records[static_cast<size_t>(i) % records.size()];
    if (absl::Status s = (*writer)->Write(next, record); !s.ok()) Die(s);
  }
  if (absl::Status s = (*writer)->Flush(true); !s.ok()) Die(s);
  SinkRun result = timer.Finish(scenario, rows);
  (*writer)->Close();
  return result;
}

// The same pre-encoded requests on one AppendRows stream with the blocking
// stub: write a request, read its answer.
SinkRun RunRaw(const std::string& address, int64_t rows) {
  auto channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = storage_v1::BigQueryWrite::NewStub(channel);
  const std::string row = EncodedRow();
  const RunTimer timer;
  grpc::ClientContext context;
  auto stream = stub->AppendRows(&context);
  storage_v1::AppendRowsResponse response;
  for (int64_t first = 0; first < rows; first += kBatchRows) {
    storage_v1::AppendRowsRequest request;
    request.set_write_stream(
        "projects/p/datasets/d/tables/raw/streams/_default");
    auto& proto_rows = *request.mutable_proto_rows();
    proto_rows.mutable_writer_schema()->mutable_proto_descriptor()->set_name(
        "row");
    for (int64_t i = first; i < std::min(rows, first + kBatchRows); ++i) {
      proto_rows.mutable_rows()->add_serialized_rows(row);
    }
    if (!stream->Write(request) || !stream->Read(&response)) {
      Die(absl::UnavailableError("the raw AppendRows stream broke"));
    }
  }
  stream->WritesDone();
  (void)stream->Finish();
  return timer.Finish("raw stub (one stream)", rows);
}

std::vector<Json> OrderRecords() {
  std::vector<Json> records;
  records.reserve(1000);
  for (int i = 0; i < 1000; ++i) {
    records.push_back({{"id", 1'000'000 + i},
                       {"region", "europe-west1"},
                       {"amount", absl::StrCat(i, ".25")},
                       {"placed_at", "2026-12-01T10:00:00.123456Z"},
                       {"note", std::string(120, 'n')}});
  }
  return records;
}

}  // namespace
}  // namespace gcpstream::bench

int main(int argc, char** argv) {
  using namespace gcpstream::bench;  // NOLINT(google-build-using-namespace)
  CLI::App app{"BigQuery sink throughput against a null Storage Write API"};
  int64_t rows = 2'000'000;
  int runs = 3;
  bool quick = false;
  app.add_option("--rows", rows);
  app.add_option("--runs", runs);
  app.add_flag("--quick", quick, "a few thousand rows, one run (smoke)");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    rows = 20'000;
    runs = 1;
  }
  // Before any gRPC use in this process: the server is a forked child.
  const ForkedServer write = StartNullBigQueryWrite();
  auto tables = gcpstream::testing::HttpReceiver::Start(
      [](const gcpstream::testing::ReceivedRequest& request) {
        return gcpstream::testing::HttpAnswer{
            .status = 200,
            .body = absl::EndsWith(request.target, "/tables/raw")
                        ? kRawSchema
                        : kOrdersSchema};
      });
  if (!tables.ok()) Die(tables.status());
  const auto options = SinkOptions(write.address, (*tables)->port());

  const SinkRun raw =
      MeasureRuns(kUnits, runs, [&] { return RunRaw(write.address, rows); });
  const std::vector<std::string> encoded = {EncodedRow()};
  const SinkRun sink = MeasureRuns(kUnits, runs, [&] {
    return RunSink<std::string>("sink, pre-encoded 200 B rows", options, "raw",
                                std::make_shared<PreEncodedRows>(), encoded,
                                rows);
  });
  const std::vector<Json> orders = OrderRecords();
  MeasureRuns(kUnits, runs, [&] {
    return RunSink<Json>("sink, JSON records (~200 B)", options, "orders",
                         gcpstream::bigquery::JsonRows(), orders, rows);
  });
  std::printf("sink CPU per row over the raw loop: %.2fx\n",
              raw.ItemsPerCpuSecond() / sink.ItemsPerCpuSecond());
  StopForkedServer(write);
  return 0;
}
