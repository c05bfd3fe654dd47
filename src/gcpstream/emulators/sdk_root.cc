#include "gcpstream/emulators/sdk_root.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gcpstream::emulators {
namespace {

namespace fs = std::filesystem;

bool LooksLikeSdkRoot(const fs::path& root) {
  std::error_code error;
  return fs::exists(root / "bin" / "gcloud", error) &&
         fs::is_directory(root / "platform", error);
}

// `gcloud` on PATH is usually a symlink into <root>/bin; resolving it avoids
// running `gcloud info`, which starts a Python interpreter.
std::optional<fs::path> RootOfGcloudOnPath() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::error_code error;
    const fs::path candidate = fs::path(std::string(dir)) / "gcloud";
    if (!fs::exists(candidate, error)) continue;
    const fs::path resolved = fs::canonical(candidate, error);
    if (error) continue;
    fs::path root = resolved.parent_path().parent_path();
    if (LooksLikeSdkRoot(root)) return root;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::string> FindGcloudSdkRoot() {
  if (const char* forced = std::getenv("GCPSTREAM_GCLOUD_SDK_ROOT");
      forced != nullptr && *forced != '\0') {
    if (!LooksLikeSdkRoot(forced)) {
      return absl::NotFoundError(absl::StrCat(
          "GCPSTREAM_GCLOUD_SDK_ROOT='", forced,
          "' is not a Google Cloud SDK root (no bin/gcloud and platform/)"));
    }
    return std::string(forced);
  }
  if (auto root = RootOfGcloudOnPath()) return root->string();
  const fs::path debian_root = "/usr/lib/google-cloud-sdk";
  if (LooksLikeSdkRoot(debian_root)) return debian_root.string();
  return absl::NotFoundError(
      "Google Cloud SDK not found: install the Debian packages "
      "google-cloud-cli-pubsub-emulator, google-cloud-cli-spanner-emulator "
      "and google-cloud-cli-bigtable-emulator, or set "
      "GCPSTREAM_GCLOUD_SDK_ROOT (`gcloud info` prints the installation "
      "root)");
}

}  // namespace gcpstream::emulators
