#ifndef GCPSTREAM_RUNTIME_WATERMARK_STRATEGY_H_
#define GCPSTREAM_RUNTIME_WATERMARK_STRATEGY_H_

#include <functional>
#include <optional>

#include "absl/time/time.h"

namespace gcpstream::runtime {

// How a source's records get event times and how its watermark follows them.
template <typename T>
struct WatermarkStrategy {
  // The record's event time; unset or nullopt keeps the time the source
  // gave (if any).
  std::function<std::optional<absl::Time>(const T&)> timestamp;
  // Bounded out-of-orderness: the watermark trails the largest event time
  // seen by this much, so records up to this late are not "late".
  absl::Duration max_out_of_orderness = absl::ZeroDuration();
  // A reader that emits nothing for this long is marked idle, so it does
  // not hold back the watermark of the operators after it.
  absl::Duration idleness = absl::InfiniteDuration();
  // How often a watermark that moved is sent downstream.
  absl::Duration emit_interval = absl::Milliseconds(200);
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_WATERMARK_STRATEGY_H_
