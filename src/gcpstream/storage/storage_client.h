#ifndef GCPSTREAM_STORAGE_STORAGE_CLIENT_H_
#define GCPSTREAM_STORAGE_STORAGE_CLIENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/rest/rest_client.h"

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

struct UploadOptions {
  std::string content_type = "application/octet-stream";
  // ifGenerationMatch: 0 creates only if the object does not exist (the
  // object-store form of a no-replace link); N replaces only generation N.
  // A failed condition is FAILED_PRECONDITION.
  std::optional<int64_t> if_generation_match;
};

// Cloud Storage through its JSON API, on a RestClient (so tokens, retries
// and the HTTP-to-gRPC mapping are the client's). Contents are checked with
// CRC32C both ways: an upload sends the checksum for the service to verify
// and compares the one it answers; a whole-object read compares the
// object's checksum with the bytes read. A mismatch is DATA_LOSS. Object
// names are any bytes; they are percent-encoded here. Resumable uploads
// are not here yet (docs/authentication.md).
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
  rest::RestClient client_;
};

// The client the environment asks for: STORAGE_EMULATOR_HOST (host:port
// or http://host:port) means the emulator, plaintext and without
// credentials; otherwise https://storage.googleapis.com with the process's
// application-default credentials (auth::DefaultTokenSource, one cache per
// process).
absl::StatusOr<StorageClient> StorageClientFromEnvironment();

// `text` percent-encoded for one URL path segment or query value.
std::string PercentEncode(absl::string_view text);

}  // namespace gcpstream::storage

#endif  // GCPSTREAM_STORAGE_STORAGE_CLIENT_H_
