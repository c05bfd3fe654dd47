#include "gcpstream/iceberg/evolution/schema_delta.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/evolution/schema_update.h"

namespace gcpstream::iceberg {
namespace {

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : absl::StrCat(prefix, ".", name);
}

// Names in messages: a dotted name in backticks, so it cannot be read as a
// path.
std::string Quoted(const std::string& name) {
  return absl::StrCat("`", name, "`");
}

SchemaChange Conflict(std::string path, std::string description) {
  return SchemaChange{.kind = ChangeKind::kConflict,
                      .path = std::move(path),
                      .description = std::move(description)};
}

// The fields one level below `type` that names are checked among: a
// struct's fields, or those of a list's element or a map's value.
const std::vector<Field>* Children(const Type& type) {
  switch (type.kind) {
    case TypeKind::kStruct:
      return &type.fields;
    case TypeKind::kList:
      return Children(type.fields[0].type);
    case TypeKind::kMap:
      return Children(type.fields[1].type);
    default:
      return nullptr;
  }
}

std::string ChildPrefix(const std::string& path, const Type& type) {
  switch (type.kind) {
    case TypeKind::kList:
      return ChildPrefix(Join(path, "element"), type.fields[0].type);
    case TypeKind::kMap:
      return ChildPrefix(Join(path, "value"), type.fields[1].type);
    default:
      return path;
  }
}

void CheckFileNames(const std::vector<Field>& fields, const std::string& prefix,
                    std::vector<SchemaChange>& out) {
  std::map<std::string, std::string> by_lower_case;
  for (const Field& field : fields) {
    const std::string path = Join(prefix, field.name);
    if (field.name.empty()) {
      out.push_back(Conflict(
          path, absl::StrCat("empty column name",
                             prefix.empty() ? "" : " under " + prefix)));
    } else if (absl::StrContains(field.name, '.')) {
      out.push_back(Conflict(
          path,
          absl::StrCat("column name ", Quoted(field.name), " contains a dot")));
    }
    auto [it, inserted] = by_lower_case.try_emplace(
        absl::AsciiStrToLower(field.name), field.name);
    if (!inserted) {
      out.push_back(Conflict(
          path, absl::StrCat(Quoted(it->second), " and ", Quoted(field.name),
                             " differ only in case")));
    }
    if (const std::vector<Field>* children = Children(field.type)) {
      CheckFileNames(*children, ChildPrefix(path, field.type), out);
    }
  }
}

void CheckCaseAgainstTable(const std::vector<Field>& table,
                           const std::vector<Field>& file,
                           const std::string& prefix,
                           std::vector<SchemaChange>& out) {
  for (const Field& wanted : file) {
    for (const Field& existing : table) {
      if (existing.name == wanted.name) {
        const std::vector<Field>* table_children = Children(existing.type);
        const std::vector<Field>* file_children = Children(wanted.type);
        if (existing.type.kind == wanted.type.kind &&
            table_children != nullptr && file_children != nullptr) {
          CheckCaseAgainstTable(
              *table_children, *file_children,
              ChildPrefix(Join(prefix, wanted.name), wanted.type), out);
        }
      } else if (absl::EqualsIgnoreCase(existing.name, wanted.name)) {
        out.push_back(
            Conflict(Join(prefix, wanted.name),
                     absl::StrCat(Quoted(wanted.name),
                                  " differs only in case from the table's ",
                                  Quoted(existing.name))));
      }
    }
  }
}

// Required table fields the file lacks, through present structs, list
// elements and map values (never map keys).
void FindAbsentRequired(const std::vector<Field>& table,
                        const std::vector<Field>& file,
                        const std::string& prefix,
                        std::vector<std::string>& out) {
  for (const Field& existing : table) {
    const std::string path = Join(prefix, existing.name);
    auto it = std::find_if(file.begin(), file.end(), [&](const Field& f) {
      return f.name == existing.name;
    });
    if (it == file.end()) {
      if (existing.required) out.push_back(path);
      continue;
    }
    const Type& t = existing.type;
    const Type& f = it->type;
    if (t.kind != f.kind) continue;
    if (t.kind == TypeKind::kStruct) {
      FindAbsentRequired(t.fields, f.fields, path, out);
    } else if (t.kind == TypeKind::kList) {
      FindAbsentRequired({t.fields[0]}, {f.fields[0]}, path, out);
    } else if (t.kind == TypeKind::kMap) {
      FindAbsentRequired({t.fields[1]}, {f.fields[1]}, path, out);
    }
  }
}

struct Located {
  const Field* field;
  std::string path;
};

void IndexById(const std::vector<Field>& fields, const std::string& prefix,
               std::map<int32_t, Located>& out) {
  for (const Field& field : fields) {
    const std::string path = Join(prefix, field.name);
    out.emplace(field.id, Located{&field, path});
    IndexById(field.type.fields, path, out);
  }
}

class Differ {
 public:
  Differ(const Schema& base, std::vector<std::string> absent)
      : absent_(std::move(absent)) {
    IndexById(base.fields, "", base_);
  }

  void Walk(const std::vector<Field>& fields, const std::string& prefix) {
    for (const Field& field : fields) {
      const std::string path = Join(prefix, field.name);
      auto it = base_.find(field.id);
      if (it == base_.end()) {
        changes_.push_back(SchemaChange{
            .kind = ChangeKind::kFieldAddition,
            .path = path,
            .description =
                absl::StrCat("add ", field.required ? "required " : "optional ",
                             path, " ", DescribeType(field.type))});
        continue;  // Reported once, at the outermost added field.
      }
      seen_.push_back(field.id);
      Compare(*it->second.field, field, path);
    }
  }

