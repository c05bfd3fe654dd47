#include "gcpstream/iceberg/add_files/dry_run_report.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/evolution/schema_delta.h"
#include "gcpstream/iceberg/evolution/schema_update.h"

namespace gcpstream::iceberg {
namespace {

using Json = nlohmann::ordered_json;

Json Descriptions(const std::vector<SchemaChange>& changes) {
  Json out = Json::array();
  for (const SchemaChange& change : changes) out.push_back(change.description);
  return out;
}

// "create optional email string" per top-level column of a new table.
Json CreatedColumns(const Schema& schema) {
  Json out = Json::array();
  for (const Field& field : schema.fields) {
    out.push_back(absl::StrCat("create ",
                               field.required ? "required " : "optional ",
                               field.name, " ", DescribeType(field.type)));
  }
  return out;
}

}  // namespace

Json DryRunReport(const TableIdentifier& table,
                  const std::vector<SchemaGroup>& groups,
                  const WindowSchema& window, bool fail_on_incompatible,
                  int64_t unreadable_files) {
  const SchemaPlan& plan = window.plan;
  const bool exists = window.before.has_value();
  std::map<size_t, std::string> refused(plan.incompatible.begin(),
                                        plan.incompatible.end());
  int64_t allowed_files = 0;
  int64_t refused_files = 0;
  Json schemas = Json::array();
  const Schema empty;
  for (size_t i = 0; i < groups.size(); ++i) {
    const SchemaGroup& group = groups[i];
    auto reason = refused.find(i);
    const bool allowed = reason == refused.end();
    (allowed ? allowed_files : refused_files) +=
        static_cast<int64_t>(group.files.size());
    Json entry;
    entry["schema"] = Json::parse(group.canonical_json);
    entry["files"] = group.files.size();
    entry["changes"] = Descriptions(
        ClassifySchema(exists ? *window.before : empty, group.Effective()));
    entry["allowed"] = allowed;
    if (!allowed) entry["reason"] = reason->second;
    schemas.push_back(std::move(entry));
  }
  std::string why_not;
  if (!exists && !plan.create_table) {
    why_not = absl::StrCat("table ", TableName(table),
                           " does not exist and would not be created");
  } else if (fail_on_incompatible &&
             (!plan.incompatible.empty() || !plan.config_problems.empty())) {
    why_not = RefusedPlanMessage(table, groups, plan);
  }
  Json report;
  report["table"] = TableName(table);
  report["allowed"] = why_not.empty();
  if (!why_not.empty()) report["reason"] = why_not;
  report["would_create_table"] = plan.create_table;
  report["files"] = {{"allowed", allowed_files},
                     {"incompatible", refused_files},
                     {"unreadable", unreadable_files}};
  Json changes = Json::array();
  if (exists && plan.new_schema.has_value()) {
    changes = Descriptions(ClassifySchema(*window.before, *plan.new_schema));
  }
  if (exists && window.mapping_repaired) {
    changes.push_back(
        "regenerate the name mapping property to cover the schema");
  }
  report["table_changes"] = std::move(changes);
  report["config_problems"] = plan.config_problems;
  if (plan.create_table && plan.new_schema.has_value()) {
    report["created_table"] = {{"schema", SchemaJson(*plan.new_schema)},
                               {"columns", CreatedColumns(*plan.new_schema)}};
  }
  report["schemas"] = std::move(schemas);
  return report;
}

}  // namespace gcpstream::iceberg
