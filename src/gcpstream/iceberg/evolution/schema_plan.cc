#include "gcpstream/iceberg/evolution/schema_plan.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gcpstream/iceberg/evolution/schema_update.h"
#include "gcpstream/iceberg/parquet/parquet_schema.h"

namespace gcpstream::iceberg {
namespace {

void CollectIds(const std::vector<Field>& fields, std::set<int32_t>& ids) {
  for (const Field& field : fields) {
    ids.insert(field.id);
    CollectIds(field.type.fields, ids);
  }
}

// Everything in `type` optional, except what a map key holds (keys are
// always required, and so is what they contain).
void MakeEverythingOptional(Type& type) {
  if (type.kind == TypeKind::kMap) {
    type.fields[1].required = false;
    MakeEverythingOptional(type.fields[1].type);
    return;
  }
  for (Field& field : type.fields) {
    field.required = false;
    MakeEverythingOptional(field.type);
  }
}

// A field the window added (id not in `base_ids`) becomes optional at every
// level, whichever file happened to declare it required; in a field the
// table had, the same for what was added below it. Map keys are left alone.
void RelaxAdded(Field& field, const std::set<int32_t>& base_ids) {
  if (!base_ids.contains(field.id)) {
    field.required = false;
    MakeEverythingOptional(field.type);
    return;
  }
  if (field.type.kind == TypeKind::kMap) {
    RelaxAdded(field.type.fields[1], base_ids);
    return;
  }
  for (Field& child : field.type.fields) RelaxAdded(child, base_ids);
}

// Makes the pinned path and its ancestors required; false when the path
// names no column (or goes through a map key).
bool RequirePinned(std::vector<Field>& fields,
                   const std::vector<std::string>& names, size_t at) {
  for (Field& field : fields) {
    if (field.name != names[at]) continue;
    if (at + 1 == names.size()) {
      field.required = true;
      return true;
    }
    if (field.type.kind == TypeKind::kMap && names[at + 1] == "key") {
      return false;
    }
    if (!field.type.is_nested() ||
        !RequirePinned(field.type.fields, names, at + 1)) {
      return false;
    }
    field.required = true;
    return true;
  }
  return false;
}

// The fold of a window's mergeable schemas onto `start`, in order. A schema
// that cannot join the ones before it (a type no promotion reaches, a name
// differing only in case from one an earlier schema added) is moved to
// `incompatible` and the fold restarts without it, so the most common
// schema wins.
Schema Fold(const Schema& start, int32_t& last_column_id,
            const std::vector<SchemaGroup>& groups, std::vector<size_t> merge,
            std::vector<std::pair<size_t, std::string>>& incompatible) {
  while (true) {
    Schema scratch = start;
    int32_t last_id = last_column_id;
    std::optional<size_t> loser;
    std::string why;
    for (size_t i : merge) {
      const Schema effective = groups[i].Effective();
      const std::vector<SchemaChange> cases = CaseConflicts(scratch, effective);
      if (!cases.empty()) {
        loser = i;
        why = cases[0].description;
        break;
      }
      const std::vector<std::string> absent =
          AbsentRequiredPaths(scratch, effective);
      absl::StatusOr<Schema> next = UnionByName(scratch, effective, last_id);
      for (const std::string& path : absent) {
        if (next.ok()) next = MakeOptional(*next, path);
      }
      if (!next.ok()) {
        loser = i;
        why = std::string(next.status().message());
        break;
      }
      scratch = *std::move(next);
    }
    if (!loser.has_value()) {
      last_column_id = last_id;
      return scratch;
    }
    incompatible.emplace_back(
        *loser, absl::StrCat("conflicts with another file schema in the same "
                             "window: ",
                             why));
    merge.erase(std::find(merge.begin(), merge.end(), *loser));
  }
}

SchemaPlan PlanCreate(const std::vector<SchemaGroup>& groups,
                      const EvolutionConfig& config) {
  SchemaPlan plan;
  if (!config.options.contains(EvolutionOption::kAllowFieldAddition)) {
    for (size_t i = 0; i < groups.size(); ++i) {
      plan.incompatible.emplace_back(
          i, absl::StrCat(
                 "the table does not exist; creating it from the "
                 "files needs ",
                 EvolutionOptionName(EvolutionOption::kAllowFieldAddition)));
    }
    return plan;
  }
  std::vector<size_t> merge;
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::vector<SchemaChange> names = FileNameConflicts(groups[i].schema);
    if (names.empty()) {
      merge.push_back(i);
      continue;
    }
    plan.incompatible.emplace_back(
        i, absl::StrJoin(names, "; ",
                         [](std::string* out, const SchemaChange& name) {
                           out->append(name.description);
                         }));
  }
  if (merge.empty()) return plan;
  int32_t last_id = 0;
  Schema created = Fold(Schema(), last_id, groups, merge, plan.incompatible);
  for (Field& field : created.fields) {
    field.required = false;
    MakeEverythingOptional(field.type);
  }
  for (const std::string& pin : config.pins) {
    if (!RequirePinned(created.fields, absl::StrSplit(pin, '.'), 0)) {
      plan.config_problems.push_back(absl::StrCat(
          "required column '", pin,
          "' is in no file's schema (a column inside a list or map is "
          "spelled with its `element` or `value`; map keys cannot be "
          "pinned)"));
    }
  }
  int32_t fresh = 0;
  AssignFreshIds(created.fields, fresh);
  plan.last_column_id = fresh;
  plan.new_schema = std::move(created);
  plan.create_table = true;
  return plan;
}

}  // namespace

