#include "gcpstream/cli/metrics_text.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gcpstream::cli {

int64_t SumMetric(absl::string_view prometheus, absl::string_view metric,
                  absl::string_view label_filter) {
  int64_t total = 0;
  const std::string with_labels = absl::StrCat(metric, "{");
  const std::string without_labels = absl::StrCat(metric, " ");
  for (absl::string_view line : absl::StrSplit(prometheus, '\n')) {
    if (!absl::StartsWith(line, with_labels) &&
        !absl::StartsWith(line, without_labels)) {
      continue;
    }
    if (!label_filter.empty() && !absl::StrContains(line, label_filter)) {
      continue;
    }
    double value = 0;
    if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &value)) {
      total += static_cast<int64_t>(value);
    }
  }
  return total;
}

std::string SinkCounts::ToString() const {
  if (!has_sink_counters) {
    return absl::StrCat(in,
                        " in (this sink counts no writes; the file sink "
                        "commits its files at checkpoints)");
  }
  return absl::StrCat(in, " in, ", written, " written, ", skipped, " skipped, ",
                      routed, " dead-lettered, ", dropped, " dropped");
}

SinkCounts CountsOfSink(absl::string_view prometheus, const std::string& name,
                        int index) {
  const std::string own = absl::StrCat("operator=\"", name, "\"");
  SinkCounts counts;
  // Connector sinks register their counters when a writer opens.
  counts.has_sink_counters = false;
  for (absl::string_view line : absl::StrSplit(prometheus, '\n')) {
    if (absl::StartsWith(line, "records_in{") && absl::StrContains(line, own)) {
      counts.has_sink_counters = true;
      break;
    }
  }
  if (!counts.has_sink_counters) {
    counts.in =
        SumMetric(prometheus, "operator_records_in",
                  absl::StrCat("operator=\"sink-", index, "-", name, "\""));
    return counts;
  }
  counts.in = SumMetric(prometheus, "records_in", own);
  counts.written = SumMetric(prometheus, "records_written", own);
  counts.skipped = SumMetric(prometheus, "records_skipped", own);
  counts.routed = SumMetric(prometheus, "records_routed", own);
  counts.dropped = SumMetric(prometheus, "records_dropped", own);
  counts.in_flight = SumMetric(prometheus, "in_flight_records", own);
  return counts;
}

std::string SourceCounts::ToString() const {
  std::string text = absl::StrCat(out, " read");
  if (malformed_lines_skipped > 0) {
    absl::StrAppend(&text, ", ", malformed_lines_skipped, " malformed line",
                    malformed_lines_skipped == 1 ? "" : "s",
                    " skipped (malformed-line-policy: skip)");
  }
  if (messages_refused > 0) {
    absl::StrAppend(&text, ", ", messages_refused, " message",
                    messages_refused == 1 ? "" : "s",
                    " the deserializer refused, not emitted "
                    "(deserialization-failure-policy)");
  }
  return text;
}

SourceCounts CountsOfSource(absl::string_view prometheus,
                            const std::string& name, int index) {
  const std::string own = absl::StrCat("operator=\"", name, "\"");
  SourceCounts counts;
  // A source task counts what its reader emits as the operator's input.
  counts.out =
      SumMetric(prometheus, "operator_records_in",
                absl::StrCat("operator=\"source-", index, "-", name, "\""));
  counts.malformed_lines_skipped =
      SumMetric(prometheus, "records_skipped_malformed", own);
  counts.messages_refused =
      SumMetric(prometheus, "deserialization_failures", own);
  return counts;
}

}  // namespace gcpstream::cli
