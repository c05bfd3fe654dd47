#ifndef GCPSTREAM_TESTING_SEQUENCE_PIPELINE_H_
#define GCPSTREAM_TESTING_SEQUENCE_PIPELINE_H_

// The pipeline crash tests kill and restart (header-only, so the crash
// pipelines need no test library): a rate-limited generator of the indexes
// 0..records-1, parallelism 2, a checkpoint every 100 ms, into a sink.

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"

namespace gcpstream::testing {

struct SequencePipelineOptions {
  std::string name;
  std::string checkpoint_dir;
  int64_t records = 0;
  double records_per_second = 0;  // 0: unlimited.
  int max_records_per_poll = 100;
};

// Runs the pipeline to its end (or until the process is killed); prints
// "done: N checkpoints, resumed from K", which the crash tests read.
// Returns the process's exit code. With a `key`, records are keyed by it
// before the sink (so one key's records keep their order).
template <typename Sink, typename Key = std::nullptr_t>
int RunSequencePipeline(const SequencePipelineOptions& options,
                        std::shared_ptr<Sink> sink, Key key = nullptr) {
  runtime::GeneratorOptions generator;
  generator.count = options.records;
  generator.records_per_second = options.records_per_second;
  generator.max_records_per_poll = options.max_records_per_poll;
  auto source = runtime::GeneratorSource<int64_t>::Create(
      "sequence", [](int64_t index) { return index; }, generator);
  if (!source.ok()) {
    std::cerr << source.status() << "\n";
    return 2;
  }
  runtime::PipelineOptions pipeline_options;
  pipeline_options.name = options.name;
  pipeline_options.checkpoint_directory = options.checkpoint_dir;
  pipeline_options.checkpoint_interval = absl::Milliseconds(100);
  runtime::Pipeline pipeline(pipeline_options);
  auto stream = pipeline.AddSource(
      std::shared_ptr<runtime::GeneratorSource<int64_t>>(*std::move(source)),
      2);
  if constexpr (std::is_null_pointer_v<Key>) {
    stream.SinkTo(std::move(sink));
  } else {
    stream.KeyBy(std::move(key), 2).SinkTo(std::move(sink));
  }
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

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_SEQUENCE_PIPELINE_H_
