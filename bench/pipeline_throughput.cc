// Records per second of client CPU for whole pipelines described in
// pipeline files (what `gcpstream run` executes), against null services in
// a child process, next to the same jobs written with the C++ API. Parallelism
// 1, checkpoint every 1 s, bounded input, as in the side-by-side measurement
// against the Java connectors (../docs/performance.md).
//
//   pipeline_throughput [--records N] [--record-bytes B] [--runs R] [--quick]
//                       [--only SCENARIO]
//
// For each scenario: records per CPU-second of the whole process (every
// thread, gRPC's included), wall time, peak RSS, and the share of CPU each
// thread spent (subtask threads are named after their task).

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/measure.h"
#include "bench/pubsub_null_service.h"
#include "bench/spanner_null_service.h"
#include "bench/thread_cpu.h"
#include "gcpstream/cli/metrics_text.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/pipeline_file.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/runtime/connectors/file_source.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/connectors/json_lines_source.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "spdlog/spdlog.h"

namespace gcpstream::bench {
namespace {

// What one run of one scenario measured.
struct Result {
  std::string scenario;
  int64_t records = 0;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double rss_mib = 0;
  // Thread name -> CPU seconds (threads of one name summed).
  std::map<std::string, double> threads = {};
  double PerCpuSecond() const {
    return static_cast<double>(records) / cpu_seconds;
  }
};

void Check(const absl::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::exit(1);
}

// The benchmark's input: `records` JSON lines of about `record_bytes` each,
// the bulk in one string field, as in the Java comparison.
std::string WriteJsonLines(const std::string& directory, int64_t records,
                           int record_bytes) {
  std::filesystem::create_directories(directory);
  const std::string path = directory + "/input.jsonl";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (int64_t i = 0; i < records; ++i) {
    std::string line = absl::StrCat(
        R"({"id":)", i, R"(,"n":)", i * 7, R"(,"x":)", i % 1000, ".25",
        R"(,"region":")", i % 3 == 0 ? "eu" : "us", R"(","payload":")");
    const size_t want = static_cast<size_t>(record_bytes) - 3;
    const std::string filler =
        "lorem ipsum dolor sit amet, consectetur adipiscing elit; ";
    while (line.size() < want) {
      line.append(filler, 0, std::min(filler.size(), want - line.size()));
    }
    line += "\"}\n";
    out << line;
  }
  return path;
}

// A sink that takes every record and does nothing with it: what the
// pipeline costs up to the sinks.
std::atomic<int64_t> discarded{0};

class DiscardSink final : public runtime::Sink<config::Record> {
 public:
  std::string name() const override { return "discard"; }
  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<config::Record>>>
  CreateWriter(const runtime::SinkWriterContext& /*context*/) override {
    class Writer final : public runtime::SinkWriter<config::Record> {
     public:
      absl::Status Write(const config::Record& /*record*/,
                         const WriterContext& /*context*/) override {
        discarded.fetch_add(1, std::memory_order_relaxed);
        return absl::OkStatus();
      }
      absl::Status Flush(bool /*end_of_input*/) override {
        return absl::OkStatus();
      }
    };
    return std::make_unique<Writer>();
  }
};

const config::RegisterSink kDiscard(
    "bench-discard",
    [](config::OptionMap& /*options*/, const config::BuildEnvironment&)
        -> absl::StatusOr<std::shared_ptr<runtime::Sink<config::Record>>> {
      return std::make_shared<DiscardSink>();
    });

constexpr char kPipelineHead[] = R"(
name: bench
parallelism: 1
checkpoint-interval: 1s
checkpoint-directory: {checkpoints}
)";

std::string JsonLinesSource(const std::string& input) {
  return absl::StrCat("source: {type: json-lines, paths: [", input, "]}\n");
}

// A Pub/Sub sink of pipeline files on topic `topic`, plus `more` keys.
std::string PubSubSinkText(const std::string& name, const std::string& topic,
                           const std::string& more = "") {
  return absl::StrCat("\n  - name: ", name,
                      "\n    type: pubsub\n    project: bench\n    topic: \"",
                      topic, "\"\n    create-disposition: create-never\n",
                      more);
}

// An insert-or-update Spanner sink of the null service's Rows table.
std::string SpannerSinkText(const std::string& name,
                            const std::string& columns) {
  return absl::StrCat(
      "\n  - name: ", name,
      "\n    type: spanner\n    project: bench\n    instance: bench\n"
      "    database: bench\n    table: Rows\n"
      "    operation: insert-or-update\n    columns: ",
      columns, "\n");
}

struct Paths {
  std::string input;
  std::string checkpoints;
};

std::string PipelineText(const Paths& paths, const std::string& source,
                         const std::vector<std::string>& sinks) {
  std::string text = absl::StrReplaceAll(
      kPipelineHead, {{"{checkpoints}", paths.checkpoints}});
  absl::StrAppend(&text, source, "sinks:");
  for (const std::string& sink : sinks) absl::StrAppend(&text, sink);
  return text;
}

// What a scenario runs: a pipeline, and how many records it should write.
using JobFactory =
    std::function<absl::StatusOr<std::unique_ptr<runtime::Pipeline>>()>;

Result Measure(const std::string& scenario, const JobFactory& make_job,
               int64_t expected) {
  absl::StatusOr<std::unique_ptr<runtime::Pipeline>> pipeline = make_job();
  Check(pipeline.status());
  discarded.store(0);
  ThreadCpuMonitor monitor;
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  absl::StatusOr<runtime::JobSummary> summary = (*pipeline)->Run();
  const absl::Time end = absl::Now();
  std::map<int, ThreadCpuMonitor::Thread> threads = monitor.Stop();
  const double cpu_seconds = CpuSeconds() - cpu - monitor.own_cpu_seconds();
  Check(summary.status());
  Result result{
      .scenario = scenario,
      .records = cli::SumMetric((*pipeline)->metrics().ExportPrometheusText(),
                                "records_written") +
                 discarded.load(),
      .wall_seconds = absl::ToDoubleSeconds(end - start),
      .cpu_seconds = cpu_seconds,
      .rss_mib = PeakRssMib()};
  if (result.records != expected) {
    std::fprintf(stderr, "%s: %lld records written, %lld expected\n",
                 scenario.c_str(), static_cast<long long>(result.records),
                 static_cast<long long>(expected));
    std::exit(1);
  }
  for (const auto& [tid, thread] : threads) {
    result.threads[thread.name] += thread.cpu_seconds;
  }
  return result;
}

JobFactory FromFile(std::string text) {
  return [text = std::move(
              text)]() -> absl::StatusOr<std::unique_ptr<runtime::Pipeline>> {
    absl::StatusOr<config::PipelineFile> file =
        config::ParsePipelineFile(text, "bench.yaml");
    if (!file.ok()) return file.status();
    return config::BuildPipeline(*file, config::ConnectorRegistry::Global());
  };
}

runtime::PipelineOptions ApiOptions(const Paths& paths) {
  runtime::PipelineOptions options;
  options.name = "bench";
  options.checkpoint_interval = absl::Seconds(1);
  options.checkpoint_directory = paths.checkpoints;
  return options;
}

// The C++ API floor for Pub/Sub: each line published as it is.
JobFactory ApiLinesToPubSub(const Paths& paths) {
  return [paths]() -> absl::StatusOr<std::unique_ptr<runtime::Pipeline>> {
    auto pipeline = std::make_unique<runtime::Pipeline>(ApiOptions(paths));
    runtime::FileSourceOptions files;
    files.paths = {paths.input};
    auto source = runtime::FileSource::Create("lines", files);
    if (!source.ok()) return source.status();
    pubsub::PubSubSinkOptions sink;
    sink.name = "messages";
    sink.create_disposition = pubsub::CreateDisposition::kCreateNever;
    pipeline
        ->AddSource(std::shared_ptr<runtime::FileSource>(*std::move(source)), 1)
        .SinkTo(std::make_shared<pubsub::PubSubSink<std::string>>(
            sink, pubsub::TopicDestination("bench", "bench"),
            [](const std::string& line, const WriterContext&,
               google::pubsub::v1::PubsubMessage& message)
                -> absl::StatusOr<pubsub::Serialized> {
              message.set_data(line);
              return pubsub::Serialized::kPublish;
            }));
    return pipeline;
  };
}

// The C++ API with the pipeline files' records: each JSON line validated
// and indexed, its `payload` field published as data.
JobFactory ApiRecordsToPubSub(const Paths& paths) {
  return [paths]() -> absl::StatusOr<std::unique_ptr<runtime::Pipeline>> {
    auto pipeline = std::make_unique<runtime::Pipeline>(ApiOptions(paths));
    runtime::JsonLinesSourceOptions files;
    files.files.paths = {paths.input};
    auto source = runtime::JsonLinesSource::Create("records", files);
    if (!source.ok()) return source.status();
    pubsub::PubSubSinkOptions sink;
    sink.name = "messages";
    sink.create_disposition = pubsub::CreateDisposition::kCreateNever;
    pipeline
        ->AddSource(
            std::shared_ptr<runtime::JsonLinesSource>(*std::move(source)), 1)
        .SinkTo(std::make_shared<pubsub::PubSubSink<json::JsonRecord>>(
            sink, pubsub::TopicDestination("bench", "bench"),
            [](const json::JsonRecord& record, const WriterContext&,
               google::pubsub::v1::PubsubMessage& message)
                -> absl::StatusOr<pubsub::Serialized> {
              std::optional<uint32_t> payload =
                  record.Child(json::JsonRecord::kRoot, "payload");
              if (!payload.has_value()) {
                return absl::InvalidArgumentError("no payload");
              }
              record.ValueAt(*payload).AppendString(*message.mutable_data());
              return pubsub::Serialized::kPublish;
            }));
    return pipeline;
  };
}

// The C++ API path for Spanner: typed rows with the same values as the
// JSON lines, mapped to the same mutations.
struct Row {
  int64_t id = 0;
  int64_t n = 0;
  double x = 0;
  std::string payload;
};

JobFactory ApiRowsToSpanner(const Paths& paths, int64_t records,
                            int record_bytes) {
  return [=]() -> absl::StatusOr<std::unique_ptr<runtime::Pipeline>> {
    auto pipeline = std::make_unique<runtime::Pipeline>(ApiOptions(paths));
    runtime::GeneratorOptions generator;
    generator.count = records;
    const std::string payload(static_cast<size_t>(record_bytes) - 80, 'p');
    auto source = runtime::GeneratorSource<Row>::Create(
        "rows",
        [payload](int64_t i) {
          return Row{.id = i,
                     .n = i * 7,
                     .x = static_cast<double>(i % 1000) + 0.25,
                     .payload = payload};
        },
        generator);
    if (!source.ok()) return source.status();
    spanner::SpannerSinkOptions sink;
    sink.name = "rows";
    sink.database = spanner::DatabaseDestination("bench", "bench", "bench");
    pipeline
        ->AddSource(std::shared_ptr<runtime::Source<Row>>(*std::move(source)),
                    1)
        .SinkTo(std::make_shared<spanner::SpannerSink<Row>>(
            sink,
            [](const Row& row, const WriterContext&)
                -> absl::StatusOr<std::optional<spanner::Mutation>> {
              spanner::Mutation mutation =
                  spanner::Mutation::InsertOrUpdate("Rows");
              mutation.Set("Id", spanner::Value::Int64(row.id));
              mutation.Set("C1", spanner::Value::Int64(row.n));
              mutation.Set("C2", spanner::Value::Float64(row.x));
              mutation.Set("C3", spanner::Value::String(row.payload));
              return mutation;
            }));
    return pipeline;
  };
}

std::string Encode(const Result& r) {
  std::string out =
      absl::StrCat(r.scenario, "\t", r.records, "\t", r.wall_seconds, "\t",
                   r.cpu_seconds, "\t", r.rss_mib);
  for (const auto& [name, seconds] : r.threads) {
    absl::StrAppend(&out, "\t", name, "=", seconds);
  }
  return out;
}

Result Decode(const std::string& text) {
  std::vector<std::string> f = absl::StrSplit(text, '\t');
  Result r;
  r.scenario = f.at(0);
  if (!absl::SimpleAtoi(f.at(1), &r.records) ||
      !absl::SimpleAtod(f.at(2), &r.wall_seconds) ||
      !absl::SimpleAtod(f.at(3), &r.cpu_seconds) ||
      !absl::SimpleAtod(f.at(4), &r.rss_mib)) {
    std::fprintf(stderr, "cannot read a scenario's result: %s\n", text.c_str());
    std::exit(1);
  }
  for (size_t i = 5; i < f.size(); ++i) {
    std::pair<std::string, std::string> kv = absl::StrSplit(f[i], '=');
    double seconds = 0;
    if (absl::SimpleAtod(kv.second, &seconds)) r.threads[kv.first] = seconds;
  }
  return r;
}

Result Median(std::vector<Result> runs) {
  std::sort(runs.begin(), runs.end(), [](const Result& a, const Result& b) {
    return a.PerCpuSecond() < b.PerCpuSecond();
  });
  return runs[runs.size() / 2];
}

void Print(const Result& r) {
  std::vector<std::pair<double, std::string>> shares;
  double threads_total = 0;
  for (const auto& [name, seconds] : r.threads) threads_total += seconds;
  for (const auto& [name, seconds] : r.threads) {
    if (seconds / threads_total >= 0.01) {
      shares.emplace_back(seconds, name);
    }
  }
  std::sort(shares.rbegin(), shares.rend());
  std::vector<std::string> parts;
  parts.reserve(shares.size());
  for (const auto& [seconds, name] : shares) {
    parts.push_back(
        absl::StrFormat("%s %.0f%%", name, 100 * seconds / threads_total));
  }
  std::printf("%-38s %9lld %8.2f %8.2f %10.0f %7.1f  %s\n", r.scenario.c_str(),
              static_cast<long long>(r.records), r.wall_seconds, r.cpu_seconds,
              r.PerCpuSecond(), r.rss_mib, absl::StrJoin(parts, ", ").c_str());
}

}  // namespace
}  // namespace gcpstream::bench

