#include "gcpstream/runtime/connectors/file_committer.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <set>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/connectors/file_committable.h"
#include "gcpstream/runtime/connectors/posix_files.h"

namespace gcpstream::runtime {
namespace {

absl::StatusOr<bool> Exists(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) return true;
  if (errno == ENOENT) return false;
  return ErrnoStatus("cannot stat", path);
}

std::string Parent(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent;
}

}  // namespace

absl::Status FileCommitter::Commit(
    int64_t checkpoint_id, const std::vector<std::string>& committables) {
  // Both sides of every rename: the new entry must be durable, and the old
  // one must not come back beside it.
  std::set<std::string> touched;
  for (const std::string& text : committables) {
    absl::StatusOr<FileCommittable> committable = FileCommittable::Decode(text);
    if (!committable.ok()) return committable.status();
    const std::string& temp = committable->temp_path;
    const std::string& final_path = committable->final_path;
    absl::StatusOr<bool> temp_exists = Exists(temp);
    if (!temp_exists.ok()) return temp_exists.status();
    absl::StatusOr<bool> final_exists = Exists(final_path);
    if (!final_exists.ok()) return final_exists.status();
    if (!*temp_exists && *final_exists) continue;  // Committed before.
    if (!*temp_exists) {
      return absl::DataLossError(absl::StrCat(
          "file sink commit of checkpoint ", checkpoint_id,
          ": neither the staged file '", temp, "' nor the final file '",
          final_path, "' exists; the records of that part file are lost"));
    }
    if (*final_exists) {
      return absl::FailedPreconditionError(absl::StrCat(
          "file sink commit of checkpoint ", checkpoint_id,
          ": the final file '", final_path,
          "' already exists beside the staged file '", temp,
          "'; refusing to overwrite it (is another job writing to the same "
          "directory?)"));
    }
    if (std::rename(temp.c_str(), final_path.c_str()) != 0) {
      return ErrnoStatus(absl::StrCat("cannot rename '", temp, "' to"),
                         final_path);
    }
    touched.insert(Parent(final_path));
    touched.insert(Parent(temp));
  }
  for (const std::string& directory : touched) {
    absl::Status synced = SyncDirectory(directory);
    if (!synced.ok()) return synced;
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::runtime
