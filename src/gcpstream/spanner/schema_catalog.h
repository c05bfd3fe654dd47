#ifndef GCPSTREAM_SPANNER_SCHEMA_CATALOG_H_
#define GCPSTREAM_SPANNER_SCHEMA_CATALOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/spanner/spanner_mutation.h"
#include "gcpstream/spanner/spanner_value.h"
#include "google/protobuf/arena.h"
#include "google/spanner/v1/mutation.pb.h"
#include "google/spanner/v1/result_set.pb.h"

namespace gcpstream::spanner {

enum class Dialect { kGoogleSql, kPostgreSql };

// A column's type as INFORMATION_SCHEMA.COLUMNS.SPANNER_TYPE spells it, in
// either dialect ("STRING(MAX)", "ARRAY<INT64>", "character varying(20)",
// "bigint[]", ...). `supported` is false for types a mutation cannot be
// checked against (PROTO, ENUM, TOKENLIST, ...): writing them is refused.
struct ColumnType {
  TypeCode code = TypeCode::kString;
  std::optional<TypeCode> element;  // For kArray.
  bool supported = true;
  std::string spelling;
};

ColumnType ParseSpannerType(absl::string_view spelling, Dialect dialect);

struct ColumnInfo {
  std::string name;
  ColumnType type;
  bool nullable = true;
  // Secondary indexes holding this column (as key or STORING): each write
  // of the column also writes one index entry.
  int index_count = 0;
};

struct TableSchema {
  std::string schema;  // "" (GoogleSQL default) or "public" (PostgreSQL).
  std::string name;
  std::vector<ColumnInfo> columns;
  std::vector<int> primary_key;  // Indexes into `columns`, in key order.
  int secondary_indexes = 0;

  // Exact names first, then case-insensitively.
  const ColumnInfo* Find(absl::string_view column) const;
  // "Orders" in the default schema, else "sales.Orders".
  const std::string& QualifiedName() const { return qualified_name; }

  std::string qualified_name;
  absl::flat_hash_map<std::string, int> column_index;  // By exact name.

  // Dependencies between rows of different tables (see MutationBatch), set
  // by the catalog: `root` is the top of the table's interleave hierarchy
  // (itself when not interleaved); `root_key_parts` the length of the root's
  // primary key, the prefix of every key in the hierarchy; `hierarchy` whether
  // it has more than one table. `family` numbers the hierarchies linked by
  // foreign keys
  // (-1: none references this hierarchy and it references none).
  const TableSchema* root = nullptr;
  size_t root_key_parts = 0;
  bool hierarchy = false;
  int family = -1;
};

// A mutation in wire form with its weight against the batch limits.
struct EncodedMutation {
  // On the arena Encode() was given (the open batch's): a batch's protos
  // are allocated and freed together, not one by one (null for a mutation
  // that failed to encode).
  google::spanner::v1::Mutation* proto = nullptr;
  // One per written column plus one per index entry it writes; a delete
  // costs one per key or range plus one per secondary index of the table.
  int64_t cells = 0;
  int64_t bytes = 0;  // Serialized size of `proto`.
  // The catalog's table the mutation writes (null when it failed to
  // encode).
  const TableSchema* table = nullptr;
};

// The tables of one database, read once when a writer opens.
class SchemaCatalog {
 public:
  // The queries that feed FromResults, in the dialect's spelling.
  static std::string ColumnsQuery(Dialect dialect);
  static std::string IndexColumnsQuery(Dialect dialect);
  static std::string RelationsQuery(Dialect dialect);

  // `columns`: rows of ColumnsQuery (schema, table, column, spanner_type,
  // is_nullable); `index_columns`: rows of IndexColumnsQuery (schema,
  // table, index name, index type, column, ordinal position); `relations`:
  // rows of RelationsQuery (schema, table, "INTERLEAVE" or "FOREIGN_KEY",
  // schema, table it is interleaved in or references).
  static absl::StatusOr<SchemaCatalog> FromResults(
      Dialect dialect, const google::spanner::v1::ResultSet& columns,
      const google::spanner::v1::ResultSet& index_columns,
      const google::spanner::v1::ResultSet& relations = {});

  // The table a mutation names: "Orders" in the default schema, or
  // "sales.Orders". Names match case-insensitively, as unquoted
  // identifiers do in both dialects.
  const TableSchema* FindTable(absl::string_view name) const;

  // Checks every value against its column's type and encodes the mutation.
  // NotFound for an unknown table or column (a mapping error: the sink
  // fails the job, as Spanner's own NOT_FOUND would); InvalidArgument
  // (naming table, column, column type and value type) for a value of the
  // wrong type, a commit timestamp outside a TIMESTAMP column, a key of the
  // wrong length, or a delete without keys.
  absl::StatusOr<EncodedMutation> Encode(const Mutation& mutation,
                                         google::protobuf::Arena& arena) const;

  Dialect dialect() const { return dialect_; }
  size_t table_count() const { return tables_.size(); }

 private:
  explicit SchemaCatalog(Dialect dialect) : dialect_(dialect) {}
  absl::Status LinkRelations(const google::spanner::v1::ResultSet& relations);

  Dialect dialect_;
  // Keyed by lower-case "schema.table" with the default schema written "".
  absl::flat_hash_map<std::string, TableSchema> tables_;
  // By the exact name a mutation would use ("Orders", "sales.Orders").
  absl::flat_hash_map<std::string, const TableSchema*> by_exact_name_;
};

// Writes the value's wire encoding for a column of `type` into `out`,
// widening INT64 to FLOAT32/FLOAT64/NUMERIC and FLOAT32 to FLOAT64 as
// Spanner would, and accepting a STRING in its wire form for DATE
// ("2026-12-01"), TIMESTAMP (RFC 3339), NUMERIC ("-12.50"), JSON (JSON text)
// and BYTES (base64), checked here; an InvalidArgument naming
// `<what> <table>.<column>` when the value does not fit.
absl::Status EncodeForColumn(const Value& value, const ColumnType& type,
                             absl::string_view what, absl::string_view table,
                             absl::string_view column,
                             google::protobuf::Value* out);

// EncodeForColumn of Value::String(text), without the copy into a Value:
// false where that returns an error.
bool EncodeTextForColumn(absl::string_view text, const ColumnType& type,
                         google::protobuf::Value* out);

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SCHEMA_CATALOG_H_
