#ifndef GCPSTREAM_RUNTIME_CONNECTORS_FILE_SINK_OPTIONS_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_FILE_SINK_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/options.h"

namespace gcpstream::runtime {

enum class FileSinkDelivery {
  // Part files staged per checkpoint, renamed into place by the committer
  // once the checkpoint is complete: each record once in the output.
  kExactlyOnce,
  // One file per subtask, appended to and fsynced at every checkpoint: a
  // restart replays (and so repeats) what followed the last checkpoint.
  kAtLeastOnce,
};

inline constexpr EnumSpelling<FileSinkDelivery> kFileSinkDeliveries[] = {
    {"exactly-once", FileSinkDelivery::kExactlyOnce},
    {"at-least-once", FileSinkDelivery::kAtLeastOnce},
};
inline constexpr EnumOption<FileSinkDelivery> kFileSinkDeliveryOption(
    "delivery", kFileSinkDeliveries);

struct FileSinkOptions {
  // Where committed part files go; created if missing. Must be valid UTF-8
  // (paths travel in checkpoints as JSON).
  std::string directory;
  // File name extension of the output files, without the dot.
  std::string extension = "txt";
  FileSinkDelivery delivery = FileSinkDelivery::kExactlyOnce;
  // Exactly-once only: start a new part file once one holds this many
  // bytes (all of them committed at the next checkpoint); 0: one part file
  // per subtask and checkpoint.
  int64_t max_file_bytes = 0;
};

// InvalidArgument naming `sink_name` and the option when unusable.
absl::Status CheckFileSinkOptions(const FileSinkOptions& options,
                                  absl::string_view sink_name);

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_FILE_SINK_OPTIONS_H_
