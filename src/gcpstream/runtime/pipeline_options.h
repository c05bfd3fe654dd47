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
  // A checkpoint not complete this long after its trigger has failed; the
  // attempt then fails (and the restart strategy applies) once more than
  // `tolerable_checkpoint_failures` failed in a row.
  absl::Duration checkpoint_timeout = absl::Minutes(10);
  int tolerable_checkpoint_failures = 0;
  // How long StopWithCheckpoint() may take for its final checkpoint before
  // the job stops without it (under Kubernetes' default 30 s grace period).
  absl::Duration shutdown_timeout = absl::Seconds(25);
  // Liveness (JobHealth, /healthz) fails once no checkpoint completed for
  // this long. Zero: twice the checkpoint interval plus checkpoint_timeout
  // (10m20s with the defaults); off when the interval is infinite.
  absl::Duration health_checkpoint_timeout = absl::ZeroDuration();
  RestartStrategy restart = RestartStrategy::None();
  // Exchange tuning: records per batch, batches per channel.
  size_t batch_size = 512;
  size_t channel_capacity = 8;

  absl::Duration HealthCheckpointBound() const {
    if (checkpoint_interval == absl::InfiniteDuration()) {
      return absl::InfiniteDuration();
    }
    if (health_checkpoint_timeout != absl::ZeroDuration()) {
      return health_checkpoint_timeout;
    }
    return 2 * checkpoint_interval + checkpoint_timeout;
  }
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_PIPELINE_OPTIONS_H_
