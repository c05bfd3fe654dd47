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
#include "gcpstream/spanner/spanner_sink.h"
#include "spdlog/spdlog.h"

namespace gcpstream::config {
namespace {

using spanner::Mutation;
using spanner::Operation;
using spanner::Value;

inline constexpr EnumSpelling<Operation> kOperations[] = {
    {"insert", Operation::kInsert},
    {"update", Operation::kUpdate},
    {"insert-or-update", Operation::kInsertOrUpdate},
    {"replace", Operation::kReplace},
    {"delete", Operation::kDelete}};
inline constexpr EnumOption<Operation> kOperationOption("operation",
                                                        kOperations);

struct MutationMapping {
  DestinationTemplate table;
  Operation operation = Operation::kInsertOrUpdate;
  // Column name and the field it comes from, in file order (for a delete,
  // the key columns in key order).
  std::vector<std::pair<std::string, FieldPath>> columns = {};
};

// A JSON value as the Spanner value it most directly is; the column's type
// decides at encoding whether it fits (integers widen to FLOAT64/NUMERIC,
// text in wire form fits DATE, TIMESTAMP, NUMERIC, JSON and BYTES).
absl::StatusOr<Value> ToValue(const json::JsonValue& json,
                              absl::string_view field) {
  switch (json.type()) {
    case json::JsonType::kNull:
      return Value::NullValue();
    case json::JsonType::kBoolean:
      return Value::Bool(json.boolean());
    case json::JsonType::kInteger:
      return Value::Int64(json.integer());
    case json::JsonType::kUnsigned:  // Always beyond int64.
      return absl::InvalidArgumentError(
          absl::StrCat("field '", field, "' is beyond INT64"));
    case json::JsonType::kFloat:
      return Value::Float64(json.number());
    case json::JsonType::kString: {
      std::string text;
      json.AppendString(text);
      return Value::String(std::move(text));
    }
    case json::JsonType::kObject: {
      std::string text;
      json.AppendCompact(text);
      return Value::JsonValue(std::move(text));
    }
    case json::JsonType::kArray: {
      const std::vector<json::JsonValue> items = json.Elements();
      Value::Array elements;
      elements.reserve(items.size());
      for (const json::JsonValue& item : items) {
        absl::StatusOr<Value> value = ToValue(item, field);
        if (!value.ok()) return value.status();
        elements.push_back(*std::move(value));
      }
      return Value::ArrayOf(std::move(elements));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("field '", field, "' has a type Spanner cannot store"));
}

absl::StatusOr<std::optional<Mutation>> ToMutation(
    const MutationMapping& mapping, const Record& record,
    const WriterContext& context) {
  std::string table;
  if (mapping.table.constant()) {
    table = mapping.table.text();
  } else if (absl::Status named = mapping.table.RenderTo(
                 record, context.event_time.value_or(absl::InfinitePast()),
                 table);
             !named.ok()) {
    return named;
  }
  Mutation mutation = [&] {
    switch (mapping.operation) {
      case Operation::kInsert:
        return Mutation::Insert(std::move(table));
      case Operation::kUpdate:
        return Mutation::Update(std::move(table));
      case Operation::kReplace:
        return Mutation::Replace(std::move(table));
      case Operation::kDelete:
        return Mutation::Delete(std::move(table));
      case Operation::kInsertOrUpdate:
        break;
    }
    return Mutation::InsertOrUpdate(std::move(table));
  }();
  std::vector<Value> key;
  if (mapping.operation == Operation::kDelete) {
    key.reserve(mapping.columns.size());
  } else {
    mutation.Reserve(mapping.columns.size());
  }
  for (const auto& [column, path] : mapping.columns) {
    absl::StatusOr<json::JsonValue> field = path.Find(record);
    if (!field.ok()) return field.status();
    absl::StatusOr<Value> value = ToValue(*field, path.text());
    if (!value.ok()) return value.status();
    if (mapping.operation == Operation::kDelete) {
      key.push_back(*std::move(value));
    } else {
      mutation.Set(column, *std::move(value));
    }
  }
  if (mapping.operation == Operation::kDelete) mutation.Key(std::move(key));
  return std::optional<Mutation>(std::move(mutation));
}

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

absl::StatusOr<MutationMapping> ReadMapping(OptionMap& options) {
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
  absl::StatusOr<MutationMapping> mapping = ReadMapping(options);
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
      [shared](const Record& record, const WriterContext& context)
          -> absl::StatusOr<std::optional<Mutation>> {
        auto mutation = ToMutation(*shared, record, context);
        if (!mutation.ok()) return WithRecord(mutation.status(), record);
        return mutation;
      },
      MakeFailureHandlerFactory<spanner::SpannerFailedElement>(
          *std::move(handler)));
}

const RegisterSink kSpannerSink("spanner", SpannerSink,
                                {emulators::EmulatorKind::kSpanner});

}  // namespace
}  // namespace gcpstream::config
