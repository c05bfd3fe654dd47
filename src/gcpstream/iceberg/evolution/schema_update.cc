#include "gcpstream/iceberg/evolution/schema_update.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gcpstream::iceberg {
namespace {

std::string JoinName(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : absl::StrCat(prefix, ".", name);
}

absl::Status TypeChange(const std::string& path, const Type& from,
                        const Type& to) {
  return absl::InvalidArgumentError(
      absl::StrCat("cannot change column type: ", path, ": ",
                   DescribeType(from), " -> ", DescribeType(to)));
}

absl::Status UnionFields(std::vector<Field>& base,
                         const std::vector<Field>& file, int32_t& last_id,
                         const std::string& prefix);

absl::Status UnionType(Type& base, const Type& file, int32_t& last_id,
                       const std::string& path);

absl::Status UnionField(Field& base, const Field& file, int32_t& last_id,
                        const std::string& path) {
  if (!file.required) base.required = false;
  return UnionType(base.type, file.type, last_id, path);
}

absl::Status UnionType(Type& base, const Type& file, int32_t& last_id,
                       const std::string& path) {
  if (base.kind != file.kind && (base.is_nested() || file.is_nested())) {
    return TypeChange(path, base, file);
  }
  switch (base.kind) {
    case TypeKind::kStruct:
      return UnionFields(base.fields, file.fields, last_id, path);
    case TypeKind::kList:
      return UnionField(base.fields[0], file.fields[0], last_id,
                        JoinName(path, "element"));
    case TypeKind::kMap: {
      // Keys are never relaxed; their types follow the same rules.
      if (absl::Status key = UnionType(base.fields[0].type, file.fields[0].type,
                                       last_id, JoinName(path, "key"));
          !key.ok()) {
        return key;
      }
      return UnionField(base.fields[1], file.fields[1], last_id,
                        JoinName(path, "value"));
    }
    default:
      if (base == file || IsPromotionAllowed(file, base)) {
        return absl::OkStatus();
      }
      if (IsPromotionAllowed(base, file)) {
        base = file;
        return absl::OkStatus();
      }
      return TypeChange(path, base, file);
  }
}

absl::Status UnionFields(std::vector<Field>& base,
                         const std::vector<Field>& file, int32_t& last_id,
                         const std::string& prefix) {
  for (const Field& wanted : file) {
    auto it = std::find_if(base.begin(), base.end(), [&](const Field& f) {
      return f.name == wanted.name;
    });
    if (it == base.end()) {
      Field added = wanted;
      added.required = false;
      added.id = ++last_id;
      AssignFreshIds(added.type.fields, last_id);
      base.push_back(std::move(added));
      continue;
    }
    if (absl::Status status =
            UnionField(*it, wanted, last_id, JoinName(prefix, wanted.name));
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

void HighestIn(const std::vector<Field>& fields, int32_t& highest) {
  for (const Field& field : fields) {
    highest = std::max(highest, field.id);
    HighestIn(field.type.fields, highest);
  }
}

// The field at `names` below `fields`, through list elements and map
// values (named `element`, `value` in the path).
Field* FindPath(std::vector<Field>& fields,
                const std::vector<std::string>& names, size_t at) {
  for (Field& field : fields) {
    if (field.name != names[at]) continue;
    if (at + 1 == names.size()) return &field;
    // A list's or map's fields are its `element`, `key` and `value`.
    if (!field.type.is_nested()) return nullptr;
    return FindPath(field.type.fields, names, at + 1);
  }
  return nullptr;
}

}  // namespace

bool IsPromotionAllowed(const Type& from, const Type& to) {
  switch (from.kind) {
    case TypeKind::kInt:
      return to.kind == TypeKind::kLong;
    case TypeKind::kFloat:
      return to.kind == TypeKind::kDouble;
    case TypeKind::kDecimal:
      return to.kind == TypeKind::kDecimal && to.scale == from.scale &&
             to.precision > from.precision;
    default:
      return false;
  }
}

int32_t HighestFieldId(const Schema& schema) {
  int32_t highest = 0;
  HighestIn(schema.fields, highest);
  return highest;
}

absl::StatusOr<Schema> UnionByName(const Schema& base, const Schema& file,
                                   int32_t& last_column_id) {
  Schema out = base;
  int32_t last_id = last_column_id;
  if (absl::Status status = UnionFields(out.fields, file.fields, last_id, "");
      !status.ok()) {
    return status;
  }
  last_column_id = last_id;
  return out;
}

absl::StatusOr<Schema> MakeOptional(const Schema& schema,
                                    const std::string& path) {
  Schema out = schema;
  const std::vector<std::string> names = absl::StrSplit(path, '.');
  Field* field = FindPath(out.fields, names, 0);
  if (field == nullptr) {
    return absl::NotFoundError(absl::StrCat("no field '", path, "'"));
  }
  field->required = false;
  return out;
}

std::string DescribeType(const Type& type) {
  switch (type.kind) {
    case TypeKind::kStruct: {
      std::vector<std::string> fields;
      fields.reserve(type.fields.size());
      for (const Field& field : type.fields) {
        fields.push_back(absl::StrCat(
            field.name, ": ", field.required ? "required " : "optional ",
            DescribeType(field.type)));
      }
      return absl::StrCat("struct<", absl::StrJoin(fields, ", "), ">");
    }
    case TypeKind::kList:
      return absl::StrCat("list<", DescribeType(type.fields[0].type), ">");
    case TypeKind::kMap:
      return absl::StrCat("map<", DescribeType(type.fields[0].type), ", ",
                          DescribeType(type.fields[1].type), ">");
    default:
      return TypeName(type);
  }
}

}  // namespace gcpstream::iceberg
