#ifndef GCPSTREAM_ICEBERG_SPEC_NAME_MAPPING_H_
#define GCPSTREAM_ICEBERG_SPEC_NAME_MAPPING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg {

// Iceberg's name mapping (table property `schema.name-mapping.default`):
// how readers find a column in a file that has no field ids — by name, at
// each level, with `element`, `key` and `value` for a container's parts.
struct MappedField {
  std::optional<int32_t> field_id;
  std::vector<std::string> names;
  std::vector<MappedField> fields;
};

using NameMapping = std::vector<MappedField>;

// The mapping a schema implies: each field under its own name.
NameMapping NameMappingOf(const Schema& schema);

// Whether `mapping` finds every field of `schema` by its name path and maps
// it to its own id (a missing or wrong id is not covered).
bool Covers(const NameMapping& mapping, const Schema& schema);

// The mapping for `schema` that keeps what `old` adds to it: extra names of
// a field (aliases, names from before a rename) are carried over by field
// id, unless another field at the same level has that name; entries of ids
// no longer in the schema are dropped.
NameMapping UpdatedNameMapping(const NameMapping& old, const Schema& schema);

// The id `mapping` gives the field at `names` (a name per level, `element`,
// `key` or `value` inside containers); nullopt when it maps none.
std::optional<int32_t> MappedFieldId(const NameMapping& mapping,
                                     const std::vector<std::string>& names);

// Every dotted path `mapping` gives each id (each name of a field combined
// with each of its parent's).
std::map<int32_t, std::set<std::string>> MappedPaths(
    const NameMapping& mapping);

// The property's JSON, and back; nullopt when the JSON is not a mapping
// (a mapping that cannot be read is regenerated, never trusted).
std::string NameMappingToJson(const NameMapping& mapping);
std::optional<NameMapping> NameMappingFromJson(const std::string& json);

// The table property that holds the mapping.
inline constexpr char kNameMappingProperty[] = "schema.name-mapping.default";

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_SPEC_NAME_MAPPING_H_
