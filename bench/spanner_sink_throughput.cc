// Rows per second of client CPU for the Spanner sink against a null Spanner
// (a child process that accepts everything), next to a raw-stub loop sending
// the same requests, so the sink's overhead is a ratio. 10-column upserts,
// batches at the default limits (500 mutations, 5000 cells).
//
//   spanner_sink_throughput [--rows N] [--columns C] [--runs R] [--quick]

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench/sink_runs.h"
#include "bench/spanner_null_service.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "google/spanner/v1/spanner.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace v1 = ::google::spanner::v1;
using spanner::Mutation;
using spanner::Value;

constexpr SinkRunUnits kUnits{.benchmark = "spanner_sink", .items = "rows"};

// Column i's value for row `id`, the same in both loops.
Value CellValue(int64_t id, int i) {
  switch ((i - 1) % 5) {
    case 0:
      return Value::Int64(id * 31 + i);
    case 1:
      return Value::Float64(static_cast<double>(id) * 0.5);
    case 2:
      return Value::String(absl::StrCat("customer-", id, "-column-", i));
    case 3:
      return Value::Bool(id % 2 == 0);
    default:
      return Value::Timestamp(absl::FromUnixMillis(1'764'633'600'000 + id));
  }
}

SinkRun RunSink(const std::string& address, int64_t rows, int columns,
                spanner::WriteMethod method) {
  spanner::SpannerSinkOptions options;
  options.database = spanner::DatabaseDestination("p", "i", "d");
  options.channel.endpoint = address;
  options.channel.plaintext = true;
  options.write_method = method;
  std::vector<std::string> names;
  for (int i = 1; i < columns; ++i) names.push_back(absl::StrCat("C", i));
  spanner::SpannerSink<int64_t> sink(
      options,
      [names](const int64_t& id,
              const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
        Mutation mutation = Mutation::InsertOrUpdate("Rows");
        mutation.Set("Id", Value::Int64(id));
        for (size_t i = 0; i < names.size(); ++i) {
          mutation.Set(names[i], CellValue(id, static_cast<int>(i) + 1));
        }
        return mutation;
      });
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>());
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox);
  auto writer = sink.CreateWriter(context);
  if (!writer.ok()) {
    std::fprintf(stderr, "%s\n", writer.status().ToString().c_str());
    std::exit(1);
  }
  const RunTimer timer;
  WriterContext record;
  for (int64_t id = 0; id < rows; ++id) {
    record.record_position = id;
    if (absl::Status s = (*writer)->Write(id, record); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      std::exit(1);
    }
  }
  if (absl::Status s = (*writer)->Flush(true); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::exit(1);
  }
  SinkRun result = timer.Finish(
      absl::StrCat("sink ", spanner::kWriteMethodOption.Name(method)), rows);
  (*writer)->Close();
  return result;
}

// The same mutations, built straight into protos and sent with the stub.
SinkRun RunRaw(const std::string& address, int64_t rows, int columns,
               spanner::WriteMethod method) {
  auto channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v1::Spanner::NewStub(channel);
  v1::Session session;
  {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    request.set_database("projects/p/instances/i/databases/d");
    (void)stub->CreateSession(&context, request, &session);
  }
  std::vector<std::string> names = {"Id"};
  for (int i = 1; i < columns; ++i) names.push_back(absl::StrCat("C", i));
  constexpr int64_t kBatch = 500;
  const RunTimer timer;
  for (int64_t first = 0; first < rows; first += kBatch) {
    const int64_t last = std::min(rows, first + kBatch);
    auto fill = [&](v1::Mutation& mutation, int64_t id) {
      auto& write = *mutation.mutable_insert_or_update();
      write.set_table("Rows");
      for (const std::string& name : names) write.add_columns(name);
      auto& values = *write.add_values();
      *values.add_values() = Value::Int64(id).ToProto();
      for (int i = 1; i < columns; ++i) {
        *values.add_values() = CellValue(id, i).ToProto();
      }
    };
    grpc::ClientContext context;
    if (method == spanner::WriteMethod::kBatchWrite) {
      v1::BatchWriteRequest request;
      request.set_session(session.name());
      for (int64_t id = first; id < last; ++id) {
        fill(*request.add_mutation_groups()->add_mutations(), id);
      }
      auto reader = stub->BatchWrite(&context, request);
      v1::BatchWriteResponse response;
      while (reader->Read(&response)) {
      }
      (void)reader->Finish();
    } else {
      v1::CommitRequest request;
      request.set_session(session.name());
      request.mutable_single_use_transaction()->mutable_read_write();
      for (int64_t id = first; id < last; ++id) {
        fill(*request.add_mutations(), id);
      }
      v1::CommitResponse response;
      (void)stub->Commit(&context, request, &response);
    }
  }
  return timer.Finish(
      absl::StrCat("raw stub ", spanner::kWriteMethodOption.Name(method)),
      rows);
}

}  // namespace
}  // namespace gcpstream::bench

int main(int argc, char** argv) {
  using namespace gcpstream::bench;  // NOLINT(google-build-using-namespace)
  CLI::App app{"Spanner sink throughput against a null Spanner"};
  int64_t rows = 300'000;
  int columns = 10;
  int runs = 3;
  bool quick = false;
  app.add_option("--rows", rows);
  app.add_option("--columns", columns);
  app.add_option("--runs", runs);
  app.add_flag("--quick", quick, "a few thousand rows, one run (smoke)");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    rows = 5000;
    runs = 1;
  }
  // Before any gRPC use in this process: the server is a forked child.
  const ForkedServer server = StartNullSpanner(columns);
  for (auto method : {gcpstream::spanner::WriteMethod::kBatchWrite,
                      gcpstream::spanner::WriteMethod::kCommit}) {
    std::vector<SinkRun> sink_runs;
    std::vector<SinkRun> raw_runs;
    for (int run = 0; run < runs; ++run) {
      raw_runs.push_back(RunRaw(server.address, rows, columns, method));
      sink_runs.push_back(RunSink(server.address, rows, columns, method));
    }
    const SinkRun raw = PrintMedian(kUnits, raw_runs);
    const SinkRun sink = PrintMedian(kUnits, sink_runs);
    std::printf("overhead (raw rows/CPU-s ÷ sink rows/CPU-s): %.2fx\n",
                raw.ItemsPerCpuSecond() / sink.ItemsPerCpuSecond());
  }
  StopForkedServer(server);
  return 0;
}
