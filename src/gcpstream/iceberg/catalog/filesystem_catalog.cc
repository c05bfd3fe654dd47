#include "gcpstream/iceberg/catalog/filesystem_catalog.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gcpstream/iceberg/io/gcs_file_io.h"
#include "gcpstream/iceberg/io/random_ids.h"
#include "spdlog/spdlog.h"

namespace gcpstream::iceberg {
namespace {

std::string VersionFile(const std::string& metadata_dir, int version) {
  return absl::StrCat(metadata_dir, "/v", version, ".metadata.json");
}

int64_t NowMillis() { return absl::ToUnixMillis(absl::Now()); }

// Whether `path` exists; errors other than NotFound are errors (an
// unreachable store must not look like an older table).
absl::StatusOr<bool> Exists(FileIO& io, const std::string& path) {
  absl::StatusOr<int64_t> size = io.Size(path);
  if (size.ok()) return true;
  if (size.status().code() == absl::StatusCode::kNotFound) return false;
  return size.status();
}

// The highest version in the directory; 0 when there is none.
absl::StatusOr<int> HighestVersionListed(FileIO& io,
                                         const std::string& metadata_dir) {
  absl::StatusOr<std::vector<std::string>> names =
      io.ListDirectory(metadata_dir);
  if (!names.ok()) return names.status();
  int highest = 0;
  for (const std::string& file_name : *names) {
    absl::string_view name = file_name;
    int version = 0;
    if (absl::ConsumePrefix(&name, "v") &&
        absl::ConsumeSuffix(&name, ".metadata.json") &&
        absl::SimpleAtoi(name, &version)) {
      highest = std::max(highest, version);
    }
  }
  return highest;
}

// Locations written into metadata must not depend on where the writer ran:
// a relative warehouse is made absolute (URIs are kept as given, without a
// trailing slash).
std::string AbsoluteWarehouse(std::string warehouse) {
  if (absl::StrContains(warehouse, "://") || warehouse.empty()) {
    while (absl::EndsWith(warehouse, "/") &&
           !absl::EndsWith(warehouse, "://")) {
      warehouse.pop_back();
    }
    return warehouse;
  }
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(warehouse, error);
  if (error) return warehouse;
  std::string out = absolute.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

FilesystemCatalog::FilesystemCatalog(std::string warehouse,
                                     std::shared_ptr<FileIO> io)
    : warehouse_(AbsoluteWarehouse(std::move(warehouse))),
      io_(io != nullptr ? std::move(io) : std::make_shared<SchemeFileIO>()) {}

std::string FilesystemCatalog::TableLocation(
    const TableIdentifier& table) const {
  std::string location = warehouse_;
  for (const std::string& level : table.namespace_levels) {
    absl::StrAppend(&location, "/", level);
  }
  return absl::StrCat(location, "/", table.name);
}

absl::StatusOr<int> FilesystemCatalog::LatestFrom(
    const std::string& metadata_dir, int version) const {
  // The hint is rewritten after the commit point: it may lag.
  while (true) {
    absl::StatusOr<bool> next =
        Exists(*io_, VersionFile(metadata_dir, version + 1));
    if (!next.ok()) return next.status();
    if (!*next) return version;
    ++version;
  }
}

absl::StatusOr<LoadedTable> FilesystemCatalog::Load(
    const TableIdentifier& table) {
  const std::string metadata_dir = TableLocation(table) + "/metadata";
  int version = 0;
  absl::StatusOr<std::string> hint =
      ReadAll(*io_, metadata_dir + "/version-hint.text");
  if (!hint.ok() && hint.status().code() != absl::StatusCode::kNotFound) {
    return hint.status();
  }
  if (!hint.ok() ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(*hint), &version)) {
    absl::StatusOr<int> listed = HighestVersionListed(*io_, metadata_dir);
    if (!listed.ok()) return listed.status();
    version = *listed;
  }
  absl::StatusOr<int> latest = LatestFrom(metadata_dir, version);
  if (!latest.ok()) return latest.status();
  version = *latest;
  LoadedTable loaded;
  loaded.version = version;
  loaded.metadata_file = VersionFile(metadata_dir, version);
  absl::StatusOr<std::string> json = version == 0
                                         ? absl::NotFoundError("")
                                         : ReadAll(*io_, loaded.metadata_file);
  if (json.status().code() == absl::StatusCode::kNotFound) {
    return absl::NotFoundError(absl::StrCat(
        "table ", TableLocation(table), " does not exist (no metadata file)"));
  }
  if (!json.ok()) return json.status();
  absl::StatusOr<TableMetadata> metadata = TableMetadataFromJson(*json);
  if (!metadata.ok()) {
    return absl::Status(
        metadata.status().code(),
        absl::StrCat(loaded.metadata_file, ": ", metadata.status().message()));
  }
  loaded.metadata = *std::move(metadata);
  return loaded;
}

absl::StatusOr<LoadedTable> FilesystemCatalog::Create(
    const TableIdentifier& table, const TableCreation& creation) {
  TableMetadata metadata = NewTableMetadata(
      RandomUuid(), TableLocation(table), creation.schema,
      creation.last_column_id, creation.properties, NowMillis());
  metadata.partition_specs = {creation.spec};
  metadata.partition_specs[0].spec_id = 0;
  for (const PartitionField& field : creation.spec.fields) {
    metadata.last_partition_id =
        std::max(metadata.last_partition_id, field.field_id);
  }
  return CreateMetadata(table, std::move(metadata));
}

absl::StatusOr<LoadedTable> FilesystemCatalog::Commit(
    const TableIdentifier& table, const LoadedTable& base,
    const TableChange& change) {
  return CommitMetadata(table, base,
                        ApplyTableChange(base.metadata, change, NowMillis()));
}

absl::StatusOr<LoadedTable> FilesystemCatalog::CreateMetadata(
    const TableIdentifier& table, TableMetadata metadata) {
  if (Load(table).ok()) {
    return absl::AbortedError(
        absl::StrCat("table ", TableLocation(table), " already exists"));
  }
  return Write(table, 1, std::move(metadata));
}

absl::StatusOr<LoadedTable> FilesystemCatalog::CommitMetadata(
    const TableIdentifier& table, const LoadedTable& base,
    TableMetadata updated) {
  updated.metadata_log.push_back(
      {base.metadata.last_updated_ms, base.metadata_file});
  return Write(table, base.version + 1, std::move(updated));
}

absl::StatusOr<LoadedTable> FilesystemCatalog::Write(
    const TableIdentifier& table, int version, TableMetadata metadata) const {
  const std::string metadata_dir = TableLocation(table) + "/metadata";
  const std::string target = VersionFile(metadata_dir, version);
  // The commit point.
  absl::Status committed = io_->WriteNew(target, TableMetadataToJson(metadata));
  if (committed.code() == absl::StatusCode::kAlreadyExists) {
    return absl::AbortedError(absl::StrCat(
        target,
        " was committed by another writer first; reload the table and "
        "retry"));
  }
  if (!committed.ok()) {
    return absl::Status(
        committed.code(),
        absl::StrCat(target, ": cannot commit: ", committed.message()));
  }
  // Best effort: readers find a later version even when the hint lags.
  if (absl::Status hinted = io_->Write(metadata_dir + "/version-hint.text",
                                       absl::StrCat(version));
      !hinted.ok()) {
    spdlog::warn("{}: version hint not updated: {}", metadata_dir,
                 hinted.ToString());
  }
  LoadedTable loaded;
  loaded.version = version;
  loaded.metadata_file = target;
  loaded.metadata = std::move(metadata);
  return loaded;
}

}  // namespace gcpstream::iceberg
