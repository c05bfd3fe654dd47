#ifndef GCPSTREAM_RUNTIME_CONNECTORS_APPEND_PART_WRITER_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_APPEND_PART_WRITER_H_

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

// At-least-once output: lines are appended to `<dir>/part-<subtask>.<ext>`
// across restarts and fsynced by every Flush(), so what a completed
// checkpoint covers survives a crash; what followed it is written again by
// the replay (duplicates, never a loss).
class AppendPartWriter final : public PartWriter {
 public:
  // Opens (or creates) the file. A crash in the middle of a write can leave
  // a partial last line; it is cut off here, because its record follows the
  // last checkpoint and will be written again whole.
  static absl::StatusOr<std::unique_ptr<AppendPartWriter>> Create(
      const FileSinkOptions& options, int subtask_index);

  ~AppendPartWriter() override;
  AppendPartWriter(const AppendPartWriter&) = delete;
  AppendPartWriter& operator=(const AppendPartWriter&) = delete;

  absl::Status Append(absl::string_view line) override;
  // Writes and fsyncs: on return every appended line is durable.
  absl::Status Flush() override;
  absl::StatusOr<std::vector<std::string>> PrepareCommit(
      int64_t /*checkpoint_id*/) override {
    return std::vector<std::string>();
  }
  void Close() override;

  const std::string& path() const { return path_; }

 private:
  struct Token {
    explicit Token() = default;
  };

 public:
  AppendPartWriter(Token /*token*/, std::string path, int fd)
      : path_(std::move(path)), fd_(fd) {}

 private:
  const std::string path_;
  int fd_;
  std::string buffer_;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_APPEND_PART_WRITER_H_
