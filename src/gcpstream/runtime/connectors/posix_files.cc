#include "gcpstream/runtime/connectors/posix_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace gcpstream::runtime {

absl::Status ErrnoStatus(absl::string_view what, absl::string_view path) {
  const int error = errno;
  const std::string message =
      absl::StrCat(what, " '", path, "': ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) {
    return absl::PermissionDeniedError(message);
  }
  return absl::InternalError(message);
}

absl::Status WriteAll(int fd, std::string* data, absl::string_view path) {
  size_t written = 0;
  while (written < data->size()) {
    const ssize_t n = write(fd, data->data() + written, data->size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status status = ErrnoStatus("cannot write", path);
      data->erase(0, written);
      return status;
    }
    written += static_cast<size_t>(n);
  }
  data->clear();
  return absl::OkStatus();
}

absl::Status SyncFile(int fd, absl::string_view path) {
  if (fsync(fd) != 0) return ErrnoStatus("cannot fsync", path);
  return absl::OkStatus();
}

absl::Status SyncDirectory(const std::string& directory) {
  const int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open directory", directory);
  absl::Status status = SyncFile(fd, directory);
  close(fd);
  return status;
}

absl::Status CreateDirectories(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot create directory '",
                                            directory, "': ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::runtime
