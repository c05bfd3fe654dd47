#ifndef GCPSTREAM_RUNTIME_PIPELINE_OPTIONS_H_
#define GCPSTREAM_RUNTIME_PIPELINE_OPTIONS_H_

#include <cstddef>
#include <string>

#include "absl/time/time.h"
#include "gcpstream/runtime/restart_strategy.h"

namespace gcpstream::runtime {

struct PipelineOptions {
  std::string name = "pipeline";
  // Where checkpoints are kept. Empty: checkpoints still flush sinks, commit
  // and acknowledge sources, but are not persisted, so a new process starts
  // from scratch.
  std::string checkpoint_directory;
  // Periodic checkpoints; InfiniteDuration leaves only the final one.
  absl::Duration checkpoint_interval = absl::Seconds(10);
  int checkpoint_retention = 3;
  RestartStrategy restart = RestartStrategy::None();
  // Exchange tuning: records per batch, batches per channel.
  size_t batch_size = 512;
  size_t channel_capacity = 8;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_PIPELINE_OPTIONS_H_
