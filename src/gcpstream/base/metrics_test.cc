#include "gcpstream/base/metrics.h"

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

MetricLabels Labels(absl::string_view destination = "") {
  MetricLabels labels{"orders", "pubsub-sink", 2, std::nullopt};
  if (!destination.empty()) labels.destination = std::string(destination);
  return labels;
}

TEST(CounterTest, Increments) {
  Counter counter;
  EXPECT_EQ(counter.Value(), 0u);
  counter.Increment();
  counter.Increment(41);
  EXPECT_EQ(counter.Value(), 42u);
}

TEST(GaugeTest, GoesUpAndDown) {
  Gauge gauge;
  gauge.Add(10);
  gauge.Subtract(15);
  EXPECT_EQ(gauge.Value(), -5);
  gauge.Set(7);
  EXPECT_EQ(gauge.Value(), 7);
}

TEST(HistogramTest, BucketsAreInclusiveCumulativeAndEndInInf) {
  Histogram histogram({1, 5, 10});
  for (double v : {0.5, 1.0, 1.5, 5.0, 9.9, 10.0, 11.0, 1e300, -3.0}) {
    histogram.Observe(v);
  }
  const Histogram::Snapshot snapshot = histogram.Collect();
  // <=1: 0.5, 1, -3; <=5: +1.5, 5; <=10: +9.9, 10; +Inf: +11, 1e300.
  EXPECT_THAT(snapshot.cumulative_counts, ElementsAre(3, 5, 7, 9));
  EXPECT_EQ(snapshot.count, 9u);
  EXPECT_DOUBLE_EQ(snapshot.sum, 0.5 + 1 + 1.5 + 5 + 9.9 + 10 + 11 + 1e300 - 3);
}

TEST(HistogramTest, IgnoresNaN) {
  Histogram histogram({1});
  histogram.Observe(std::numeric_limits<double>::quiet_NaN());
  histogram.Observe(2);
  const Histogram::Snapshot snapshot = histogram.Collect();
  EXPECT_EQ(snapshot.count, 1u);
  EXPECT_EQ(snapshot.sum, 2);
}

TEST(HistogramTest, WithoutBoundsHasOnlyTheInfBucket) {
  Histogram histogram({});
  histogram.Observe(3);
  EXPECT_THAT(histogram.Collect().cumulative_counts, ElementsAre(1));
}

TEST(MetricsRegistryTest, SameNameAndLabelsIsTheSameSeries) {
  MetricsRegistry registry;
  auto first = registry.GetCounter("records_in", "help", Labels());
  auto second = registry.GetCounter("records_in", "help", Labels());
  auto other = registry.GetCounter("records_in", "help", Labels("t1"));
  ASSERT_TRUE(first.ok() && second.ok() && other.ok());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_NE(first->get(), other->get());
}

TEST(MetricsRegistryTest, RejectsConflictingRegistrations) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.GetCounter("requests", "help", Labels()).ok());
  EXPECT_THAT(
      registry.GetGauge("requests", "help", Labels()).status().message(),
      HasSubstr("already registered as a counter"));
  EXPECT_FALSE(registry.GetCounter("requests", "other help", Labels()).ok());
  ASSERT_TRUE(registry.GetHistogram("latency", "h", Labels(), {1, 2}).ok());
  EXPECT_FALSE(registry.GetHistogram("latency", "h", Labels(), {1, 3}).ok());
  EXPECT_TRUE(registry.GetHistogram("latency", "h", Labels("d"), {1, 2}).ok());
}

