#include "gcpstream/base/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gcpstream {
namespace {

// Shortest text that parses back to the same double, in the spellings the
// exposition format uses for the special values.
std::string FormatDouble(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// Label values escape backslash, double quote and newline.
std::string EscapeLabelValue(absl::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Help text escapes backslash and newline only.
std::string EscapeHelp(absl::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// The label set without braces, e.g. `pipeline="p",operator="o",subtask="0"`.
std::string RenderLabels(const MetricLabels& labels) {
  std::string out =
      absl::StrCat("pipeline=\"", EscapeLabelValue(labels.pipeline),
                   "\",operator=\"", EscapeLabelValue(labels.operator_name),
                   "\",subtask=\"", labels.subtask, "\"");
  if (labels.destination.has_value()) {
    absl::StrAppend(&out, ",destination=\"",
                    EscapeLabelValue(*labels.destination), "\"");
  }
  return out;
}

bool IsValidMetricName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == ':';
  });
}

absl::Status ValidateBounds(absl::string_view name,
                            const std::vector<double>& bounds) {
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "histogram ", name,
          ": bucket bounds must be finite and strictly increasing"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view MetricsRegistry::TypeName(Type type) {
  switch (type) {
    case Type::kCounter:
      return "counter";
    case Type::kGauge:
      return "gauge";
    case Type::kHistogram:
      return "histogram";
  }
  return "untyped";
}

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1) {}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;
  // `le` is inclusive: a value equal to a bound belongs to that bucket.
  const size_t index = static_cast<size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) -
      bounds_.begin());
  counts_[index].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Collect() const {
  Snapshot snapshot;
  snapshot.cumulative_counts.reserve(counts_.size());
  uint64_t running = 0;
  for (const std::atomic<uint64_t>& count : counts_) {
    running += count.load(std::memory_order_relaxed);
    snapshot.cumulative_counts.push_back(running);
  }
  snapshot.count = running;
  snapshot.sum = sum_.load(std::memory_order_relaxed);
  return snapshot;
}

std::vector<double> DefaultDurationBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
          2.5,   5,    10,    30,   60,  120,  300};
}

absl::StatusOr<MetricsRegistry::Series> MetricsRegistry::GetSeries(
    absl::string_view name, absl::string_view help, const MetricLabels& labels,
    Type type, const std::vector<double>& bounds) {
  if (!IsValidMetricName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "' is not a valid Prometheus metric name"));
  }
  if (type == Type::kHistogram) {
    if (absl::Status status = ValidateBounds(name, bounds); !status.ok()) {
      return status;
    }
  }
  absl::MutexLock lock(&mu_);
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_
             .emplace(std::string(name),
                      Family{type, std::string(help), bounds, {}})
             .first;
  } else {
    const Family& family = it->second;
    if (family.type != type || family.help != help || family.bounds != bounds) {
      return absl::InvalidArgumentError(absl::StrCat(
          "metric ", name, " is already registered as a ",
          TypeName(family.type), " with other help text or buckets"));
    }
  }
  auto [series_it, inserted] =
      it->second.series.try_emplace(RenderLabels(labels));
  if (inserted) {
    switch (type) {
      case Type::kCounter:
        series_it->second = std::make_shared<Counter>();
        break;
      case Type::kGauge:
        series_it->second = std::make_shared<Gauge>();
        break;
      case Type::kHistogram:
        series_it->second = std::make_shared<Histogram>(bounds);
        break;
    }
  }
  return series_it->second;
}

absl::StatusOr<std::shared_ptr<Counter>> MetricsRegistry::GetCounter(
    absl::string_view name, absl::string_view help,
    const MetricLabels& labels) {
  absl::StatusOr<Series> series =
      GetSeries(name, help, labels, Type::kCounter, {});
  if (!series.ok()) return series.status();
  return std::get<std::shared_ptr<Counter>>(*std::move(series));
}

absl::StatusOr<std::shared_ptr<Gauge>> MetricsRegistry::GetGauge(
    absl::string_view name, absl::string_view help,
    const MetricLabels& labels) {
  absl::StatusOr<Series> series =
      GetSeries(name, help, labels, Type::kGauge, {});
  if (!series.ok()) return series.status();
  return std::get<std::shared_ptr<Gauge>>(*std::move(series));
}

