#ifndef GCPSTREAM_CHAOS_CHAOS_PIPELINE_H_
#define GCPSTREAM_CHAOS_CHAOS_PIPELINE_H_

#include <memory>
#include <string>

#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"

namespace gcpstream::chaos {

// Records 0..kRecords-1 at kRate per second: the input outlasts the fault
// schedule (about 15 s of it).
inline constexpr int64_t kRecords = 6000;
inline constexpr double kRate = 400;

// What every chaos pipeline shares: a checkpoint every second and restarts
// from the last checkpoint for a job that fails under the faults.
inline runtime::PipelineOptions ChaosOptions(const std::string& name) {
  runtime::PipelineOptions options;
  options.name = name;
  options.checkpoint_interval = absl::Seconds(1);
  options.restart = runtime::RestartStrategy::FixedDelay(5, absl::Seconds(1));
  return options;
}

inline std::shared_ptr<runtime::GeneratorSource<int64_t>> Numbers() {
  runtime::GeneratorOptions generator;
  generator.count = kRecords;
  generator.records_per_second = kRate;
  generator.max_records_per_poll = 50;
  auto source = runtime::GeneratorSource<int64_t>::Create(
      "numbers", [](int64_t i) { return i; }, generator);
  // Cannot fail: the options are valid.
  return std::shared_ptr<runtime::GeneratorSource<int64_t>>(*std::move(source));
}

}  // namespace gcpstream::chaos

#endif  // GCPSTREAM_CHAOS_CHAOS_PIPELINE_H_
