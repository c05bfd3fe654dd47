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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/bigtable_null_service.h"
#include "bench/measure.h"
#include "gcpstream/bigtable/bigtable_sink.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace v2 = ::google::bigtable::v2;

constexpr int kValueBytes = 100;
constexpr int kBatch = 100;

std::string RowKey(int64_t id) { return absl::StrCat("customer#", id); }

struct Result {
  std::string scenario;
  int64_t rows = 0;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double rss_mib = 0;
  double RowsPerCpuSecond() const {
    return static_cast<double>(rows) / cpu_seconds;
  }
};

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::exit(1);
}

Result RunSink(const std::string& scenario, const std::string& address,
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
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  WriterContext record;
  for (int64_t id = 0; id < rows; ++id) {
    record.record_position = id;
    if (absl::Status s = (*writer)->Write(id, record); !s.ok()) Die(s);
  }
  if (absl::Status s = (*writer)->Flush(true); !s.ok()) Die(s);
  Result result{.scenario = scenario,
                .rows = rows,
                .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                .cpu_seconds = CpuSeconds() - cpu,
                .rss_mib = PeakRssMib()};
  (*writer)->Close();
  return result;
}

// The same requests built straight into protos and sent one at a time
// with the blocking stub.
Result RunRaw(const std::string& address, int64_t rows) {
  auto channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v2::Bigtable::NewStub(channel);
  const std::string value(kValueBytes, 'v');
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
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
  return Result{.scenario = "raw stub (sequential)",
                .rows = rows,
                .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                .cpu_seconds = CpuSeconds() - cpu,
                .rss_mib = PeakRssMib()};
}

Result Measure(int runs, const std::function<Result()>& run) {
  std::vector<Result> all;
  all.reserve(runs);
  for (int i = 0; i < runs; ++i) all.push_back(run());
  std::sort(all.begin(), all.end(), [](const Result& a, const Result& b) {
    return a.RowsPerCpuSecond() < b.RowsPerCpuSecond();
  });
  const Result median = all[all.size() / 2];
  std::printf(
      "%-28s %10.0f mutations/s wall %10.0f mutations/CPU-s (runs %.0f..%.0f)"
      " RSS %.0f MiB\n",
      median.scenario.c_str(),
      static_cast<double>(median.rows) / median.wall_seconds,
      median.RowsPerCpuSecond(), all.front().RowsPerCpuSecond(),
      all.back().RowsPerCpuSecond(), median.rss_mib);
  std::printf(
      "{\"benchmark\":\"bigtable_sink\",\"scenario\":\"%s\",\"mutations\":%lld,"
      "\"mutations_per_wall_second\":%.0f,\"mutations_per_cpu_second\":%.0f,"
      "\"peak_rss_mib\":%.1f}\n",
      median.scenario.c_str(), static_cast<long long>(median.rows),
      static_cast<double>(median.rows) / median.wall_seconds,
      median.RowsPerCpuSecond(), median.rss_mib);
  return median;
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
  Measure(runs, [&] { return RunRaw(healthy.address, rows); });
  const Result clean =
      Measure(runs, [&] { return RunSink("sink", healthy.address, rows); });
  const Result failing = Measure(runs, [&] {
    return RunSink("sink, 1% UNAVAILABLE", flaky.address, rows);
  });
  std::printf(
      "throughput drop with 1%% of entries resent: %.1f%%\n",
      100.0 * (1.0 - failing.RowsPerCpuSecond() / clean.RowsPerCpuSecond()));
  StopForkedServer(healthy);
  StopForkedServer(flaky);
  return 0;
}
