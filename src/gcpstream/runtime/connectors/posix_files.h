#ifndef GCPSTREAM_RUNTIME_CONNECTORS_POSIX_FILES_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_POSIX_FILES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

// The few POSIX file operations the file sink needs to make data durable:
// std::filesystem and iostreams cannot fsync a file or a directory.

namespace gcpstream::runtime {

// A status for the current errno: "<what> '<path>': <strerror>", with
// NotFound / PermissionDenied / Internal by errno.
absl::Status ErrnoStatus(absl::string_view what, absl::string_view path);

// Writes all of `*data` to `fd`, retrying short writes and EINTR. On error
// `*data` keeps the bytes not written, so a retry neither loses nor repeats
// any.
absl::Status WriteAll(int fd, std::string* data, absl::string_view path);

absl::Status SyncFile(int fd, absl::string_view path);

// Makes the directory's entries (created, renamed or removed files) durable.
absl::Status SyncDirectory(const std::string& directory);

// mkdir -p; the error names the directory.
absl::Status CreateDirectories(const std::string& directory);

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_POSIX_FILES_H_
