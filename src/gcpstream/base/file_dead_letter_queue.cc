#include "gcpstream/base/file_dead_letter_queue.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/dead_letter.h"
#include "nlohmann/json.hpp"

namespace gcpstream {
namespace {

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat("file dead-letter queue: ", what,
                                          " '", path,
                                          "': ", std::strerror(errno)));
}

absl::Status SyncDirectory(const std::string& directory) {
  const int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open directory", directory);
  const int synced = fsync(fd);
  close(fd);
  if (synced != 0) return Errno("cannot fsync directory", directory);
  return absl::OkStatus();
}

std::string ToJsonLine(const FailedElement& failure) {
  nlohmann::json line = {
      {"connector", failure.connector},
      {"destination", failure.destination},
      {"error_code", absl::StatusCodeToString(failure.status.code())},
      {"error", std::string(failure.status.message())},
      {"attempts", failure.attempts},
      {"timestamp", Iso8601(failure.failure_time)},
      {"subtask", failure.subtask_index},
      {"attributes", failure.attributes},
      {"dlq_attributes", DeadLetterAttributes(failure)},
  };
  line["payload_base64"] =
      failure.payload.has_value()
          ? nlohmann::json(absl::Base64Escape(*failure.payload))
          : nlohmann::json(nullptr);
  // Messages and attributes are not guaranteed UTF-8: replace bad bytes
  // rather than fail (the payload, base64, is exact).
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

}  // namespace

FileDeadLetterQueue::~FileDeadLetterQueue() { Close(); }

absl::Status FileDeadLetterQueue::Open(const FailureHandlerContext& context) {
  Close();
  pending_.clear();
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("file dead-letter queue: cannot create directory '",
                     directory_, "': ", error.message()));
  }
  path_ = absl::StrCat(directory_, "/dead-letters-", context.connector, "-",
                       context.subtask_index, ".jsonl");
  const bool existed = std::filesystem::exists(path_, error);
  fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) return Errno("cannot open", path_);
  // A new file is durable only once its directory entry is.
  if (!existed) return SyncDirectory(directory_);
  return absl::OkStatus();
}

absl::Status FileDeadLetterQueue::Offer(const FailedElement& failure) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        "file dead-letter queue: Offer() before Open()");
  }
  pending_ += ToJsonLine(failure);
  return absl::OkStatus();
}

absl::Status FileDeadLetterQueue::Flush() {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        "file dead-letter queue: Flush() before Open()");
  }
  size_t written = 0;
  while (written < pending_.size()) {
    const ssize_t n =
        write(fd_, pending_.data() + written, pending_.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      // Keep what was not written: a retried flush must not lose it, and a
      // partial line is completed by the retry.
      pending_.erase(0, written);
      return Errno("cannot write", path_);
    }
    written += static_cast<size_t>(n);
  }
  pending_.clear();
  if (fsync(fd_) != 0) return Errno("cannot fsync", path_);
  return absl::OkStatus();
}

void FileDeadLetterQueue::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace gcpstream
