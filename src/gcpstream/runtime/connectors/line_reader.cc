#include "gcpstream/runtime/connectors/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/posix_files.h"

namespace gcpstream::runtime {
namespace {

// Read at least this much at a time, into blocks of at least kBlock.
constexpr size_t kChunk = size_t{64} * 1024;
constexpr size_t kBlock = size_t{1} << 20;
// Blocks kept for reuse once no line points into them, so that reading
// does not allocate (and fault in) a fresh megabyte per block.
constexpr size_t kRetiredBlocks = 4;

// pread() that retries interrupted calls.
ssize_t ReadAt(int fd, char* data, size_t size, int64_t offset) {
  while (true) {
    const ssize_t n = pread(fd, data, size, offset);
    if (n >= 0 || errno != EINTR) return n;
  }
}

}  // namespace

absl::StatusOr<LineReader> LineReader::Open(std::string path, int64_t offset,
                                            int64_t max_line_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path);
  LineReader reader(std::move(path), fd, offset);
  reader.max_line_bytes_ = max_line_bytes;
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
      max_line_bytes_(other.max_line_bytes_),
      oversized_line_bytes_(other.oversized_line_bytes_),
      block_(std::move(other.block_)),
      retired_(std::move(other.retired_)),
      capacity_(std::exchange(other.capacity_, 0)),
      size_(std::exchange(other.size_, 0)),
      pos_(std::exchange(other.pos_, 0)),
      buffer_offset_(other.buffer_offset_) {}

LineReader& LineReader::operator=(LineReader&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    offset_ = other.offset_;
    line_start_ = other.line_start_;
    max_line_bytes_ = other.max_line_bytes_;
    oversized_line_bytes_ = other.oversized_line_bytes_;
    block_ = std::move(other.block_);
    retired_ = std::move(other.retired_);
    capacity_ = std::exchange(other.capacity_, 0);
    size_ = std::exchange(other.size_, 0);
    pos_ = std::exchange(other.pos_, 0);
    buffer_offset_ = other.buffer_offset_;
  }
  return *this;
}

LineReader::~LineReader() {
  if (fd_ >= 0) close(fd_);
}

std::shared_ptr<char[]> LineReader::TakeFreeBlock(size_t wanted) {
  if (wanted > kBlock) return nullptr;
  for (auto it = retired_.begin(); it != retired_.end(); ++it) {
    if (it->use_count() == 1) {
      // Pairs with the release of the last line's reference, which may
      // have been dropped on another thread: its reads happen before our
      // writes.
      std::atomic_thread_fence(std::memory_order_acquire);
      std::shared_ptr<char[]> block = std::move(*it);
      retired_.erase(it);
      return block;
    }
  }
  return nullptr;
}

absl::StatusOr<bool> LineReader::Fill() {
  const size_t unconsumed = size_ - pos_;
  const size_t wanted = std::max(kBlock, unconsumed + kChunk);
  if (block_ != nullptr && block_.use_count() == 1 && capacity_ >= wanted) {
    std::atomic_thread_fence(std::memory_order_acquire);  // As below.
    std::memmove(block_.get(), block_.get() + pos_, unconsumed);
  } else {
    // Lines handed out still point into the old block: leave it to them,
    // and take a block they have all let go of, or a new one.
    std::shared_ptr<char[]> block = TakeFreeBlock(wanted);
    if (block == nullptr) {
      block = std::make_shared_for_overwrite<char[]>(
          wanted + json::PaddedBytes::kPadding);
    }
    if (unconsumed > 0) {
      std::memcpy(block.get(), block_.get() + pos_, unconsumed);
    }
    if (block_ != nullptr && capacity_ == kBlock &&
        retired_.size() < kRetiredBlocks) {
      retired_.push_back(std::move(block_));
    }
    block_ = std::move(block);
    capacity_ = std::max(wanted, kBlock);
  }
  buffer_offset_ += static_cast<int64_t>(pos_);
  pos_ = 0;
  size_ = unconsumed;
  const ssize_t n = ReadAt(fd_, block_.get() + size_, capacity_ - size_,
                           buffer_offset_ + static_cast<int64_t>(size_));
  if (n < 0) return ErrnoStatus("cannot read", path_);
  size_ += static_cast<size_t>(n);
  // Zeroed padding, so a parser reading past a line's end sees no garbage.
  std::memset(block_.get() + size_, 0, json::PaddedBytes::kPadding);
  return n > 0;
}

absl::Status LineReader::SkipOversizedLine() {
  while (true) {
    const void* found = std::memchr(block_.get() + pos_, '\n', size_ - pos_);
    if (found != nullptr) {
      const auto newline =
          static_cast<size_t>(static_cast<const char*>(found) - block_.get());
      offset_ += static_cast<int64_t>(newline + 1 - pos_);
      pos_ = newline + 1;
      break;
    }
    offset_ += static_cast<int64_t>(size_ - pos_);
    pos_ = size_;
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  oversized_line_bytes_ = offset_ - line_start_;
  // The terminator is not part of the line.
  if (oversized_line_bytes_ > 0 && pos_ > 0 && block_.get()[pos_ - 1] == '\n') {
    --oversized_line_bytes_;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> LineReader::NextLine(size_t& begin, size_t& end) {
  oversized_line_bytes_ = 0;
  size_t searched = pos_;
  while (true) {
    const void* found =
        std::memchr(block_.get() + searched, '\n', size_ - searched);
    if (found != nullptr) {
      const auto newline =
          static_cast<size_t>(static_cast<const char*>(found) - block_.get());
      begin = pos_;
      end = newline;
      if (end > pos_ && block_.get()[end - 1] == '\r') --end;
      line_start_ = offset_;
      offset_ += static_cast<int64_t>(newline + 1 - pos_);
      pos_ = newline + 1;
      if (max_line_bytes_ > 0 &&
          static_cast<int64_t>(end - begin) > max_line_bytes_) {
        oversized_line_bytes_ = static_cast<int64_t>(end - begin);
        begin = end;
      }
      return true;
    }
    if (max_line_bytes_ > 0 &&
        static_cast<int64_t>(size_ - pos_) > max_line_bytes_) {
      line_start_ = offset_;
      if (absl::Status skipped = SkipOversizedLine(); !skipped.ok()) {
        return skipped;
      }
      begin = end = pos_;
      return true;
    }
    // Fill() moves the unconsumed bytes to the front of the block.
    searched = size_ - pos_;
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    if (*more) continue;
    if (pos_ == size_) return false;
    begin = pos_;
    end = size_;
    line_start_ = offset_;
    offset_ += static_cast<int64_t>(size_ - pos_);
    pos_ = size_;
    return true;
  }
}

absl::StatusOr<bool> LineReader::Next(std::string& line) {
  size_t begin = 0;
  size_t end = 0;
  absl::StatusOr<bool> found = NextLine(begin, end);
  if (!found.ok() || !*found) return found;
  line.assign(block_.get() + begin, end - begin);
  return true;
}

absl::StatusOr<bool> LineReader::Next(json::PaddedBytes& line) {
  size_t begin = 0;
  size_t end = 0;
  absl::StatusOr<bool> found = NextLine(begin, end);
  if (!found.ok() || !*found) return found;
  // The rest of the block, then its padding, follow the line.
  line = json::PaddedBytes(block_, block_.get() + begin, end - begin);
  return true;
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
