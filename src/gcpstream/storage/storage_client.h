#ifndef GCPSTREAM_STORAGE_STORAGE_CLIENT_H_
#define GCPSTREAM_STORAGE_STORAGE_CLIENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/rest/rest_client.h"
#include "gcpstream/rest/rest_target.h"

namespace gcpstream::storage {

// What the JSON API says of an object.
struct ObjectMetadata {
  std::string bucket;
  std::string name;
  int64_t size = 0;
  int64_t generation = 0;
  std::optional<uint32_t> crc32c;
  std::string content_type;
};

// How an object's bytes travel.
enum class UploadType {
  // Multipart up to `resumable_threshold` bytes, resumable above.
  kAuto,
  // uploadType=media: one request, no metadata. The service cannot check
  // a checksum before it stores the object, so a mismatch found in its
  // answer deletes that generation and fails.
  kSimple,
  // uploadType=multipart: metadata (with the CRC32C the service checks)
  // and bytes in one request.
  kMultipart,
  // uploadType=resumable: a session, then chunks. A chunk whose exchange
  // breaks is not resent blindly: the service is asked how much it kept
  // and the upload goes on from there.
  kResumable,
};

struct UploadOptions {
  std::string content_type = "application/octet-stream";
  // ifGenerationMatch: 0 creates only if the object does not exist (the
  // object-store form of a no-replace link); N replaces only generation N.
  // A failed condition is FAILED_PRECONDITION.
  std::optional<int64_t> if_generation_match = std::nullopt;
  UploadType type = UploadType::kAuto;
  int64_t resumable_threshold = int64_t{32} << 20;
  // Bytes per resumable request: a multiple of 256 KiB, as the service
  // requires of every chunk but the last.
  int64_t chunk_size = int64_t{16} << 20;
};

// Cloud Storage through its JSON API, on a RestClient (so tokens, retries
// and the HTTP-to-gRPC mapping are the client's). Contents are checked with
// CRC32C both ways: an upload sends the checksum for the service to verify
// and compares the one it answers; a whole-object read compares the
// object's checksum with the bytes read. A mismatch is DATA_LOSS. Object
// names are any bytes; they are percent-encoded here.
class StorageClient {
 public:
  explicit StorageClient(rest::RestClient client)
      : client_(std::move(client)) {}

  absl::StatusOr<ObjectMetadata> Upload(const std::string& bucket,
                                        const std::string& name,
                                        const std::string& data,
                                        const UploadOptions& options = {});
  absl::StatusOr<ObjectMetadata> Stat(const std::string& bucket,
                                      const std::string& name);
  // The whole object, checked against its CRC32C.
  absl::StatusOr<std::string> Read(const std::string& bucket,
                                   const std::string& name);
  // `length` bytes from `offset` (fewer at the end of the object); a range
  // is not checksummed (the service gives checksums of whole objects).
  absl::StatusOr<std::string> ReadRange(const std::string& bucket,
                                        const std::string& name, int64_t offset,
                                        int64_t length);
  // Every object whose name starts with `prefix`, in name order.
  absl::StatusOr<std::vector<ObjectMetadata>> List(const std::string& bucket,
                                                   const std::string& prefix);
  absl::Status Delete(const std::string& bucket, const std::string& name);
  // `destination` made of `sources` (at most 32), in order.
  absl::StatusOr<ObjectMetadata> Compose(
      const std::string& bucket, const std::vector<std::string>& sources,
      const std::string& destination);

 private:
  absl::StatusOr<ObjectMetadata> UploadSimple(const std::string& bucket,
                                              const std::string& name,
                                              const std::string& data,
                                              const UploadOptions& options);
  absl::StatusOr<ObjectMetadata> UploadMultipart(const std::string& bucket,
                                                 const std::string& name,
                                                 const std::string& data,
                                                 const UploadOptions& options);
  absl::StatusOr<ObjectMetadata> UploadResumable(const std::string& bucket,
                                                 const std::string& name,
                                                 const std::string& data,
                                                 const UploadOptions& options);
  // The uploaded object's metadata, its CRC32C compared with `data`'s.
  static absl::StatusOr<ObjectMetadata> CheckUploaded(
      const std::string& bucket, const std::string& name,
      const std::string& data, const std::string& answer);

  rest::RestClient client_;
};

// The client `options` ask for (rest::ResolveRestTarget):
// STORAGE_EMULATOR_HOST (host:port or http://host:port) means the
// emulator, plaintext and without credentials; otherwise
// https://storage.googleapis.com with the credentials' tokens (by default
// the process's application-default credentials, one cache per process).
// Cloud Storage's JSON API, for rest::ResolveRestTarget.
rest::RestService StorageRestService();

absl::StatusOr<StorageClient> StorageClientFor(
    const rest::RestTargetOptions& options = {});

// The object metadata in a JSON API answer.
absl::StatusOr<ObjectMetadata> ObjectMetadataFromJson(const std::string& body);

// "/upload/storage/v1/b/<bucket>/o?uploadType=<type>" with the options'
// generation condition.
std::string UploadPath(const std::string& bucket, absl::string_view type,
                       const UploadOptions& options);

// `text` percent-encoded for one URL path segment or query value.
std::string PercentEncode(absl::string_view text);

}  // namespace gcpstream::storage

#endif  // GCPSTREAM_STORAGE_STORAGE_CLIENT_H_
