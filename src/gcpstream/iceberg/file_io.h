#ifndef GCPSTREAM_ICEBERG_FILE_IO_H_
#define GCPSTREAM_ICEBERG_FILE_IO_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace gcpstream::iceberg {

// Reads the files add-files registers and the table's metadata, whatever
// holds them: local paths here; `gs://` objects through the same interface.
class FileIO {
 public:
  virtual ~FileIO() = default;
  // The file's size in bytes; NotFound when it does not exist.
  virtual absl::StatusOr<int64_t> Size(const std::string& path) = 0;
  // `length` bytes from `offset`; OutOfRange when the file is shorter.
  virtual absl::StatusOr<std::string> Read(const std::string& path,
                                           int64_t offset, int64_t length) = 0;
};

// Local files, by path.
class LocalFileIO final : public FileIO {
 public:
  absl::StatusOr<int64_t> Size(const std::string& path) override;
  absl::StatusOr<std::string> Read(const std::string& path, int64_t offset,
                                   int64_t length) override;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_FILE_IO_H_
