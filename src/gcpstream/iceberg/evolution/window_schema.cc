#include "gcpstream/iceberg/evolution/window_schema.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/catalog/commit_retry.h"
#include "gcpstream/iceberg/spec/name_mapping.h"

namespace gcpstream::iceberg {

std::optional<std::string> RepairedNameMapping(const TableMetadata& table,
                                               const Schema& schema) {
  std::optional<NameMapping> stored;
  auto property = table.properties.find(kNameMappingProperty);
  if (property != table.properties.end()) {
    stored = NameMappingFromJson(property->second);
  }
  if (stored.has_value() && Covers(*stored, schema)) return std::nullopt;
  return NameMappingToJson(stored.has_value()
                               ? UpdatedNameMapping(*stored, schema)
                               : NameMappingOf(schema));
}

std::string RefusedPlanMessage(const TableIdentifier& table,
                               const std::vector<SchemaGroup>& groups,
                               const SchemaPlan& plan) {
  if (plan.incompatible.empty() && plan.config_problems.empty()) return "";
  // Enough of each schema to recognize it.
  constexpr size_t kSchemaChars = 1024;
  size_t files = 0;
  std::string details;
  for (const auto& [group, reason] : plan.incompatible) {
    const SchemaGroup& refused = groups[group];
    files += refused.files.size();
    std::string json = refused.canonical_json;
    if (json.size() > kSchemaChars) json = json.substr(0, kSchemaChars) + "...";
    absl::StrAppend(&details, "\n  - ", refused.files.size(),
                    refused.files.size() == 1 ? " file" : " files", " (",
                    refused.files.front(),
                    refused.files.size() > 1 ? ", ..." : "", ") of schema ",
                    json, ": ", reason);
  }
  for (const std::string& problem : plan.config_problems) {
    absl::StrAppend(&details, "\n  - ", problem);
  }
  return absl::StrCat(
      "table ", TableName(table), ": ", plan.incompatible.size(),
      " file schema(s) (", files, " file(s)) cannot be registered and ",
      plan.config_problems.size(),
      " configuration problem(s); nothing was committed "
      "(incompatible-schema-handling: route-to-errors registers the other "
      "files and reports these as error rows):",
      details);
}

absl::StatusOr<WindowSchema> CommitWindowSchema(
    Catalog& catalog, const TableIdentifier& table,
    const std::vector<SchemaGroup>& groups, const EvolutionConfig& config,
    bool fail_on_incompatible, bool dry_run) {
  WindowSchema out;
  // The first load decides the budget; a table created meanwhile keeps it.
  CommitRetryOptions retry;
  if (absl::StatusOr<LoadedTable> first = catalog.Load(table); first.ok()) {
    retry = CommitRetryOptionsFor(first->metadata.properties);
  }
  absl::Status status = RetryCommit(retry, [&]() -> absl::Status {
    out = WindowSchema();
    absl::StatusOr<LoadedTable> base = catalog.Load(table);
    if (!base.ok() && base.status().code() != absl::StatusCode::kNotFound) {
      return base.status();
    }
    if (base.ok()) {
      out.before = *base->metadata.CurrentSchema();
      out.plan =
          PlanWindow(out.before, base->metadata.last_column_id, groups, config);
    } else {
      out.plan = PlanWindow(std::nullopt, 0, groups, config);
    }
    if (fail_on_incompatible && !dry_run) {
      if (std::string refused = RefusedPlanMessage(table, groups, out.plan);
          !refused.empty()) {
        return absl::FailedPreconditionError(refused);
      }
    }
    if (!base.ok() && !out.plan.create_table) return absl::OkStatus();
    const Schema& schema =
        out.plan.new_schema.has_value() ? *out.plan.new_schema : *out.before;
    if (!base.ok()) {
      out.mapping_repaired = true;
      if (dry_run) return absl::OkStatus();
      TableCreation creation;
      creation.schema = schema;
      creation.last_column_id = out.plan.last_column_id;
      creation.properties = {
          {kNameMappingProperty, NameMappingToJson(NameMappingOf(schema))}};
      absl::StatusOr<LoadedTable> created = catalog.Create(table, creation);
      if (!created.ok()) return created.status();
      out.table = *std::move(created);
      out.committed = true;
      return absl::OkStatus();
    }
    TableChange change;
    if (out.plan.new_schema.has_value()) {
      change.schema = out.plan.new_schema;
      change.last_column_id = out.plan.last_column_id;
    }
    if (std::optional<std::string> mapping =
            RepairedNameMapping(base->metadata, schema)) {
      change.set_properties[kNameMappingProperty] = *std::move(mapping);
      out.mapping_repaired = true;
    }
    if (dry_run || (!change.schema.has_value() && !out.mapping_repaired)) {
      out.table = *std::move(base);
      return absl::OkStatus();
    }
    absl::StatusOr<LoadedTable> committed =
        catalog.Commit(table, *base, change);
    if (!committed.ok()) return committed.status();
    out.table = *std::move(committed);
    out.committed = true;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

}  // namespace gcpstream::iceberg
