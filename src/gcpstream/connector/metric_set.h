#ifndef GCPSTREAM_CONNECTOR_METRIC_SET_H_
#define GCPSTREAM_CONNECTOR_METRIC_SET_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/metrics.h"

namespace gcpstream::connector {

// Registers a writer's own metrics under its labels, so an engine states
// them in one expression. A registration the registry refuses (a name
// registered before with another type or help) still yields a usable,
// unexported metric; status() reports the first refusal, and a writer
// fails to open on it.
class MetricSet {
 public:
  MetricSet(MetricsRegistry& registry, MetricLabels labels)
      : registry_(registry), labels_(std::move(labels)) {}

  std::shared_ptr<Counter> AddCounter(absl::string_view name,
                                      absl::string_view help);
  std::shared_ptr<Gauge> AddGauge(absl::string_view name,
                                  absl::string_view help);
  std::shared_ptr<Histogram> AddHistogram(absl::string_view name,
                                          absl::string_view help,
                                          const std::vector<double>& bounds);

  const absl::Status& status() const { return status_; }

 private:
  MetricsRegistry& registry_;
  MetricLabels labels_;
  absl::Status status_;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_METRIC_SET_H_
