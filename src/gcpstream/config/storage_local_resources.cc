// `local:` Cloud Storage buckets for `gcpstream run --local`: created on the
// Cloud Storage emulator before the run (a file-loads BigQuery sink stages
// its files there); after it, the objects left in each are counted.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/storage/storage_client.h"

namespace gcpstream::config {
namespace {

class StorageLocalResources final : public LocalResource {
 public:
  std::vector<emulators::EmulatorKind> Emulators() const override {
    return {emulators::EmulatorKind::kStorage};
  }
  std::vector<std::string> Declared() const override {
    std::vector<std::string> lines;
    lines.reserve(buckets.size());
    for (const std::string& bucket : buckets) {
      lines.push_back(absl::StrCat("storage bucket ", bucket));
    }
    return lines;
  }
  absl::Status Provision(const std::string& project) const override {
    absl::StatusOr<rest::RestClientOptions> options =
        rest::ResolveRestTarget(storage::StorageRestService(), {});
    if (!options.ok()) return options.status();
    const rest::RestClient client(*std::move(options));
    for (const std::string& bucket : buckets) {
      absl::StatusOr<http::HttpResponse> created =
          client.Send({.method = "POST",
                       .path = absl::StrCat("/storage/v1/b?project=",
                                            storage::PercentEncode(project)),
                       .headers = {"Content-Type: application/json"},
                       .body = nlohmann::json{{"name", bucket}}.dump(),
                       .idempotent = false});
      // 409 (ABORTED): it exists already.
      if (!created.ok() &&
          created.status().code() != absl::StatusCode::kAborted) {
        return absl::Status(created.status().code(),
                            absl::StrCat("creating storage bucket ", bucket,
                                         ": ", created.status().message()));
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
      const std::string& /*project*/) const override {
    absl::StatusOr<storage::StorageClient> client = storage::StorageClientFor();
    if (!client.ok()) return client.status();
    std::vector<std::string> lines;
    for (const std::string& bucket : buckets) {
      absl::StatusOr<std::vector<storage::ObjectMetadata>> objects =
          client->List(bucket, "");
      if (!objects.ok()) return objects.status();
      lines.push_back(absl::StrCat("storage bucket ", bucket, ": ",
                                   objects->size(), " objects"));
    }
    return lines;
  }

  std::vector<std::string> buckets;
};

absl::StatusOr<std::shared_ptr<const LocalResource>> ReadStorageLocal(
    OptionMap& local) {
  absl::StatusOr<std::optional<std::vector<OptionMap>>> entries =
      local.MapList("storage-buckets");
  if (!entries.ok()) return entries.status();
  if (!entries->has_value() || (*entries)->empty()) {
    return std::shared_ptr<const LocalResource>();
  }
  auto resources = std::make_shared<StorageLocalResources>();
  for (OptionMap& entry : **entries) {
    absl::StatusOr<std::string> bucket = entry.RequiredString("bucket");
    if (!bucket.ok()) return bucket.status();
    if (absl::Status status = entry.CheckNoUnknownKeys(); !status.ok()) {
      return status;
    }
    resources->buckets.push_back(*bucket);
  }
  return std::shared_ptr<const LocalResource>(std::move(resources));
}

const RegisterLocalResource kStorageLocal("storage", ReadStorageLocal);

}  // namespace
}  // namespace gcpstream::config
