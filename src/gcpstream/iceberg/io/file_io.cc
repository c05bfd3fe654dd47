#include "gcpstream/iceberg/io/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gcpstream/iceberg/io/random_ids.h"

namespace gcpstream::iceberg {
std::string LocalPath(const std::string& uri) {
  absl::string_view path = uri;
  // `file:///tmp/x` (URIs) and `file:/tmp/x` (Hadoop's spelling) alike.
  if (absl::ConsumePrefix(&path, "file:")) absl::ConsumePrefix(&path, "//");
  return std::string(path);
}

absl::StatusOr<int64_t> LocalFileIO::Size(const std::string& path_or_uri) {
  const std::string path = LocalPath(path_or_uri);
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error == std::errc::no_such_file_or_directory) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  }
  if (error == std::errc::is_a_directory ||
      (error && std::filesystem::is_directory(path))) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": is a directory, not a Parquet file (Spark names its output "
        "directories *.parquet): list the part files inside it instead"));
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot read its size: ", error.message()));
  }
  return static_cast<int64_t>(size);
}

absl::StatusOr<std::string> LocalFileIO::Read(const std::string& path_or_uri,
                                              int64_t offset, int64_t length) {
  const std::string path = LocalPath(path_or_uri);
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

absl::StatusOr<std::string> LocalFileIO::Stage(const std::string& path,
                                               const std::string& bytes) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(),
                                      error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot create its directory: ", error.message()));
  }
  std::string staged = absl::StrCat(path, ".", RandomUuid(), ".tmp");
  std::ofstream out(staged, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) {
    const int write_error = errno;
    std::filesystem::remove(staged, error);
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot write: ", std::strerror(write_error)));
  }
  return staged;
}

absl::Status LocalFileIO::Write(const std::string& path_or_uri,
                                const std::string& bytes) {
  const std::string path = LocalPath(path_or_uri);
  absl::StatusOr<std::string> staged = Stage(path, bytes);
  if (!staged.ok()) return staged.status();
  std::error_code error;
  std::filesystem::rename(*staged, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(*staged, ignored);
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot write: ", error.message()));
  }
  return absl::OkStatus();
}

absl::Status LocalFileIO::WriteNew(const std::string& path_or_uri,
                                   const std::string& bytes) {
  const std::string path = LocalPath(path_or_uri);
  absl::StatusOr<std::string> staged = Stage(path, bytes);
  if (!staged.ok()) return staged.status();
  // link() fails rather than replace (POSIX rename would replace).
  const int linked = link(staged->c_str(), path.c_str());
  const int link_error = errno;
  unlink(staged->c_str());
  if (linked == 0) return absl::OkStatus();
  if (link_error == EEXIST) {
    return absl::AlreadyExistsError(absl::StrCat(path, ": already exists"));
  }
  return absl::UnavailableError(
      absl::StrCat(path, ": cannot create: ", std::strerror(link_error)));
}

absl::StatusOr<std::vector<std::string>> LocalFileIO::ListDirectory(
    const std::string& directory) {
  std::vector<std::string> names;
  std::error_code error;
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator(LocalPath(directory), error)) {
    if (entry.is_regular_file()) {
      names.push_back(entry.path().filename().string());
    }
  }
  if (error && error != std::errc::no_such_file_or_directory) {
    return absl::UnavailableError(
        absl::StrCat(directory, ": cannot list: ", error.message()));
  }
  return names;
}

absl::StatusOr<std::string> ReadAll(FileIO& io, const std::string& path) {
  absl::StatusOr<int64_t> size = io.Size(path);
  if (!size.ok()) return size.status();
  return io.Read(path, 0, *size);
}

}  // namespace gcpstream::iceberg
