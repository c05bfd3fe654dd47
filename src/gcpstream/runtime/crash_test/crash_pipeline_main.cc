// The pipeline the crash test kills and restarts: a rate-limited generator,
// a map, a KeyBy and a file sink, with frequent checkpoints. Each record is
// its sequence number, so the output can be checked against the input.
//
//   crash_pipeline --checkpoint-dir D --output-dir O --records N
//                  [--rate R] [--delivery exactly-once|at-least-once]

#include <iostream>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/file_sink.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"

namespace gcpstream::runtime {
namespace {

int Run(const std::string& checkpoint_dir, const std::string& output_dir,
        int64_t records, double rate, const std::string& delivery_text) {
  auto delivery = kFileSinkDeliveryOption.Parse(delivery_text);
  if (!delivery.ok()) {
    std::cerr << delivery.status() << "\n";
    return 2;
  }
  GeneratorOptions generator_options;
  generator_options.count = records;
  generator_options.records_per_second = rate;
  generator_options.max_records_per_poll = 200;
  auto source = GeneratorSource<int64_t>::Create(
      "sequence", [](int64_t index) { return index; }, generator_options);
  FileSinkOptions sink_options;
  sink_options.directory = output_dir;
  sink_options.delivery = *delivery;
  auto sink = FileSink<std::string>::Create(
      "lines", [](const std::string& line) { return line; }, sink_options);
  if (!source.ok() || !sink.ok()) {
    std::cerr << (source.ok() ? sink.status() : source.status()) << "\n";
    return 2;
  }
  PipelineOptions options;
  options.name = "crash-test";
  options.checkpoint_directory = checkpoint_dir;
  options.checkpoint_interval = absl::Milliseconds(50);
  options.batch_size = 64;
  Pipeline pipeline(options);
  pipeline
      .AddSource(std::shared_ptr<GeneratorSource<int64_t>>(*std::move(source)),
                 2)
      .Map([](int64_t index) { return absl::StrCat(index); })
      .KeyBy([](const std::string& line) { return line; }, 2)
      .SinkTo(std::shared_ptr<FileSink<std::string>>(*std::move(sink)));
  auto summary = pipeline.Run();
  if (!summary.ok()) {
    std::cerr << summary.status() << "\n";
    return 1;
  }
  std::cout << "done: " << summary->checkpoints_completed
            << " checkpoints, resumed from " << summary->restored_checkpoint_id
            << "\n";
  return 0;
}

}  // namespace
}  // namespace gcpstream::runtime

int main(int argc, char** argv) {
  CLI::App app{"gcpstream crash-test pipeline"};
  std::string checkpoint_dir;
  std::string output_dir;
  int64_t records = 100000;
  double rate = 50000;
  std::string delivery = "exactly-once";
  app.add_option("--checkpoint-dir", checkpoint_dir)->required();
  app.add_option("--output-dir", output_dir)->required();
  app.add_option("--records", records);
  app.add_option("--rate", rate, "records per second, 0 for unlimited");
  app.add_option("--delivery", delivery);
  CLI11_PARSE(app, argc, argv);
  return gcpstream::runtime::Run(checkpoint_dir, output_dir, records, rate,
                                 delivery);
}
