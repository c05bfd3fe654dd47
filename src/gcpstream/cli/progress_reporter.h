#ifndef GCPSTREAM_CLI_PROGRESS_REPORTER_H_
#define GCPSTREAM_CLI_PROGRESS_REPORTER_H_

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gcpstream/base/metrics.h"

namespace gcpstream::cli {

// Reports a running pipeline from its metrics, on its own thread: on a
// terminal, one live line per sink (records in, written, skipped,
// dead-lettered, records/s, in flight) and one for checkpoints and
// restarts, redrawn every second; otherwise the same as plain log lines
// every `interval`. `sinks` in pipeline-file order.
class ProgressReporter {
 public:
  ProgressReporter(const MetricsRegistry& metrics,
                   std::vector<std::string> sinks, bool terminal,
                   absl::Duration interval);
  ~ProgressReporter();  // Stops; a terminal keeps the last lines.
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

 private:
  void Loop();
  // The lines for now; `seconds` since the last report, for rates.
  std::vector<std::string> Lines(double seconds);

  const MetricsRegistry& metrics_;
  const std::vector<std::string> sinks_;
  const bool terminal_;
  const absl::Duration interval_;
  std::vector<int64_t> last_done_;  // Per sink, at the last report.
  size_t lines_drawn_ = 0;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace gcpstream::cli

#endif  // GCPSTREAM_CLI_PROGRESS_REPORTER_H_
