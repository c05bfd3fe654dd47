#ifndef GCPSTREAM_RUNTIME_BUILD_CONTEXT_H_
#define GCPSTREAM_RUNTIME_BUILD_CONTEXT_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/runtime/source.h"
#include "gcpstream/runtime/task.h"
#include "gcpstream/runtime/task_signal.h"

namespace gcpstream::runtime {

// State restored from the latest complete checkpoint, per source and sink.
struct RestoredState {
  int64_t checkpoint_id = 0;  // 0: a first start.
  std::map<std::string, std::vector<Split>> source_splits;
  // Writer states by sink id, indexed by the subtask that saved them.
  std::map<std::string, std::vector<std::string>> sink_states;
};

// What one attempt of a job shares among the tasks being built.
struct AttemptResources {
  std::string pipeline;
  std::vector<std::vector<std::shared_ptr<TaskSignal>>> signals;  // [stage][i]
  std::map<int, std::shared_ptr<void>> exchanges;  // By consumer stage.
  const std::atomic<bool>* cancelled = nullptr;
  JobEvents* events = nullptr;
  MetricsRegistry* metrics = nullptr;
  const RestoredState* restored = nullptr;
  size_t channel_capacity = 8;  // Batches per channel.
  size_t batch_size = 512;      // Records per batch.
  absl::Duration checkpoint_interval = absl::InfiniteDuration();
};

// Building one subtask's chain.
struct BuildContext {
  AttemptResources* attempt = nullptr;
  Task* task = nullptr;
  int stage = 0;
  int subtask = 0;
  int parallelism = 1;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_BUILD_CONTEXT_H_
