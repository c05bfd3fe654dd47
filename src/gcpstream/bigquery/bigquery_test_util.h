#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_TEST_UTIL_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_TEST_UTIL_H_

// Reading what the BigQuery emulator holds, independently of the sink
// (tabledata.list through the REST API), and the per-day input every write
// method's test lands.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gcpstream/base/destination.h"
#include "gcpstream/bigquery/bigquery_sink_options.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/bigquery/tables_client.h"
#include "gcpstream/rest/rest_client.h"
#include "gcpstream/rest/rest_target.h"
#include "gcpstream/storage/storage_client.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery::testing {

// Every row of `table` as column name -> value (tabledata.list's cell
// values: strings, or null), in the emulator's order.
inline absl::StatusOr<std::vector<nlohmann::json>> ReadRows(
    const TableDestination& table) {
  absl::StatusOr<rest::RestClientOptions> options =
      rest::ResolveRestTarget(BigQueryRestService(), {});
  if (!options.ok()) return options.status();
  rest::RestClient client(*std::move(options));
  absl::StatusOr<TableInfo> info = TablesClient(client).GetTable(table);
  if (!info.ok()) return info.status();
  std::vector<nlohmann::json> rows;
  std::string page_token;
  do {
    absl::StatusOr<http::HttpResponse> response = client.Send(
        {.path = absl::StrCat(
             "/bigquery/v2/projects/", table.project, "/datasets/",
             table.dataset, "/tables/", table.table, "/data?maxResults=100000",
             page_token.empty() ? "" : "&pageToken=", page_token)});
    if (!response.ok()) return response.status();
    const nlohmann::json page = nlohmann::json::parse(response->body);
    for (const nlohmann::json& row :
         page.value("rows", nlohmann::json::array())) {
      nlohmann::json out = nlohmann::json::object();
      for (size_t i = 0; i < row["f"].size() && i < info->schema.fields.size();
           ++i) {
        out[info->schema.fields[i].name] = row["f"][i]["v"];
      }
      rows.push_back(std::move(out));
    }
    page_token = page.value("pageToken", std::string());
  } while (!page_token.empty());
  return rows;
}

// Starts the Cloud Storage emulator (its files are what the BigQuery
// emulator's load jobs read) and creates `bucket` unless it exists.
inline absl::Status EnsureStagingBucket(const std::string& bucket) {
  absl::StatusOr<std::string> host =
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kStorage);
  if (!host.ok()) return host.status();
  absl::StatusOr<rest::RestClientOptions> options =
      rest::ResolveRestTarget(storage::StorageRestService(), {});
  if (!options.ok()) return options.status();
  absl::StatusOr<http::HttpResponse> created = rest::RestClient(*options).Send(
      {.method = "POST",
       .path = "/storage/v1/b?project=p",
       .headers = {"Content-Type: application/json"},
       .body = nlohmann::json{{"name", bucket}}.dump(),
       .idempotent = false});
  // 409 (ABORTED): an earlier test made it.
  if (!created.ok() && created.status().code() != absl::StatusCode::kAborted) {
    return created.status();
  }
  return absl::OkStatus();
}

// The names of the objects under `prefix` in the emulator's `bucket`.
inline absl::StatusOr<std::vector<std::string>> StagedObjects(
    const std::string& bucket, const std::string& prefix) {
  absl::StatusOr<storage::StorageClient> client = storage::StorageClientFor();
  if (!client.ok()) return client.status();
  absl::StatusOr<std::vector<storage::ObjectMetadata>> objects =
      client->List(bucket, prefix);
  if (!objects.ok()) return objects.status();
  std::vector<std::string> names;
  for (const storage::ObjectMetadata& object : *objects) {
    names.push_back(object.name);
  }
  return names;
}

// Writes `records` through a new writer of `sink` as one checkpoint:
// flushed, its commit prepared; returns the committables.
template <typename Sink>
std::vector<std::string> WriteCheckpoint(
    gcpstream::testing::SinkTestTask& task, Sink& sink,
    const std::vector<nlohmann::json>& records, int64_t checkpoint_id) {
  auto writer = sink.CreateWriter(task.Context());
  EXPECT_TRUE(writer.ok()) << writer.status();
  if (!writer.ok()) return {};
  EXPECT_TRUE(task.WriteAll(**writer, records).ok());
  absl::StatusOr<std::vector<std::string>> committables =
      (*writer)->PrepareCommit(checkpoint_id);
  EXPECT_TRUE(committables.ok()) << committables.status();
  (*writer)->Close();
  return committables.ok() ? *committables : std::vector<std::string>();
}

// The row count of each of `tables` (table -> anything) in the emulator.
inline std::map<std::string, int> RowCounts(
    const std::string& project, const std::string& dataset,
    const std::map<std::string, int>& tables) {
  std::map<std::string, int> counts;
  for (const auto& [table, expected] : tables) {
    absl::StatusOr<std::vector<nlohmann::json>> rows =
        ReadRows(TableDestination(project, dataset, table));
    EXPECT_TRUE(rows.ok()) << rows.status();
    counts[table] = rows.ok() ? static_cast<int>(rows->size()) : -1;
  }
  return counts;
}

