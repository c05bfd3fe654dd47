#ifndef GCPSTREAM_BASE_DESTINATION_METRICS_H_
#define GCPSTREAM_BASE_DESTINATION_METRICS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "gcpstream/base/metrics.h"

namespace gcpstream {

// The exported view of a writer's DestinationStates: how many destinations
// hold state, and why states came and went.
struct DestinationMetrics {
  static absl::StatusOr<DestinationMetrics> Create(MetricsRegistry& registry,
                                                   const MetricLabels& labels);

  std::shared_ptr<Gauge> active;
  std::shared_ptr<Counter> created;
  std::shared_ptr<Counter> evicted_idle;
  std::shared_ptr<Counter> evicted_capacity;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_DESTINATION_METRICS_H_
