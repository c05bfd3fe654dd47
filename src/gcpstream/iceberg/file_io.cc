#include "gcpstream/iceberg/file_io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace gcpstream::iceberg {

absl::StatusOr<int64_t> LocalFileIO::Size(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error == std::errc::no_such_file_or_directory) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot read its size: ", error.message()));
  }
  return static_cast<int64_t>(size);
}

absl::StatusOr<std::string> LocalFileIO::Read(const std::string& path,
                                              int64_t offset, int64_t length) {
  if (offset < 0 || length < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": cannot read ", length, " bytes at offset ", offset));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return errno == ENOENT
               ? absl::NotFoundError(absl::StrCat(path, ": no such file"))
               : absl::UnavailableError(absl::StrCat(
                     path, ": cannot open: ", std::strerror(errno)));
  }
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (in.gcount() != length) {
    return absl::OutOfRangeError(
        absl::StrCat(path, ": wanted ", length, " bytes at offset ", offset,
                     ", the file ended after ", in.gcount()));
  }
  return bytes;
}

}  // namespace gcpstream::iceberg
