#ifndef GCPSTREAM_ICEBERG_IO_GCS_FILE_IO_H_
#define GCPSTREAM_ICEBERG_IO_GCS_FILE_IO_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/storage/gcs_uri.h"
#include "gcpstream/storage/storage_client.h"

namespace gcpstream::iceberg {

// `gs://bucket/object` files through the Cloud Storage client: sizes from
// the object's metadata, reads as ranged reads (a Parquet footer costs two
// small reads, never the whole file), writes as uploads.
class GcsFileIO final : public FileIO {
 public:
  explicit GcsFileIO(std::shared_ptr<storage::StorageClient> client)
      : client_(std::move(client)) {}
  absl::StatusOr<int64_t> Size(const std::string& uri) override;
  absl::StatusOr<std::string> Read(const std::string& uri, int64_t offset,
                                   int64_t length) override;
  absl::Status Write(const std::string& uri, const std::string& bytes) override;
  // An upload with ifGenerationMatch=0.
  absl::Status WriteNew(const std::string& uri,
                        const std::string& bytes) override;
  absl::StatusOr<std::vector<std::string>> ListDirectory(
      const std::string& directory_uri) override;

 private:
  std::shared_ptr<storage::StorageClient> client_;
};

// Local paths and `file:` URIs locally, `gs://` URIs on Cloud Storage (the
// client made on first use by storage::StorageClientFor(`storage`):
// STORAGE_EMULATOR_HOST, else production with the credentials).
class SchemeFileIO final : public FileIO {
 public:
  explicit SchemeFileIO(rest::RestTargetOptions storage = {})
      : storage_(std::move(storage)) {}

  absl::StatusOr<int64_t> Size(const std::string& path) override;
  absl::StatusOr<std::string> Read(const std::string& path, int64_t offset,
                                   int64_t length) override;
  absl::Status Write(const std::string& path,
                     const std::string& bytes) override;
  absl::Status WriteNew(const std::string& path,
                        const std::string& bytes) override;
  absl::StatusOr<std::vector<std::string>> ListDirectory(
      const std::string& directory) override;

 private:
  absl::StatusOr<FileIO*> For(const std::string& path);

  const rest::RestTargetOptions storage_;
  LocalFileIO local_;
  std::unique_ptr<GcsFileIO> gcs_;
};

using storage::ParseGcsUri;

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_IO_GCS_FILE_IO_H_
