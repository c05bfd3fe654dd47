#include "gcpstream/bigquery/tables_client.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::bigquery {
namespace {

using Json = nlohmann::json;

std::string TablesPath(const std::string& project, const std::string& dataset) {
  return absl::StrCat("/bigquery/v2/projects/", project, "/datasets/", dataset,
                      "/tables");
}

std::string TablePath(const TableDestination& table) {
  return absl::StrCat(TablesPath(table.project, table.dataset), "/",
                      table.table);
}

absl::StatusOr<TableInfo> TableInfoFromJson(const std::string& body,
                                            const TableDestination& table) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InternalError(absl::StrCat(
        "the tables API answered for ", table.Spec(), " with no JSON object"));
  }
  TableInfo info;
  if (json.contains("schema")) {
    absl::StatusOr<TableSchema> schema = TableSchemaFromJson(json["schema"]);
    if (!schema.ok()) {
      return absl::InternalError(absl::StrCat("table ", table.Spec(), ": ",
                                              schema.status().message()));
    }
    info.schema = *std::move(schema);
  }
  int64_t num_rows = 0;
  if (json.contains("numRows") && json["numRows"].is_string() &&
      absl::SimpleAtoi(json["numRows"].get<std::string>(), &num_rows)) {
    info.num_rows = num_rows;
  }
  if (json.contains("timePartitioning") &&
      json["timePartitioning"].is_object()) {
    const Json& partitioning = json["timePartitioning"];
    TimePartitioning out;
    out.field = partitioning.value("field", std::string());
    out.granularity = partitioning.value("type", std::string("DAY"));
    int64_t ms = 0;
    if (partitioning.contains("expirationMs") &&
        partitioning["expirationMs"].is_string() &&
        absl::SimpleAtoi(partitioning["expirationMs"].get<std::string>(),
                         &ms)) {
      out.expiration = absl::Milliseconds(ms);
    }
    info.time_partitioning = std::move(out);
  }
  if (json.contains("location") && json["location"].is_string()) {
    info.location = json["location"].get<std::string>();
  }
  if (json.contains("clustering") && json["clustering"].is_object()) {
    for (const Json& field :
         json["clustering"].value("fields", Json::array())) {
      if (field.is_string()) {
        info.clustering.push_back(field.get<std::string>());
      }
    }
  }
  return info;
}

}  // namespace

absl::StatusOr<TableInfo> TablesClient::GetTable(
    const TableDestination& table) const {
  absl::StatusOr<http::HttpResponse> response =
      client_.Send({.method = "GET", .path = TablePath(table)});
  if (!response.ok()) return response.status();
  return TableInfoFromJson(response->body, table);
}

absl::StatusOr<TableInfo> TablesClient::CreateTable(
    const TableDestination& table, const TableDefinition& definition) const {
  Json body = {{"tableReference",
                {{"projectId", table.project},
                 {"datasetId", table.dataset},
                 {"tableId", table.table}}},
               {"schema", TableSchemaToJson(definition.schema)}};
  if (definition.time_partitioning.has_value()) {
    const TimePartitioning& partitioning = *definition.time_partitioning;
    Json json = {{"type", absl::AsciiStrToUpper(partitioning.granularity)}};
    if (!partitioning.field.empty()) json["field"] = partitioning.field;
    if (partitioning.expiration.has_value()) {
      json["expirationMs"] =
          absl::StrCat(absl::ToInt64Milliseconds(*partitioning.expiration));
    }
    body["timePartitioning"] = std::move(json);
  }
  if (!definition.primary_key.empty()) {
    body["tableConstraints"] = {
        {"primaryKey", {{"columns", definition.primary_key}}}};
  }
  if (!definition.clustering.empty()) {
    body["clustering"] = {{"fields", definition.clustering}};
  }
  // A plain POST: the service answers a repeat with 409 ALREADY_EXISTS,
  // which the caller treats as the table being there.
  absl::StatusOr<http::HttpResponse> response =
      client_.Send({.method = "POST",
                    .path = TablesPath(table.project, table.dataset),
                    .headers = {"Content-Type: application/json"},
                    .body = body.dump(),
                    .idempotent = true});
  if (!response.ok()) {
    // The REST mapping says 409 is ABORTED; the tables API means "exists".
    if (response.status().code() == absl::StatusCode::kAborted) {
      return absl::AlreadyExistsError(response.status().message());
    }
    return response.status();
  }
  return TableInfoFromJson(response->body, table);
}

absl::StatusOr<TableInfo> TablesClient::PatchSchema(
    const TableDestination& table, const TableSchema& schema) const {
  const Json body = {{"schema", TableSchemaToJson(schema)}};
  absl::StatusOr<http::HttpResponse> response =
      client_.Send({.method = "PATCH",
                    .path = TablePath(table),
                    .headers = {"Content-Type: application/json"},
                    .body = body.dump()});
  if (!response.ok()) return response.status();
  return TableInfoFromJson(response->body, table);
}

absl::StatusOr<std::vector<std::string>> TablesClient::ListTables(
    const std::string& project, const std::string& dataset) const {
  std::vector<std::string> ids;
  std::string page_token;
  do {
    absl::StatusOr<http::HttpResponse> response = client_.Send(
        {.path = absl::StrCat(
             TablesPath(project, dataset),
             page_token.empty() ? "" : "?pageToken=", page_token)});
    if (!response.ok()) return response.status();
    const Json page =
        Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
    if (!page.is_object()) {
      return absl::InternalError(
          absl::StrCat("listing the tables of ", project, ".", dataset,
                       ": the answer is no JSON object"));
    }
    for (const Json& table : page.value("tables", Json::array())) {
      if (table.contains("tableReference") &&
          table["tableReference"].contains("tableId")) {
        ids.push_back(table["tableReference"]["tableId"].get<std::string>());
      }
    }
    page_token = page.value("nextPageToken", std::string());
  } while (!page_token.empty());
  return ids;
}

absl::Status TablesClient::EnsureDataset(const std::string& project,
                                         const std::string& dataset) const {
  const std::string path =
      absl::StrCat("/bigquery/v2/projects/", project, "/datasets");
  const Json body = {
      {"datasetReference", {{"projectId", project}, {"datasetId", dataset}}}};
  absl::StatusOr<http::HttpResponse> response =
      client_.Send({.method = "POST",
                    .path = path,
                    .headers = {"Content-Type: application/json"},
                    .body = body.dump(),
                    .idempotent = true});
  if (response.ok() || response.status().code() == absl::StatusCode::kAborted) {
    return absl::OkStatus();  // Created, or 409: already there.
  }
  return response.status();
}

rest::RestService BigQueryRestService() {
  return {.production_endpoint = "https://bigquery.googleapis.com",
          .emulator_env = "BIGQUERY_EMULATOR_HOST"};
}

absl::StatusOr<TablesClient> TablesClientFor(
    const rest::RestTargetOptions& options) {
  absl::StatusOr<rest::RestClientOptions> client =
      rest::ResolveRestTarget(BigQueryRestService(), options);
  if (!client.ok()) return client.status();
  return TablesClient(rest::RestClient(*std::move(client)));
}

absl::StatusOr<std::string> ParsePartitionGranularity(absl::string_view text) {
  for (const char* granularity : {"DAY", "HOUR", "MONTH", "YEAR"}) {
    if (absl::EqualsIgnoreCase(text, granularity)) return granularity;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown partitioning granularity '", text,
                   "'; accepted: DAY, HOUR, MONTH, YEAR"));
}

}  // namespace gcpstream::bigquery
