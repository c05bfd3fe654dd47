#ifndef GCPSTREAM_CLI_METRICS_TEXT_H_
#define GCPSTREAM_CLI_METRICS_TEXT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace gcpstream::cli {

// The sum over all series of `metric` (in Prometheus text) whose labels
// contain `label_filter` (e.g. operator="orders"; empty: every series).
int64_t SumMetric(absl::string_view prometheus, absl::string_view metric,
                  absl::string_view label_filter = "");

// What a sink did, summed over its subtasks. Connector sinks report the
// standard sink counters under their own name; a sink that reports none
// (the file sink) has only the runtime's count of records it received.
struct SinkCounts {
  bool has_sink_counters = false;
  int64_t in = 0;
  int64_t written = 0;
  int64_t skipped = 0;
  int64_t routed = 0;
  int64_t dropped = 0;
  int64_t in_flight = 0;

  // "30 in, 29 written, 0 skipped, 1 dead-lettered, 0 dropped", or
  // "30 in" and why there is no more.
  std::string ToString() const;
};

// `index`: the sink's position in the pipeline file (the runtime names its
// operator "sink-<index>-<name>").
SinkCounts CountsOfSink(absl::string_view prometheus, const std::string& name,
                        int index);

// What a source did, summed over its subtasks: records it emitted, and what
// it read but did not emit (malformed lines a json-lines source skipped,
// messages the Pub/Sub source's deserializer refused).
struct SourceCounts {
  int64_t out = 0;
  int64_t malformed_lines_skipped = 0;
  int64_t messages_refused = 0;

  // "2 read, 1 malformed line skipped".
  std::string ToString() const;
};

// `index`: the source's position in the pipeline file (the runtime names
// its operator "source-<index>-<name>").
SourceCounts CountsOfSource(absl::string_view prometheus,
                            const std::string& name, int index);

}  // namespace gcpstream::cli

#endif  // GCPSTREAM_CLI_METRICS_TEXT_H_
