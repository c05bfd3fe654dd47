#ifndef GCPSTREAM_ICEBERG_IO_FILE_IO_H_
#define GCPSTREAM_ICEBERG_IO_FILE_IO_H_

#include <cstdint>
#include <string>
#include <vector>

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
  // Creates the file `path` with `bytes`, whole or not at all (readers
  // never see part of it). It replaces a file of that name: callers write
  // new files under unique names.
  virtual absl::Status Write(const std::string& path,
                             const std::string& bytes) = 0;
  // Like Write, but only if no file `path` exists: AlreadyExists otherwise,
  // also when another writer creates it at the same moment (exactly one of
  // them succeeds). The commit point of the filesystem catalog.
  virtual absl::Status WriteNew(const std::string& path,
                                const std::string& bytes) = 0;
  // The names of the files directly in `directory` (not in its
  // subdirectories); empty when it does not exist.
  virtual absl::StatusOr<std::vector<std::string>> ListDirectory(
      const std::string& directory) = 0;
};

// The whole file.
absl::StatusOr<std::string> ReadAll(FileIO& io, const std::string& path);

// The local path of `uri`: a path as it is; `file:///tmp/x` and Hadoop's
// `file:/tmp/x` as /tmp/x.
std::string LocalPath(const std::string& uri);

// Local files, by path or `file:` URI (as other writers record them).
class LocalFileIO final : public FileIO {
 public:
  absl::StatusOr<int64_t> Size(const std::string& path_or_uri) override;
  absl::StatusOr<std::string> Read(const std::string& path_or_uri,
                                   int64_t offset, int64_t length) override;
  absl::Status Write(const std::string& path_or_uri,
                     const std::string& bytes) override;
  absl::Status WriteNew(const std::string& path_or_uri,
                        const std::string& bytes) override;
  absl::StatusOr<std::vector<std::string>> ListDirectory(
      const std::string& directory) override;

 private:
  // Writes `bytes` to a new file beside `path` and returns its name: a
  // crash leaves no partial file under `path`.
  static absl::StatusOr<std::string> Stage(const std::string& path,
                                           const std::string& bytes);
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_IO_FILE_IO_H_