TEST(MetricsRegistryTest, RejectsInvalidNamesAndBuckets) {
  MetricsRegistry registry;
  for (const char* bad : {"", "1abc", "has-hyphen", "has space", "é"}) {
    auto counter = registry.GetCounter(bad, "help", Labels());
    EXPECT_EQ(counter.status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
  EXPECT_TRUE(registry.GetCounter("ok_name:sub_2", "help", Labels()).ok());
  EXPECT_TRUE(registry.GetCounter("_leading", "help", Labels()).ok());
  for (const std::vector<double>& bad :
       {std::vector<double>{2, 1}, std::vector<double>{1, 1},
        std::vector<double>{1, std::numeric_limits<double>::infinity()},
        std::vector<double>{std::nan("")}}) {
    EXPECT_FALSE(registry.GetHistogram("h", "help", Labels(), bad).ok());
  }
}

TEST(MetricsRegistryTest, ExportsPrometheusTextExactly) {
  MetricsRegistry registry;
  auto written = registry.GetCounter("records_written", "Records written.",
                                     Labels("projects/p/topics/a"));
  auto written_other =
      registry.GetCounter("records_written", "Records written.", Labels());
  auto in_flight =
      registry.GetGauge("in_flight_records", "In flight.", Labels());
  auto flush = registry.GetHistogram("flush_duration", "Flush time.", Labels(),
                                     {0.5, 2});
  ASSERT_TRUE(written.ok() && written_other.ok() && in_flight.ok() &&
              flush.ok());
  (*written)->Increment(3);
  (*in_flight)->Set(-2);
  (*flush)->Observe(0.25);
  (*flush)->Observe(0.5);
  (*flush)->Observe(3);

  EXPECT_EQ(
      registry.ExportPrometheusText(),
      "# HELP flush_duration Flush time.\n"
      "# TYPE flush_duration histogram\n"
      "flush_duration_bucket{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\",le=\"0.5\"} 2\n"
      "flush_duration_bucket{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\",le=\"2\"} 2\n"
      "flush_duration_bucket{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\",le=\"+Inf\"} 3\n"
      "flush_duration_sum{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\"} 3.75\n"
      "flush_duration_count{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\"} 3\n"
      "# HELP in_flight_records In flight.\n"
      "# TYPE in_flight_records gauge\n"
      "in_flight_records{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\"} -2\n"
      "# HELP records_written Records written.\n"
      "# TYPE records_written counter\n"
      "records_written{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\"} 0\n"
      "records_written{pipeline=\"orders\",operator=\"pubsub-sink\","
      "subtask=\"2\",destination=\"projects/p/topics/a\"} 3\n");
}

TEST(MetricsRegistryTest, EscapesLabelValuesAndHelp) {
  MetricsRegistry registry;
  MetricLabels labels{"a\"b", "c\\d", 0, "e\nf"};
  ASSERT_TRUE(
      registry.GetCounter("c", "line1\nback\\slash \"q\"", labels).ok());
  EXPECT_EQ(registry.ExportPrometheusText(),
            "# HELP c line1\\nback\\\\slash \"q\"\n"
            "# TYPE c counter\n"
            "c{pipeline=\"a\\\"b\",operator=\"c\\\\d\",subtask=\"0\","
            "destination=\"e\\nf\"} 0\n");
}

TEST(MetricsRegistryTest, FormatsSpecialAndPreciseSums) {
  MetricsRegistry registry;
  auto h = registry.GetHistogram("h", "help", Labels(), {0.1});
  ASSERT_TRUE(h.ok());
  (*h)->Observe(0.1);
  (*h)->Observe(0.2);
  // Shortest round-trip text, not a 6-digit %g.
  EXPECT_THAT(registry.ExportPrometheusText(),
              HasSubstr("h_sum{pipeline=\"orders\",operator=\"pubsub-sink\","
                        "subtask=\"2\"} 0.30000000000000004\n"));
  (*h)->Observe(std::numeric_limits<double>::infinity());
  EXPECT_THAT(registry.ExportPrometheusText(), HasSubstr("} +Inf\n"));
}

TEST(MetricsRegistryTest, RemoveSeriesDropsOnlyThoseLabels) {
  MetricsRegistry registry;
  auto kept = registry.GetCounter("records_in", "h", Labels("keep"));
  auto gone = registry.GetCounter("records_in", "h", Labels("gone"));
  auto gone_gauge = registry.GetGauge("in_flight", "h", Labels("gone"));
  ASSERT_TRUE(kept.ok() && gone.ok() && gone_gauge.ok());
  registry.RemoveSeries(Labels("gone"));
  const std::string text = registry.ExportPrometheusText();
  EXPECT_THAT(text, HasSubstr("destination=\"keep\""));
  EXPECT_THAT(text, Not(HasSubstr("gone")));
  // A family without series prints nothing, not a dangling # TYPE.
  EXPECT_THAT(text, Not(HasSubstr("in_flight")));
  // Removed series stay usable by their holders.
  (*gone)->Increment();
  EXPECT_EQ((*gone)->Value(), 1u);
  // Asking again starts a fresh series.
  auto again = registry.GetCounter("records_in", "h", Labels("gone"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->Value(), 0u);
}

TEST(MetricsRegistryTest, ConcurrentUpdatesAndExportsLoseNothing) {
  MetricsRegistry registry;
  auto counter = registry.GetCounter("c", "h", Labels());
  auto histogram = registry.GetHistogram("h", "h", Labels(), {1});
  ASSERT_TRUE(counter.ok() && histogram.ok());
  constexpr uint64_t kThreads = 4;
  constexpr uint64_t kPerThread = 10000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (uint64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < kPerThread; ++i) {
        (*counter)->Increment();
        (*histogram)->Observe(t % 2 == 0 ? 0.5 : 2.0);
        if (i % 1000 == 0) {
          // Registration and export race with the hot path.
          ASSERT_TRUE(registry.GetCounter("c", "h", Labels()).ok());
          (void)registry.ExportPrometheusText();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ((*counter)->Value(), kThreads * kPerThread);
  const Histogram::Snapshot snapshot = (*histogram)->Collect();
  EXPECT_THAT(snapshot.cumulative_counts,
              ElementsAre(kThreads / 2 * kPerThread, kThreads * kPerThread));
  // Half the threads observe 0.5, half 2.0.
  constexpr uint64_t kHalf = kThreads / 2 * kPerThread;
  EXPECT_DOUBLE_EQ(snapshot.sum, 2.5 * static_cast<double>(kHalf));
}

TEST(SinkMetricsTest, CreatesTheStandardMetrics) {
  MetricsRegistry registry;
  auto metrics = SinkMetrics::Create(registry, Labels());
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  metrics->records_in->Increment(5);
  metrics->in_flight_bytes->Add(100);
  metrics->flush_duration->Observe(0.2);
  const std::string text = registry.ExportPrometheusText();
  for (const char* counter :
       {"records_in", "records_written", "records_skipped", "records_routed",
        "records_dropped", "bytes_written", "requests", "request_retries"}) {
    EXPECT_THAT(text,
                HasSubstr(absl::StrCat("# TYPE ", counter, " counter\n")));
  }
  EXPECT_THAT(text, HasSubstr("# TYPE in_flight_records gauge\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE in_flight_bytes gauge\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE flush_duration histogram\n"));
  EXPECT_THAT(text, HasSubstr("records_in{pipeline=\"orders\","
                              "operator=\"pubsub-sink\",subtask=\"2\"} 5\n"));
  EXPECT_THAT(text, HasSubstr("in_flight_bytes{pipeline=\"orders\","
                              "operator=\"pubsub-sink\",subtask=\"2\"} 100\n"));
  EXPECT_THAT(text, HasSubstr(",le=\"0.25\"} 1\n"));
  EXPECT_THAT(text, HasSubstr(",le=\"300\"} 1\n"));
}

TEST(SinkMetricsTest, RecreatingReusesTheSeriesAndDestinationsAreSeparate) {
  MetricsRegistry registry;
  auto first = SinkMetrics::Create(registry, Labels());
  auto again = SinkMetrics::Create(registry, Labels());
  auto per_destination = SinkMetrics::Create(registry, Labels("t"));
  ASSERT_TRUE(first.ok() && again.ok() && per_destination.ok());
  EXPECT_EQ(first->records_written.get(), again->records_written.get());
  EXPECT_EQ(first->flush_duration.get(), again->flush_duration.get());
  EXPECT_NE(first->records_written.get(),
            per_destination->records_written.get());
}

TEST(SinkMetricsTest, FailsWhenANameIsTakenByAnotherType) {
  MetricsRegistry registry;
  ASSERT_TRUE(registry.GetGauge("requests", "mine", Labels()).ok());
  EXPECT_EQ(SinkMetrics::Create(registry, Labels()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gcpstream
