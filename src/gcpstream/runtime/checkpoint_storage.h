#ifndef GCPSTREAM_RUNTIME_CHECKPOINT_STORAGE_H_
#define GCPSTREAM_RUNTIME_CHECKPOINT_STORAGE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

// Everything a job needs to resume after checkpoint `id`.
struct CheckpointData {
  int64_t id = 0;
  bool final = false;
  absl::Time time = absl::UnixEpoch();
  std::string pipeline;
  std::map<std::string, std::vector<Split>> source_splits;  // By source id.
  // By sink id; indexed by the subtask that saved them.
  std::map<std::string, std::vector<std::string>> sink_states;
  // By sink id: what the sink's committer makes visible for this checkpoint.
  std::map<std::string, std::vector<std::string>> committables;
};

// Checkpoints as files `chk-<id>.json` in one directory. A checkpoint exists
// only once complete: it is written to a temporary file, fsynced, renamed
// into place, and the directory fsynced, so a crash at any moment leaves
// either the previous set of checkpoints or the new one.
class CheckpointStorage {
 public:
  // Creates the directory if needed. `retain` >= 1 checkpoints are kept.
  static absl::StatusOr<CheckpointStorage> Open(std::string directory,
                                                int retain);

  // Makes `data` durable and deletes checkpoints beyond `retain`. Returns
  // the file's size in bytes.
  absl::StatusOr<int64_t> Write(const CheckpointData& data);

  // The complete checkpoint with the highest id, if any. A file that cannot
  // be read or parsed is an error, not skipped: resuming from an older
  // checkpoint would replay records whose results a newer one committed.
  absl::StatusOr<std::optional<CheckpointData>> LoadLatest() const;

  // Ids of the complete checkpoints, ascending.
  absl::StatusOr<std::vector<int64_t>> List() const;

  const std::string& directory() const { return directory_; }

 private:
  CheckpointStorage(std::string directory, int retain)
      : directory_(std::move(directory)), retain_(retain) {}

  std::string PathOf(int64_t id) const;

  std::string directory_;
  int retain_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CHECKPOINT_STORAGE_H_
