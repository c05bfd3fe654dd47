// `local:` Spanner databases for `gcpstream run --local`: created with their
// DDL on the Spanner emulator before the run; after it, the rows of each
// table the DDL creates are counted.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"

namespace gcpstream::config {
namespace {

// The table a CREATE TABLE statement creates, or "".
std::string CreatedTable(absl::string_view ddl) {
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(ddl);
  for (absl::string_view word : {"CREATE", "TABLE"}) {
    if (!absl::StartsWithIgnoreCase(rest, word)) return "";
    rest = absl::StripLeadingAsciiWhitespace(rest.substr(word.size()));
  }
  const size_t end = rest.find_first_of(" (\t\n");
  return std::string(rest.substr(0, end));
}

absl::StatusOr<std::string> CountSpannerRows(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& database,
    const std::string& table) {
  absl::StatusOr<std::vector<std::vector<std::string>>> rows =
      emulators::QuerySpanner(channel, database,
                              absl::StrCat("SELECT COUNT(*) FROM ", table));
  if (!rows.ok()) return rows.status();
  if (rows->size() != 1 || rows->front().size() != 1) {
    return absl::UnavailableError(
        absl::StrCat("counting the rows of ", table, " returned no count"));
  }
  return rows->front().front();
}

class SpannerLocalResources final : public LocalResource {
 public:
  struct Database {
    std::string instance;
    std::string database;
    std::vector<std::string> ddl;
    std::vector<std::string> tables;  // From the CREATE TABLE statements.
  };

  std::vector<emulators::EmulatorKind> Emulators() const override {
    return {emulators::EmulatorKind::kSpanner};
  }
  std::vector<std::string> Declared() const override {
    std::vector<std::string> lines;
    lines.reserve(databases.size());
    for (const Database& database : databases) {
      lines.push_back(absl::StrCat("spanner database ", database.instance, "/",
                                   database.database, " with tables ",
                                   absl::StrJoin(database.tables, ", ")));
    }
    return lines;
  }
  absl::Status Provision(const std::string& project) const override {
    auto channel = auth::MakeChannel(auth::Service::kSpanner);
    if (!channel.ok()) return channel.status();
    for (const Database& database : databases) {
      if (absl::Status status = emulators::EnsureSpannerDatabase(
              *channel, project, database.instance, database.database,
              database.ddl);
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
      const std::string& project) const override {
    auto channel = auth::MakeChannel(auth::Service::kSpanner);
    if (!channel.ok()) return channel.status();
    std::vector<std::string> lines;
    for (const Database& database : databases) {
      const std::string name =
          absl::StrCat("projects/", project, "/instances/", database.instance,
                       "/databases/", database.database);
      for (const std::string& table : database.tables) {
        absl::StatusOr<std::string> rows =
            CountSpannerRows(*channel, name, table);
        if (!rows.ok()) return rows.status();
        lines.push_back(absl::StrCat("table ", database.database, ".", table,
                                     ": ", *rows, " rows"));
      }
    }
    return lines;
  }

  std::vector<Database> databases;
};

absl::StatusOr<std::shared_ptr<const LocalResource>> ReadSpannerLocal(
    OptionMap& local) {
  absl::StatusOr<std::optional<std::vector<OptionMap>>> entries =
      local.MapList("spanner-databases");
  if (!entries.ok()) return entries.status();
  if (!entries->has_value() || (*entries)->empty()) {
    return std::shared_ptr<const LocalResource>();
  }
  auto resources = std::make_shared<SpannerLocalResources>();
  for (OptionMap& entry : **entries) {
    SpannerLocalResources::Database database;
    absl::StatusOr<std::string> instance = entry.RequiredString("instance");
    if (!instance.ok()) return instance.status();
    absl::StatusOr<std::string> name = entry.RequiredString("database");
    if (!name.ok()) return name.status();
    database.instance = *instance;
    database.database = *name;
    for (absl::Status status :
         {AssignIfSet(entry.StringList("ddl"), database.ddl),
          entry.CheckNoUnknownKeys()}) {
      if (!status.ok()) return status;
    }
    for (const std::string& statement : database.ddl) {
      if (std::string table = CreatedTable(statement); !table.empty()) {
        database.tables.push_back(std::move(table));
      }
    }
    resources->databases.push_back(std::move(database));
  }
  return std::shared_ptr<const LocalResource>(std::move(resources));
}

const RegisterLocalResource kSpannerLocal("spanner", ReadSpannerLocal);

}  // namespace
}  // namespace gcpstream::config
