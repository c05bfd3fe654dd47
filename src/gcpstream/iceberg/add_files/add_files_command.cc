#include "gcpstream/iceberg/add_files/add_files_command.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gcpstream/iceberg/add_files/add_files.h"
#include "gcpstream/iceberg/catalog/catalog_spec.h"
#include "gcpstream/iceberg/io/gcs_file_io.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace gcpstream::iceberg {
namespace {

using Json = nlohmann::ordered_json;

absl::StatusOr<std::vector<std::string>> ReadPathList(const std::string& from) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (from != "-") {
    file.open(from);
    if (!file) {
      return absl::InvalidArgumentError(
          absl::StrCat("--paths-from ", from, ": cannot open"));
    }
    in = &file;
  }
  std::vector<std::string> paths;
  for (std::string line; std::getline(*in, line);) {
    absl::string_view path = absl::StripAsciiWhitespace(line);
    if (!path.empty() && !absl::StartsWith(path, "#")) {
      paths.emplace_back(path);
    }
  }
  return paths;
}

template <typename E>
absl::Status ParseInto(const EnumOption<E>& option, const std::string& text,
                       std::optional<E>& out) {
  if (text.empty()) return absl::OkStatus();
  absl::StatusOr<E> value = option.Parse(text);
  if (!value.ok()) return value.status();
  out = *value;
  return absl::OkStatus();
}

Json SnapshotJson(const Snapshot& snapshot) {
  Json out;
  out["snapshot_id"] = snapshot.snapshot_id;
  if (snapshot.parent_snapshot_id.has_value()) {
    out["parent_id"] = *snapshot.parent_snapshot_id;
  }
  out["sequence_number"] = snapshot.sequence_number;
  out["timestamp_millis"] = snapshot.timestamp_ms;
  out["operation"] = "append";
  out["summary"] = snapshot.summary;
  out["manifest_list_location"] = snapshot.manifest_list;
  out["schema_id"] = snapshot.schema_id;
  return out;
}

Json ResultJson(const AddFilesResult& result) {
  Json out;
  out["snapshot"] = result.snapshot.has_value() ? SnapshotJson(*result.snapshot)
                                                : Json(nullptr);
  out["metadata_file"] = result.metadata_file;
  Json errors = Json::array();
  for (const FileError& error : result.errors) {
    errors.push_back({{"file", error.file}, {"error", error.error}});
  }
  out["errors"] = std::move(errors);
  const AddFilesCounters& c = result.counters;
  out["counters"] = {{"files_read", c.files_read},
                     {"data_files_added", c.data_files_added},
                     {"manifests_added", c.manifests_added},
                     {"error_files", c.error_files},
                     {"footer_read_errors", c.footer_read_errors},
                     {"schema_commits", c.schema_commits},
                     {"unproven_pin_files", c.unproven_pin_files},
                     {"already_added_skipped", c.already_added_skipped}};
  if (result.dry_run_report.has_value()) {
    out["dry_run_report"] = *result.dry_run_report;
  }
  return out;
}

}  // namespace

AddFilesCommand::AddFilesCommand(CLI::App& iceberg) {
  command_ = iceberg.add_subcommand(
      "add-files", "register Parquet files in an Iceberg table");
  command_
      ->add_option("--catalog", catalog_,
                   "a REST catalog's URI (http://, https://) or a "
                   "filesystem catalog's warehouse directory")
      ->required();
  command_->add_option("--rest-warehouse", rest_warehouse_,
                       "the warehouse a REST catalog is asked for");
  command_->add_option("--token-env", token_env_,
                       "the environment variable holding a REST catalog's "
                       "bearer token");
  command_->add_option("--catalog-auth", catalog_auth_,
                       "google (Google access tokens; the default for "
                       "*.googleapis.com catalogs such as BigLake) or none");
  command_->add_option("--service-account-key-file", service_account_key_file_,
                       "a service-account key file for the catalog and "
                       "gs:// files instead of application-default "
                       "credentials");
  command_->add_option("--quota-project", quota_project_,
                       "the project billed for Google API calls");
  command_->add_option("--table", table_, "the table, namespace.name")
      ->required();
  command_->add_option("paths", paths_, "the Parquet files to add");
  command_->add_option("--paths-from", paths_from_,
                       "a file listing the paths, one per line (- for "
                       "standard input)");
  command_->add_option("--schema-evolution-options", evolution_options_,
                       "allow-field-addition, allow-field-relaxation, "
                       "allow-type-promotion (comma-separated)");
  command_->add_option(
      "--required-columns", required_columns_,
      "dotted columns that must stay required (comma-separated)");
  command_->add_option("--incompatible-schema-handling",
                       incompatible_schema_handling_,
                       "fail-job (default) or route-to-errors");
  command_->add_option("--unverifiable-file-handling",
                       unverifiable_file_handling_,
                       "reject (default) or accept");
  command_->add_option("--already-added", already_added_,
                       "refuse (default) or skip files the table holds");
  command_->add_option("--partition-path-prefix", partition_path_prefix_,
                       "read partitions from Hive-style directories after "
                       "this prefix (default: from each file's bounds)");
  command_->add_option("--files-per-manifest", files_per_manifest_,
                       "data files per manifest (default 10000)");
  command_->add_flag("--dry-run", dry_run_,
                     "report what would happen; change nothing");
}

