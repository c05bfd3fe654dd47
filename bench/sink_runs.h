#ifndef GCPSTREAM_BENCH_SINK_RUNS_H_
#define GCPSTREAM_BENCH_SINK_RUNS_H_

// Runs of a sink benchmark's scenarios: the median of several, printed for
// people and as one JSON line.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/measure.h"

namespace gcpstream::bench {

// One run: `items` (rows, mutations, tasks) written by the scenario.
struct SinkRun {
  std::string scenario;
  int64_t items = 0;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double rss_mib = 0;

  double ItemsPerCpuSecond() const {
    return static_cast<double>(items) / cpu_seconds;
  }
  double ItemsPerWallSecond() const {
    return static_cast<double>(items) / wall_seconds;
  }
};

// Started where a run's work starts; Finish() is its SinkRun: wall and
// CPU time since then, and the peak RSS.
class RunTimer {
 public:
  RunTimer() : cpu_(CpuSeconds()), start_(absl::Now()) {}

  SinkRun Finish(std::string scenario, int64_t items) const {
    return SinkRun{.scenario = std::move(scenario),
                   .items = items,
                   .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start_),
                   .cpu_seconds = CpuSeconds() - cpu_,
                   .rss_mib = PeakRssMib()};
  }

 private:
  double cpu_;
  absl::Time start_;
};

// How a benchmark's lines name it and what it counts.
struct SinkRunUnits {
  const char* benchmark;  // "bigtable_sink"
  const char* items;      // "mutations"
};

// Prints the median run of `runs` (by items per CPU-second) with their
// spread, and returns it.
inline SinkRun PrintMedian(const SinkRunUnits& units,
                           std::vector<SinkRun> runs) {
  std::sort(runs.begin(), runs.end(), [](const SinkRun& a, const SinkRun& b) {
    return a.ItemsPerCpuSecond() < b.ItemsPerCpuSecond();
  });
  const SinkRun median = runs[runs.size() / 2];
  std::printf(
      "%-34s %10.0f %s/s wall %10.0f %s/CPU-s (runs %.0f..%.0f) RSS %.0f "
      "MiB\n",
      median.scenario.c_str(), median.ItemsPerWallSecond(), units.items,
      median.ItemsPerCpuSecond(), units.items, runs.front().ItemsPerCpuSecond(),
      runs.back().ItemsPerCpuSecond(), median.rss_mib);
  std::printf(
      "{\"benchmark\":\"%s\",\"scenario\":\"%s\",\"%s\":%lld,"
      "\"%s_per_wall_second\":%.0f,\"%s_per_cpu_second\":%.0f,"
      "\"peak_rss_mib\":%.1f}\n",
      units.benchmark, median.scenario.c_str(), units.items,
      static_cast<long long>(median.items), units.items,
      median.ItemsPerWallSecond(), units.items, median.ItemsPerCpuSecond(),
      median.rss_mib);
  return median;
}

// Runs `run` `runs` times in a row and prints the median.
inline SinkRun MeasureRuns(const SinkRunUnits& units, int runs,
                           const std::function<SinkRun()>& run) {
  std::vector<SinkRun> all;
  all.reserve(runs);
  for (int i = 0; i < runs; ++i) all.push_back(run());
  return PrintMedian(units, std::move(all));
}

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_SINK_RUNS_H_
