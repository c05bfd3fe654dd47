#ifndef GCPSTREAM_RUNTIME_CONNECTORS_STAGED_PART_WRITER_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_STAGED_PART_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/runtime/connectors/file_sink_options.h"
#include "gcpstream/runtime/connectors/part_writer.h"

namespace gcpstream::runtime {

// Exactly-once part files. Lines go to a staging file
// `<dir>/.inprogress/part-<subtask>-<attempt>-<n>.tmp`, where <attempt> is
// random per writer, so a new attempt never touches a file an older
// attempt's committable names. PrepareCommit(c) fsyncs and closes it and
// returns a committable for `<dir>/part-<subtask>-<c>-<n>.<ext>`; the next
// line starts a new staging file. A checkpoint without records stages
// nothing.
class StagedPartWriter final : public PartWriter {
 public:
  // Creates the directories and deletes the staging files of this subtask
  // left by earlier attempts; subtask 0 also deletes those of subtasks
  // >= `parallelism`, which no writer of this attempt will clean up.
  static absl::StatusOr<std::unique_ptr<StagedPartWriter>> Create(
      const FileSinkOptions& options, int subtask_index, int parallelism);

  // Closes the file descriptor only: the staging files stay, as after a
  // crash, for the next attempt to delete.
  ~StagedPartWriter() override;
  StagedPartWriter(const StagedPartWriter&) = delete;
  StagedPartWriter& operator=(const StagedPartWriter&) = delete;

  absl::Status Append(absl::string_view line) override;
  // Writes buffered bytes; the fsync waits for PrepareCommit().
  absl::Status Flush() override;
  absl::StatusOr<std::vector<std::string>> PrepareCommit(
      int64_t checkpoint_id) override;
  // Also deletes the staging files no committable names yet: their records
  // follow the last checkpoint and will be written again after a restore.
  void Close() override;

  // The staging file being written, if any (for tests).
  const std::string& current_temp_path() const { return temp_path_; }

 private:
  struct Token {
    explicit Token() = default;
  };

 public:
  StagedPartWriter(Token /*token*/, const FileSinkOptions& options,
                   int subtask_index, std::string attempt);

 private:
  absl::Status OpenNext();
  // Writes, fsyncs and closes the current staging file.
  absl::Status CloseCurrent();

  const std::string directory_;
  const std::string staging_directory_;
  const std::string extension_;
  const int subtask_index_;
  const int64_t max_file_bytes_;
  const std::string attempt_;
  int64_t next_file_number_ = 0;

  int fd_ = -1;
  std::string temp_path_;
  int64_t file_bytes_ = 0;  // Written and buffered.
  std::string buffer_;
  // Closed staging files, fsynced, awaiting PrepareCommit().
  std::vector<std::string> closed_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_STAGED_PART_WRITER_H_