int main(int argc, char** argv) {
  using namespace gcpstream::bench;  // NOLINT(google-build-using-namespace)
  CLI::App app{
      "Records per CPU-second of pipeline files against null services"};
  int64_t records = 1'000'000;
  int record_bytes = 1024;
  int runs = 3;
  bool quick = false;
  std::string only;
  std::string directory = "/tmp/gcpstream-pipeline-throughput";
  app.add_option("--records", records, "JSON lines per run");
  app.add_option("--record-bytes", record_bytes, "Bytes per JSON line");
  app.add_option("--runs", runs, "Runs per scenario (the median is printed)");
  app.add_option("--only", only, "Run the scenarios whose name contains this");
  app.add_option("--directory", directory, "Where the input file is written");
  app.add_flag("--quick", quick, "A smoke run: 20000 records, one run");
  CLI11_PARSE(app, argc, argv);
  // Every 101st sample order is dropped with a warning by design; printing
  // them is not what is measured.
  spdlog::set_level(spdlog::level::err);
  if (quick) {
    records = 20'000;
    runs = 1;
  }
  const Paths paths{.input = WriteJsonLines(directory, records, record_bytes),
                    .checkpoints = directory + "/checkpoints"};
  // Before any gRPC use in this process.
  const ForkedServer pubsub = StartNullPubSub(16);
  const ForkedServer spanner = StartNullSpanner(4);
  setenv("PUBSUB_EMULATOR_HOST", pubsub.address.c_str(), 1);
  setenv("SPANNER_EMULATOR_HOST", spanner.address.c_str(), 1);

  const std::string lines = JsonLinesSource(paths.input);
  const std::string orders =
      absl::StrCat("source: {type: sample-orders, count: ", records, "}\n");
  // Every 101st sample order has no region; its topic cannot be named, so
  // the Pub/Sub sink logs and drops it.
  const int64_t orders_with_region = records - records / 101;
  const std::vector<std::tuple<std::string, JobFactory, int64_t>> scenarios = {
      {"json-lines -> pubsub (data: field)",
       FromFile(PipelineText(
           paths, lines,
           {PubSubSinkText("messages", "bench", "    data: payload\n")})),
       records},
      {"json-lines -> pubsub (whole record)",
       FromFile(
           PipelineText(paths, lines, {PubSubSinkText("messages", "bench")})),
       records},
      {"json-lines -> spanner",
       FromFile(PipelineText(
           paths, lines,
           {SpannerSinkText("rows", "{Id: id, C1: n, C2: x, C3: payload}")})),
       records},
      {"sample-orders -> pubsub + spanner",
       FromFile(PipelineText(paths, orders,
                             {PubSubSinkText("orders", "orders-{region}",
                                             "    attributes: {customer: "
                                             "customer_id}\n"
                                             "    ordering-key: customer_id\n"
                                             "    enable-message-ordering: "
                                             "true\n"
                                             "    failure-handler: {type: "
                                             "log-and-drop}\n"),
                              SpannerSinkText("orders-table",
                                              "{Id: order_id, C3: "
                                              "customer_id}")})),
       orders_with_region + records},
      {"json-lines -> discard (the source)",
       FromFile(PipelineText(paths, lines,
                             {"\n  - {name: discard, type: bench-discard}\n"})),
       records},
      {"c++ api: lines -> pubsub", ApiLinesToPubSub(paths), records},
      {"c++ api: json records -> pubsub", ApiRecordsToPubSub(paths), records},
      {"c++ api: rows -> spanner",
       ApiRowsToSpanner(paths, records, record_bytes), records},
  };
  std::printf(
      "%lld records of %d bytes, parallelism 1, checkpoint every 1 s, "
      "median of %d run(s)\n",
      static_cast<long long>(records), record_bytes, runs);
  std::printf("%-38s %9s %8s %8s %10s %7s  %s\n", "scenario", "records",
              "wall s", "CPU s", "rec/CPU-s", "RSS MiB",
              "CPU by thread (>= 1%)");
  // Runs interleave the scenarios, so that a shared machine's drift between
  // runs touches every scenario alike.
  std::map<std::string, std::vector<Result>> results;
  for (int run = 0; run < runs; ++run) {
    for (const auto& [name, job, expected] : scenarios) {
      if (!only.empty() && name.find(only) == std::string::npos) continue;
      std::filesystem::remove_all(paths.checkpoints);
      results[name].push_back(Decode(
          RunInChild([&, &name = name, &job = job, &expected = expected] {
            return Encode(Measure(name, job, expected));
          })));
    }
  }
  for (const auto& [name, job, expected] : scenarios) {
    if (results.contains(name)) Print(Median(results[name]));
  }
  StopForkedServer(pubsub);
  StopForkedServer(spanner);
  std::filesystem::remove_all(directory);
  return 0;
}
