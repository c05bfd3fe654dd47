#ifndef GCPSTREAM_ICEBERG_EVOLUTION_WINDOW_SCHEMA_H_
#define GCPSTREAM_ICEBERG_EVOLUTION_WINDOW_SCHEMA_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/catalog/catalog.h"
#include "gcpstream/iceberg/evolution/schema_plan.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// The name mapping property `table` needs for `schema`: nullopt when the
// stored one covers it (a customized mapping is left alone), otherwise the
// stored mapping updated for the schema, or the schema's own mapping when
// there is none or it cannot be read.
std::optional<std::string> RepairedNameMapping(const TableMetadata& table,
                                               const Schema& schema);

// A window's schema, planned and committed before any of its files is
// registered.
struct WindowSchema {
  // The table after the commit; nullopt when it does not exist (and was not
  // created).
  std::optional<LoadedTable> table;
  // The plan that was committed (or, in a dry run, would be).
  SchemaPlan plan;
  // The table's schema before the window; nullopt when it did not exist.
  std::optional<Schema> before;
  // Whether a metadata version was committed (schema, name mapping repair
  // or the table's creation).
  bool committed = false;
  // Whether the stored name mapping needed repair.
  bool mapping_repaired = false;
};

// Plans the window's schema change against the table as it is and commits
// it as one metadata version: the new schema and, when needed, the
// repaired name mapping; or creates the table. A commit that loses a race
// is planned again from the table as the winner left it, within the
// table's commit.retry.* budget. `dry_run` plans without committing.
// With `fail_on_incompatible`, a plan that leaves a file schema out or
// cannot enforce a pin commits nothing: FailedPrecondition describing each
// such schema.
absl::StatusOr<WindowSchema> CommitWindowSchema(
    Catalog& catalog, const TableIdentifier& table,
    const std::vector<SchemaGroup>& groups, const EvolutionConfig& config,
    bool fail_on_incompatible, bool dry_run);

// Why a plan is refused under `fail_on_incompatible`; empty when it is not.
std::string RefusedPlanMessage(const TableIdentifier& table,
                               const std::vector<SchemaGroup>& groups,
                               const SchemaPlan& plan);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_EVOLUTION_WINDOW_SCHEMA_H_
