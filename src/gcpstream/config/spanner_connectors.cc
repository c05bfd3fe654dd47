// `type: spanner` for pipeline files: each record becomes one mutation of a
// table (a destination template), its columns taken from record fields and
// typed by the table's schema when the writer encodes them. See
// docs/pipeline-yaml.md.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/destination_template.h"
#include "gcpstream/config/failure_handler_config.h"
#include "gcpstream/config/field_path.h"
#include "gcpstream/config/spanner_mutation_mapping.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "spdlog/spdlog.h"

namespace gcpstream::config {
namespace {

using spanner::Mutation;
using spanner::Operation;

inline constexpr EnumSpelling<Operation> kOperations[] = {
    {"insert", Operation::kInsert},
    {"update", Operation::kUpdate},
    {"insert-or-update", Operation::kInsertOrUpdate},
    {"replace", Operation::kReplace},
    {"delete", Operation::kDelete}};
inline constexpr EnumOption<Operation> kOperationOption("operation",
                                                        kOperations);

// `project`, `instance` and `database` (short ids, as every connector names
// its destination). A full resource name in `database` is the old spelling:
// accepted with a warning, alone.
absl::StatusOr<spanner::DatabaseDestination> ReadDatabase(OptionMap& options) {
  absl::StatusOr<std::string> name = options.RequiredString("database");
  if (!name.ok()) return name.status();
  if (!absl::StrContains(*name, '/')) {
    absl::StatusOr<std::string> project = RequiredProject(options);
    if (!project.ok()) return project.status();
    absl::StatusOr<std::string> instance = options.RequiredString("instance");
    if (!instance.ok()) return instance.status();
    return spanner::DatabaseDestination(*project, *instance, *name);
  }
  std::vector<std::string> parts = absl::StrSplit(*name, '/');
  if (parts.size() != 6 || parts[0] != "projects" || parts[2] != "instances" ||
      parts[4] != "databases") {
    return options.Error(
        "database",
        absl::StrCat("option 'database' is a database id (with 'project' and "
                     "'instance'), or the old spelling "
                     "projects/PROJECT/instances/INSTANCE/databases/DATABASE; "
                     "not '",
                     *name, "'"));
  }
  for (const char* key : {"project", "instance"}) {
    if (options.Has(key)) {
      return options.Error(
          key, absl::StrCat("option '", key,
                            "' is set and 'database' is a full resource "
                            "name; write 'database: ",
                            parts[5], "' with 'project' and 'instance'"));
    }
  }
  spdlog::warn(
      "{}: {}: a full resource name in 'database' is deprecated; write "
      "'project: {}', 'instance: {}', 'database: {}'",
      options.PositionOf("database").ToString(), options.what(), parts[1],
      parts[3], parts[5]);
  return spanner::DatabaseDestination(parts[1], parts[3], parts[5]);
}

absl::StatusOr<MutationMapping> ReadMutationMapping(OptionMap& options) {
  absl::StatusOr<std::string> table = options.RequiredString("table");
  if (!table.ok()) return table.status();
  absl::StatusOr<DestinationTemplate> parsed =
      DestinationTemplate::Parse(*table);
  if (!parsed.ok()) {
    return ConfigError(options.PositionOf("table"),
                       absl::StrCat(options.what(), ": option 'table': ",
                                    parsed.status().message()));
  }
  MutationMapping mapping{.table = *std::move(parsed)};
  if (absl::Status status =
          AssignIfSet(options.Enum(kOperationOption), mapping.operation);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::optional<OptionMap>> columns = options.Map("columns");
  if (!columns.ok()) return columns.status();
  if (!columns->has_value() || (*columns)->Keys().empty()) {
    return ConfigError(
        options.position(),
        absl::StrCat(options.what(),
                     ": option 'columns' is required: a mapping of column "
                     "names to record fields (for a delete, the key columns "
                     "in key order)"));
  }
  for (const std::string& column : (*columns)->Keys()) {
    absl::StatusOr<std::string> text = (*columns)->RequiredString(column);
    if (!text.ok()) return text.status();
    absl::StatusOr<FieldPath> path = FieldPath::Parse(*text);
    if (!path.ok()) {
      return ConfigError((*columns)->PositionOf(column),
                         absl::StrCat((*columns)->what(), ": column '", column,
                                      "': ", path.status().message()));
    }
    mapping.columns.emplace_back(column, *std::move(path));
  }
  return mapping;
}

absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> SpannerSink(
    OptionMap& options, const BuildEnvironment& environment) {
  spanner::SpannerSinkOptions sink;
  sink.name = environment.name;
  absl::StatusOr<spanner::DatabaseDestination> database = ReadDatabase(options);
  if (!database.ok()) return database.status();
  sink.database = *database;
  absl::StatusOr<MutationMapping> mapping = ReadMutationMapping(options);
  if (!mapping.ok()) return mapping.status();
  if (absl::Status read = spanner::SpannerSinkOptionTable().Read(options, sink);
      !read.ok()) {
    return read;
  }
  if (absl::Status valid = spanner::CheckSpannerSinkOptions(sink);
      !valid.ok()) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(), ": ", valid.message()));
  }
  absl::StatusOr<FailureHandlerSpec> handler = ReadFailureHandler(options);
  if (!handler.ok()) return handler.status();
  auto shared = std::make_shared<const MutationMapping>(*std::move(mapping));
  return std::make_shared<spanner::SpannerSink<Record>>(
      sink,
      spanner::SpannerSerializer<Record>(
          [shared](const Record& record, const WriterContext& context)
              -> absl::StatusOr<std::optional<Mutation>> {
            auto mutation = ToMutation(*shared, record, context);
            if (!mutation.ok()) return WithRecord(mutation.status(), record);
            return mutation;
          },
          // Most records skip the typed Mutation (a per-record cost of
          // pipeline files); it is built when a write fails.
          [shared](const Record& record, const WriterContext& context,
                   const spanner::SchemaCatalog& catalog,
                   google::protobuf::Arena& arena) {
            return EncodeWire(*shared, record, context, catalog, arena);
          }),
      MakeFailureHandlerFactory<spanner::SpannerFailedElement>(
          *std::move(handler)));
}

const RegisterSink kSpannerSink("spanner", SpannerSink,
                                {emulators::EmulatorKind::kSpanner});

}  // namespace
}  // namespace gcpstream::config
