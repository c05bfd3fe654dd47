// `type: iceberg-add-files` for pipeline files: each record names a Parquet
// file; each checkpoint adds the files named since the last one to an
// Iceberg table. See docs/iceberg.md, "Pipeline sink".

#include <memory>
#include <string>
#include <vector>

#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/failure_handler_config.h"
#include "gcpstream/iceberg/add_files/add_files_sink.h"
#include "gcpstream/iceberg/catalog/catalog_spec.h"

namespace gcpstream::config {
namespace {

// The evolution options and pins of a sink's options.
absl::Status ReadEvolution(OptionMap& options,
                           iceberg::EvolutionConfig& evolution) {
  absl::StatusOr<std::optional<std::vector<std::string>>> allowed =
      options.StringList(iceberg::kEvolutionOption.key());
  if (!allowed.ok()) return allowed.status();
  for (const std::string& text :
       allowed->value_or(std::vector<std::string>())) {
    absl::StatusOr<iceberg::EvolutionOption> option =
        iceberg::kEvolutionOption.Parse(text);
    if (!option.ok()) {
      return ConfigError(
          options.PositionOf(iceberg::kEvolutionOption.key()),
          absl::StrCat(options.what(), ": ", option.status().message()));
    }
    evolution.options.insert(*option);
  }
  absl::StatusOr<std::optional<std::vector<std::string>>> pins =
      options.StringList("required-columns");
  if (!pins.ok()) return pins.status();
  for (const std::string& pin : pins->value_or(std::vector<std::string>())) {
    evolution.pins.insert(pin);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> IcebergAddFilesSink(
    OptionMap& options, const BuildEnvironment& environment) {
  iceberg::AddFilesSinkOptions sink;
  sink.name = environment.name;
  iceberg::CatalogSpec catalog;
  std::string table;
  std::string path_field = "path";
  iceberg::AddFilesOptions& add = sink.add_files;
  for (absl::Status status :
       {AssignIfSet(options.String("catalog"), catalog.catalog),
        AssignIfSet(options.String("rest-warehouse"), catalog.rest_warehouse),
        AssignIfSet(options.String("token-env"), catalog.token_env),
        AssignIfSet(options.String("catalog-auth"), catalog.catalog_auth),
        AssignIfSet(options.String("service-account-key-file"),
                    catalog.credentials.service_account_key_file),
        AssignIfSet(options.String("quota-project"),
                    catalog.credentials.quota_project),
        AssignIfSet(options.String("table"), table),
        AssignIfSet(options.String("path-field"), path_field),
        ReadEvolution(options, add.evolution),
        AssignIfSet(options.Enum(iceberg::kIncompatibleSchemaHandlingOption),
                    add.incompatible_schema_handling),
        AssignIfSet(options.Enum(iceberg::kUnverifiableFileHandlingOption),
                    add.unverifiable_file_handling),
        AssignIfSet(options.Enum(iceberg::kAlreadyAddedOption),
                    add.already_added),
        AssignIfSet(options.String("partition-path-prefix"),
                    add.partition_path_prefix),
        AssignIfSet(options.Int("files-per-manifest", 1, 1'000'000),
                    add.files_per_manifest)}) {
    if (!status.ok()) return status;
  }
  auto invalid = [&](absl::string_view message) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(), ": ", message));
  };
  if (catalog.catalog.empty()) {
    return invalid(
        "catalog is required: a REST catalog's URI or a filesystem "
        "warehouse directory");
  }
  absl::StatusOr<iceberg::TableIdentifier> identifier =
      iceberg::ParseTableIdentifier(table);
  if (!identifier.ok()) return invalid(identifier.status().message());
  sink.table = *std::move(identifier);
  sink.storage.credentials = catalog.credentials;
  if (absl::Status valid = iceberg::ValidateAddFilesOptions(add); !valid.ok()) {
    return invalid(valid.message());
  }
  // A filesystem catalog is checked now; a REST one is reached by each
  // writer when the pipeline starts.
  if (!iceberg::IsRestCatalogUri(catalog.catalog)) {
    if (absl::Status opened = iceberg::OpenCatalog(catalog).status();
        !opened.ok()) {
      return invalid(opened.message());
    }
  }
  absl::StatusOr<FailureHandlerSpec> handler = ReadFailureHandler(options);
  if (!handler.ok()) return handler.status();
  return std::make_shared<iceberg::AddFilesSink<Record>>(
      sink, [catalog] { return iceberg::OpenCatalog(catalog); },
      [path_field](const Record& record) -> absl::StatusOr<std::string> {
        std::string path;
        if (record.root().type() == json::JsonType::kString) {
          record.root().AppendString(path);
          return path;
        }
        std::optional<uint32_t> field =
            record.Child(json::JsonRecord::kRoot, path_field);
        if (field.has_value() &&
            record.ValueAt(*field).type() == json::JsonType::kString) {
          record.ValueAt(*field).AppendString(path);
          return path;
        }
        return WithRecord(
            absl::InvalidArgumentError(absl::StrCat(
                "the record is neither a path (a JSON string) nor an object "
                "with the string field '",
                path_field, "' (option path-field)")),
            record);
      },
      MakeFailureHandlerFactory<iceberg::IcebergFailedElement>(
          *std::move(handler)));
}

const RegisterSink kIcebergAddFiles("iceberg-add-files", IcebergAddFilesSink);

}  // namespace
}  // namespace gcpstream::config
