#ifndef GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_PLAN_H_
#define GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_PLAN_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/evolution/schema_delta.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"
#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg {

// What the pipeline's owner allows (docs/iceberg.md, "Options").
struct EvolutionConfig {
  std::set<EvolutionOption> options;
  // `required-columns`: dotted paths, through `element` and `value`.
  std::set<std::string> pins;
};

// One file's schema as evolution sees it.
struct FileSchema {
  std::string path;
  // Canonical (sorted, renumbered), optionality as the file declares it.
  Schema schema;
  // Optional columns the footer proves free of nulls.
  std::vector<std::string> null_free_columns;
};

// The file's schema from its footer; InvalidArgument when it has no Iceberg
// equivalent (see ConvertParquetSchema).
absl::StatusOr<FileSchema> FileSchemaOf(const std::string& path,
                                        const ParquetFooter& footer);

// Files of one canonical schema.
struct SchemaGroup {
  Schema schema;
  std::string canonical_json;
  std::vector<std::string> files;
  // Proven null-free in every file of the group: one file with a null (or
  // without a count) makes a column nullable for the whole group.
  std::vector<std::string> null_free_columns;

  // The schema with the group's null evidence applied.
  Schema Effective() const;
};

// Groups a window's files by canonical schema, most files first, ties by
// the schema's JSON: the order that decides which schema wins a conflict.
std::vector<SchemaGroup> GroupBySchema(const std::vector<FileSchema>& files);

// The schema change a window makes, decided before any of its files is
// registered (docs/iceberg.md, "A window's schema plan").
struct SchemaPlan {
  // The table's schema after the window; nullopt when it does not change.
  // Its schema id is left to the commit, which reuses the id of an equal
  // schema the table already has or takes the highest id + 1.
  std::optional<Schema> new_schema;
  // The table is missing and will be created with `new_schema`.
  bool create_table = false;
  // Groups (by index) whose files cannot be registered, and why.
  std::vector<std::pair<size_t, std::string>> incompatible;
  // Pins the created table cannot enforce.
  std::vector<std::string> config_problems;
  // The last column id after the change.
  int32_t last_column_id = 0;
};

// Plans a window against `table` (nullopt: the table does not exist) whose
// last assigned column id is `last_column_id`.
SchemaPlan PlanWindow(const std::optional<Schema>& table,
                      int32_t last_column_id,
                      const std::vector<SchemaGroup>& groups,
                      const EvolutionConfig& config);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_PLAN_H_
