#ifndef GCPSTREAM_BIGQUERY_TABLES_CLIENT_H_
#define GCPSTREAM_BIGQUERY_TABLES_CLIENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/bigquery/table_schema.h"
#include "gcpstream/rest/rest_client.h"
#include "gcpstream/rest/rest_target.h"

namespace gcpstream::bigquery {

// How a created table is partitioned by time.
struct TimePartitioning {
  // The DATE, TIMESTAMP or DATETIME column; empty partitions by ingestion
  // time.
  std::string field;
  // "DAY" (default), "HOUR", "MONTH" or "YEAR".
  std::string granularity = "DAY";
  // Partitions older than this are deleted; unset keeps them.
  std::optional<absl::Duration> expiration{};
};

// What the sink creates a missing table with.
struct TableDefinition {
  TableSchema schema;
  std::optional<TimePartitioning> time_partitioning;
  // Up to four columns, in order.
  std::vector<std::string> clustering;
  // The primary key (not enforced by BigQuery; CDC upserts need one).
  std::vector<std::string> primary_key{};
};

// A table as the tables API describes it.
struct TableInfo {
  TableSchema schema;
  // numRows, when the API gives it.
  std::optional<int64_t> num_rows;
  std::optional<TimePartitioning> time_partitioning;
  std::vector<std::string> clustering;
  // Where the table's data lives ("US", "europe-west1"), when the API says.
  std::string location;
};

// BigQuery's REST API (tables and datasets) on a RestClient: production
// https://bigquery.googleapis.com, or the emulator BIGQUERY_EMULATOR_HOST
// names. Synchronous: the sink calls it when a table is first written and
// when a write says the table changed, not per row.
class TablesClient {
 public:
  explicit TablesClient(rest::RestClient client) : client_(std::move(client)) {}

  // NOT_FOUND when the table (or its dataset) does not exist.
  absl::StatusOr<TableInfo> GetTable(const TableDestination& table) const;
  // ALREADY_EXISTS when it does.
  absl::StatusOr<TableInfo> CreateTable(
      const TableDestination& table, const TableDefinition& definition) const;
  // Replaces the table's schema (only compatible changes pass).
  absl::StatusOr<TableInfo> PatchSchema(const TableDestination& table,
                                        const TableSchema& schema) const;
  // The ids of the dataset's tables.
  absl::StatusOr<std::vector<std::string>> ListTables(
      const std::string& project, const std::string& dataset) const;
  // OK when the dataset exists afterwards (created, or already there).
  absl::Status EnsureDataset(const std::string& project,
                             const std::string& dataset) const;

 private:
  rest::RestClient client_;
};

// The REST service, for ResolveRestTarget.
rest::RestService BigQueryRestService();

// A client for `options`' target (endpoint, emulator variable, production
// credentials).
absl::StatusOr<TablesClient> TablesClientFor(
    const rest::RestTargetOptions& options);

// "DAY"/"HOUR"/"MONTH"/"YEAR" (case-insensitive) -> the API's spelling.
absl::StatusOr<std::string> ParsePartitionGranularity(absl::string_view text);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_TABLES_CLIENT_H_
