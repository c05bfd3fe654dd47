#include "gcpstream/runtime/operator_metrics.h"

namespace gcpstream::runtime {
namespace {

std::shared_ptr<Counter> GetOrLocal(MetricsRegistry* registry,
                                    absl::string_view name,
                                    absl::string_view help,
                                    const MetricLabels& labels) {
  if (registry != nullptr) {
    auto counter = registry->GetCounter(name, help, labels);
    if (counter.ok()) return *counter;
  }
  return std::make_shared<Counter>();
}

}  // namespace

OperatorMetrics OperatorMetrics::Create(MetricsRegistry* registry,
                                        const std::string& pipeline,
                                        const std::string& operator_name,
                                        int subtask) {
  const MetricLabels labels{pipeline, operator_name, subtask, std::nullopt};
  return OperatorMetrics{
      GetOrLocal(registry, "operator_records_in",
                 "Records that entered the operator", labels),
      GetOrLocal(registry, "operator_records_out",
                 "Records the operator sent to the next stage", labels),
      GetOrLocal(registry, "operator_backpressure_micros",
                 "Microseconds spent waiting for room downstream", labels),
  };
}

}  // namespace gcpstream::runtime
