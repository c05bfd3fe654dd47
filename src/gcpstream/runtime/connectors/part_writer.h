#ifndef GCPSTREAM_RUNTIME_CONNECTORS_PART_WRITER_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_PART_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/runtime/connectors/file_sink_options.h"

namespace gcpstream::runtime {

// The byte side of a file sink writer: lines in, files out, with the
// durability of one delivery mode. Kept apart from the record type so the
// file handling is compiled once, not per FileSink<T>.
class PartWriter {
 public:
  virtual ~PartWriter() = default;

  // Appends `line` and a '\n'; may write to the file, never fsyncs.
  virtual absl::Status Append(absl::string_view line) = 0;
  // Writes what Append() buffered (and, at-least-once, fsyncs it).
  virtual absl::Status Flush() = 0;
  // Exactly-once: makes the files written since the last call durable and
  // returns their encoded FileCommittables. At-least-once: nothing.
  virtual absl::StatusOr<std::vector<std::string>> PrepareCommit(
      int64_t checkpoint_id) = 0;
  // Releases the file; persists nothing.
  virtual void Close() = 0;
};

// The writer of `options.delivery` for one subtask. Creating an exactly-once
// writer deletes the stale staging files of earlier attempts (see
// file_sink.h for when that is safe).
absl::StatusOr<std::unique_ptr<PartWriter>> CreatePartWriter(
    const FileSinkOptions& options, int subtask_index, int parallelism);

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_PART_WRITER_H_
