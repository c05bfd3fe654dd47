// BigQueryWriteEngine's table half: a table read, or created with its
// dataset, and patched under schema-update-options when a writer first
// uses it.
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_write_engine.h"

namespace gcpstream::bigquery {

absl::StatusOr<TableSchema> BigQueryWriteEngine::EnsureTable(
    const TableDestination& table) {
  absl::StatusOr<TableInfo> info = tables_.GetTable(table);
  if (info.ok()) return info->schema;
  if (info.status().code() != absl::StatusCode::kNotFound) {
    return absl::Status(
        info.status().code(),
        absl::StrCat(options_.name, ": reading table ", table.Spec(),
                     " failed: ", info.status().message()));
  }
  if (options_.create_disposition == CreateDisposition::kCreateNever) {
    return absl::NotFoundError(absl::StrCat(
        options_.name, ": table ", table.Spec(), " does not exist and option '",
        kCreateDispositionOption.key(), "' is '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateNever),
        "': create the table, or set it to '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateIfNeeded),
        "' with a schema"));
  }
  if (options_.table.schema.fields.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        options_.name, ": table ", table.Spec(),
        " does not exist and the sink has no schema to create it with; give "
        "it one (a pipeline file's `schema:` block) or create the table"));
  }
  if (absl::Status dataset =
          tables_.EnsureDataset(table.project, table.dataset);
      !dataset.ok()) {
    return absl::Status(
        dataset.code(),
        absl::StrCat(options_.name, ": creating dataset ", table.project, ".",
                     table.dataset, " failed: ", dataset.message()));
  }
  info = tables_.CreateTable(table, options_.table);
  if (info.ok()) {
    metrics_.tables_created->Increment();
    return info->schema;
  }
  if (info.status().code() == absl::StatusCode::kAlreadyExists) {
    info = tables_.GetTable(table);  // Another writer made it first.
    if (info.ok()) return info->schema;
  }
  return absl::Status(
      info.status().code(),
      absl::StrCat(options_.name, ": creating table ", table.Spec(),
                   " failed: ", info.status().message()));
}

absl::StatusOr<std::unique_ptr<TableWriter>>
BigQueryWriteEngine::MakeTableWriter(const TableDestination& table) {
  absl::Status valid = CheckTableNamePart(table.project, "project");
  valid.Update(CheckTableNamePart(table.dataset, "dataset"));
  valid.Update(CheckTableNamePart(table.table, "table"));
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options_.name, ": ", valid.message()));
  }
  absl::StatusOr<TableSchema> schema = EnsureTable(table);
  if (!schema.ok()) return schema.status();
  absl::StatusOr<std::optional<TableSchema>> updated = UpdatedSchema(
      *schema, options_.table.schema, AllowedSchemaUpdates(options_));
  if (!updated.ok()) {
    return absl::Status(updated.status().code(),
                        absl::StrCat(options_.name, ": table ", table.Spec(),
                                     ": option '", kSchemaUpdateOptionsKey,
                                     "': ", updated.status().message()));
  }
  absl::Time schema_updated_at = absl::InfinitePast();
  if (updated->has_value()) {
    absl::StatusOr<TableInfo> patched = tables_.PatchSchema(table, **updated);
    if (!patched.ok()) {
      return absl::Status(
          patched.status().code(),
          absl::StrCat(options_.name, ": updating the schema of table ",
                       table.Spec(), " (option '", kSchemaUpdateOptionsKey,
                       "') failed: ", patched.status().message()));
    }
    metrics_.schemas_updated->Increment();
    schema = patched->schema;
    schema_updated_at = clock_.Now();
  }
  auto writer =
      std::make_unique<TableWriter>(table, *std::move(schema), exactly_once_);
  writer->schema_updated_at = schema_updated_at;
  return writer;
}

}  // namespace gcpstream::bigquery
