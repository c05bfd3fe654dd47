#include "gcpstream/base/destination_metrics.h"

namespace gcpstream {

absl::StatusOr<DestinationMetrics> DestinationMetrics::Create(
    MetricsRegistry& registry, const MetricLabels& labels) {
  auto active = registry.GetGauge("destinations_active",
                                  "Destinations with writer state", labels);
  auto created = registry.GetCounter(
      "destinations_created", "Per-destination writer states created", labels);
  auto idle =
      registry.GetCounter("destinations_evicted_idle",
                          "States released after the idle timeout", labels);
  auto capacity = registry.GetCounter(
      "destinations_evicted_capacity",
      "Least-recently-used states released to stay within capacity", labels);
  for (const absl::Status& status :
       {active.status(), created.status(), idle.status(), capacity.status()}) {
    if (!status.ok()) return status;
  }
  return DestinationMetrics{*active, *created, *idle, *capacity};
}

}  // namespace gcpstream
