#ifndef GCPSTREAM_RUNTIME_CONNECTORS_LINE_READER_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_LINE_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/json/padded_bytes.h"

namespace gcpstream::runtime {

// Reads a file line by line and knows the byte offset of the next unread
// line, which is what a file source checkpoints.
//
// A line ends at '\n'; a '\r' right before it belongs to the terminator, so
// files written on Windows read the same. A last line without '\n' is a line
// too. The file is read through its own buffer with pread(), so offsets are
// exact whatever the line lengths. Lines are cut from read blocks of about
// 1 MiB that they can share instead of being copied one by one.
class LineReader {
 public:
  // Opens `path` to read from `offset`, which must be 0 or just after a
  // '\n': anything else means the file changed since the offset was taken,
  // and resuming there would emit a partial line. Errors name the path.
  // A line longer than `max_line_bytes` (0: no limit) is not held in
  // memory: Next() passes over it and returns it empty, with
  // oversized_line_bytes() telling its length.
  static absl::StatusOr<LineReader> Open(std::string path, int64_t offset,
                                         int64_t max_line_bytes = 0);

  LineReader(LineReader&& other) noexcept;
  LineReader& operator=(LineReader&& other) noexcept;
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader();

  // The next line, without its terminator, into `line`; false at end of
  // file (and then `line` is untouched).
  absl::StatusOr<bool> Next(std::string& line);
  // The same without a copy: `line` shares the block it was read into.
  absl::StatusOr<bool> Next(json::PaddedBytes& line);

  // Offset of the next unread line.
  int64_t offset() const { return offset_; }
  // Offset of the line Next() returned last.
  int64_t line_start() const { return line_start_; }
  // The length of the line Next() returned last if it exceeded the limit
  // (it was returned empty), else 0.
  int64_t oversized_line_bytes() const { return oversized_line_bytes_; }

  // The 1-based number of the line that starts at `offset`. Counts from the
  // start of the file, so only for error messages: a reader restored at an
  // offset does not know how many lines precede it.
  absl::StatusOr<int64_t> LineNumberAt(int64_t offset) const;

  const std::string& path() const { return path_; }

 private:
  LineReader(std::string path, int fd, int64_t offset)
      : path_(std::move(path)),
        fd_(fd),
        offset_(offset),
        line_start_(offset),
        buffer_offset_(offset) {}

  // Finds the next line: [begin, end) in the block, end before the
  // terminator; false at end of file.
  absl::StatusOr<bool> NextLine(size_t& begin, size_t& end);
  // Reads on to the end of the line that began at line_start_ without
  // keeping it, once it has outgrown the limit.
  absl::Status SkipOversizedLine();
  // Reads more after the unconsumed bytes, moving them to the front of the
  // block, or of a new one when lines still share it; false at end of file.
  absl::StatusOr<bool> Fill();
  // A retired block of the standard size that no line holds any more.
  std::shared_ptr<char[]> TakeFreeBlock(size_t wanted);

  std::string path_;
  int fd_ = -1;
  int64_t offset_ = 0;
  int64_t line_start_ = 0;
  int64_t max_line_bytes_ = 0;
  int64_t oversized_line_bytes_ = 0;
  // block_[0] is the byte at buffer_offset_; bytes before pos_ are consumed,
  // bytes from size_ on are not read yet. capacity_ leaves room for the
  // padding after it.
  std::shared_ptr<char[]> block_;
  std::vector<std::shared_ptr<char[]>> retired_;
  size_t capacity_ = 0;
  size_t size_ = 0;
  size_t pos_ = 0;
  int64_t buffer_offset_ = 0;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_LINE_READER_H_
