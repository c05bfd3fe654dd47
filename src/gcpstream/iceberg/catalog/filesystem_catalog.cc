#include "gcpstream/iceberg/catalog/filesystem_catalog.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gcpstream/iceberg/io/random_ids.h"
#include "spdlog/spdlog.h"

namespace gcpstream::iceberg {
namespace {

namespace fs = std::filesystem;

std::string VersionFile(const std::string& metadata_dir, int version) {
  return absl::StrCat(metadata_dir, "/v", version, ".metadata.json");
}

int64_t NowMillis() { return absl::ToUnixMillis(absl::Now()); }

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot write: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// The highest version on disk; 0 when there is none.
int HighestVersionOnDisk(const std::string& metadata_dir) {
  int highest = 0;
  std::error_code error;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(metadata_dir, error)) {
    const std::string file_name = entry.path().filename().string();
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
// a relative warehouse is made absolute (URIs are kept as given).
std::string AbsoluteWarehouse(std::string warehouse) {
  if (absl::StrContains(warehouse, "://") || warehouse.empty()) {
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

FilesystemCatalog::FilesystemCatalog(std::string warehouse)
    : warehouse_(AbsoluteWarehouse(std::move(warehouse))) {}

std::string FilesystemCatalog::TableLocation(
    const TableIdentifier& table) const {
  std::string location = warehouse_;
  for (const std::string& level : table.namespace_levels) {
    absl::StrAppend(&location, "/", level);
  }
  return absl::StrCat(location, "/", table.name);
}

absl::StatusOr<LoadedTable> FilesystemCatalog::Load(
    const TableIdentifier& table) {
  const std::string metadata_dir = TableLocation(table) + "/metadata";
  int version = 0;
  absl::StatusOr<std::string> hint =
      ReadFile(metadata_dir + "/version-hint.text");
  if (!hint.ok() ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(*hint), &version)) {
    version = HighestVersionOnDisk(metadata_dir);
  }
  // The hint is rewritten after the commit point: it may lag.
  while (fs::exists(VersionFile(metadata_dir, version + 1))) ++version;
  if (version == 0 || !fs::exists(VersionFile(metadata_dir, version))) {
    return absl::NotFoundError(absl::StrCat(
        "table ", TableLocation(table), " does not exist (no metadata file)"));
  }
  LoadedTable loaded;
  loaded.version = version;
  loaded.metadata_file = VersionFile(metadata_dir, version);
  absl::StatusOr<std::string> json = ReadFile(loaded.metadata_file);
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
  std::error_code error;
  fs::create_directories(metadata_dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat(metadata_dir, ": cannot create: ", error.message()));
  }
  const std::string staged =
      absl::StrCat(metadata_dir, "/", RandomUuid(), ".metadata.json.tmp");
  if (absl::Status written = WriteFile(staged, TableMetadataToJson(metadata));
      !written.ok()) {
    return written;
  }
  const std::string target = VersionFile(metadata_dir, version);
  // The commit point: link() fails rather than replace an existing version.
  const int linked = link(staged.c_str(), target.c_str());
  const int link_error = errno;
  unlink(staged.c_str());
  if (linked != 0) {
    if (link_error == EEXIST) {
      return absl::AbortedError(absl::StrCat(
          target,
          " was committed by another writer first; reload the table "
          "and retry"));
    }
    return absl::UnavailableError(
        absl::StrCat(target, ": cannot commit: ", std::strerror(link_error)));
  }
  // Best effort: readers find a later version even when the hint lags.
  const std::string hint_staged = absl::StrCat(staged, ".hint");
  if (WriteFile(hint_staged, absl::StrCat(version)).ok()) {
    fs::rename(hint_staged, metadata_dir + "/version-hint.text", error);
    if (error) {
      spdlog::warn("{}: version hint not updated: {}", metadata_dir,
                   error.message());
    }
  }
  LoadedTable loaded;
  loaded.version = version;
  loaded.metadata_file = target;
  loaded.metadata = std::move(metadata);
  return loaded;
}

}  // namespace gcpstream::iceberg
