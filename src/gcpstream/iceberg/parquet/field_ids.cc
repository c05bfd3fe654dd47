#include "gcpstream/iceberg/parquet/field_ids.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/iceberg/parquet/parquet_schema.h"
#include "gcpstream/iceberg/spec/name_mapping.h"

namespace gcpstream::iceberg {
namespace {

// A field of a schema with its path from the root.
struct PathedField {
  const Field* field = nullptr;
  std::vector<std::string> names;
  bool under_container = false;

  std::string Path() const { return absl::StrJoin(names, "."); }
};

// Every field depth first, each before what it nests: the order of the
// footer's schema, so primitives come in the order of the footer's leaves.
void Flatten(const std::vector<Field>& fields,
             const std::vector<std::string>& prefix, bool under_container,
             std::vector<PathedField>& out) {
  for (const Field& field : fields) {
    std::vector<std::string> names = prefix;
    names.push_back(field.name);
    out.push_back(PathedField{&field, names, under_container});
    const bool container =
        field.type.kind == TypeKind::kList || field.type.kind == TypeKind::kMap;
    Flatten(field.type.fields, names, under_container || container, out);
  }
}

std::vector<PathedField> Flatten(const Schema& schema) {
  std::vector<PathedField> out;
  Flatten(schema.fields, {}, false, out);
  return out;
}

size_t FooterLeafCount(const ParquetFooter& footer) {
  size_t leaves = 0;
  for (size_t i = 1; i < footer.schema.size(); ++i) {
    if (!footer.schema[i].is_group) ++leaves;
  }
  return leaves;
}

// The paths the table has ever given each id: every schema version and
// every name of its mapping.
std::map<int32_t, std::set<std::string>> KnownPaths(
    const TableMetadata& table, const NameMapping& mapping) {
  std::map<int32_t, std::set<std::string>> known = MappedPaths(mapping);
  for (const Schema& schema : table.schemas) {
    for (const PathedField& field : Flatten(schema)) {
      known[field.field->id].insert(field.Path());
    }
  }
  return known;
}

NameMapping ReadersMapping(const TableMetadata& table, const Schema& current) {
  std::optional<NameMapping> stored;
  auto property = table.properties.find(kNameMappingProperty);
  if (property != table.properties.end()) {
    stored = NameMappingFromJson(property->second);
  }
  return UpdatedNameMapping(stored.value_or(NameMapping()), current);
}

// Whether the file's own ids agree with the table (see ResolveFieldIds).
absl::Status CheckFileIds(const std::vector<PathedField>& file_fields,
                          const TableMetadata& table,
                          const std::vector<PathedField>& current_fields,
                          const NameMapping& mapping) {
  const std::map<int32_t, std::set<std::string>> known =
      KnownPaths(table, mapping);
  std::map<std::string, int32_t> current_ids;
  std::map<int32_t, std::string> current_paths;
  for (const PathedField& field : current_fields) {
    current_ids.emplace(field.Path(), field.field->id);
    current_paths.emplace(field.field->id, field.Path());
  }
  std::map<int32_t, std::string> seen;
  for (const PathedField& field : file_fields) {
    const int32_t id = field.field->id;
    const std::string path = field.Path();
    if (auto [it, inserted] = seen.emplace(id, path); !inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat("field id ", id, " is on both `", it->second, "` and `",
                       path, "` in the file"));
    }
    auto paths = known.find(id);
    if (paths != known.end()) {
      if (paths->second.contains(path)) continue;
      auto current = current_paths.find(id);
      const std::string& theirs = current != current_paths.end()
                                      ? current->second
                                      : *paths->second.begin();
      return absl::InvalidArgumentError(
          absl::StrCat("the file gives `", path, "` field id ", id,
                       ", which is the table's column `", theirs,
                       "`: readers would read one column as the other"));
    }
    auto table_id = current_ids.find(path);
    if (table_id != current_ids.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the file gives `", path, "` field id ", id,
          " but the table's column of that name has id ", table_id->second,
          ": readers would not find the file's values"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool HasFieldIds(const ParquetFooter& footer) {
  // The root (element 0) is the message, whose id no reader uses.
  for (size_t i = 1; i < footer.schema.size(); ++i) {
    if (footer.schema[i].field_id.has_value()) return true;
  }
  return false;
}

absl::StatusOr<std::vector<std::optional<ResolvedLeaf>>> ResolveFieldIds(
    const ParquetFooter& footer, const Schema& file_schema,
    const TableMetadata& table) {
  const Schema* current = table.CurrentSchema();
  if (current == nullptr) {
    return absl::FailedPreconditionError("the table has no current schema");
  }
  const std::vector<PathedField> file_fields = Flatten(file_schema);
  std::vector<const PathedField*> leaves;
  for (const PathedField& field : file_fields) {
    if (!field.field->type.is_nested()) leaves.push_back(&field);
  }
  if (leaves.size() != FooterLeafCount(footer)) {
    return absl::InvalidArgumentError(
        "the file's columns do not map one to one to Iceberg fields "
        "(variant columns are not supported)");
  }
  const bool file_has_ids = HasFieldIds(footer);
  const std::vector<PathedField> current_fields = Flatten(*current);
  const NameMapping mapping = ReadersMapping(table, *current);
  if (file_has_ids) {
    absl::StatusOr<std::vector<std::string>> without =
        FieldsWithoutFileIds(footer);
    if (!without.ok()) return without.status();
    if (!without->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the file has field ids on some fields only (not on `",
                       absl::StrJoin(*without, "`, `"),
                       "`): readers would read those as null"));
    }
    if (absl::Status agree =
            CheckFileIds(file_fields, table, current_fields, mapping);
        !agree.ok()) {
      return agree;
    }
  }
  std::map<int32_t, const Field*> table_fields;
  for (const PathedField& field : current_fields) {
    table_fields.emplace(field.field->id, field.field);
  }
  std::vector<std::optional<ResolvedLeaf>> out;
  out.reserve(leaves.size());
  for (const PathedField* leaf : leaves) {
    const std::optional<int32_t> id =
        file_has_ids ? std::optional<int32_t>(leaf->field->id)
                     : MappedFieldId(mapping, leaf->names);
    auto column = id.has_value() ? table_fields.find(*id) : table_fields.end();
    if (column == table_fields.end() || column->second->type.is_nested()) {
      out.emplace_back(std::nullopt);
      continue;
    }
    out.emplace_back(ResolvedLeaf{*id, leaf->Path(), leaf->under_container,
                                  column->second->type});
  }
  return out;
}

}  // namespace gcpstream::iceberg
