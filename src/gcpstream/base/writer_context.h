#ifndef GCPSTREAM_BASE_WRITER_CONTEXT_H_
#define GCPSTREAM_BASE_WRITER_CONTEXT_H_

#include <cstdint>
#include <optional>

#include "absl/time/time.h"

namespace gcpstream {

// What a resolver or serializer may know about the record being written.
// There is deliberately no wall clock here: a destination chosen from event
// time and the watermark is the same when a checkpoint is replayed.
struct WriterContext {
  // The record's event timestamp, when the source or a transform gave one.
  std::optional<absl::Time> event_time;
  // The subtask's current watermark; InfinitePast before the first one.
  absl::Time watermark = absl::InfinitePast();
  int subtask_index = 0;
  // 0-based position of the record in this writer's input since it was
  // opened; named in errors so a user can find the record.
  int64_t record_position = 0;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_WRITER_CONTEXT_H_
