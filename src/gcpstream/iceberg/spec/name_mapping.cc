#include "gcpstream/iceberg/spec/name_mapping.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

namespace gcpstream::iceberg {
namespace {

using Json = nlohmann::ordered_json;

NameMapping MappingOfFields(const std::vector<Field>& fields) {
  NameMapping out;
  out.reserve(fields.size());
  for (const Field& field : fields) {
    out.push_back(MappedField{
        field.id, {field.name}, MappingOfFields(field.type.fields)});
  }
  return out;
}

const MappedField* FindByName(const NameMapping& mapping,
                              const std::string& name) {
  for (const MappedField& entry : mapping) {
    if (std::find(entry.names.begin(), entry.names.end(), name) !=
        entry.names.end()) {
      return &entry;
    }
  }
  return nullptr;
}

bool CoversFields(const NameMapping& mapping,
                  const std::vector<Field>& fields) {
  return std::ranges::all_of(fields, [&](const Field& field) {
    const MappedField* entry = FindByName(mapping, field.name);
    return entry != nullptr && entry->field_id == field.id &&
           CoversFields(entry->fields, field.type.fields);
  });
}

void IndexById(const NameMapping& mapping,
               std::map<int32_t, const MappedField*>& out) {
  for (const MappedField& entry : mapping) {
    if (entry.field_id.has_value()) out.emplace(*entry.field_id, &entry);
    IndexById(entry.fields, out);
  }
}

void CarryNames(NameMapping& level,
                const std::map<int32_t, const MappedField*>& old_by_id) {
  std::set<std::string> taken;
  for (const MappedField& entry : level) taken.insert(entry.names[0]);
  for (MappedField& entry : level) {
    auto it = old_by_id.find(*entry.field_id);
    if (it != old_by_id.end()) {
      for (const std::string& name : it->second->names) {
        if (taken.insert(name).second) entry.names.push_back(name);
      }
    }
    CarryNames(entry.fields, old_by_id);
  }
}

Json ToJson(const NameMapping& mapping) {
  Json out = Json::array();
  for (const MappedField& entry : mapping) {
    Json field = Json::object();
    if (entry.field_id.has_value()) field["field-id"] = *entry.field_id;
    field["names"] = entry.names;
    if (!entry.fields.empty()) field["fields"] = ToJson(entry.fields);
    out.push_back(std::move(field));
  }
  return out;
}

std::optional<NameMapping> FromJson(const Json& json) {
  if (!json.is_array()) return std::nullopt;
  NameMapping out;
  std::set<std::string> names_at_level;
  for (const Json& field : json) {
    if (!field.is_object() || !field.contains("names") ||
        !field["names"].is_array()) {
      return std::nullopt;
    }
    MappedField entry;
    if (field.contains("field-id") && field["field-id"].is_number_integer()) {
      entry.field_id = field["field-id"].get<int32_t>();
    }
    for (const Json& name : field["names"]) {
      if (!name.is_string()) return std::nullopt;
      // One name for two fields at a level makes the mapping ambiguous.
      if (!names_at_level.insert(name.get<std::string>()).second) {
        return std::nullopt;
      }
      entry.names.push_back(name.get<std::string>());
    }
    if (field.contains("fields")) {
      std::optional<NameMapping> nested = FromJson(field["fields"]);
      if (!nested.has_value()) return std::nullopt;
      entry.fields = *std::move(nested);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::optional<int32_t> MappedFieldId(const NameMapping& mapping,
                                     const std::vector<std::string>& names) {
  const NameMapping* level = &mapping;
  const MappedField* entry = nullptr;
  for (const std::string& name : names) {
    entry = FindByName(*level, name);
    if (entry == nullptr) return std::nullopt;
    level = &entry->fields;
  }
  return entry == nullptr ? std::nullopt : entry->field_id;
}

std::map<int32_t, std::set<std::string>> MappedPaths(
    const NameMapping& mapping) {
  std::map<int32_t, std::set<std::string>> out;
  // Each level's entries with the paths that lead to them.
  std::vector<std::pair<std::string, const NameMapping*>> pending = {
      {"", &mapping}};
  while (!pending.empty()) {
    auto [prefix, level] = pending.back();
    pending.pop_back();
    for (const MappedField& entry : *level) {
      for (const std::string& name : entry.names) {
        std::string path =
            prefix.empty() ? name : absl::StrCat(prefix, ".", name);
        if (entry.field_id.has_value()) out[*entry.field_id].insert(path);
        pending.emplace_back(std::move(path), &entry.fields);
      }
    }
  }
  return out;
}

NameMapping NameMappingOf(const Schema& schema) {
  return MappingOfFields(schema.fields);
}

bool Covers(const NameMapping& mapping, const Schema& schema) {
  return CoversFields(mapping, schema.fields);
}

NameMapping UpdatedNameMapping(const NameMapping& old, const Schema& schema) {
  NameMapping updated = NameMappingOf(schema);
  std::map<int32_t, const MappedField*> old_by_id;
  IndexById(old, old_by_id);
  CarryNames(updated, old_by_id);
  return updated;
}

std::string NameMappingToJson(const NameMapping& mapping) {
  return ToJson(mapping).dump();
}

std::optional<NameMapping> NameMappingFromJson(const std::string& json) {
  const Json parsed = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  return FromJson(parsed);
}

}  // namespace gcpstream::iceberg
