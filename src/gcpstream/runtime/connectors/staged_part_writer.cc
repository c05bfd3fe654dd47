#include "gcpstream/runtime/connectors/staged_part_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "gcpstream/runtime/connectors/file_committable.h"
#include "gcpstream/runtime/connectors/posix_files.h"

namespace gcpstream::runtime {
namespace {

// Writes reach the file in chunks of about this size between checkpoints,
// so memory stays bounded however long a checkpoint interval is.
constexpr size_t kWriteChunk = size_t{256} * 1024;

constexpr absl::string_view kStagingDirectory = ".inprogress";

// 128 random bits: unique per attempt without coordination.
std::string RandomAttemptId() {
  absl::BitGen gen;
  return absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(gen),
                         absl::Uniform<uint64_t>(gen));
}

// The subtask of a staging file name "part-<subtask>-....tmp", or -1.
int StagingFileSubtask(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, "part-") || !absl::EndsWith(name, ".tmp")) {
    return -1;
  }
  const size_t dash = name.find('-');
  int subtask = -1;
  if (dash == absl::string_view::npos ||
      !absl::SimpleAtoi(name.substr(0, dash), &subtask)) {
    return -1;
  }
  return subtask;
}

absl::Status DeleteStaleStagingFiles(const std::string& staging_directory,
                                     int subtask_index, int parallelism) {
  std::error_code error;
  std::filesystem::directory_iterator it(staging_directory, error);
  for (; !error && it != std::filesystem::directory_iterator();
       it.increment(error)) {
    const int owner = StagingFileSubtask(it->path().filename().string());
    const bool mine = owner == subtask_index;
    const bool orphan = subtask_index == 0 && owner >= parallelism;
    if (owner < 0 || !(mine || orphan)) continue;
    std::error_code remove_error;
    std::filesystem::remove(it->path(), remove_error);
    if (remove_error) {
      return absl::InternalError(
          absl::StrCat("cannot delete stale staging file '",
                       it->path().string(), "': ", remove_error.message()));
    }
  }
  if (error) {
    return absl::InternalError(absl::StrCat("cannot list '", staging_directory,
                                            "': ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace

StagedPartWriter::StagedPartWriter(Token /*token*/,
                                   const FileSinkOptions& options,
                                   int subtask_index, std::string attempt)
    : directory_(options.directory),
      staging_directory_(
          absl::StrCat(options.directory, "/", kStagingDirectory)),
      extension_(options.extension),
      subtask_index_(subtask_index),
      max_file_bytes_(options.max_file_bytes),
      attempt_(std::move(attempt)) {}

absl::StatusOr<std::unique_ptr<StagedPartWriter>> StagedPartWriter::Create(
    const FileSinkOptions& options, int subtask_index, int parallelism) {
  auto writer = std::make_unique<StagedPartWriter>(
      Token(), options, subtask_index, RandomAttemptId());
  absl::Status status = CreateDirectories(writer->staging_directory_);
  if (!status.ok()) return status;
  status = DeleteStaleStagingFiles(writer->staging_directory_, subtask_index,
                                   parallelism);
  if (!status.ok()) return status;
  return writer;
}

StagedPartWriter::~StagedPartWriter() {
  if (fd_ >= 0) close(fd_);
}

absl::Status StagedPartWriter::OpenNext() {
  temp_path_ = absl::StrCat(staging_directory_, "/part-", subtask_index_, "-",
                            attempt_, "-", next_file_number_++, ".tmp");
  fd_ = open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    absl::Status status = ErrnoStatus("cannot create", temp_path_);
    temp_path_.clear();
    return status;
  }
  file_bytes_ = 0;
  return absl::OkStatus();
}

absl::Status StagedPartWriter::Append(absl::string_view line) {
  if (fd_ < 0) {
    absl::Status opened = OpenNext();
    if (!opened.ok()) return opened;
  }
  buffer_.append(line.data(), line.size());
  buffer_.push_back('\n');
  file_bytes_ += static_cast<int64_t>(line.size()) + 1;
  if (max_file_bytes_ > 0 && file_bytes_ >= max_file_bytes_) {
    return CloseCurrent();
  }
  if (buffer_.size() >= kWriteChunk) return WriteAll(fd_, &buffer_, temp_path_);
  return absl::OkStatus();
}

absl::Status StagedPartWriter::Flush() {
  if (fd_ < 0) return absl::OkStatus();
  return WriteAll(fd_, &buffer_, temp_path_);
}

absl::Status StagedPartWriter::CloseCurrent() {
  absl::Status status = WriteAll(fd_, &buffer_, temp_path_);
  if (status.ok()) status = SyncFile(fd_, temp_path_);
  if (!status.ok()) return status;
  // close() after a successful fsync cannot lose data that matters.
  close(fd_);
  fd_ = -1;
  closed_.push_back(std::move(temp_path_));
  temp_path_.clear();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> StagedPartWriter::PrepareCommit(
    int64_t checkpoint_id) {
  if (fd_ >= 0) {
    absl::Status closed = CloseCurrent();
    if (!closed.ok()) return closed;
  }
  std::vector<std::string> committables;
  if (closed_.empty()) return committables;
  // The staging files' directory entries must be durable before the
  // checkpoint that names them is.
  absl::Status synced = SyncDirectory(staging_directory_);
  if (!synced.ok()) return synced;
  committables.reserve(closed_.size());
  for (size_t n = 0; n < closed_.size(); ++n) {
    committables.push_back(
        FileCommittable{std::move(closed_[n]),
                        absl::StrCat(directory_, "/part-", subtask_index_, "-",
                                     checkpoint_id, "-", n, ".", extension_)}
            .Encode());
  }
  closed_.clear();
  return committables;
}

void StagedPartWriter::Close() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
    closed_.push_back(std::move(temp_path_));
    temp_path_.clear();
  }
  buffer_.clear();
  for (const std::string& path : closed_) std::remove(path.c_str());
  closed_.clear();
}

}  // namespace gcpstream::runtime