int AddFilesCommand::Run() const {
  // Standard output carries the result's JSON and nothing else.
  spdlog::set_default_logger(spdlog::stderr_color_mt("gcpstream-add-files"));
  AddFilesOptions options;
  options.dry_run = dry_run_;
  options.files_per_manifest = files_per_manifest_;
  options.partition_path_prefix = partition_path_prefix_;
  absl::Status status;
  for (absl::string_view text :
       absl::StrSplit(evolution_options_, ',', absl::SkipEmpty())) {
    absl::StatusOr<EvolutionOption> option = kEvolutionOption.Parse(text);
    if (!option.ok()) {
      status = option.status();
      break;
    }
    options.evolution.options.insert(*option);
  }
  for (absl::string_view pin :
       absl::StrSplit(required_columns_, ',', absl::SkipEmpty())) {
    options.evolution.pins.emplace(pin);
  }
  std::optional<AlreadyAddedHandling> already_added;
  if (status.ok()) {
    status = ParseInto(kIncompatibleSchemaHandlingOption,
                       incompatible_schema_handling_,
                       options.incompatible_schema_handling);
  }
  if (status.ok()) {
    status =
        ParseInto(kUnverifiableFileHandlingOption, unverifiable_file_handling_,
                  options.unverifiable_file_handling);
  }
  if (status.ok()) {
    status = ParseInto(kAlreadyAddedOption, already_added_, already_added);
  }
  if (status.ok()) status = ValidateAddFilesOptions(options);
  options.already_added = already_added.value_or(AlreadyAddedHandling::kRefuse);
  absl::StatusOr<TableIdentifier> table = ParseTableIdentifier(table_);
  std::vector<std::string> paths = paths_;
  if (status.ok()) status = table.status();
  if (status.ok() && !paths_from_.empty()) {
    absl::StatusOr<std::vector<std::string>> listed = ReadPathList(paths_from_);
    status = listed.status();
    if (listed.ok()) paths.insert(paths.end(), listed->begin(), listed->end());
  }
  if (status.ok() && paths.empty()) {
    status = absl::InvalidArgumentError(
        "no files to add: give paths or --paths-from");
  }
  if (!status.ok()) {
    std::cerr << "gcpstream iceberg add-files: " << status.message() << "\n";
    return kBadCommandLine;
  }
  const auth::CredentialsOptions credentials{
      .service_account_key_file = service_account_key_file_,
      .quota_project = quota_project_};
  absl::StatusOr<std::unique_ptr<Catalog>> catalog =
      OpenCatalog(CatalogSpec{.catalog = catalog_,
                              .rest_warehouse = rest_warehouse_,
                              .token_env = token_env_,
                              .catalog_auth = catalog_auth_,
                              .credentials = credentials});
  if (!catalog.ok()) {
    std::cerr << "gcpstream iceberg add-files: " << catalog.status().message()
              << "\n";
    return catalog.status().code() == absl::StatusCode::kInvalidArgument
               ? kBadCommandLine
               : kFailed;
  }
  // Local paths and gs:// objects alike (docs/iceberg.md).
  SchemeFileIO io(rest::RestTargetOptions{.credentials = credentials});
  absl::StatusOr<AddFilesResult> result =
      AddFiles(**catalog, io, *table, paths, options);
  if (!result.ok()) {
    std::cerr << "gcpstream iceberg add-files: " << result.status().message()
              << "\n";
    return kFailed;
  }
  std::cout << ResultJson(*result).dump(2) << "\n";
  if (result->dry_run_report.has_value()) {
    return (*result->dry_run_report)["allowed"].get<bool>() ? 0 : kErrorRows;
  }
  return result->errors.empty() ? 0 : kErrorRows;
}

}  // namespace gcpstream::iceberg
