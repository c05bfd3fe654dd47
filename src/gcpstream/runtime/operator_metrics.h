#ifndef GCPSTREAM_RUNTIME_OPERATOR_METRICS_H_
#define GCPSTREAM_RUNTIME_OPERATOR_METRICS_H_

#include <memory>
#include <string>

#include "gcpstream/base/metrics.h"

namespace gcpstream::runtime {

// Counters the runtime keeps per operator and subtask. Without a registry
// they still count (tests and summaries read them), just unexported.
struct OperatorMetrics {
  static OperatorMetrics Create(MetricsRegistry* registry,
                                const std::string& pipeline,
                                const std::string& operator_name, int subtask);

  std::shared_ptr<Counter> records_in;
  std::shared_ptr<Counter> records_out;
  // Time spent waiting for room in a full output channel: where this is high
  // the next stage (usually a sink) is the bottleneck.
  std::shared_ptr<Counter> backpressure_micros;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_OPERATOR_METRICS_H_
