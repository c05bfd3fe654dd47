// Throughput of the runtime alone: generator -> map -> keyBy -> discard, with
// and without periodic checkpoints. Reports records per second of wall time
// and per CPU-second (user + system over all threads, i.e. per core), which
// is what bounds how much of a core the runtime takes from a network sink.
//
//   runtime_throughput [--records N] [--parallelism P]

#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/clock.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"

namespace gcpstream::runtime {
namespace {

class DiscardSink final : public Sink<int64_t> {
 public:
  std::string name() const override { return "discard"; }
  absl::StatusOr<std::unique_ptr<SinkWriter<int64_t>>> CreateWriter(
      const SinkWriterContext&) override {
    return std::make_unique<Writer>();
  }

 private:
  class Writer final : public SinkWriter<int64_t> {
   public:
    absl::Status Write(const int64_t& record, const WriterContext&) override {
      checksum_ += record;  // Keeps the work from being optimised away.
      return absl::OkStatus();
    }
    absl::Status Flush(bool) override { return absl::OkStatus(); }

   private:
    int64_t checksum_ = 0;
  };
};

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
             1e6;
}

int Measure(const char* label, int64_t records, int parallelism,
            absl::Duration interval, const std::string& checkpoint_dir) {
  std::filesystem::remove_all(checkpoint_dir);
  GeneratorOptions generator;
  generator.count = records;
  generator.max_records_per_poll = 4096;
  auto source = GeneratorSource<int64_t>::Create(
      "sequence", [](int64_t i) { return i; }, generator);
  if (!source.ok()) return 1;
  PipelineOptions options;
  options.name = "bench";
  options.checkpoint_interval = interval;
  options.checkpoint_directory = checkpoint_dir;
  options.batch_size = 1024;
  Pipeline pipeline(options);
  pipeline
      .AddSource(std::shared_ptr<GeneratorSource<int64_t>>(*std::move(source)),
                 parallelism)
      .Map([](int64_t v) { return v * 3 + 1; })
      .KeyBy([](const int64_t& v) { return v; }, parallelism)
      .SinkTo(std::make_shared<DiscardSink>());
  const double cpu_start = CpuSeconds();
  const absl::Time start = absl::Now();
  auto summary = pipeline.Run();
  const double wall = absl::ToDoubleSeconds(absl::Now() - start);
  const double cpu = CpuSeconds() - cpu_start;
  if (!summary.ok()) {
    std::fprintf(stderr, "%s\n", summary.status().ToString().c_str());
    return 1;
  }
  std::printf(
      "%-28s %12.0f records/s  %12.0f records/CPU-s  %5.2f s  %4.2f cores  "
      "%3lld checkpoints\n",
      label, static_cast<double>(records) / wall,
      static_cast<double>(records) / cpu, wall, cpu / wall,
      static_cast<long long>(summary->checkpoints_completed));
  return 0;
}

}  // namespace
}  // namespace gcpstream::runtime

int main(int argc, char** argv) {
  CLI::App app{"gcpstream runtime throughput"};
  int64_t records = 50'000'000;
  int parallelism = 1;
  app.add_option("--records", records);
  app.add_option("--parallelism", parallelism);
  CLI11_PARSE(app, argc, argv);
  const std::string dir =
      (std::filesystem::temp_directory_path() / "gcpstream-bench-checkpoints")
          .string();
  using gcpstream::runtime::Measure;
  int failed = 0;
  failed |= Measure("no periodic checkpoints", records, parallelism,
                    absl::InfiniteDuration(), dir);
  failed |= Measure("checkpoint every 1 s", records, parallelism,
                    absl::Seconds(1), dir);
  failed |= Measure("checkpoint every 100 ms", records, parallelism,
                    absl::Milliseconds(100), dir);
  std::filesystem::remove_all(dir);
  return failed;
}
