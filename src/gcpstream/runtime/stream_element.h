#ifndef GCPSTREAM_RUNTIME_STREAM_ELEMENT_H_
#define GCPSTREAM_RUNTIME_STREAM_ELEMENT_H_

#include <cstdint>
#include <limits>
#include <variant>

namespace gcpstream::runtime {

// Event times and watermarks travel as microseconds since the Unix epoch.
inline constexpr int64_t kNoTimestamp = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kMinWatermark = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kMaxWatermark = std::numeric_limits<int64_t>::max();

template <typename T>
struct StreamRecord {
  T value;
  int64_t timestamp = kNoTimestamp;
};

// Marks the point in every stream that checkpoint `id` covers. A final
// barrier also says that nothing follows it: the input has ended.
struct Barrier {
  int64_t checkpoint_id = 0;
  bool final = false;
};

// "No record older than `watermark` follows", or, when `idle`, "this input
// sends nothing for now; do not hold the watermark back for it".
struct WatermarkEvent {
  int64_t watermark = kMinWatermark;
  bool idle = false;
};

template <typename T>
using StreamElement = std::variant<StreamRecord<T>, Barrier, WatermarkEvent>;

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_STREAM_ELEMENT_H_
