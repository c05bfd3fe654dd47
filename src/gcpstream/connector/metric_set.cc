#include "gcpstream/connector/metric_set.h"

namespace gcpstream::connector {

std::shared_ptr<Counter> MetricSet::AddCounter(absl::string_view name,
                                               absl::string_view help) {
  auto counter = registry_.GetCounter(name, help, labels_);
  if (counter.ok()) return *std::move(counter);
  status_.Update(counter.status());
  return std::make_shared<Counter>();
}

std::shared_ptr<Gauge> MetricSet::AddGauge(absl::string_view name,
                                           absl::string_view help) {
  auto gauge = registry_.GetGauge(name, help, labels_);
  if (gauge.ok()) return *std::move(gauge);
  status_.Update(gauge.status());
  return std::make_shared<Gauge>();
}

std::shared_ptr<Histogram> MetricSet::AddHistogram(
    absl::string_view name, absl::string_view help,
    const std::vector<double>& bounds) {
  auto histogram = registry_.GetHistogram(name, help, labels_, bounds);
  if (histogram.ok()) return *std::move(histogram);
  status_.Update(histogram.status());
  return std::make_shared<Histogram>(bounds);
}

}  // namespace gcpstream::connector
