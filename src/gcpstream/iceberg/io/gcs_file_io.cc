#include "gcpstream/iceberg/io/gcs_file_io.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gcpstream::iceberg {

absl::StatusOr<int64_t> GcsFileIO::Size(const std::string& uri) {
  auto parsed = ParseGcsUri(uri);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<storage::ObjectMetadata> metadata =
      client_->Stat(parsed->first, parsed->second);
  if (!metadata.ok()) return metadata.status();
  return metadata->size;
}

absl::StatusOr<std::string> GcsFileIO::Read(const std::string& uri,
                                            int64_t offset, int64_t length) {
  auto parsed = ParseGcsUri(uri);
  if (!parsed.ok()) return parsed.status();
  if (length == 0) return std::string();
  absl::StatusOr<std::string> bytes =
      client_->ReadRange(parsed->first, parsed->second, offset, length);
  if (!bytes.ok()) {
    // 416: the range starts past the end of the object.
    if (bytes.status().code() == absl::StatusCode::kOutOfRange) {
      return absl::OutOfRangeError(absl::StrCat(uri, ": cannot read ", length,
                                                " bytes at ", offset,
                                                ": the object is shorter"));
    }
    return bytes.status();
  }
  if (static_cast<int64_t>(bytes->size()) != length) {
    return absl::OutOfRangeError(absl::StrCat(uri, ": cannot read ", length,
                                              " bytes at ", offset,
                                              ": the object is shorter"));
  }
  return bytes;
}

absl::Status GcsFileIO::Write(const std::string& uri,
                              const std::string& bytes) {
  auto parsed = ParseGcsUri(uri);
  if (!parsed.ok()) return parsed.status();
  return client_->Upload(parsed->first, parsed->second, bytes).status();
}

absl::Status GcsFileIO::WriteNew(const std::string& uri,
                                 const std::string& bytes) {
  auto parsed = ParseGcsUri(uri);
  if (!parsed.ok()) return parsed.status();
  absl::Status uploaded = client_
                              ->Upload(parsed->first, parsed->second, bytes,
                                       {.if_generation_match = 0})
                              .status();
  if (uploaded.code() == absl::StatusCode::kFailedPrecondition) {
    return absl::AlreadyExistsError(absl::StrCat(uri, ": already exists"));
  }
  return uploaded;
}

absl::StatusOr<std::vector<std::string>> GcsFileIO::ListDirectory(
    const std::string& directory_uri) {
  std::string uri = directory_uri;
  if (!absl::EndsWith(uri, "/")) uri += '/';
  absl::string_view rest = uri;
  absl::ConsumePrefix(&rest, "gs://");
  const size_t slash = rest.find('/');
  if (!absl::StartsWith(uri, "gs://") || slash == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", directory_uri, "' is not a gs:// directory"));
  }
  const std::string bucket(rest.substr(0, slash));
  const std::string prefix(rest.substr(slash + 1));
  absl::StatusOr<std::vector<storage::ObjectMetadata>> objects =
      client_->List(bucket, prefix);
  if (!objects.ok()) return objects.status();
  std::vector<std::string> names;
  for (const storage::ObjectMetadata& object : *objects) {
    absl::string_view name = object.name;
    absl::ConsumePrefix(&name, prefix);
    if (!name.empty() && !absl::StrContains(name, '/')) {
      names.emplace_back(name);
    }
  }
  return names;
}

absl::StatusOr<FileIO*> SchemeFileIO::For(const std::string& path) {
  if (!absl::StartsWith(path, "gs://")) return &local_;
  if (gcs_ == nullptr) {
    absl::StatusOr<storage::StorageClient> client =
        storage::StorageClientFor(storage_);
    if (!client.ok()) return client.status();
    gcs_ = std::make_unique<GcsFileIO>(
        std::make_shared<storage::StorageClient>(*std::move(client)));
  }
  return gcs_.get();
}

absl::StatusOr<int64_t> SchemeFileIO::Size(const std::string& path) {
  absl::StatusOr<FileIO*> io = For(path);
  if (!io.ok()) return io.status();
  return (*io)->Size(path);
}

absl::StatusOr<std::string> SchemeFileIO::Read(const std::string& path,
                                               int64_t offset, int64_t length) {
  absl::StatusOr<FileIO*> io = For(path);
  if (!io.ok()) return io.status();
  return (*io)->Read(path, offset, length);
}

absl::Status SchemeFileIO::Write(const std::string& path,
                                 const std::string& bytes) {
  absl::StatusOr<FileIO*> io = For(path);
  if (!io.ok()) return io.status();
  return (*io)->Write(path, bytes);
}

absl::Status SchemeFileIO::WriteNew(const std::string& path,
                                    const std::string& bytes) {
  absl::StatusOr<FileIO*> io = For(path);
  if (!io.ok()) return io.status();
  return (*io)->WriteNew(path, bytes);
}

absl::StatusOr<std::vector<std::string>> SchemeFileIO::ListDirectory(
    const std::string& directory) {
  absl::StatusOr<FileIO*> io = For(directory);
  if (!io.ok()) return io.status();
  return (*io)->ListDirectory(directory);
}

}  // namespace gcpstream::iceberg
