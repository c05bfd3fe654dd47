// `local:` BigQuery datasets for `gcpstream run --local`: created on the
// BigQuery emulator before the run (the sink creates its tables in them);
// after it, the rows of every table of each dataset are counted, so tables
// made per day or per tenant are reported too.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/tables_client.h"
#include "gcpstream/config/connector_registry.h"

namespace gcpstream::config {
namespace {

class BigQueryLocalResources final : public LocalResource {
 public:
  std::vector<emulators::EmulatorKind> Emulators() const override {
    return {emulators::EmulatorKind::kBigQuery};
  }
  std::vector<std::string> Declared() const override {
    std::vector<std::string> lines;
    lines.reserve(datasets.size());
    for (const std::string& dataset : datasets) {
      lines.push_back(absl::StrCat("bigquery dataset ", dataset,
                                   " (its tables are reported after the run)"));
    }
    return lines;
  }
  absl::Status Provision(const std::string& project) const override {
    absl::StatusOr<bigquery::TablesClient> client =
        bigquery::TablesClientFor({});
    if (!client.ok()) return client.status();
    for (const std::string& dataset : datasets) {
      if (absl::Status status = client->EnsureDataset(project, dataset);
          !status.ok()) {
        return absl::Status(status.code(),
                            absl::StrCat("creating bigquery dataset ", dataset,
                                         ": ", status.message()));
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
      const std::string& project) const override {
    absl::StatusOr<bigquery::TablesClient> client =
        bigquery::TablesClientFor({});
    if (!client.ok()) return client.status();
    std::vector<std::string> lines;
    for (const std::string& dataset : datasets) {
      absl::StatusOr<std::vector<std::string>> tables =
          client->ListTables(project, dataset);
      if (!tables.ok()) return tables.status();
      for (const std::string& table : *tables) {
        absl::StatusOr<bigquery::TableInfo> info = client->GetTable(
            bigquery::TableDestination(project, dataset, table));
        if (!info.ok()) return info.status();
        lines.push_back(absl::StrCat("bigquery table ", dataset, ".", table,
                                     ": ", info->num_rows.value_or(0),
                                     " rows"));
      }
    }
    return lines;
  }

  std::vector<std::string> datasets;
};

absl::StatusOr<std::shared_ptr<const LocalResource>> ReadBigQueryLocal(
    OptionMap& local) {
  absl::StatusOr<std::optional<std::vector<OptionMap>>> entries =
      local.MapList("bigquery-datasets");
  if (!entries.ok()) return entries.status();
  if (!entries->has_value() || (*entries)->empty()) {
    return std::shared_ptr<const LocalResource>();
  }
  auto resources = std::make_shared<BigQueryLocalResources>();
  for (OptionMap& entry : **entries) {
    absl::StatusOr<std::string> dataset = entry.RequiredString("dataset");
    if (!dataset.ok()) return dataset.status();
    if (absl::Status status = entry.CheckNoUnknownKeys(); !status.ok()) {
      return status;
    }
    resources->datasets.push_back(*dataset);
  }
  return std::shared_ptr<const LocalResource>(std::move(resources));
}

const RegisterLocalResource kBigQueryLocal("bigquery", ReadBigQueryLocal);

}  // namespace
}  // namespace gcpstream::config
