#include "gcpstream/runtime/connectors/append_part_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/posix_files.h"

namespace gcpstream::runtime {
namespace {

constexpr size_t kWriteChunk = size_t{256} * 1024;

// Truncates the file after its last '\n' (to empty if it has none), scanning
// backwards from the end in chunks.
absl::Status CutPartialLastLine(int fd, const std::string& path) {
  struct stat info {};
  if (fstat(fd, &info) != 0) return ErrnoStatus("cannot stat", path);
  const int64_t size = info.st_size;
  std::string chunk(size_t{64} * 1024, '\0');
  int64_t end = size;
  while (end > 0) {
    const int64_t begin =
        std::max<int64_t>(0, end - static_cast<int64_t>(chunk.size()));
    const auto want = static_cast<size_t>(end - begin);
    size_t got = 0;
    while (got < want) {
      const ssize_t n = pread(fd, chunk.data() + got, want - got,
                              begin + static_cast<int64_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoStatus("cannot read", path);
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    const size_t newline = absl::string_view(chunk.data(), got).rfind('\n');
    if (newline != absl::string_view::npos) {
      end = begin + static_cast<int64_t>(newline) + 1;
      break;
    }
    end = begin;
  }
  if (end == size) return absl::OkStatus();
  if (ftruncate(fd, end) != 0) return ErrnoStatus("cannot truncate", path);
  return SyncFile(fd, path);
}

}  // namespace

absl::StatusOr<std::unique_ptr<AppendPartWriter>> AppendPartWriter::Create(
    const FileSinkOptions& options, int subtask_index) {
  absl::Status status = CreateDirectories(options.directory);
  if (!status.ok()) return status;
  std::string path = absl::StrCat(options.directory, "/part-", subtask_index,
                                  ".", options.extension);
  struct stat info {};
  const bool existed = stat(path.c_str(), &info) == 0;
  // Read-write: a partial last line is found by reading the tail.
  const int fd =
      open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("cannot open", path);
  auto writer =
      std::make_unique<AppendPartWriter>(Token(), std::move(path), fd);
  // A new file is durable only once its directory entry is.
  status = existed ? CutPartialLastLine(fd, writer->path_)
                   : SyncDirectory(options.directory);
  if (!status.ok()) return status;
  return writer;
}

AppendPartWriter::~AppendPartWriter() { Close(); }

absl::Status AppendPartWriter::Append(absl::string_view line) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path_, "' is closed"));
  }
  buffer_.append(line.data(), line.size());
  buffer_.push_back('\n');
  if (buffer_.size() >= kWriteChunk) return WriteAll(fd_, &buffer_, path_);
  return absl::OkStatus();
}

absl::Status AppendPartWriter::Flush() {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path_, "' is closed"));
  }
  absl::Status status = WriteAll(fd_, &buffer_, path_);
  if (!status.ok()) return status;
  return SyncFile(fd_, path_);
}

void AppendPartWriter::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  buffer_.clear();
}

}  // namespace gcpstream::runtime
