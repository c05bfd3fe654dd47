#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_TEST_UTIL_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_TEST_UTIL_H_

// Reading what the BigQuery emulator holds, independently of the sink:
// tabledata.list through the REST API.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/bigquery/tables_client.h"
#include "gcpstream/rest/rest_client.h"
#include "gcpstream/rest/rest_target.h"

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

}  // namespace gcpstream::bigquery::testing

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_TEST_UTIL_H_
