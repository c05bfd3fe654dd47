// Mutations per second of client CPU for the Bigtable sink against a null
// Bigtable (a child process that accepts everything): one 100-byte SetCell
// per row with an explicit timestamp, default batching (100 entries). Then
// the same with 1% of entries answered UNAVAILABLE (only those are resent),
// and a raw-stub loop sending the same requests, so the sink's overhead is
// a ratio.
//
//   bigtable_sink_throughput [--rows N] [--runs R] [--quick]

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "bench/bigtable_null_service.h"
#include "bench/sink_runs.h"
#include "gcpstream/bigtable/bigtable_sink.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"

namespace gcpstream::bench {
namespace {

constexpr SinkRunUnits kUnits{.benchmark = "bigtable_sink",
                              .items = "mutations"};

namespace v2 = ::google::bigtable::v2;

constexpr int kValueBytes = 100;
constexpr int kBatch = 100;

std::string RowKey(int64_t id) { return absl::StrCat("customer#", id); }

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::exit(1);
}

SinkRun RunSink(const std::string& scenario, const std::string& address,
                int64_t rows) {
  bigtable::BigtableSinkOptions options;
  options.channel.endpoint = address;
  options.channel.plaintext = true;
  const std::string value(kValueBytes, 'v');
  bigtable::BigtableSink<int64_t> sink(
      options, bigtable::TableDestination("p", "i", "t"),
      [&value](const int64_t& id, const WriterContext&)
          -> absl::StatusOr<std::optional<bigtable::RowMutationEntry>> {
        bigtable::RowMutationEntry entry(RowKey(id));
        entry.SetCell("cf", "payload", value, 1'000'000);
        return entry;
      });
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>());
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox);
  auto writer = sink.CreateWriter(context);
  if (!writer.ok()) Die(writer.status());
  const RunTimer timer;
  WriterContext record;
  for (int64_t id = 0; id < rows; ++id) {
    record.record_position = id;
    if (absl::Status s = (*writer)->Write(id, record); !s.ok()) Die(s);
  }
  if (absl::Status s = (*writer)->Flush(true); !s.ok()) Die(s);
  SinkRun result = timer.Finish(scenario, rows);
  (*writer)->Close();
  return result;
}

// The same requests built straight into protos and sent one at a time
// with the blocking stub.
SinkRun RunRaw(const std::string& address, int64_t rows) {
  auto channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v2::Bigtable::NewStub(channel);
  const std::string value(kValueBytes, 'v');
  const RunTimer timer;
  for (int64_t first = 0; first < rows; first += kBatch) {
    v2::MutateRowsRequest request;
    request.set_table_name("projects/p/instances/i/tables/t");
    for (int64_t id = first; id < std::min(rows, first + kBatch); ++id) {
      auto& entry = *request.add_entries();
      entry.set_row_key(RowKey(id));
      auto& cell = *entry.add_mutations()->mutable_set_cell();
      cell.set_family_name("cf");
      cell.set_column_qualifier("payload");
      cell.set_value(value);
      cell.set_timestamp_micros(1'000'000);
    }
    grpc::ClientContext context;
    auto reader = stub->MutateRows(&context, request);
    v2::MutateRowsResponse response;
    while (reader->Read(&response)) {
    }
    (void)reader->Finish();
  }
  return timer.Finish("raw stub (sequential)", rows);
}

}  // namespace
}  // namespace gcpstream::bench

int main(int argc, char** argv) {
  using namespace gcpstream::bench;  // NOLINT(google-build-using-namespace)
  CLI::App app{"Bigtable sink throughput against a null Bigtable"};
  int64_t rows = 1'000'000;
  int runs = 3;
  bool quick = false;
  app.add_option("--rows", rows);
  app.add_option("--runs", runs);
  app.add_flag("--quick", quick, "a few thousand rows, one run (smoke)");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    rows = 5000;
    runs = 1;
  }
  // Before any gRPC use in this process: the servers are forked children.
  const ForkedServer healthy = StartNullBigtable(/*fail_every=*/0);
  const ForkedServer flaky = StartNullBigtable(/*fail_every=*/100);
  MeasureRuns(kUnits, runs, [&] { return RunRaw(healthy.address, rows); });
  const SinkRun clean = MeasureRuns(
      kUnits, runs, [&] { return RunSink("sink", healthy.address, rows); });
  const SinkRun failing = MeasureRuns(kUnits, runs, [&] {
    return RunSink("sink, 1% UNAVAILABLE", flaky.address, rows);
  });
  std::printf(
      "throughput drop with 1%% of entries resent: %.1f%%\n",
      100.0 * (1.0 - failing.ItemsPerCpuSecond() / clean.ItemsPerCpuSecond()));
  StopForkedServer(healthy);
  StopForkedServer(flaky);
  return 0;
}
