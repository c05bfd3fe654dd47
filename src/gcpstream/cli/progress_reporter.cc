#include "gcpstream/cli/progress_reporter.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gcpstream/cli/metrics_text.h"

namespace gcpstream::cli {

ProgressReporter::ProgressReporter(const MetricsRegistry& metrics,
                                   std::vector<std::string> sinks,
                                   bool terminal, absl::Duration interval)
    : metrics_(metrics),
      sinks_(std::move(sinks)),
      terminal_(terminal),
      interval_(terminal ? absl::Seconds(1) : interval),
      last_done_(sinks_.size(), 0) {
  thread_ = std::thread([this] { Loop(); });
}

ProgressReporter::~ProgressReporter() {
  stop_.Notify();
  thread_.join();
}

std::vector<std::string> ProgressReporter::Lines(double seconds) {
  const std::string text = metrics_.ExportPrometheusText();
  std::vector<std::string> lines;
  for (size_t i = 0; i < sinks_.size(); ++i) {
    const SinkCounts counts =
        CountsOfSink(text, sinks_[i], static_cast<int>(i));
    const int64_t done = counts.has_sink_counters ? counts.written : counts.in;
    const double rate =
        seconds > 0 ? static_cast<double>(done - last_done_[i]) / seconds : 0;
    last_done_[i] = done;
    lines.push_back(absl::StrFormat("sink %s: %s, %.0f records/s, %d in flight",
                                    sinks_[i], counts.ToString(), rate,
                                    counts.in_flight));
  }
  lines.push_back(absl::StrFormat("checkpoints %d, restarts %d",
                                  SumMetric(text, "checkpoints_completed"),
                                  SumMetric(text, "restarts")));
  return lines;
}

void ProgressReporter::Loop() {
  absl::Time last = absl::Now();
  bool stopping = false;
  while (!stopping) {
    stopping = stop_.WaitForNotificationWithTimeout(interval_);
    const absl::Time now = absl::Now();
    const std::vector<std::string> lines =
        Lines(absl::ToDoubleSeconds(now - last));
    last = now;
    std::string out;
    if (terminal_) {
      // Move up over the previous report and redraw it in place.
      if (lines_drawn_ > 0) absl::StrAppend(&out, "\033[", lines_drawn_, "A");
      for (const std::string& line : lines) {
        absl::StrAppend(&out, "\r\033[K", line, "\n");
      }
      lines_drawn_ = lines.size();
    } else {
      for (const std::string& line : lines) {
        absl::StrAppend(&out, "gcpstream: progress: ", line, "\n");
      }
    }
    std::fputs(out.c_str(), stderr);
    std::fflush(stderr);
  }
}

}  // namespace gcpstream::cli
