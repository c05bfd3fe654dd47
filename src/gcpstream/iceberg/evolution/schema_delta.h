#ifndef GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_DELTA_H_
#define GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_DELTA_H_

#include <set>
#include <string>
#include <vector>

#include "gcpstream/base/options.h"
#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg {

// The changes a pipeline's owner may allow (option
// `schema-evolution-options`).
enum class EvolutionOption {
  kAllowFieldAddition,
  kAllowFieldRelaxation,
  kAllowTypePromotion,
};

inline constexpr EnumSpelling<EvolutionOption> kEvolutionOptions[] = {
    {"allow-field-addition", EvolutionOption::kAllowFieldAddition},
    {"allow-field-relaxation", EvolutionOption::kAllowFieldRelaxation},
    {"allow-type-promotion", EvolutionOption::kAllowTypePromotion},
};
// Each element of the list option `schema-evolution-options`.
inline constexpr EnumOption kEvolutionOption("schema-evolution-options",
                                             kEvolutionOptions);

enum class ChangeKind {
  kFieldAddition,
  kFieldRelaxation,
  kTypePromotion,
  kConflict,
};

struct SchemaChange {
  ChangeKind kind = ChangeKind::kConflict;
  // Dotted, through `element` of lists and `value` of maps.
  std::string path;
  // "add optional geo struct<lat: optional double>", "make email optional",
  // "promote amount from int to long", or what the conflict is.
  std::string description;
  // A relaxation because the file lacks a required column.
  bool absent_from_file = false;
};

// What registering a file of schema `file` in a table of schema `base`
// would change, by Iceberg's union by name (docs/iceberg.md, "Schema
// evolution"): additions (once, at the outermost added field), relaxations
// (a required column the file has as optional, or lacks), promotions, and
// conflicts — names with a dot, empty names, names differing only in case
// from another at their level, types no promotion reaches. Empty when the
// table already covers the file. `file` is a file's effective schema (its
// null evidence applied).
std::vector<SchemaChange> ClassifySchema(const Schema& base,
                                         const Schema& file);

// The name problems of `file` on its own: dotted or empty names, names at
// one level differing only in case. Conflicts, in the file's order.
std::vector<SchemaChange> FileNameConflicts(const Schema& file);

// File columns whose names match a column of `table` at the same level only
// case-insensitively.
std::vector<SchemaChange> CaseConflicts(const Schema& table,
                                        const Schema& file);

// Dotted paths of `table`'s required columns that `file` lacks: inside
// present structs, list elements and map values, never map keys; an absent
// struct is one path.
std::vector<std::string> AbsentRequiredPaths(const Schema& table,
                                             const Schema& file);

// Whether `changes` may be made under `options` with `pins` (dotted paths
// of columns that must stay required): all of them or none. A conflict is
// never allowed, nor relaxing a pinned column or an ancestor of one. Empty
// when allowed; otherwise why not, conflicts first: "add optional email
// string (needs allow-field-addition)", "make city optional (pinned as
// required)", "make address optional (ancestor of pinned column
// address.city)".
std::vector<std::string> DisallowedChanges(
    const std::vector<SchemaChange>& changes,
    const std::set<EvolutionOption>& options,
    const std::set<std::string>& pins);

// The option's spelling in configuration ("allow-field-addition").
std::string EvolutionOptionName(EvolutionOption option);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_DELTA_H_
