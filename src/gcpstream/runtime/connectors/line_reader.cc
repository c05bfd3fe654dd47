#include "gcpstream/runtime/connectors/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/posix_files.h"

namespace gcpstream::runtime {
namespace {

constexpr size_t kChunk = size_t{64} * 1024;

// pread() that retries interrupted calls.
ssize_t ReadAt(int fd, char* data, size_t size, int64_t offset) {
  while (true) {
    const ssize_t n = pread(fd, data, size, offset);
    if (n >= 0 || errno != EINTR) return n;
  }
}

}  // namespace

absl::StatusOr<LineReader> LineReader::Open(std::string path, int64_t offset) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path);
  LineReader reader(std::move(path), fd, offset);
  struct stat info {};
  if (fstat(fd, &info) != 0) return ErrnoStatus("cannot stat", reader.path_);
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", reader.path_, "' is not a regular file"));
  }
  if (offset < 0 || offset > info.st_size) {
    return absl::FailedPreconditionError(absl::StrCat(
        "offset ", offset, " is outside '", reader.path_, "' (", info.st_size,
        " bytes): the file changed since the offset was recorded"));
  }
  if (offset > 0) {
    char before = 0;
    const ssize_t n = ReadAt(fd, &before, 1, offset - 1);
    if (n < 0) return ErrnoStatus("cannot read", reader.path_);
    if (n != 1 || before != '\n') {
      return absl::FailedPreconditionError(absl::StrCat(
          "offset ", offset, " in '", reader.path_,
          "' is not the start of a line: the file changed since the offset "
          "was recorded"));
    }
  }
  return reader;
}

LineReader::LineReader(LineReader&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      offset_(other.offset_),
      line_start_(other.line_start_),
      buffer_(std::move(other.buffer_)),
      pos_(other.pos_),
      buffer_offset_(other.buffer_offset_) {}

LineReader& LineReader::operator=(LineReader&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    offset_ = other.offset_;
    line_start_ = other.line_start_;
    buffer_ = std::move(other.buffer_);
    pos_ = other.pos_;
    buffer_offset_ = other.buffer_offset_;
  }
  return *this;
}

LineReader::~LineReader() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<bool> LineReader::Fill() {
  // Drop consumed bytes first so the buffer holds at most one line plus a
  // chunk, however long the file.
  buffer_.erase(0, pos_);
  buffer_offset_ += static_cast<int64_t>(pos_);
  pos_ = 0;
  const size_t old_size = buffer_.size();
  buffer_.resize(old_size + kChunk);
  const ssize_t n = ReadAt(fd_, buffer_.data() + old_size, kChunk,
                           buffer_offset_ + static_cast<int64_t>(old_size));
  if (n < 0) {
    buffer_.resize(old_size);
    return ErrnoStatus("cannot read", path_);
  }
  buffer_.resize(old_size + static_cast<size_t>(n));
  return n > 0;
}

absl::StatusOr<bool> LineReader::Next(std::string& line) {
  size_t searched = pos_;
  while (true) {
    const size_t newline = buffer_.find('\n', searched);
    if (newline != std::string::npos) {
      size_t end = newline;
      if (end > pos_ && buffer_[end - 1] == '\r') --end;
      line.assign(buffer_, pos_, end - pos_);
      line_start_ = offset_;
      offset_ += static_cast<int64_t>(newline + 1 - pos_);
      pos_ = newline + 1;
      return true;
    }
    // Fill() moves the unconsumed bytes to the front of the buffer.
    searched = buffer_.size() - pos_;
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    if (*more) continue;
    if (pos_ == buffer_.size()) return false;
    line.assign(buffer_, pos_, std::string::npos);
    line_start_ = offset_;
    offset_ += static_cast<int64_t>(buffer_.size() - pos_);
    pos_ = buffer_.size();
    return true;
  }
}

absl::StatusOr<int64_t> LineReader::LineNumberAt(int64_t offset) const {
  int64_t newlines = 0;
  std::string chunk(kChunk, '\0');
  for (int64_t at = 0; at < offset;) {
    const auto want =
        static_cast<size_t>(std::min<int64_t>(kChunk, offset - at));
    const ssize_t n = ReadAt(fd_, chunk.data(), want, at);
    if (n < 0) return ErrnoStatus("cannot read", path_);
    if (n == 0) break;
    newlines += std::count(chunk.data(), chunk.data() + n, '\n');
    at += n;
  }
  return newlines + 1;
}

}  // namespace gcpstream::runtime