  std::vector<SchemaChange> Take() {
    for (const auto& [id, located] : base_) {
      if (std::find(seen_.begin(), seen_.end(), id) == seen_.end()) {
        changes_.push_back(
            Conflict(located.path, absl::StrCat(located.path, ": removed")));
      }
    }
    std::stable_sort(changes_.begin(), changes_.end(),
                     [](const SchemaChange& a, const SchemaChange& b) {
                       return a.path < b.path;
                     });
    return std::move(changes_);
  }

 private:
  void Compare(const Field& before, const Field& after,
               const std::string& path) {
    if (before.name != after.name) {
      changes_.push_back(Conflict(
          path, absl::StrCat(path, ": renamed from ", Quoted(before.name))));
    }
    if (before.doc != after.doc) {
      changes_.push_back(Conflict(path, absl::StrCat(path, ": doc changed")));
    }
    if (before.required && !after.required) {
      const bool absent =
          std::find(absent_.begin(), absent_.end(), path) != absent_.end();
      changes_.push_back(SchemaChange{
          .kind = ChangeKind::kFieldRelaxation,
          .path = path,
          .description = absl::StrCat("make ", path, " optional",
                                      absent ? " (absent from the file)" : ""),
          .absent_from_file = absent});
    } else if (!before.required && after.required) {
      changes_.push_back(
          Conflict(path, absl::StrCat(path, ": would become required")));
    }
    const Type& from = before.type;
    const Type& to = after.type;
    if (!from.is_nested() && !to.is_nested()) {
      if (from == to) return;
      if (IsPromotionAllowed(from, to)) {
        changes_.push_back(SchemaChange{
            .kind = ChangeKind::kTypePromotion,
            .path = path,
            .description = absl::StrCat("promote ", path, " from ",
                                        TypeName(from), " to ", TypeName(to))});
      } else {
        changes_.push_back(
            Conflict(path, absl::StrCat(path, ": ", TypeName(from), " -> ",
                                        TypeName(to), " is not a promotion")));
      }
      return;
    }
    if (from.kind != to.kind) {
      changes_.push_back(
          Conflict(path, absl::StrCat(path, ": ", DescribeType(from), " -> ",
                                      DescribeType(to))));
      return;
    }
    Walk(to.fields, path);
  }

  std::map<int32_t, Located> base_;
  std::vector<std::string> absent_;
  std::vector<int32_t> seen_;
  std::vector<SchemaChange> changes_;
};

}  // namespace

std::vector<SchemaChange> FileNameConflicts(const Schema& file) {
  std::vector<SchemaChange> out;
  CheckFileNames(file.fields, "", out);
  return out;
}

std::vector<SchemaChange> CaseConflicts(const Schema& table,
                                        const Schema& file) {
  std::vector<SchemaChange> out;
  CheckCaseAgainstTable(table.fields, file.fields, "", out);
  return out;
}

std::vector<std::string> AbsentRequiredPaths(const Schema& table,
                                             const Schema& file) {
  std::vector<std::string> out;
  FindAbsentRequired(table.fields, file.fields, "", out);
  return out;
}

std::vector<SchemaChange> ClassifySchema(const Schema& base,
                                         const Schema& file) {
  if (base.fields == file.fields) return {};
  std::vector<SchemaChange> names = FileNameConflicts(file);
  for (SchemaChange& conflict : CaseConflicts(base, file)) {
    names.push_back(std::move(conflict));
  }
  if (!names.empty()) return names;

  std::vector<std::string> absent = AbsentRequiredPaths(base, file);
  int32_t last_id = HighestFieldId(base);
  absl::StatusOr<Schema> simulated = UnionByName(base, file, last_id);
  for (const std::string& path : absent) {
    if (!simulated.ok()) break;
    simulated = MakeOptional(*simulated, path);
  }
  if (!simulated.ok()) {
    return {Conflict("", std::string(simulated.status().message()))};
  }
  Differ differ(base, std::move(absent));
  differ.Walk(simulated->fields, "");
  return differ.Take();
}

std::vector<std::string> DisallowedChanges(
    const std::vector<SchemaChange>& changes,
    const std::set<EvolutionOption>& options,
    const std::set<std::string>& pins) {
  std::vector<std::string> reasons;
  for (const SchemaChange& change : changes) {
    if (change.kind == ChangeKind::kConflict) {
      reasons.push_back(change.description);
    }
  }
  for (const SchemaChange& change : changes) {
    if (change.kind == ChangeKind::kConflict) continue;
    if (change.kind == ChangeKind::kFieldRelaxation) {
      if (pins.contains(change.path)) {
        reasons.push_back(
            absl::StrCat(change.description, " (pinned as required)"));
        continue;
      }
      auto pinned_below =
          std::find_if(pins.begin(), pins.end(), [&](const std::string& pin) {
            return absl::StartsWith(pin, absl::StrCat(change.path, "."));
          });
      if (pinned_below != pins.end()) {
        reasons.push_back(absl::StrCat(change.description,
                                       " (ancestor of pinned column ",
                                       *pinned_below, ")"));
        continue;
      }
    }
    const EvolutionOption needed = change.kind == ChangeKind::kFieldAddition
                                       ? EvolutionOption::kAllowFieldAddition
                                   : change.kind == ChangeKind::kFieldRelaxation
                                       ? EvolutionOption::kAllowFieldRelaxation
                                       : EvolutionOption::kAllowTypePromotion;
    if (!options.contains(needed)) {
      reasons.push_back(absl::StrCat(change.description, " (needs ",
                                     EvolutionOptionName(needed), ")"));
    }
  }
  return reasons;
}

std::string EvolutionOptionName(EvolutionOption option) {
  return std::string(kEvolutionOption.Name(option));
}

}  // namespace gcpstream::iceberg
