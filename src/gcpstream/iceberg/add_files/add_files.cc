#include "gcpstream/iceberg/add_files/add_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/add_files/dry_run_report.h"
#include "gcpstream/iceberg/add_files/registration.h"
#include "gcpstream/iceberg/catalog/commit_retry.h"
#include "gcpstream/iceberg/catalog/data_commit.h"
#include "gcpstream/iceberg/evolution/window_schema.h"
#include "gcpstream/iceberg/parquet/field_ids.h"
#include "gcpstream/iceberg/parquet/parquet_schema.h"
#include "gcpstream/iceberg/spec/name_mapping.h"
#include "spdlog/spdlog.h"

namespace gcpstream::iceberg {
namespace {

// A local path made absolute, so the manifest names the file wherever
// readers run; URIs (`gs://`, `file://`) as given.
std::string NormalizedPath(const std::string& path) {
  if (absl::StrContains(path, "://")) return path;
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return path;
  return absolute.lexically_normal().string();
}

const PartitionSpec* DefaultSpec(const TableMetadata& table) {
  for (const PartitionSpec& spec : table.partition_specs) {
    if (spec.spec_id == table.default_spec_id) return &spec;
  }
  return nullptr;
}

// Failures one file has that other files do not: its error row. Anything
// else (the storage or the catalog unreachable) fails the run.
bool IsFileProblem(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

class Run {
 public:
  Run(Catalog& catalog, FileIO& io, const TableIdentifier& table,
      const AddFilesOptions& options)
      : catalog_(catalog), io_(io), table_(table), options_(options) {}

  absl::StatusOr<AddFilesResult> Execute(
      const std::vector<std::string>& paths) {
    if (absl::Status read = ReadFooters(paths); !read.ok()) return read;
    absl::StatusOr<std::optional<LoadedTable>> target =
        options_.evolution_enabled() ? EvolveSchema() : TableAsIs();
    if (!target.ok()) return target.status();
    if (!options_.dry_run && target->has_value()) {
      if (absl::Status added = Register(**target); !added.ok()) return added;
    }
    result_.counters.error_files = static_cast<int64_t>(result_.errors.size());
    return std::move(result_);
  }

 private:
  void Error(const std::string& file, absl::string_view error) {
    result_.errors.push_back(FileError{file, std::string(error)});
  }

  absl::Status ReadFooters(const std::vector<std::string>& paths) {
    std::set<std::string> seen;
    for (const std::string& given : paths) {
      const std::string path = NormalizedPath(given);
      if (!seen.insert(path).second) {
        // A repeat is a duplicate like a file the table holds already.
        if (options_.already_added == AlreadyAddedHandling::kSkip) {
          ++result_.counters.already_added_skipped;
        } else {
          Error(path, "listed more than once; registered once");
        }
        continue;
      }
      if (!absl::EndsWithIgnoreCase(path, ".parquet")) {
        Error(path,
              "could not determine the file's format: only Parquet files "
              "(*.parquet) can be added");
        continue;
      }
      ++result_.counters.files_read;
      FileToRegister file;
      file.path = path;
      absl::StatusOr<int64_t> size = io_.Size(path);
      absl::StatusOr<ParquetFooter> footer =
          size.ok() ? ReadParquetFooter(io_, path)
                    : absl::StatusOr<ParquetFooter>(size.status());
      if (!footer.ok()) {
        if (!IsFileProblem(footer.status())) return footer.status();
        if (footer.status().code() != absl::StatusCode::kNotFound) {
          ++result_.counters.footer_read_errors;
        }
        Error(path, footer.status().message());
        continue;
      }
      file.size = *size;
      file.footer = *std::move(footer);
      files_.push_back(std::move(file));
    }
    return absl::OkStatus();
  }

  // With evolution: the window's schema planned and committed first.
  absl::StatusOr<std::optional<LoadedTable>> EvolveSchema() {
    std::vector<FileSchema> schemas;
    std::vector<FileToRegister> readable;
    for (FileToRegister& file : files_) {
      absl::StatusOr<FileSchema> schema = FileSchemaOf(file.path, file.footer);
      if (!schema.ok()) {
        Error(file.path, absl::StrCat("could not read the file's schema: ",
                                      schema.status().message()));
        continue;
      }
      schemas.push_back(*std::move(schema));
      readable.push_back(std::move(file));
    }
    files_ = std::move(readable);
    // Nothing to register: the table is left as it is, repairs and all.
    if (files_.empty() && !options_.dry_run) {
      return std::optional<LoadedTable>();
    }
    const std::vector<SchemaGroup> groups = GroupBySchema(schemas);
    const bool fail =
        options_.IncompatibleHandling() == IncompatibleSchemaHandling::kFailJob;
    absl::StatusOr<WindowSchema> window = CommitWindowSchema(
        catalog_, table_, groups, options_.evolution, fail, options_.dry_run);
    if (!window.ok()) return window.status();
    if (window->committed) ++result_.counters.schema_commits;
    if (options_.dry_run) {
      result_.dry_run_report =
          DryRunReport(table_, groups, *window, fail,
                       static_cast<int64_t>(result_.errors.size()));
      if (window->table.has_value()) {
        result_.metadata_file = window->table->metadata_file;
      }
      return std::optional<LoadedTable>();
    }
    // Files of refused schemas are error rows with the plan's reason.
    std::map<std::string, std::string> refused;
    for (const auto& [group, reason] : window->plan.incompatible) {
      for (const std::string& file : groups[group].files) {
        refused.emplace(file, reason);
      }
    }
    for (const std::string& problem : window->plan.config_problems) {
      spdlog::warn("iceberg add-files: table {}: {}", TableName(table_),
                   problem);
    }
    std::vector<FileToRegister> compatible;
    for (FileToRegister& file : files_) {
      auto reason = refused.find(file.path);
      if (reason != refused.end()) {
        Error(file.path, reason->second);
      } else if (!window->table.has_value()) {
        Error(file.path,
              absl::StrCat("table ", TableName(table_), " does not exist"));
      } else {
        compatible.push_back(std::move(file));
      }
    }
    files_ = std::move(compatible);
    return std::move(window->table);
  }

  // Without evolution: the table as it is, or created from the first
  // readable file's schema when it is missing.
  absl::StatusOr<std::optional<LoadedTable>> TableAsIs() {
    absl::StatusOr<LoadedTable> loaded = catalog_.Load(table_);
    if (loaded.ok() || loaded.status().code() != absl::StatusCode::kNotFound) {
      if (!loaded.ok()) return loaded.status();
      absl::StatusOr<LoadedTable> mapped = WithNameMapping(*std::move(loaded));
      if (!mapped.ok()) return mapped.status();
      return std::optional<LoadedTable>(*std::move(mapped));
    }
    for (const FileToRegister& file : files_) {
      absl::StatusOr<Schema> schema = ConvertParquetSchema(file.footer);
      if (!schema.ok()) continue;  // Its registration reports why.
      int32_t last_id = 0;
      AssignFreshIds(schema->fields, last_id);
      TableCreation creation;
      creation.schema = *schema;
      creation.last_column_id = last_id;
      creation.properties = {
          {kNameMappingProperty, NameMappingToJson(NameMappingOf(*schema))}};
      absl::StatusOr<LoadedTable> created = catalog_.Create(table_, creation);
      if (created.status().code() == absl::StatusCode::kAborted) {
        created = catalog_.Load(table_);  // Another writer created it.
      } else if (created.ok()) {
        ++result_.counters.schema_commits;
      }
      if (!created.ok()) return created.status();
      return std::optional<LoadedTable>(*std::move(created));
    }
    for (const FileToRegister& file : files_) {
      Error(file.path, absl::StrCat("table ", TableName(table_),
                                    " does not exist and no file could "
                                    "create it"));
    }
    return std::optional<LoadedTable>();
  }

  // Files without field ids are registered through the name mapping, and
  // readers find it only in the table's properties: when the stored one
  // does not cover the schema (tables pyiceberg and Java create have none),
  // the repaired mapping is committed before any such file's data.
  absl::StatusOr<LoadedTable> WithNameMapping(LoadedTable table) {
    if (std::all_of(files_.begin(), files_.end(),
                    [](const FileToRegister& file) {
                      return HasFieldIds(file.footer);
                    })) {
      return table;
    }
    absl::Status status = RetryCommit(
        CommitRetryOptionsFor(table.metadata.properties),
        [&]() -> absl::Status {
          absl::StatusOr<LoadedTable> base = catalog_.Load(table_);
          if (!base.ok()) return base.status();
          std::optional<std::string> mapping = RepairedNameMapping(
              base->metadata, *base->metadata.CurrentSchema());
          if (!mapping.has_value()) {
            table = *std::move(base);
            return absl::OkStatus();
          }
          TableChange change;
          change.set_properties[kNameMappingProperty] = *std::move(mapping);
          absl::StatusOr<LoadedTable> committed =
              catalog_.Commit(table_, *base, change);
          if (!committed.ok()) return committed.status();
          table = *std::move(committed);
          ++result_.counters.schema_commits;
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    return table;
  }

  absl::Status Register(const LoadedTable& table) {
    const TableMetadata& metadata = table.metadata;
    const PartitionSpec* spec = DefaultSpec(metadata);
    if (spec == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("table ", TableName(table_), " has no partition spec ",
                       metadata.default_spec_id));
    }
    // A spec add-files cannot write fails the run, not each file.
    for (const PartitionField& field : spec->fields) {
      if (absl::Status supported =
              PartitionResultType(field, *metadata.CurrentSchema()).status();
          !supported.ok()) {
        return absl::Status(supported.code(),
                            absl::StrCat("table ", TableName(table_), ": ",
                                         supported.message()));
      }
    }
    absl::StatusOr<MetricsConfig> metrics =
        MetricsConfigFor(metadata.properties, *metadata.CurrentSchema());
    if (!metrics.ok()) return metrics.status();
    RegistrationTarget target;
    target.table = &metadata;
    target.metrics = *std::move(metrics);
    target.evolution =
        options_.evolution_enabled() ? &options_.evolution : nullptr;
    target.unverifiable = options_.UnverifiableHandling();
    target.spec = spec;
    target.partition_path_prefix = options_.partition_path_prefix;
    absl::StatusOr<std::set<std::string>> live = LiveDataFiles(io_, metadata);
    if (!live.ok()) return live.status();
    std::vector<DataFile> added;
    for (const FileToRegister& file : files_) {
      if (live->contains(ComparablePath(file.path))) {
        if (options_.already_added == AlreadyAddedHandling::kSkip) {
          ++result_.counters.already_added_skipped;
        } else {
          Error(file.path,
                "the table already holds this file (already-added: skip "
                "leaves such files alone)");
        }
        continue;
      }
      absl::StatusOr<Registered> registered = RegisterFile(file, target);
      if (!registered.ok()) {
        if (!IsFileProblem(registered.status())) return registered.status();
        Error(file.path, registered.status().message());
        continue;
      }
      if (registered->unproven_pins) ++result_.counters.unproven_pin_files;
      added.push_back(std::move(registered->data_file));
    }
    result_.metadata_file = table.metadata_file;
    if (added.empty()) return absl::OkStatus();
    return Append(metadata, added);
  }

  absl::Status Append(const TableMetadata& metadata,
                      const std::vector<DataFile>& files) {
    absl::StatusOr<std::vector<ManifestFile>> manifests =
        WriteDataManifests(io_, metadata, files, options_.files_per_manifest);
    if (!manifests.ok()) return manifests.status();
    const std::string commit_id = CommitIdOf(*manifests);
    std::optional<int64_t> checked_snapshot = metadata.current_snapshot_id;
    absl::Status status = RetryCommit(
        CommitRetryOptionsFor(metadata.properties), [&]() -> absl::Status {
          absl::StatusOr<LoadedTable> base = catalog_.Load(table_);
          if (!base.ok()) return base.status();
          // An attempt whose outcome was unknown may have landed.
          if (std::optional<Snapshot> landed =
                  FindCommit(base->metadata, commit_id)) {
            Committed(*base, *landed);
            return absl::OkStatus();
          }
          if (base->metadata.current_snapshot_id != checked_snapshot) {
            // Someone else appended meanwhile: the files must still be new.
            absl::StatusOr<std::set<std::string>> live =
                LiveDataFiles(io_, base->metadata);
            if (!live.ok()) return live.status();
            for (const DataFile& file : files) {
              if (live->contains(ComparablePath(file.file_path))) {
                return absl::AbortedError(absl::StrCat(
                    file.file_path,
                    " was added to the table by another writer while this "
                    "run committed; run again to add the rest"));
              }
            }
            checked_snapshot = base->metadata.current_snapshot_id;
          }
          absl::StatusOr<LoadedTable> committed =
              AppendManifests(catalog_, io_, table_, *base, *manifests,
                              TotalsOf(files), commit_id);
          if (!committed.ok()) return committed.status();
          Committed(*committed, *FindCommit(committed->metadata, commit_id));
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    result_.counters.data_files_added = static_cast<int64_t>(files.size());
    result_.counters.manifests_added = static_cast<int64_t>(manifests->size());
    return absl::OkStatus();
  }

  void Committed(const LoadedTable& table, const Snapshot& snapshot) {
    result_.snapshot = snapshot;
    result_.metadata_file = table.metadata_file;
  }

  Catalog& catalog_;
  FileIO& io_;
  const TableIdentifier& table_;
  const AddFilesOptions& options_;
  std::vector<FileToRegister> files_;
  AddFilesResult result_;
};

}  // namespace

absl::StatusOr<AddFilesResult> AddFiles(Catalog& catalog, FileIO& io,
                                        const TableIdentifier& table,
                                        const std::vector<std::string>& paths,
                                        const AddFilesOptions& options) {
  if (absl::Status valid = ValidateAddFilesOptions(options); !valid.ok()) {
    return valid;
  }
  return Run(catalog, io, table, options).Execute(paths);
}

}  // namespace gcpstream::iceberg
