#ifndef GCPSTREAM_BASE_METRICS_H_
#define GCPSTREAM_BASE_METRICS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace gcpstream {

// Metric values are plain atomics: writers keep a shared_ptr to each metric
// they update, so the hot path is one relaxed atomic operation and never a
// registry lookup.

// A monotonically increasing count.
class Counter {
 public:
  void Increment(uint64_t n = 1) {
    value_.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A value that goes up and down, such as records in flight.
class Gauge {
 public:
  void Set(int64_t value) { value_.store(value, std::memory_order_relaxed); }
  void Add(int64_t delta) {
    value_.fetch_add(delta, std::memory_order_relaxed);
  }
  void Subtract(int64_t delta) {
    value_.fetch_sub(delta, std::memory_order_relaxed);
  }
  int64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// Observations counted in fixed buckets, Prometheus style: bucket i counts
// values <= bounds[i], plus an implicit +Inf bucket.
class Histogram {
 public:
  // `bounds` must be finite and strictly increasing (MetricsRegistry checks).
  explicit Histogram(std::vector<double> bounds);

  // NaN observations are ignored: one would turn the sum into NaN for good.
  void Observe(double value);

  struct Snapshot {
    // Cumulative counts per bound, then the +Inf bucket (== count).
    std::vector<uint64_t> cumulative_counts;
    uint64_t count = 0;
    double sum = 0;
  };
  // Not atomic across buckets; `count` is derived from the buckets so that
  // it always equals the +Inf bucket.
  Snapshot Collect() const;

  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  std::vector<std::atomic<uint64_t>> counts_;  // bounds_.size() + 1.
  std::atomic<double> sum_{0};
};

// Bucket bounds in seconds for operation durations: 5ms to 5 minutes.
std::vector<double> DefaultDurationBuckets();

// The labels every gcpstream series carries, exposed as `pipeline`,
// `operator`, `subtask` and, when set, `destination`.
struct MetricLabels {
  std::string pipeline;
  std::string operator_name;
  int subtask = 0;
  std::optional<std::string> destination;
};

// A thread-safe registry of labelled metrics that renders the Prometheus
// text exposition format (version 0.0.4).
class MetricsRegistry {
 public:
  // Each Get* returns the series for (name, labels), creating it the first
  // time; asking again, e.g. after a restore, returns the same series.
  // InvalidArgument if the name is not a valid Prometheus metric name, or if
  // the name was registered before with another type, help text or buckets.
  absl::StatusOr<std::shared_ptr<Counter>> GetCounter(
      absl::string_view name, absl::string_view help,
      const MetricLabels& labels);
  absl::StatusOr<std::shared_ptr<Gauge>> GetGauge(absl::string_view name,
                                                  absl::string_view help,
                                                  const MetricLabels& labels);
  // `bounds` must be finite and strictly increasing; may be empty.
  absl::StatusOr<std::shared_ptr<Histogram>> GetHistogram(
      absl::string_view name, absl::string_view help,
      const MetricLabels& labels, const std::vector<double>& bounds);

  // Drops every series with exactly these labels, e.g. when a destination's
  // writer state is evicted, so that a sink writing to ever-new destinations
  // does not grow the registry without bound. Holders of a removed series
  // may keep updating it; it is just no longer exported.
  void RemoveSeries(const MetricLabels& labels);

  // All metrics, sorted by name and then by labels, each with its # HELP
  // and # TYPE line.
  std::string ExportPrometheusText() const;

 private:
  enum class Type { kCounter, kGauge, kHistogram };
  using Series = std::variant<std::shared_ptr<Counter>, std::shared_ptr<Gauge>,
                              std::shared_ptr<Histogram>>;
  struct Family {
    Type type;
    std::string help;
    std::vector<double> bounds;
    // Keyed by the rendered label set, which is also what is exported.
    std::map<std::string, Series> series;
  };

  static absl::string_view TypeName(Type type);

  absl::StatusOr<Series> GetSeries(absl::string_view name,
                                   absl::string_view help,
                                   const MetricLabels& labels, Type type,
                                   const std::vector<double>& bounds);

  mutable absl::Mutex mu_;
  std::map<std::string, Family, std::less<>> families_ ABSL_GUARDED_BY(mu_);
};

// The standard metrics of one sink writer (one subtask, or one destination
// of it when the labels name one).
struct SinkMetrics {
  static absl::StatusOr<SinkMetrics> Create(MetricsRegistry& registry,
                                            const MetricLabels& labels);

  std::shared_ptr<Counter> records_in;
  std::shared_ptr<Counter> records_written;
  std::shared_ptr<Counter> records_skipped;
  std::shared_ptr<Counter> records_routed;
  std::shared_ptr<Counter> records_dropped;
  std::shared_ptr<Counter> bytes_written;
  std::shared_ptr<Counter> requests;
  std::shared_ptr<Counter> request_retries;
  std::shared_ptr<Gauge> in_flight_records;
  std::shared_ptr<Gauge> in_flight_bytes;
  // Seconds.
  std::shared_ptr<Histogram> flush_duration;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_METRICS_H_