absl::StatusOr<FileSchema> FileSchemaOf(const std::string& path,
                                        const ParquetFooter& footer) {
  absl::StatusOr<Schema> schema = ConvertParquetSchema(footer);
  if (!schema.ok()) {
    return absl::Status(schema.status().code(),
                        absl::StrCat(path, ": ", schema.status().message()));
  }
  FileSchema out;
  out.path = path;
  out.null_free_columns = ProvenNullFreeColumns(footer, *schema);
  out.schema = Canonical(*schema);
  return out;
}

Schema SchemaGroup::Effective() const {
  return MarkRequired(schema, null_free_columns);
}

std::vector<SchemaGroup> GroupBySchema(const std::vector<FileSchema>& files) {
  // Keyed by schema and null evidence: a file is judged by its own
  // footer, never refused for a null in a sibling of the same schema.
  std::map<std::string, SchemaGroup> by_json;
  for (const FileSchema& file : files) {
    const std::string json = SchemaToJson(file.schema);
    const std::string key =
        absl::StrCat(json, "\n", absl::StrJoin(file.null_free_columns, ","));
    auto [it, first] = by_json.try_emplace(key);
    SchemaGroup& group = it->second;
    if (first) {
      group.schema = file.schema;
      group.canonical_json = json;
      group.null_free_columns = file.null_free_columns;
    }
    group.files.push_back(file.path);
  }
  std::vector<SchemaGroup> groups;
  groups.reserve(by_json.size());
  for (auto& [json, group] : by_json) groups.push_back(std::move(group));
  std::stable_sort(groups.begin(), groups.end(),
                   [](const SchemaGroup& a, const SchemaGroup& b) {
                     return a.files.size() > b.files.size();
                   });
  return groups;
}

SchemaPlan PlanWindow(const std::optional<Schema>& table,
                      int32_t last_column_id,
                      const std::vector<SchemaGroup>& groups,
                      const EvolutionConfig& config) {
  if (!table.has_value()) return PlanCreate(groups, config);
  SchemaPlan plan;
  plan.last_column_id = last_column_id;
  std::vector<size_t> merge;
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::vector<SchemaChange> changes =
        ClassifySchema(*table, groups[i].Effective());
    if (changes.empty()) continue;  // Covered by the table as it is.
    const std::vector<std::string> reasons =
        DisallowedChanges(changes, config.options, config.pins);
    if (reasons.empty()) {
      merge.push_back(i);
    } else {
      plan.incompatible.emplace_back(i, absl::StrJoin(reasons, "; "));
    }
  }
  if (!merge.empty()) {
    Schema merged =
        Fold(*table, plan.last_column_id, groups, merge, plan.incompatible);
    std::set<int32_t> base_ids;
    CollectIds(table->fields, base_ids);
    for (Field& field : merged.fields) RelaxAdded(field, base_ids);
    if (merged.fields != table->fields) plan.new_schema = std::move(merged);
  }
  std::sort(plan.incompatible.begin(), plan.incompatible.end());
  return plan;
}

}  // namespace gcpstream::iceberg