// A dataset of its own per test run: the emulator outlives a test.
inline std::string FreshDataset(absl::string_view name) {
  static int runs = 0;
  return absl::StrCat(name, "_", ++runs);
}

// Sink options for the per-day tables: a schema of most column types,
// partitioned by `day`, clustered by region and id.
inline BigQuerySinkOptions PerDayOptions() {
  BigQuerySinkOptions options;
  options.name = "bq";
  options.max_batch_rows = 50;
  options.table.schema = TableSchema{
      {{.name = "id", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "day", .type = FieldType::kDate},
       {.name = "region", .type = FieldType::kString},
       {.name = "amount", .type = FieldType::kNumeric},
       {.name = "at", .type = FieldType::kTimestamp},
       {.name = "tags",
        .type = FieldType::kString,
        .mode = FieldMode::kRepeated},
       {.name = "doc", .type = FieldType::kJson}}};
  options.table.time_partitioning =
      TimePartitioning{.field = "day", .granularity = "DAY"};
  options.table.clustering = {"region", "id"};
  return options;
}

// Records of ten days, table events_DD per day; day 9's belong nowhere
// (UnroutableRecord) and every 97th has an amount that is no NUMERIC.
struct PerDayInput {
  std::vector<nlohmann::json> records;
  std::map<std::string, int> expected_per_table;
  // Per table, id -> the row tabledata.list should show (id, day, region,
  // amount).
  std::map<std::string, std::map<std::string, nlohmann::json>> expected_rows;
  int unfit = 0;
  int unroutable = 0;
};

inline PerDayInput MakePerDayInput(int count, int first_id = 0) {
  PerDayInput input;
  for (int i = first_id; i < first_id + count; ++i) {
    const int day = 1 + i % 10;
    nlohmann::json record = {{"id", i},
                             {"day", absl::StrFormat("2026-12-%02d", day)},
                             {"region", i % 2 == 0 ? "eu" : "us"},
                             {"amount", absl::StrCat(i, ".25")},
                             {"at", "2026-12-01T10:00:00Z"},
                             {"tags", nlohmann::json::array({"a", "b"})},
                             {"doc", {{"n", i}}}};
    if (day == 9) {
      ++input.unroutable;  // Routed before it is serialized.
    } else if (i % 97 == 5) {
      record["amount"] = "not a number";  // Does not fit NUMERIC.
      ++input.unfit;
    } else {
      const std::string table = absl::StrFormat("events_%02d", day);
      ++input.expected_per_table[table];
      input.expected_rows[table][absl::StrCat(i)] = {
          {"id", absl::StrCat(i)},
          {"day", record["day"]},
          {"region", record["region"]},
          {"amount", absl::StrCat(i, ".250000000")}};
    }
    input.records.push_back(std::move(record));
  }
  return input;
}

// Every table of `input` in `dataset` holds exactly its expected rows:
// no row missing, none twice, none unexpected, each with its values.
inline void ExpectTablesHoldTheInput(const std::string& project,
                                     const std::string& dataset,
                                     const PerDayInput& input) {
  for (const auto& [table, expected] : input.expected_rows) {
    absl::StatusOr<std::vector<nlohmann::json>> rows =
        ReadRows(TableDestination(project, dataset, table));
    ASSERT_TRUE(rows.ok()) << rows.status();
    std::map<std::string, nlohmann::json> found;
    for (const nlohmann::json& row : *rows) {
      const std::string id = row.value("id", std::string());
      EXPECT_FALSE(found.contains(id)) << table << ": id " << id << " twice";
      found[id] = {{"id", row["id"]},
                   {"day", row["day"]},
                   {"region", row["region"]},
                   {"amount", row["amount"]}};
    }
    EXPECT_EQ(found.size(), expected.size()) << table;
    for (const auto& [id, row] : expected) {
      auto it = found.find(id);
      if (it == found.end()) {
        ADD_FAILURE() << table << ": id " << id << " missing";
        continue;
      }
      EXPECT_EQ(it->second, row) << table;
    }
  }
}

// Day tables from the record; records of day 9 are unroutable.
inline std::unique_ptr<DestinationResolver<nlohmann::json, TableDestination>>
PerDayResolver(const std::string& project, const std::string& dataset) {
  return MakeResolver<nlohmann::json, TableDestination>(
      [project, dataset](
          const nlohmann::json& record,
          const WriterContext&) -> absl::StatusOr<TableDestination> {
        const std::string day = record.value("day", std::string());
        if (day == "2026-12-09") {
          return TableDestination::Unroutable(
              {.payload = record.dump(), .reason = "no table for day 9"});
        }
        return TableDestination(project, dataset,
                                absl::StrCat("events_", day.substr(8, 2)));
      });
}

}  // namespace gcpstream::bigquery::testing

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_TEST_UTIL_H_
