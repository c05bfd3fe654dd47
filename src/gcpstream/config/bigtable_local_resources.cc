// `local:` Bigtable tables for `gcpstream run --local`: created with their
// families on the Bigtable emulator before the run; after it, the rows of
// every table of each instance named are counted (so tables the sink
// created itself, e.g. one per day, are reported too). An entry with an
// instance and no table only asks for that report.

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/client_context.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/emulators/provisioning.h"
#include "google/bigtable/admin/v2/bigtable_table_admin.grpc.pb.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"

namespace gcpstream::config {
namespace {

absl::Status BigtableStatus(const grpc::Status& status,
                            absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(what, ": ", status.error_message()));
}

absl::StatusOr<std::vector<std::string>> ListTables(
    const std::shared_ptr<grpc::Channel>& channel,
    const std::string& instance_name) {
  auto admin =
      google::bigtable::admin::v2::BigtableTableAdmin::NewStub(channel);
  google::bigtable::admin::v2::ListTablesRequest request;
  request.set_parent(instance_name);
  request.set_view(google::bigtable::admin::v2::Table::NAME_ONLY);
  std::vector<std::string> names;
  while (true) {
    grpc::ClientContext context;
    google::bigtable::admin::v2::ListTablesResponse response;
    if (absl::Status status = BigtableStatus(
            admin->ListTables(&context, request, &response),
            absl::StrCat("listing the tables of ", instance_name));
        !status.ok()) {
      return status;
    }
    for (const auto& table : response.tables()) names.push_back(table.name());
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  return names;
}

absl::StatusOr<int64_t> CountTableRows(
    const std::shared_ptr<grpc::Channel>& channel,
    const std::string& table_name) {
  auto data = google::bigtable::v2::Bigtable::NewStub(channel);
  grpc::ClientContext context;
  google::bigtable::v2::ReadRowsRequest request;
  request.set_table_name(table_name);
  // Only the keys: the first cell of each row, stripped of its value.
  auto& chain = *request.mutable_filter()->mutable_chain();
  chain.add_filters()->set_cells_per_row_limit_filter(1);
  chain.add_filters()->set_strip_value_transformer(true);
  auto reader = data->ReadRows(&context, request);
  google::bigtable::v2::ReadRowsResponse response;
  int64_t rows = 0;
  while (reader->Read(&response)) {
    for (const auto& chunk : response.chunks()) {
      if (chunk.commit_row()) ++rows;
    }
  }
  if (absl::Status status = BigtableStatus(
          reader->Finish(), absl::StrCat("reading the rows of ", table_name));
      !status.ok()) {
    return status;
  }
  return rows;
}

class BigtableLocalResources final : public LocalResource {
 public:
  struct Table {
    std::string instance;
    std::string table;
    std::vector<std::string> families;
  };

  std::vector<emulators::EmulatorKind> Emulators() const override {
    return {emulators::EmulatorKind::kBigtable};
  }
  std::vector<std::string> Declared() const override {
    std::vector<std::string> lines;
    lines.reserve(tables.size());
    for (const Table& table : tables) {
      lines.push_back(
          table.table.empty()
              ? absl::StrCat("bigtable instance ", table.instance,
                             " (its tables are reported after the run)")
              : absl::StrCat("bigtable table ", table.instance, "/",
                             table.table, " with families ",
                             absl::StrJoin(table.families, ", ")));
    }
    return lines;
  }
  absl::Status Provision(const std::string& project) const override {
    auto channel = auth::MakeChannel(auth::Service::kBigtableAdmin);
    if (!channel.ok()) return channel.status();
    for (const Table& table : tables) {
      if (table.table.empty()) continue;
      if (absl::Status status = emulators::EnsureBigtableTable(
              *channel, project, table.instance, table.table, table.families);
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
      const std::string& project) const override {
    auto channel = auth::MakeChannel(auth::Service::kBigtable);
    if (!channel.ok()) return channel.status();
    std::set<std::string> instances;
    for (const Table& table : tables) instances.insert(table.instance);
    std::vector<std::string> lines;
    for (const std::string& instance : instances) {
      absl::StatusOr<std::vector<std::string>> names = ListTables(
          *channel,
          absl::StrCat("projects/", project, "/instances/", instance));
      if (!names.ok()) return names.status();
      for (const std::string& name : *names) {
        absl::StatusOr<int64_t> rows = CountTableRows(*channel, name);
        if (!rows.ok()) return rows.status();
        lines.push_back(absl::StrCat("bigtable table ", instance, "/",
                                     name.substr(name.rfind('/') + 1), ": ",
                                     *rows, " rows"));
      }
    }
    return lines;
  }

  std::vector<Table> tables;
};

absl::StatusOr<std::shared_ptr<const LocalResource>> ReadBigtableLocal(
    OptionMap& local) {
  absl::StatusOr<std::optional<std::vector<OptionMap>>> entries =
      local.MapList("bigtable-tables");
  if (!entries.ok()) return entries.status();
  if (!entries->has_value() || (*entries)->empty()) {
    return std::shared_ptr<const LocalResource>();
  }
  auto resources = std::make_shared<BigtableLocalResources>();
  for (OptionMap& entry : **entries) {
    BigtableLocalResources::Table table;
    absl::StatusOr<std::string> instance = entry.RequiredString("instance");
    if (!instance.ok()) return instance.status();
    table.instance = *instance;
    for (absl::Status status :
         {AssignIfSet(entry.String("table"), table.table),
          AssignIfSet(entry.StringList("column-families"), table.families),
          entry.CheckNoUnknownKeys()}) {
      if (!status.ok()) return status;
    }
    if (!table.table.empty() && table.families.empty()) {
      return ConfigError(
          entry.position(),
          absl::StrCat(entry.what(),
                       ": option 'column-families' is required: the "
                       "families the table is created with"));
    }
    resources->tables.push_back(std::move(table));
  }
  return std::shared_ptr<const LocalResource>(std::move(resources));
}

const RegisterLocalResource kBigtableLocal("bigtable", ReadBigtableLocal);

}  // namespace
}  // namespace gcpstream::config
