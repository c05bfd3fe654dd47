#ifndef GCPSTREAM_CONFIG_SPANNER_MUTATION_MAPPING_H_
#define GCPSTREAM_CONFIG_SPANNER_MUTATION_MAPPING_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/destination_template.h"
#include "gcpstream/config/field_path.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_mutation.h"
#include "google/protobuf/arena.h"

namespace gcpstream::config {

// How a `type: spanner` sink of a pipeline file makes a record's mutation.
struct MutationMapping {
  DestinationTemplate table;
  spanner::Operation operation = spanner::Operation::kInsertOrUpdate;
  // Column name and the field it comes from, in file order (for a delete,
  // the key columns in key order).
  std::vector<std::pair<std::string, FieldPath>> columns = {};
};

// The record's mutation, each field as the Spanner value it most directly
// is (the column's type decides at encoding whether it fits: integers widen
// to FLOAT64/NUMERIC, text in wire form fits DATE, TIMESTAMP, NUMERIC, JSON
// and BYTES). InvalidArgument naming the field when it is missing or no
// Spanner value.
absl::StatusOr<std::optional<spanner::Mutation>> ToMutation(
    const MutationMapping& mapping, const Record& record,
    const WriterContext& context);

// The same mutation encoded straight from the record (a
// spanner::WireEncoder): the proto SchemaCatalog::Encode makes of
// ToMutation's result, without that typed Mutation. Deletes, arrays and
// anything that would fail decline (nullopt), to take ToMutation's path.
std::optional<spanner::EncodedMutation> EncodeWire(
    const MutationMapping& mapping, const Record& record,
    const WriterContext& context, const spanner::SchemaCatalog& catalog,
    google::protobuf::Arena& arena);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_SPANNER_MUTATION_MAPPING_H_