absl::StatusOr<std::shared_ptr<Histogram>> MetricsRegistry::GetHistogram(
    absl::string_view name, absl::string_view help, const MetricLabels& labels,
    const std::vector<double>& bounds) {
  absl::StatusOr<Series> series =
      GetSeries(name, help, labels, Type::kHistogram, bounds);
  if (!series.ok()) return series.status();
  return std::get<std::shared_ptr<Histogram>>(*std::move(series));
}

void MetricsRegistry::RemoveSeries(const MetricLabels& labels) {
  const std::string key = RenderLabels(labels);
  absl::MutexLock lock(&mu_);
  for (auto& [name, family] : families_) family.series.erase(key);
}

std::string MetricsRegistry::ExportPrometheusText() const {
  std::string out;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, family] : families_) {
    if (family.series.empty()) continue;
    absl::StrAppend(&out, "# HELP ", name, " ", EscapeHelp(family.help), "\n",
                    "# TYPE ", name, " ", TypeName(family.type), "\n");
    for (const auto& [labels, series] : family.series) {
      switch (family.type) {
        case Type::kCounter:
          absl::StrAppend(&out, name, "{", labels, "} ",
                          std::get<std::shared_ptr<Counter>>(series)->Value(),
                          "\n");
          break;
        case Type::kGauge:
          absl::StrAppend(&out, name, "{", labels, "} ",
                          std::get<std::shared_ptr<Gauge>>(series)->Value(),
                          "\n");
          break;
        case Type::kHistogram: {
          const Histogram::Snapshot snapshot =
              std::get<std::shared_ptr<Histogram>>(series)->Collect();
          for (size_t i = 0; i < snapshot.cumulative_counts.size(); ++i) {
            const std::string le = i < family.bounds.size()
                                       ? FormatDouble(family.bounds[i])
                                       : std::string("+Inf");
            absl::StrAppend(&out, name, "_bucket{", labels, ",le=\"", le,
                            "\"} ", snapshot.cumulative_counts[i], "\n");
          }
          absl::StrAppend(&out, name, "_sum{", labels, "} ",
                          FormatDouble(snapshot.sum), "\n", name, "_count{",
                          labels, "} ", snapshot.count, "\n");
          break;
        }
      }
    }
  }
  return out;
}

absl::StatusOr<SinkMetrics> SinkMetrics::Create(MetricsRegistry& registry,
                                                const MetricLabels& labels) {
  SinkMetrics metrics;
  struct CounterSpec {
    std::shared_ptr<Counter>* target;
    absl::string_view name;
    absl::string_view help;
  };
  const CounterSpec counters[] = {
      {&metrics.records_in, "records_in", "Records given to the sink writer."},
      {&metrics.records_written, "records_written",
       "Records acknowledged by the service."},
      {&metrics.records_skipped, "records_skipped",
       "Records the serializer skipped; written nowhere."},
      {&metrics.records_routed, "records_routed",
       "Records handed to the failure handler."},
      {&metrics.records_dropped, "records_dropped",
       "Records the failure handler discarded without keeping them."},
      {&metrics.bytes_written, "bytes_written",
       "Payload bytes acknowledged by the service."},
      {&metrics.requests, "requests",
       "Requests sent to the service, retries included."},
      {&metrics.request_retries, "request_retries",
       "Requests sent again after a transient failure."},
  };
  for (const CounterSpec& spec : counters) {
    auto counter = registry.GetCounter(spec.name, spec.help, labels);
    if (!counter.ok()) return counter.status();
    *spec.target = *std::move(counter);
  }
  auto in_flight_records = registry.GetGauge(
      "in_flight_records", "Records sent and not yet acknowledged.", labels);
  if (!in_flight_records.ok()) return in_flight_records.status();
  metrics.in_flight_records = *std::move(in_flight_records);
  auto in_flight_bytes =
      registry.GetGauge("in_flight_bytes",
                        "Payload bytes sent and not yet acknowledged.", labels);
  if (!in_flight_bytes.ok()) return in_flight_bytes.status();
  metrics.in_flight_bytes = *std::move(in_flight_bytes);
  auto flush_duration = registry.GetHistogram(
      "flush_duration", "Time a Flush took to drain the writer, in seconds.",
      labels, DefaultDurationBuckets());
  if (!flush_duration.ok()) return flush_duration.status();
  metrics.flush_duration = *std::move(flush_duration);
  return metrics;
}

}  // namespace gcpstream
